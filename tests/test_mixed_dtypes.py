"""Kernels whose inputs differ in dtype (issue 31): where's bool condition and two T values.

Written where the checkout's c10/metal kernels read each input in its own dtype (2.13's
*_strided_cast kernels and their `types` argument: HostApi.cast_inputs), refused where they do not.
The tree is the scalar-ops tree with hand-written TensorCompare sources (tests/data/mixed_dtypes).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import tracked_bytes

from mpsgen.errors import MpsgenError
from mpsgen.sources.host.api import cast_input_counts
from scalar_ops_tree import NATIVE
from scalar_ops_tree import migrate as _migrate, read as _read

DATA = Path(__file__).resolve().parent / "data" / "mixed_dtypes"


def _lay(root: Path) -> Path:
    shutil.copyfile(DATA / "TensorCompare.h", root / NATIVE / "TensorCompare.h")
    shutil.copyfile(DATA / "TensorCompare.cpp", root / NATIVE / "TensorCompare.cpp")
    shutil.copyfile(DATA / "TensorCompare.mm", root / NATIVE / "mps/operations/TensorCompare.mm")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "where"], cwd=root, check=True)
    return root


@pytest.fixture()
def where_tree(scalar_tree: Path, wheel_include: Path) -> Path:
    """c10/metal of the torch 2.13 wheel: ternary_strided_cast reads each input in its own dtype."""
    shutil.rmtree(scalar_tree / "c10/metal")
    shutil.copytree(wheel_include / "c10/metal", scalar_tree / "c10/metal")
    return _lay(scalar_tree)


def test_where_is_written_where_the_kernels_cast_each_input(where_tree: Path):
    r = _migrate(where_tree, "where")
    assert r.returncode == 0, r.stderr + r.stdout
    # the condition reaches the functor as T (0 or 1), torch as bool: checked for every dtype
    assert "dtype(s) agree with torch" in r.stdout and "numeric check skipped" not in r.stdout
    metal = _read(where_tree, f"{NATIVE}/mps/kernels/BinaryKernel.metal")
    assert "struct where_functor {" in metal and "return static_cast<T>(a != T(0) ? b : c);" in metal
    for t in ("float", "long", "bool"):
        assert f"REGISTER_TERNARY_OP(where, {t}, {t});" in metal
    mm = _read(where_tree, f"{NATIVE}/mps/operations/BinaryKernel.mm")
    assert 'static void where_mps_kernel(TensorIterator& iter) {\n  lib.exec_ternary_kernel(iter, "where");\n}' in mm
    assert "REGISTER_DISPATCH(where_kernel, &where_mps_kernel)" in mm
    graph = _read(where_tree, f"{NATIVE}/mps/operations/TensorCompare.mm")
    assert "where_kernel_mps" not in graph and "REGISTER_DISPATCH(where_kernel" not in graph
    again = _migrate(where_tree, "where")
    assert again.returncode == 0 and "already on a native Metal kernel" in again.stdout


def test_where_is_refused_where_the_kernels_read_every_input_as_t(scalar_tree: Path):
    root = _lay(scalar_tree)  # the sample's c10/metal: no *_strided_cast kernels
    before = tracked_bytes(root)
    r = _migrate(root, "where")
    assert r.returncode == 2
    assert r.stderr.startswith(f"mpsgen: error: {NATIVE}/TensorCompare.cpp:18: where_self_out builds its "
                               "TensorIterator with check_all_same_dtype(false): its inputs (condition_, self_, "
                               "other_) may differ in dtype, and this checkout's c10/metal has no "
                               "ternary_strided_cast kernel reading each input in its own dtype")
    assert len(r.stderr.strip().splitlines()) == 1 and tracked_bytes(root) == before


CAST = """
template <typename T, typename F>
kernel void binary_strided_cast(device void* out [[buffer(0)]], constant uint4& ndim_types [[buffer(7)]]) {}
template <typename T, typename F>
kernel void ternary_strided_cast(device void* out [[buffer(0)]], constant uint& ndim [[buffer(9)]]) {}
"""


def test_cast_kernels_count_only_with_the_input_types():
    assert cast_input_counts(CAST) == frozenset({2})  # the ternary one here takes no dtypes
    assert cast_input_counts(CAST.replace("constant uint& ndim [[buffer(9)]]", "constant uint4& types")) == {2, 3}
    assert cast_input_counts("// kernel void ternary_strided_cast(constant uint4& types) {}") == frozenset()
    assert cast_input_counts(None) == frozenset()


def test_catalog_bool_inputs_are_input_positions(tmp_path: Path):
    from mpsgen.generate import catalog

    entry = {"arity": "ternary", "expr": "a != T(0) ? b : c", "bool_inputs": [3]}
    with pytest.raises(MpsgenError, match="bool_inputs must list input positions \\(0 to 2\\)"):
        catalog._validate_entry("where", entry, tmp_path / "catalog.yaml")
    catalog._validate_entry("where", {**entry, "bool_inputs": [0]}, tmp_path / "catalog.yaml")
    assert catalog.load_catalog()["where"]["bool_inputs"] == [0]




def test_inputs_a_helper_checks_equal_are_not_mixed():
    # complex_out (tests/data/complex27): check_all_same_dtype(false) for its complex output only, a helper
    # of the same file having checked that the inputs share one dtype
    from mpsgen.sources.native.same_dtype import inputs_checked_same

    text = (DATA.parent / "complex27" / "TensorFactories.cpp").read_text()
    lines = text.split("\n")
    first = lines.index("Tensor& complex_out(const Tensor& real, const Tensor& imag, Tensor& result) {") + 1
    last = lines.index("}", first) + 1
    assert inputs_checked_same("F.cpp", text, first, last, ("real", "imag"))
    unchecked = text.replace("  same_floating_dtype(result, real, imag);\n", "  (void)result;\n")
    assert not inputs_checked_same("F.cpp", unchecked, first, last, ("real", "imag"))
    # checked against the output only: the inputs may still differ
    other = text.replace("same_floating_dtype(result, real, imag)", "same_floating_dtype(imag, result, real)")
    assert not inputs_checked_same("F.cpp", other, first, last, ("real", "imag"))

"""Unary kernels with scalars on PyTorch 2.7 (issue 31): that checkout's exec_unary_kernel(iter, name, extra) passes
one int64_t only (round_decimals' ndigits), and its UnaryKernel.metal is in the TEMPLATE_HOST_NAME layout.  The
change adds `unary_alpha_mps_impl<T>` to UnaryKernel.mm, derived from exec_unary_kernel's definition
(backfill/unary_alpha), and writes the op's template kernel as 2.7's round_decimals_kernel is written: the
scalar (or the op's params struct) a `constant` argument at buffer(2), instantiated by a macro of the op's own.

The tree: the scalar-ops tree with tests/data/tree27's UnaryKernel.metal/.mm, tests/data/binary27 (2.7's binary
files and MetalShaderLibrary.h) and tests/data/unary27/OperationUtils.mm laid over it, all hand-written.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen, only_insertions, tracked_bytes

from mpsgen.errors import MpsgenError
from mpsgen.backfill import unary_alpha as unary_alpha

DATA = Path(__file__).parent / "data"
MPS = "aten/src/ATen/native/mps"
METAL = f"{MPS}/kernels/UnaryKernel.metal"
MM = f"{MPS}/operations/UnaryKernel.mm"
UTILS = f"{MPS}/OperationUtils.mm"


def _lay_2_7(root: Path) -> Path:
    for src, rel in ((DATA / "tree27" / "UnaryKernel.metal", METAL), (DATA / "tree27" / "UnaryKernel.mm", MM),
                     (DATA / "binary27" / "BinaryKernel.metal", f"{MPS}/kernels/BinaryKernel.metal"),
                     (DATA / "binary27" / "BinaryKernel.mm", f"{MPS}/operations/BinaryKernel.mm"),
                     (DATA / "binary27" / "MetalShaderLibrary.h", f"{MPS}/MetalShaderLibrary.h"),
                     (DATA / "unary27" / "OperationUtils.mm", UTILS)):
        shutil.copy(src, root / rel)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "2.7 unary"], cwd=root,
                   check=True, capture_output=True)
    return root


def test_softplus_gets_a_template_kernel_with_its_params_and_the_helper(scalar_tree: Path) -> None:
    root = _lay_2_7(scalar_tree)
    metal_before, mm_before = (root / METAL).read_text(), (root / MM).read_text()
    r = mpsgen("migrate", "softplus", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"numeric check: 3 dtype\(s\) agree with torch\.ops\.aten\.softplus", r.stdout), r.stdout
    api = [ln for ln in r.stdout.splitlines() if ln.startswith("  api ")]
    assert len(api) == 1 and f"{MM}: unary_alpha_mps_impl<T>(iter, name, alpha): {UTILS}'s exec_unary_kernel" in api[0]
    metal, mm = (root / METAL).read_text(), (root / MM).read_text()

    # Metal: round_decimals' shape: the struct, the functor, a template kernel taking the params at buffer(2),
    # a macro of its own naming the params' type per instance (float for half and bfloat: opmath).
    assert metal.index("struct SoftplusParams {") < metal.index("struct softplus_functor") \
        < metal.index("kernel void softplus_kernel(")
    assert ("    constant T1* input [[buffer(1)]],\n    constant T2& params [[buffer(2)]],\n"
            "    uint index [[thread_position_in_grid]]) {\n"
            "  output[index] = static_cast<T0>(softplus_functor()(input[index], params));") in metal
    assert "#define INSTANTIATE_SOFTPLUS_KERNEL(DTYPE0, DTYPE1, DTYPEA)" in metal
    assert "constant DTYPEA& params [[buffer(2)]]," in metal
    assert "INSTANTIATE_SOFTPLUS_KERNEL(half, half, SoftplusParams<float>);" in metal
    assert "#if __METAL_VERSION__ >= 310\nINSTANTIATE_SOFTPLUS_KERNEL(bfloat, bfloat, SoftplusParams<float>);\n#endif" \
        in metal
    kernels2 = metal[metal.index("#define INSTANTIATE_UNARY_KERNELS2"):]
    assert "softplus" not in kernels2[:kernels2.index("\n\n")]  # that macro's kernels take no scalar
    assert only_insertions(metal_before, metal)

    # Host: the helper right after the file's lib, the library call through it, alpha where extra was bound.
    helper = mm[mm.index("template <typename T>\nstatic void unary_alpha_mps_impl("):mm.index("static void exp_kernel")]
    assert mm.index("static auto& lib =") < mm.index("static void unary_alpha_mps_impl(")
    assert "(TensorIteratorBase& iter, const std::string& name, const T alpha) {" in helper
    assert "auto pso = lib.getPipelineStateForFunc(" in helper and "mtl_setArgs<2>(encoder, alpha);" in helper
    assert "extra" not in helper
    assert "template <typename T>\nstruct SoftplusParams {\n  T beta;\n  T threshold;\n};" in mm
    assert "const SoftplusParams<opmath_t> params{beta.to<opmath_t>(), threshold.to<opmath_t>()};" in mm
    assert 'unary_alpha_mps_impl(iter, "softplus", params);' in mm
    assert "REGISTER_DISPATCH(softplus_stub, softplus_mps_kernel);" in mm
    assert only_insertions(mm_before, mm)
    assert not (root / MPS / "kernels" / "Activation.h").exists()

    before = tracked_bytes(root)
    again = mpsgen("migrate", "softplus", "--no-build", "--no-test", cwd=root)
    assert again.returncode == 0 and tracked_bytes(root) == before, again.stdout + again.stderr


def test_the_numeric_check_compiles_the_written_template_kernel(scalar_tree: Path) -> None:
    # The check's translation unit holds the very kernel the .metal gets, instantiated for every registration
    # with the params struct at buffer(2), so a kernel that does not fit its functor fails before anything is written.
    from mpsgen.emulate.compile import driver_source
    from mpsgen.generate.render import render_functor
    from mpsgen.model import KernelSpec

    root = _lay_2_7(scalar_tree)
    assert mpsgen("migrate", "softplus", "--no-build", "--no-test", cwd=root).returncode == 0
    metal = (root / METAL).read_text()
    start = metal.index("template <typename T0, typename T1, typename T2>\nkernel void softplus_kernel(")
    written = metal[start:metal.index("\n}\n", start) + 2]
    spec = KernelSpec("softplus", "unary_params", "x", scalars=("beta", "threshold"), param_type="opmath",
                      layout="TEMPLATE_HOST_NAME")
    driver = driver_source(spec, render_functor(spec), root)
    assert written in driver
    assert ('kernel void softplus_kernel(device half* output [[buffer(0)]], constant half* input [[buffer(1)]], '
            'constant SoftplusParams<float>& params [[buffer(2)]], uint id [[thread_position_in_grid]]);') in driver


def test_the_helper_is_derived_from_exec_unary_kernel_or_refused() -> None:
    mm = (DATA / "tree27" / "UnaryKernel.mm").read_text()
    utils = (DATA / "unary27" / "OperationUtils.mm").read_text()
    added = unary_alpha.add_helper(mm, MM, utils, UTILS)
    assert unary_alpha.add_helper(added, MM, utils, UTILS) == added and only_insertions(mm, added)
    assert added.index("#endif\n\ntemplate <typename T>\nstatic void unary_alpha_mps_impl(") \
        < added.index("static void exp_kernel")
    unbound = utils.replace("    if (extra) {\n      mtl_setBytes(encoder, *extra, 2);\n    }\n", "")
    with pytest.raises(MpsgenError, match="does not bind its extra with one `if \\(extra\\) mtl_setBytes"):
        unary_alpha.add_helper(mm, MM, unbound, UTILS)
    with pytest.raises(MpsgenError, match="no `static auto& lib = ...` followed by kernel functions"):
        unary_alpha.add_helper(mm.replace("static auto& lib =", "auto& library ="), MM, utils, UTILS)

"""Stubs a family borrows or owns (issue 31): renorm's own helper renorm_scale_factor_stub is renorm's
kernel; an MPS-only kernel that already runs bespoke Metal stays a candidate, and migrate replaces it.
(sub passing add_stub -alpha: tests/test_scalar_shapes.py.)  The tree is the scalar-ops tree with
hand-written renorm sources (tests/data/renorm)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen

from mpsgen.sources.host.mm import definitions
from scalar_ops_tree import NATIVE
from scalar_ops_tree import migrate as _migrate, read as _read

DATA = Path(__file__).resolve().parent / "data" / "renorm"
MM_REL = f"{NATIVE}/mps/operations/RenormKernel.mm"
METAL_REL = f"{NATIVE}/mps/kernels/RenormKernel.metal"
UNARY_METAL_REL = f"{NATIVE}/mps/kernels/UnaryKernel.metal"


@pytest.fixture()
def renorm_tree(scalar_tree: Path) -> Path:
    for name in ("Normalization.h", "Normalization.cpp"):
        shutil.copyfile(DATA / name, scalar_tree / NATIVE / name)
    shutil.copyfile(DATA / "RenormKernel.mm", scalar_tree / MM_REL)
    subprocess.run(["git", "add", "-A"], cwd=scalar_tree, check=True)
    subprocess.run(["git", "commit", "-qm", "renorm"], cwd=scalar_tree, check=True)
    return scalar_tree


def test_renorm_helper_stub_is_renorms_kernel(renorm_tree: Path):
    r = _migrate(renorm_tree, "renorm")
    assert r.returncode == 0, r.stderr + r.stdout
    assert "stub      renorm_scale_factor_stub (void(*)(TensorIteratorBase&, double)" in r.stdout
    unary = _read(renorm_tree, f"{NATIVE}/mps/kernels/UnaryKernel.metal")
    assert "struct renorm_functor {" in unary and "inline T operator()(const T x, const T2 maxnorm) {" in unary
    assert "REGISTER_UNARY_ALPHA_OP(renorm, float, float, float);" in unary
    host = _read(renorm_tree, f"{NATIVE}/mps/operations/UnaryKernel.mm")
    assert "static void renorm_mps_kernel(TensorIteratorBase& iter, double maxnorm) {" in host
    assert "REGISTER_DISPATCH(renorm_scale_factor_stub, &renorm_mps_kernel);" in host
    assert "CPU, CUDA, MPS: renorm_out" in _read(renorm_tree, f"{NATIVE}/native_functions.yaml")
    mm = _read(renorm_tree, MM_REL)
    assert "renorm_out_mps" not in mm  # the wrapper and the MPSGraph helper it called
    # the kernel reads the norms renorm_out computes: no torch function to compare it with, said so
    assert "numeric check skipped: renorm's kernel reads tensors the op builds from its arguments" in r.stdout


def test_a_kernel_running_bespoke_metal_is_a_candidate_and_migrate_replaces_it(renorm_tree: Path):
    mm = renorm_tree / MM_REL
    text = mm.read_text()
    start, end = text.index("  @autoreleasepool {"), text.index("} // namespace\n")
    metal = '  auto factorPSO = lib.getPipelineStateForFunc("renorm_" + scalarToMetalTypeString(self));\n}\n\n'
    mm.write_text(text[:start] + metal + text[end:])
    shutil.copyfile(DATA.parent / "retire" / "RenormKernel.metal", renorm_tree / METAL_REL)  # the kernel it runs
    subprocess.run(["git", "add", "-A"], cwd=renorm_tree, check=True)
    subprocess.run(["git", "commit", "-qm", "renorm on Metal"], cwd=renorm_tree, check=True)
    shown = mpsgen("status", "--op", "renorm", cwd=renorm_tree).stdout
    assert "renorm: Metal via _mps name" in shown  # the wrapper runs what its same-named helper runs
    assert "frontier: candidate" in shown and "not a candidate" not in shown
    r = _migrate(renorm_tree, "renorm")
    assert r.returncode == 0, r.stderr + r.stdout
    assert f"{MM_REL}:12: function renorm_out_mps (bespoke Metal, not through the stub)" in r.stdout
    assert f"{MM_REL}:18: TORCH_IMPL_FUNC renorm_out_mps (bespoke Metal, not through the stub)" in r.stdout
    assert "float32    served by bespoke Metal" in r.stdout
    assert "renorm_out_mps" not in _read(renorm_tree, MM_REL)
    # its bespoke kernel, run by nothing else, goes: the new kernel takes the name
    assert (f"{METAL_REL}:14: #define REGISTER_RENORM_OP and its calls (instances of renorm only, which no host "
            "runs any more)") in r.stdout
    assert _read(renorm_tree, METAL_REL) == "#include <metal_stdlib>\nusing namespace metal;\n"
    assert "REGISTER_UNARY_ALPHA_OP(renorm, float, float, float);" in _read(renorm_tree, UNARY_METAL_REL)


def test_a_bespoke_kernel_another_host_still_runs_stays_and_the_new_kernel_takes_its_own_name(renorm_tree: Path):
    """polygamma_out_mps runs 2.7's Gamma.metal digamma after digamma_out_mps goes: never a duplicate host name."""
    shutil.copyfile(DATA.parent / "retire" / "RenormKernel.metal", renorm_tree / METAL_REL)
    other = renorm_tree / f"{NATIVE}/mps/operations/Other.mm"
    other.write_text('static void other() {\n  lib.getPipelineStateForFunc("renorm_" + std::string("float"));\n}\n')
    subprocess.run(["git", "add", "-A"], cwd=renorm_tree, check=True)
    subprocess.run(["git", "commit", "-qm", "another host runs renorm_"], cwd=renorm_tree, check=True)
    r = _migrate(renorm_tree, "renorm")
    assert r.returncode == 0, r.stderr + r.stdout
    assert (f"the bespoke kernel 'renorm' stays: {NATIVE}/mps/operations/Other.mm:2 still runs it, and kernel names "
            "are global; the new kernel is 'renorm_ti'") in r.stdout
    assert _read(renorm_tree, METAL_REL) == (DATA.parent / "retire" / "RenormKernel.metal").read_text()
    assert "REGISTER_UNARY_ALPHA_OP(renorm_ti, float, float, float);" in _read(renorm_tree, UNARY_METAL_REL)


def test_a_wrapper_has_the_backend_of_its_same_named_helper():
    text = (DATA / "RenormKernel.mm").read_text()
    kinds = {(d.impl.form, d.name): d.impl.backend for d in definitions("R.mm", text)}
    assert kinds[("function", "renorm_out_mps")] == "mpsgraph"
    assert kinds[("TORCH_IMPL_FUNC", "renorm_out_mps")] == "mpsgraph"
    alone = text.replace("  renorm_out_mps(self, p, dim, maxnorm, out);\n", "  other(self);\n")
    kinds = {(d.impl.form, d.name): d.impl.backend for d in definitions("R.mm", alone)}
    assert kinds[("TORCH_IMPL_FUNC", "renorm_out_mps")] == "unknown"


def test_borrowed_stub_on_strings():
    from mpsgen.sources.native.shared_impl import StubCall, borrowed_stub

    families = {"add", "sub", "renorm", "threshold", "threshold_backward"}.__contains__
    assert borrowed_stub(StubCall("add_stub", 3, None, ("-alpha",)), "sub", families) == "add"
    assert borrowed_stub(StubCall("add_stub", 3, None, ("alpha",)), "sub", families) == ""  # passed on as is
    assert borrowed_stub(StubCall("threshold_stub", 3, None, ("threshold", "0")), "threshold_backward", families) == ""
    assert borrowed_stub(StubCall("renorm_scale_factor_stub", 3, None, ("maxnorm.toDouble()",)), "renorm",
                         families) == ""  # renorm's own helper
    # named after another op the yaml lacks: still that op's (a trimmed yaml)
    assert borrowed_stub(StubCall("mul_stub", 3, None, ("-alpha",)), "sub", families) == "mul"
    assert borrowed_stub(StubCall("add_stub", 3), "sub", families) == ""  # no arguments: the same function

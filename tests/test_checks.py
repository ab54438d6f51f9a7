"""`mpsgen check`: one test per rule on a sample tree broken in exactly that way, output formats,
path filtering, and the real-wheel tree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mpsgen.lint import report
from mpsgen.sources import testlists
from mpsgen.tree.checkout import CMI_REL, COMMON_MPS_REL, OPINFO_DEFS_REL, YAML_REL, Checkout
from mpsgen.lint.rules import run_checks
from mpsgen.cli import main
from mpsgen.lint.inventory import Inventory

OPS = "aten/src/ATen/native/mps/operations"
KERNELS = "aten/src/ATen/native/mps/kernels"


# -- helpers --------------------------------------------------------------------------------


@pytest.fixture()
def tree(sample_tree: Path) -> Path:
    return sample_tree


def findings(root: Path) -> list[report.Finding]:
    return run_checks(Inventory(Checkout(root)))


def edit(root: Path, rel: str, old: str, new: str, count: int = 1) -> None:
    p = root / rel
    text = p.read_text()
    assert text.count(old) == count, f"{old!r} occurs {text.count(old)} times in {rel}"
    p.write_text(text.replace(old, new))


def line_of(root: Path, rel: str, needle: str, nth: int = 0) -> int:
    lines = [k for k, ln in enumerate((root / rel).read_text().splitlines(), 1) if needle in ln]
    return lines[nth]


def only(found: list[report.Finding]) -> report.Finding:
    assert len(found) == 1, report.render(found)
    return found[0]


# -- the clean tree -------------------------------------------------------------------------


def test_clean_sample_has_no_findings(tree: Path):
    assert findings(tree) == []


def test_every_common_mps_key_of_the_sample_names_an_opinfo(tree: Path):
    # Cross-check with the exact (slow) reader: the stale-xfail rule has nothing to find either.
    defs = {p.name: p.read_text() for p in (tree / OPINFO_DEFS_REL).glob("*.py") if p.name != "__init__.py"}
    assert testlists.stale_keys((tree / COMMON_MPS_REL).read_text(), (tree / CMI_REL).read_text(), defs) == []


# -- one test per rule ----------------------------------------------------------------------


def test_split_family(tree: Path):
    # A half-done (two-step) migration: exp_stub already runs the Metal kernel on MPS
    # (REGISTER_UNARY_TI_DISPATCH(exp)), but exp.out still dispatches MPS to an MPSGraph kernel.
    edit(tree, YAML_REL, "    CPU, CUDA, MPS: exp_out\n", "    CPU, CUDA: exp_out\n    MPS: exp_out_mps\n")
    edit(tree, f"{OPS}/UnaryOps.mm", "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)\n",
         "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)\n"
         "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(exp_out_mps, exponent)\n")
    f = only(findings(tree))
    assert (f.code, f.path, f.line, f.col) == ("MPS001", YAML_REL, line_of(tree, YAML_REL, "MPS: exp_out_mps"), 5)
    assert f.severity == "warning"
    assert "exp.out dispatches MPS to the MPS-only exp_out_mps" in f.message
    assert f"exp_stub, which its CPU/CUDA kernel exp_out calls, is registered for MPS at {OPS}/UnaryKernel.mm:" in f.message
    assert "mpsgen migrate exp" in f.hint


def test_split_family_sibling_shares_the_stub(tree: Path):
    # logical_xor_ was moved to a shared kernel that calls logical_xor_stub while logical_xor.out,
    # whose CPU/CUDA kernel calls the same stub, still calls logical_xor_out_mps (and no Metal kernel yet).
    edit(tree, YAML_REL, "    CompositeExplicitAutograd: logical_xor_\n", "    CPU, CUDA, MPS: logical_xor_\n")
    edit(tree, "aten/src/ATen/native/BinaryOps.cpp", "  return at::logical_xor_out(self, self, other);",
         "  return comparison_op_out(self, self, other, logical_xor_stub);")
    found = {f.code: f for f in findings(tree)}
    assert sorted(found) == ["MPS001", "MPS005"]
    f = found["MPS001"]
    assert (f.path, f.line) == (YAML_REL, line_of(tree, YAML_REL, "MPS: logical_xor_out_mps"))
    assert "logical_xor_ (line" in f.message and "calls the same logical_xor_stub" in f.message
    assert found["MPS005"].line == line_of(tree, YAML_REL, "CPU, CUDA, MPS: logical_xor_")


# Real shapes of families split on purpose (each compiles and runs): no finding.
SILENT_SPLITS = {
    # remainder: remainder.Scalar_Tensor is a composite-style `remainder` listed for CPU, CUDA, MPS that
    # calls other ops (no stub); remainder.Tensor_out keeps its MPS-only kernel.
    "composite sibling (remainder)": [
        (YAML_REL, "    CompositeExplicitAutograd: logical_xor_\n", "    CPU, CUDA, MPS: logical_xor_\n"),
    ],
    # set_ / _ctc_loss: CPU and CUDA use different kernels, so there is no kernel MPS could share.
    "CPU and CUDA differ (set_, _ctc_loss)": [
        (YAML_REL, "    CompositeExplicitAutograd: logical_xor_\n", "    CPU, CUDA, MPS: logical_xor_\n"),
        (YAML_REL, "    CPU, CUDA: logical_xor_out\n", "    CPU: logical_xor_out\n    CUDA: logical_xor_out_cuda\n"),
    ],
    # pow: pow.Tensor_Scalar_out shares a kernel calling pow_tensor_scalar_stub; pow.Scalar_out keeps its own MPS
    # kernel, and its CPU/CUDA kernel calls another op, not a stub.
    "sibling calls another stub (pow)": [
        (YAML_REL, "    CompositeExplicitAutograd: logical_xor_\n", "    CPU, CUDA, MPS: logical_xor_\n"),
        ("aten/src/ATen/native/BinaryOps.cpp", "  return at::logical_xor_out(self, self, other);",
         "  return comparison_op_out(self, self, other, hypot_stub);"),
    ],
    # sgn: sgn_out calls sgn_stub for complex inputs and sign_stub otherwise; with only sign_stub registered
    # for MPS, routing sgn.out to sgn_out would break complex inputs, so its MPS-only kernel stays.
    "shared kernel also calls a stub MPS does not run (sgn)": [
        (YAML_REL, "    CPU, CUDA, MPS: exp_out\n", "    CPU, CUDA: exp_out\n    MPS: exp_out_mps\n"),
        (f"{OPS}/UnaryOps.mm", "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)\n",
         "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)\n"
         "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(exp_out_mps, exponent)\n"),
        ("aten/src/ATen/native/UnaryOps.cpp", "CREATE_UNARY_TORCH_IMPL_FUNC(exp_out, exp_stub)\n",
         "TORCH_IMPL_FUNC(exp_out) (const Tensor& self, const Tensor& result) {\n"
         "  if (self.is_complex()) {\n    abs_stub(device_type(), *this);\n  } else {\n"
         "    exp_stub(device_type(), *this);\n  }\n}\n"),
    ],
    # isin: isin.Tensor_Tensor_out's CPU/CUDA kernel calls isin_default_stub, which MPS does not run:
    # a candidate at most (not even pointwise), not a half-done migration.
}


@pytest.mark.parametrize("name", sorted(SILENT_SPLITS))
def test_deliberate_splits_are_silent(tree: Path, name: str):
    for rel, old, new in SILENT_SPLITS[name]:
        edit(tree, rel, old, new)
    assert [f.code for f in findings(tree) if f.code == "MPS001"] == []


def test_fallback_wrapper_calling_the_stub_is_silent(tree: Path):
    # log ops kept `MPS: log_out_mps`, a wrapper that calls the Metal stub on macOS >= 14 and MPSGraph before.
    edit(tree, YAML_REL, "    CPU, CUDA, MPS: exp_out\n", "    CPU, CUDA: exp_out\n    MPS: exp_out_mps\n")
    wrapper = ("\nTORCH_IMPL_FUNC(exp_out_mps)(const Tensor& self, const Tensor& output) {\n"
               "  if (is_macos_13_or_newer(MacOSVersion::MACOS_VER_14_0_PLUS)) {\n"
               "    exp_stub(kMPS, *this);\n    return;\n  }\n"
               "  mps::unary_op(self, output, \"exp_out_mps\", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* inputTensor) {\n"
               "    return [mpsGraph exponentWithTensor:inputTensor name:nil];\n  });\n}\n")
    edit(tree, f"{OPS}/UnaryOps.mm", "\n} // namespace at::native", wrapper + "\n} // namespace at::native")
    assert findings(tree) == []


def test_duplicate_key_leftover_legacy_line(tree: Path):
    # A migration that added MPS to the shared line but left the legacy line: the legacy one wins.
    edit(tree, YAML_REL, "    CPU, CUDA: atan2_out\n", "    CPU, CUDA, MPS: atan2_out\n")
    f = only(findings(tree))
    legacy = line_of(tree, YAML_REL, "MPS: atan2_out_mps")
    assert (f.code, f.path, f.line, f.col) == ("MPS002", YAML_REL, legacy, 5)
    assert "atan2_out_mps" in f.message and f"delete the MPS: line at {YAML_REL}:{legacy}" == f.hint


def test_duplicate_key_two_shared_lines_points_at_the_lone_mps_line(tree: Path):
    edit(tree, YAML_REL, "    CPU, CUDA, MPS: hypot_out\n", "    CPU, CUDA, MPS: hypot_out\n    MPS: hypot_out\n")
    f = only(findings(tree))
    assert (f.code, f.line) == ("MPS002", line_of(tree, YAML_REL, "    MPS: hypot_out"))


def test_missing_implementation(tree: Path):
    edit(tree, f"{OPS}/UnaryOps.mm", "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)\n", "")
    f = only(findings(tree))
    line = line_of(tree, YAML_REL, "MPS: asinh_out_mps")
    assert (f.code, f.path, f.line, f.col) == ("MPS003", YAML_REL, line, 10)
    assert f.severity == "error" and "asinh_out_mps" in f.message


DEAD_BLOCK = """
TORCH_IMPL_FUNC(sinh_out_mps)(const Tensor& self, const Tensor& output) {
  mps::unary_op(self, output, "sinh_out_mps", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* inputTensor) {
    return [mpsGraph sinhWithTensor:inputTensor name:nil];
  });
}
"""


@pytest.mark.parametrize(
    "added, needle, col",
    [
        (DEAD_BLOCK, "TORCH_IMPL_FUNC(sinh_out_mps)", 1),
        ("\n  CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(acosh_out_mps, acosh)\n", "(acosh_out_mps, acosh)", 3),
    ],
)
def test_dead_implementation(tree: Path, added: str, needle: str, col: int):
    edit(tree, f"{OPS}/UnaryOps.mm", "\n} // namespace at::native", added + "\n} // namespace at::native")
    f = only(findings(tree))
    assert (f.code, f.path, f.line, f.col) == ("MPS004", f"{OPS}/UnaryOps.mm", line_of(tree, f"{OPS}/UnaryOps.mm", needle), col)
    assert f.severity == "error" and "not named by any native_functions.yaml entry" in f.message
    assert "does not compile" in f.message and f.rests_on[0].path == YAML_REL  # the yaml line's removal made it


def test_unused_static_helper_is_not_dead(tree: Path):
    helper = "\nstatic void old_helper_mps(MPSGraph* mpsGraph) {\n  [mpsGraph description];\n}\n"
    edit(tree, f"{OPS}/UnaryOps.mm", "\n} // namespace at::native", helper + "\n} // namespace at::native")
    assert findings(tree) == []


def test_stub_not_registered(tree: Path):
    edit(tree, f"{OPS}/BinaryKernel.mm", "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n", "")
    f = only(findings(tree))
    assert (f.code, f.path, f.line) == ("MPS005", YAML_REL, line_of(tree, YAML_REL, "CPU, CUDA, MPS: hypot_out"))
    assert f.col == len("    CPU, CUDA, MPS: ") + 1
    assert "hypot_stub" in f.message and "aten/src/ATen/native/BinaryOps.cpp" in f.message


def test_status_calls_a_family_with_an_unregistered_stub_half_done_and_a_candidate(tree: Path):
    # The state `check` reports as MPS005 is not "native Metal": status says so, and migrate --all picks it up.
    from mpsgen.commands.migrate_all import candidate_units
    from mpsgen.lint.status import dashboard, render_dashboard

    edit(tree, f"{OPS}/BinaryKernel.mm", "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n", "")
    board = dashboard(Inventory(Checkout(tree)))
    row = next(r for r in board.rows if r.name == "hypot")
    assert row.state.state == "stub unregistered" and row.frontier is not None and row.frontier.candidate
    assert "shares hypot_out with MPS, but no operations/*.mm registers hypot_stub (MPS005)" == row.state.why
    assert board.frontier_totals()["stub unregistered"] == 1
    text = render_dashboard(board, "table")
    assert "1 half-done families route MPS to a stub no .mm registers (MPS005)" in text
    assert ("hypot",) in candidate_units(Checkout(tree))


def test_every_stub_a_shared_kernel_calls_must_be_registered(tree: Path):
    # sgn_out calls sgn_stub for complex inputs and sign_stub otherwise: registering one is not enough.
    edit(tree, "aten/src/ATen/native/BinaryOps.cpp", "CREATE_BINARY_TORCH_IMPL_FUNC(hypot_out, hypot_stub)\n",
         "TORCH_IMPL_FUNC(hypot_out) (const Tensor& self, const Tensor& other, const Tensor& result) {\n"
         "  if (isFloatingType(self.scalar_type())) {\n    hypot_stub(device_type(), *this);\n"
         "  } else {\n    huber_stub(device_type(), *this);\n  }\n}\n")
    f = only(findings(tree))
    assert (f.code, f.line) == ("MPS005", line_of(tree, YAML_REL, "CPU, CUDA, MPS: hypot_out"))
    assert "calls hypot_stub, huber_stub" in f.message and "registers huber_stub for MPS" in f.message
    # status calls hypot a half-done candidate, so the hint is migrate's (which then asks for huber's body)
    assert f.hint == ("run `mpsgen migrate hypot` to write the Metal kernel and its registration (or restore "
                      "REGISTER_DISPATCH(huber_stub, ...) if it was deleted)")


def test_unknown_shared_kernel_is_not_reported(tree: Path):
    # A shared kernel the .cpp files do not define: its stub cannot be determined, so no noise.
    edit(tree, YAML_REL, "    CPU, CUDA: heaviside_out\n", "    CPU, CUDA, MPS: heaviside_out_elsewhere\n")
    assert findings(tree) == []


def test_stub_registered_twice(tree: Path):
    edit(tree, f"{OPS}/UnaryOps.mm", "\n} // namespace at::native", "\nREGISTER_MPS_UNARY_STUB(exp, exponent);\n\n} // namespace at::native")
    f = only(findings(tree))
    assert (f.code, f.path, f.line) == ("MPS006", f"{OPS}/UnaryOps.mm", line_of(tree, f"{OPS}/UnaryOps.mm", "REGISTER_MPS_UNARY_STUB(exp"))
    assert "exp_stub" in f.message and f"{OPS}/UnaryKernel.mm" in f.message


def test_host_kernel_name_unregistered(tree: Path):
    edit(tree, f"{OPS}/BinaryKernel.mm", 'exec_binary_kernel(iter, "copysign")', 'exec_binary_kernel(iter, "copysgn")')
    f = only(findings(tree))
    line = line_of(tree, f"{OPS}/BinaryKernel.mm", '"copysgn"')
    col = (tree / OPS / "BinaryKernel.mm").read_text().splitlines()[line - 1].index('"copysgn"') + 1
    assert (f.code, f.path, f.line, f.col) == ("MPS007", f"{OPS}/BinaryKernel.mm", line, col)
    assert "'copysgn'" in f.message


SPECIAL_MM = """\
#include <ATen/native/UnaryOps.h>
#include <ATen/native/mps/OperationUtils.h>

namespace at::native {
#ifndef PYTORCH_JIT_COMPILE_SHADERS
static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();
#else
#include <ATen/native/mps/SpecialOps_metallib.h>
#endif

static void i0_kernel_mps(TensorIteratorBase& iter) {
  lib.exec_unary_kernel(iter, "i0");
}

REGISTER_DISPATCH(special_i0_stub, &i0_kernel_mps);
} // namespace at::native
"""


def add_template_special_ops(tree: Path, metal_stem: str = "SpecialOps") -> None:
    # The early-2025 layout: template kernels registered by host_name instantiations in a local macro.
    from test_metal_names import TEMPLATE_SPECIAL

    (tree / KERNELS / f"{metal_stem}.metal").write_text(TEMPLATE_SPECIAL)
    (tree / OPS / "SpecialOps.mm").write_text(SPECIAL_MM)


def test_template_host_name_kernels_are_registered(tree: Path):
    add_template_special_ops(tree)
    assert findings(tree) == []


def test_template_host_name_kernel_misspelt_on_the_host(tree: Path):
    add_template_special_ops(tree)
    edit(tree, f"{OPS}/SpecialOps.mm", '"i0"', '"i00"')
    f = only(findings(tree))
    assert (f.code, f.path, f.line) == ("MPS007", f"{OPS}/SpecialOps.mm", line_of(tree, f"{OPS}/SpecialOps.mm", '"i00"'))


def test_template_host_name_kernel_in_the_wrong_metal_file(tree: Path):
    add_template_special_ops(tree, metal_stem="Special")
    f = only(findings(tree))
    metal = f"{KERNELS}/Special.metal"
    assert (f.code, f.path, f.line) == ("MPS009", metal, line_of(tree, metal, '"i0_" #DTO'))
    assert "SpecialOps.metal" in f.message


def test_functor_never_registered(tree: Path):
    functor = "struct sinh_functor {\n  template <typename T>\n  inline T operator()(const T x) {\n    return T(precise::sinh(x));\n  }\n};\n\n"
    edit(tree, f"{KERNELS}/UnaryKernel.metal", "struct exp_functor {", functor + "struct exp_functor {")
    f = only(findings(tree))
    assert (f.code, f.path, f.line) == ("MPS008", f"{KERNELS}/UnaryKernel.metal", line_of(tree, f"{KERNELS}/UnaryKernel.metal", "struct sinh_functor"))


def test_kernel_registered_in_the_wrong_metal_file(tree: Path):
    edit(tree, f"{KERNELS}/BinaryKernel.metal", "REGISTER_FLOAT_BINARY_OP(hypot);\n", "")
    edit(tree, f"{KERNELS}/UnaryKernel.metal", "INSTANTIATE_UNARY_KERNELS_VEC2(half);\n",
         "INSTANTIATE_UNARY_KERNELS_VEC2(half);\nREGISTER_UNARY_OP(hypot, float, float);\n")
    f = only(findings(tree))
    metal = f"{KERNELS}/UnaryKernel.metal"
    assert (f.code, f.path, f.line) == ("MPS009", metal, line_of(tree, metal, "REGISTER_UNARY_OP(hypot"))
    assert f"{OPS}/BinaryKernel.mm" in f.message and "BinaryKernel.metal" in f.hint


def test_stale_xfail(tree: Path):
    edit(tree, COMMON_MPS_REL, '"heaviside": None,', '"heavyside": None,')
    f = only(findings(tree))
    line = line_of(tree, COMMON_MPS_REL, '"heavyside"')
    col = (tree / COMMON_MPS_REL).read_text().splitlines()[line - 1].index('"heavyside"') + 1
    assert (f.code, f.path, f.line, f.col) == ("MPS010", COMMON_MPS_REL, line, col)
    assert "UNIMPLEMENTED_XFAILLIST" in f.message and "did you mean 'heaviside'" in f.hint


# -- CLI: formats, exit codes, paths ----------------------------------------------------------


def run(root: Path, *args: str):
    return CliRunner().invoke(main, ["-C", str(root), "check", *args])


def break_two_files(tree: Path) -> None:
    edit(tree, f"{OPS}/UnaryOps.mm", "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)\n", "")  # MPS003 (yaml)
    edit(tree, COMMON_MPS_REL, '"heaviside": None,', '"heavyside": None,')  # MPS010 (common_mps.py)


def test_cli_clean_exit_0(tree: Path):
    r = run(tree)
    assert r.exit_code == 0 and r.output == "No problems found.\n"


def test_cli_text_and_exit_1_on_errors(tree: Path):
    break_two_files(tree)
    r = run(tree)
    assert r.exit_code == 1
    lines = r.output.splitlines()
    assert lines[0].startswith(f"{YAML_REL}:") and " MPS003 " in lines[0]
    assert lines[1].startswith(f"{COMMON_MPS_REL}:") and " MPS010 " in lines[1]
    assert lines[2] == "Found 1 error and 1 warning."


def test_cli_warnings_alone_exit_0(tree: Path):
    edit(tree, COMMON_MPS_REL, '"heaviside": None,', '"heavyside": None,')
    assert run(tree).exit_code == 0


def test_cli_json_and_github(tree: Path):
    break_two_files(tree)
    r = run(tree, "--format", "json")
    doc = json.loads(r.output)
    assert r.exit_code == 1 and doc["summary"] == {"errors": 1, "warnings": 1}
    assert [f["code"] for f in doc["findings"]] == ["MPS003", "MPS010"]
    g = run(tree, "--format", "github")
    assert g.exit_code == 1 and g.output.startswith(f"::error file={YAML_REL},line=")


def test_cli_lintrunner_always_0_absolute_paths(tree: Path):
    break_two_files(tree)
    r = run(tree, "--format", "lintrunner")
    msgs = [json.loads(ln) for ln in r.output.splitlines()]
    assert r.exit_code == 0 and {m["name"] for m in msgs} == {"MPS003", "MPS010"}
    assert all(Path(m["path"]).is_absolute() and Path(m["path"]).is_file() for m in msgs)


def test_cli_paths_narrow_the_report(tree: Path, monkeypatch):
    break_two_files(tree)
    monkeypatch.chdir(tree)
    r = run(tree, COMMON_MPS_REL)
    assert r.exit_code == 0 and " MPS010 " in r.output and "MPS003" not in r.output
    # The MPS003 in the yaml rests on every MPS source (any could define the kernel): a .mm names it.
    r = run(tree, f"{OPS}/BinaryKernel.mm")
    assert r.exit_code == 1 and " MPS003 " in r.output and f"[rests on {OPS}/BinaryKernel.mm]" in r.output
    assert r.output.startswith(f"{YAML_REL}:") and "MPS010" not in r.output
    r = run(tree, "aten/src/ATen/native/mps/kernels/BinaryKernel.metal")
    assert r.exit_code == 0 and r.output == "No problems found.\n"


def test_cli_at_file_lists_paths(tree: Path, monkeypatch):
    break_two_files(tree)
    monkeypatch.chdir(tree)
    (tree / "paths.txt").write_text(f"{YAML_REL}\n")
    r = run(tree, "@paths.txt")
    assert r.exit_code == 1 and " MPS003 " in r.output and "MPS010" not in r.output
    (tree / "empty.txt").write_text("")
    assert run(tree, "@empty.txt").output == "No problems found.\n"


def test_cli_missing_at_file_is_a_user_error(tree: Path):
    r = run(tree, "@/nonexistent/paths.txt")
    assert r.exit_code == 2 and "file not found" in r.output and "Traceback" not in r.output


# -- the real wheel's files with the sample's sources ---------------------------------------


def build_real_tree(root: Path, yaml: Path, testing: Path) -> Path:
    shutil.copyfile(yaml, root / YAML_REL)
    shutil.copyfile(testing / "common_mps.py", root / COMMON_MPS_REL)
    shutil.copyfile(testing / "common_methods_invocations.py", root / CMI_REL)
    shutil.rmtree(root / OPINFO_DEFS_REL)
    shutil.copytree(testing / "opinfo" / "definitions", root / OPINFO_DEFS_REL,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture()
def real_tree(sample_tree: Path, real_yaml_path: Path, real_testing_dir: Path) -> Path:
    return build_real_tree(sample_tree, real_yaml_path, real_testing_dir)


def test_real_tree_findings(real_tree: Path):
    found = findings(real_tree)
    by_code: dict[str, list[report.Finding]] = {}
    for f in found:
        by_code.setdefault(f.code, []).append(f)
    # The sample's .mm files define a handful of the ~290 legacy kernels: the rest are missing there.
    assert len(by_code["MPS003"]) > 250
    assert not any("asinh_out_mps" in f.message for f in by_code["MPS003"])  # the sample defines it
    # atan2 is shared in the 2.13 yaml, and the sample's BinaryKernel.mm does not register atan2_stub.
    (atan2,) = [f for f in by_code["MPS005"] if "atan2.out" in f.message]
    assert "atan2_stub" in atan2.message
    # ... so the sample's MPSGraph TORCH_IMPL_FUNC(atan2_out_mps) is dead there.
    assert [f.message.split()[0] for f in by_code["MPS004"]] == ["TORCH_IMPL_FUNC(atan2_out_mps)"]
    # pow.Scalar_out keeps its own MPS kernel beside the shared pow.Tensor_Scalar_out: a deliberate upstream
    # split, silent since MPS001 only reports overloads that could share a stub MPS already runs.
    assert "MPS001" not in by_code
    # Stale keys of the real common_mps.py; signal.windows.* (named through a helper) are not flagged.
    stale = {f.message.split("'")[1] for f in by_code["MPS010"]}
    assert {"symeig", "segment.reduce"} <= stale
    assert not any(k.startswith("signal.windows") for k in stale)
    assert not by_code.get("MPS002") and not by_code.get("MPS006")


def test_real_tree_cli_does_not_crash(real_tree: Path):
    r = run(real_tree, "--format", "json")
    assert r.exit_code == 1 and json.loads(r.output)["summary"]["errors"] > 250

"""`mpsgen check` as a gate: a path-filtered run reports every finding resting on a named file,
every era's host calls are read, malformed inputs are errors, and gradual adoption (select,
ignore, inline suppression, baseline).  Faults injected into the sample tree one at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mpsgen.cli import main
from mpsgen.lint.host_calls import kernel_calls
from mpsgen.sources.metal.names import registered_input_types
from mpsgen.tree.checkout import COMMON_MPS_REL, YAML_REL

from test_checks import KERNELS, OPS, edit, line_of


@pytest.fixture()
def tree(sample_tree: Path) -> Path:
    return sample_tree


def check(root: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["-C", str(root), "check", "--no-cache", *args])


# -- a finding rests on the files that produced it -------------------------------------------


def test_deleted_register_dispatch_is_reported_for_the_mm_it_was_deleted_from(tree: Path, monkeypatch):
    edit(tree, f"{OPS}/BinaryKernel.mm", "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n", "")
    monkeypatch.chdir(tree)
    r = check(tree, f"{OPS}/BinaryKernel.mm")
    yaml_line = line_of(tree, YAML_REL, "CPU, CUDA, MPS: hypot_out")
    # Its own place is kept (the yaml line that routes MPS to the stub); the named file is said.
    assert r.exit_code == 1, r.output
    assert r.output.startswith(f"{YAML_REL}:{yaml_line}:") and " MPS005 " in r.output
    assert f"[rests on {OPS}/BinaryKernel.mm]" in r.output
    # A file the finding does not rest on reports nothing.
    assert check(tree, f"{KERNELS}/UnaryKernel.metal").output == "No problems found.\n"


def test_lintrunner_and_github_show_it_in_the_changed_file(tree: Path, monkeypatch):
    edit(tree, f"{OPS}/BinaryKernel.mm", "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n", "")
    monkeypatch.chdir(tree)
    yaml_line = line_of(tree, YAML_REL, "CPU, CUDA, MPS: hypot_out")
    (msg,) = [json.loads(x) for x in check(tree, "--format=lintrunner", f"{OPS}/BinaryKernel.mm").output.splitlines()]
    assert msg["path"] == str((tree / OPS / "BinaryKernel.mm").resolve()) and msg["line"] == 1
    assert msg["name"] == "MPS005" and msg["description"].startswith(f"{YAML_REL}:{yaml_line}:")
    gh = check(tree, "--format=github", f"{OPS}/BinaryKernel.mm").output
    assert gh.startswith(f"::error file={OPS}/BinaryKernel.mm,line=1,") and f"{YAML_REL}%3A{yaml_line}" not in gh
    assert f"MPS005 {YAML_REL}:{yaml_line}:" in gh
    # Without a path filter the finding is where it always was.
    assert json.loads(check(tree, "--format=json").output)["findings"][0]["path"] == YAML_REL


def test_deleted_metal_registrations_are_reported_for_the_metal_file(tree: Path, monkeypatch):
    edit(tree, f"{KERNELS}/BinaryKernel.metal", "REGISTER_FLOAT_BINARY_OP(hypot);\n", "")
    monkeypatch.chdir(tree)
    r = check(tree, f"{KERNELS}/BinaryKernel.metal")
    assert r.exit_code == 1 and " MPS007 kernel 'hypot' is run here" in r.output
    (line,) = [ln for ln in r.output.splitlines() if " MPS007 " in ln]
    assert line.startswith(f"{OPS}/BinaryKernel.mm:") and line.endswith(f"[rests on {KERNELS}/BinaryKernel.metal]")


def test_deleted_impl_func_is_reported_for_the_mm(tree: Path, monkeypatch):
    edit(tree, f"{OPS}/UnaryOps.mm", "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(asinh_out_mps, asinh)\n", "")
    monkeypatch.chdir(tree)
    r = check(tree, f"{OPS}/UnaryOps.mm")
    assert r.exit_code == 1 and " MPS003 asinh.out dispatches MPS to asinh_out_mps" in r.output


def test_deleted_unary_ti_dispatch_is_reported_for_the_mm(tree: Path, monkeypatch):
    edit(tree, f"{OPS}/UnaryKernel.mm", "REGISTER_UNARY_TI_DISPATCH(expm1);\n", "")
    monkeypatch.chdir(tree)
    r = check(tree, f"{OPS}/UnaryKernel.mm")
    assert r.exit_code == 1 and " MPS005 expm1.out shares expm1_out" in r.output


def test_kernel_left_with_only_complex_registrations_is_an_error(tree: Path, monkeypatch):
    # The 2026 case: REGISTER_UNARY_TI_DISPATCH(expm1) runs exec_unary_kernel(iter, #NAME) for every
    # dtype, and only the float2/half2 lines of INSTANTIATE_UNARY_KERNELS_VEC2 are left.
    edit(tree, f"{KERNELS}/UnaryKernel.metal", "  REGISTER_UNARY_OP(exp, DTYPE1, DTYPE0);          \\\n"
         "  REGISTER_UNARY_OP(expm1, DTYPE1, DTYPE0)\n", "  REGISTER_UNARY_OP(exp, DTYPE1, DTYPE0)\n")
    monkeypatch.chdir(tree)
    r = check(tree, f"{KERNELS}/UnaryKernel.metal")
    assert r.exit_code == 1, r.output
    assert f"{OPS}/UnaryKernel.mm:{line_of(tree, f'{OPS}/UnaryKernel.mm', 'REGISTER_UNARY_TI_DISPATCH(expm1)')}:" in r.output
    assert "kernel 'expm1' is run here but kernels/*.metal register it only for float2, half2 (complex) inputs" in r.output
    assert " MPS007 kernel 'exp' " not in r.output  # exp keeps its real registrations


def test_stub_hint_names_migrate_for_a_half_done_family(tree: Path):
    edit(tree, f"{OPS}/BinaryKernel.mm", "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n", "")
    out = check(tree).output
    # hypot's entries all share the CPU/CUDA kernel whose stub nothing registers: status calls it half done and a
    # candidate (migrate writes the kernel and the registration), so the hint is migrate's, not the by-hand one.
    assert ("(hint: run `mpsgen migrate hypot` to write the Metal kernel and its registration (or restore "
            "REGISTER_DISPATCH(hypot_stub, ...) if it was deleted))") in out
    assert "add a host kernel and REGISTER_DISPATCH(hypot_stub, ...)" not in out


# -- every era's host calls ------------------------------------------------------------------

ERA_27_MM = """\
static void binary_mps_impl(TensorIteratorBase& iter, const std::string func_name, bool supports_dense = true) {
  auto pso = lib.getPipelineStateForFunc(func_name + "_" + scalarToMetalTypeString(iter.input(0)));
}
static void fmax_mps_kernel(TensorIteratorBase& iter) {
  mps::binary_mps_impl(iter, "fmax");
  // mps::binary_mps_impl(iter, "commented_out");
}
void cross_mps(const Tensor& out) {
  auto crossPSO = lib.getPipelineStateForFunc("cross_" + scalarToMetalTypeString(out));
  auto offsets = lib.getPipelineStateForFunc(use_64bit ? "offsets_64" : "offsets_32");
  auto up = lib.getPipelineStateForFunc(fmt::format("upsample_{}", name));
}
"""

ERA_2026_MM = """\
#define REGISTER_UNARY_TI_DISPATCH(NAME)                    \\
  static void NAME##_kernel_mps(TensorIteratorBase& iter) { \\
    lib.exec_unary_kernel(iter, #NAME);                     \\
  }                                                         \\
  REGISTER_DISPATCH(NAME##_stub, NAME##_kernel_mps)
#define MY_BINARY(OP, NAME) static void OP##_k(TensorIteratorBase& iter) { lib.exec_binary_kernel(iter, #NAME); }

REGISTER_UNARY_TI_DISPATCH(neg);
MY_BINARY(fmod, fmod_float);
"""


def test_host_calls_of_the_27_era():
    calls = [(c.kernel, c.line) for c in kernel_calls(ERA_27_MM, "BinaryKernel.mm")]
    assert calls == [("fmax", 5), ("cross", 9), ("offsets_64", 10), ("offsets_32", 10)]


def test_host_calls_through_a_files_own_macros():
    calls = [(c.kernel, c.line) for c in kernel_calls(ERA_2026_MM, "UnaryKernel.mm")]
    assert calls == [("neg", 8), ("fmod_float", 9)]


BINARY_INDEXING_METAL = """\
struct copysign_functor {
  template <typename T> inline T operator()(const T a, const T b) { return copysign(a, b); }
};
#define REGISTER_BINARY_INDEXING_OP(NAME, DTYPE)             \\
  template [[host_name(#NAME "_" #DTYPE)]] kernel void       \\
  binary_indexing<DTYPE, NAME##_functor>(constant void* input_, uint tid); \\
  template [[host_name(#NAME "_dense_" #DTYPE)]] kernel void \\
  binary_dense<DTYPE, NAME##_functor>(constant DTYPE * input_, uint tid)

REGISTER_BINARY_INDEXING_OP(copysign, long);
REGISTER_BINARY_INDEXING_OP(copysign, float);
REGISTER_BINARY_INDEXING_OP(copysign, half);
#if __METAL_VERSION__ >= 310
REGISTER_BINARY_INDEXING_OP(copysign, bfloat);
#endif
"""


def test_registered_dtypes_of_a_files_own_host_name_macro():
    # 2.7's BinaryKernel.metal registers copysign per dtype through its own macro: migrate must see them.
    assert registered_input_types(BINARY_INDEXING_METAL, "BinaryKernel.metal", "copysign", alpha=False) == \
        {"long", "float", "half", "bfloat"}


# -- malformed inputs are errors -------------------------------------------------------------


def test_yaml_that_does_not_parse_is_exit_2_for_check_and_status(tree: Path):
    edit(tree, YAML_REL, "CPU, CUDA, MPS: hypot_out", "CPU, CUDA, MPS: [hypot_out")
    line = line_of(tree, YAML_REL, "[hypot_out")
    for args in (["check", "--no-cache"], ["status", "--no-cache"]):
        r = CliRunner().invoke(main, ["-C", str(tree), *args])
        assert r.exit_code == 2, r.output
        assert f"{YAML_REL}:{line}: does not parse as YAML:" in r.output and "flow sequence" in r.output
        assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


def test_test_list_with_a_syntax_error_is_exit_2(tree: Path):
    edit(tree, COMMON_MPS_REL, '"heaviside": None,', '"heaviside": None,,')
    r = check(tree)
    line = line_of(tree, COMMON_MPS_REL, '"heaviside": None,,')
    assert r.exit_code == 2 and f"{COMMON_MPS_REL}:{line}: does not parse as Python" in r.output


def test_valid_quoted_and_flow_values_are_not_errors(tree: Path):
    edit(tree, YAML_REL, "CPU, CUDA, MPS: hypot_out", "CPU, CUDA, MPS: hypot_out  # a comment with [ and '")
    assert check(tree).exit_code == 0


# -- gradual adoption ------------------------------------------------------------------------


def break_hypot(tree: Path) -> None:
    edit(tree, f"{OPS}/BinaryKernel.mm", "REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel)\n", "")


def test_select_and_ignore(tree: Path):
    break_hypot(tree)
    assert check(tree, "--ignore", "MPS005").exit_code == 0
    assert check(tree, "--select", "stub-not-registered").exit_code == 1
    assert check(tree, "--select", "MPS003,MPS004").output == "No problems found.\n"
    r = check(tree, "--select", "MPS999")
    assert r.exit_code == 2 and "no rule 'MPS999'" in r.output


def test_inline_suppression_in_yaml_on_the_line_above(tree: Path):
    break_hypot(tree)
    line = line_of(tree, YAML_REL, "CPU, CUDA, MPS: hypot_out")
    lines = (tree / YAML_REL).read_text().split("\n")
    indent = lines[line - 1][: len(lines[line - 1]) - len(lines[line - 1].lstrip())]
    lines.insert(line - 1, f"{indent}# mpsgen: ignore[MPS004]")
    (tree / YAML_REL).write_text("\n".join(lines))
    assert check(tree).exit_code == 1  # another code: still reported
    lines[line - 1] = f"{indent}# mpsgen: ignore[MPS004, stub-not-registered]"
    (tree / YAML_REL).write_text("\n".join(lines))
    assert check(tree).output == "No problems found.\n"


def test_inline_suppression_in_an_mm(tree: Path):
    edit(tree, f"{KERNELS}/BinaryKernel.metal", "REGISTER_FLOAT_BINARY_OP(hypot);\n", "")
    edit(tree, f"{OPS}/BinaryKernel.mm", 'lib.exec_binary_kernel(iter, "hypot"); }',
         'lib.exec_binary_kernel(iter, "hypot"); } // mpsgen: ignore[MPS007]')
    assert " MPS007 " not in check(tree).output


def test_baseline_fails_only_on_new_findings(tree: Path, tmp_path: Path):
    break_hypot(tree)
    baseline = tmp_path / "baseline.json"
    r = check(tree, "--write-baseline", str(baseline))
    assert r.exit_code == 0 and "Wrote 1 finding" in r.output
    keys = json.loads(baseline.read_text())["findings"]
    assert keys[0]["code"] == "MPS005" and not any(ch.isdigit() for ch in keys[0]["message"].split("(")[0])
    # Line numbers move (a line added above): still the known finding.
    edit(tree, YAML_REL, "- func: hypot.out", "# moved\n- func: hypot.out")
    r = check(tree, "--baseline", str(baseline))
    assert r.exit_code == 0 and r.output == "No new problems (the rest are in the baseline).\n"
    # A new fault fails.
    edit(tree, f"{KERNELS}/BinaryKernel.metal", "REGISTER_FLOAT_BINARY_OP(hypot);\n", "")
    r = check(tree, "--baseline", str(baseline))
    assert r.exit_code == 1 and " MPS007 " in r.output and " MPS005 " not in r.output


def test_a_bad_baseline_is_exit_2(tree: Path, tmp_path: Path):
    bad = tmp_path / "b.json"
    bad.write_text("{not json")
    r = check(tree, "--baseline", str(bad))
    assert r.exit_code == 2 and "the baseline is not JSON" in r.output
    r = check(tree, "--baseline", str(tmp_path / "missing.json"))
    assert r.exit_code == 2 and "baseline file not found" in r.output


def test_rules_documents_adoption():
    out = CliRunner().invoke(main, ["rules"]).output
    assert "--select" in out and "mpsgen: ignore[CODE]" in out and "--write-baseline" in out
    one = CliRunner().invoke(main, ["rules", "MPS004"]).output
    assert "MPS004 dead-implementation (error)" in one and "// mpsgen: ignore[MPS004]" in one

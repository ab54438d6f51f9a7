"""The rules on hand-made wiring breaks (MPS012-MPS019): each break a contributor makes by hand,
planted in the sample (2026 shapes) or the 2.7-shaped tree, found with its line and message, by the
whole-tree run and by `check CHANGED_FILE` (pre-commit); the look-alikes that are fine stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mpsgen.cli import main
from mpsgen.tree.checkout import YAML_REL
from test_checks import KERNELS, OPS, edit, findings, line_of, only
from tree27 import HOST as HOST27, METAL as METAL27, lay_tree27

UNARY_METAL = f"{KERNELS}/UnaryKernel.metal"
BINARY_METAL = f"{KERNELS}/BinaryKernel.metal"
UNARY_MM = f"{OPS}/UnaryKernel.mm"
BINARY_MM = f"{OPS}/BinaryKernel.mm"
NEW = {f"MPS0{n}" for n in range(12, 20)}


def new_findings(root: Path):
    return [f for f in findings(root) if f.code in NEW]


@pytest.fixture()
def tree27(sample_tree: Path) -> Path:
    return lay_tree27(sample_tree)


def test_clean_trees_have_no_wiring_finding(sample_tree: Path):
    assert new_findings(sample_tree) == []
    assert new_findings(lay_tree27(sample_tree)) == []


# -- MPS012 dtype-not-registered ------------------------------------------------------------------


def test_half_line_deleted_between_float_and_bfloat(sample_tree: Path):
    edit(sample_tree, UNARY_METAL, "INSTANTIATE_UNARY_KERNELS2(half, half);\n", "")
    f = only(new_findings(sample_tree))
    assert (f.code, f.path, f.line) == ("MPS012", UNARY_METAL, line_of(sample_tree, UNARY_METAL, "KERNELS2(bfloat, bfloat)"))
    assert f.message.startswith("INSTANTIATE_UNARY_KERNELS2(half, half) is missing: it is registered for bfloat ")
    assert f"{UNARY_MM}:" in f.message and "half tensors fail at run time" in f.message
    assert f.hint.startswith("restore `INSTANTIATE_UNARY_KERNELS2(half, half);`")


def test_one_integer_line_deleted_of_five(sample_tree: Path):
    edit(sample_tree, UNARY_METAL, "INSTANTIATE_UNARY_KERNELS2(float, short);\n", "")
    f = only(new_findings(sample_tree))
    assert f.code == "MPS012" and "INSTANTIATE_UNARY_KERNELS2(float, short) is missing" in f.message
    assert "registered for long, int, char, uchar but not for short" in f.message


def test_half_deleted_in_the_27_host_name_layout(tree27: Path):
    edit(tree27, METAL27, "INSTANTIATE_SINC_KERNEL(half, half);\n", "")
    f = only(new_findings(tree27))
    assert (f.code, f.line) == ("MPS012", line_of(tree27, METAL27, "INSTANTIATE_SINC_KERNEL(bfloat, bfloat)"))
    assert f"{HOST27}:" in f.message and "runs 'sinc'" in f.message


@pytest.mark.parametrize("deleted", [
    "INSTANTIATE_UNARY_KERNELS2(bfloat, bfloat);\n",  # bfloat alone may be left out (older Metal, complex)
    "INSTANTIATE_UNARY_KERNELS2(float, bool);\n",  # bool is no integer of the five
])
def test_a_dtype_left_out_on_purpose_is_silent(sample_tree: Path, deleted: str):
    edit(sample_tree, UNARY_METAL, deleted, "")
    assert new_findings(sample_tree) == []


def test_vectors_move_with_their_scalar(sample_tree: Path):
    # polar(half) -> half2 beside polar(float) -> float2 (2026's BinaryKernel): the pattern holds
    edit(sample_tree, BINARY_METAL, "// Complex binary functions\n",
         "// Complex binary functions\nREGISTER_BINARY_OP(hypot, float, float2);\nREGISTER_BINARY_OP(hypot, half, half2);\n")
    assert new_findings(sample_tree) == []
    edit(sample_tree, BINARY_METAL, "REGISTER_BINARY_OP(hypot, float, float2);\n", "")
    f = only(new_findings(sample_tree))
    assert f.code == "MPS012" and f.message.startswith("REGISTER_BINARY_OP(hypot, float, float2) is missing")


def test_a_kernel_no_host_runs_is_not_judged(sample_tree: Path):
    text = (sample_tree / UNARY_METAL).read_text()
    (sample_tree / UNARY_METAL).write_text(text + "REGISTER_UNARY_OP(exp2, float, float);\nREGISTER_UNARY_OP(exp2, bfloat, bfloat);\n")
    assert [f.code for f in new_findings(sample_tree)] == []


# -- MPS013 kernel-registered-twice ---------------------------------------------------------------


def test_registration_line_twice(sample_tree: Path):
    edit(sample_tree, UNARY_METAL, "INSTANTIATE_UNARY_KERNELS2(half, half);\n",
         "INSTANTIATE_UNARY_KERNELS2(half, half);\nINSTANTIATE_UNARY_KERNELS2(half, half);\n")
    f = only(new_findings(sample_tree))
    first = line_of(sample_tree, UNARY_METAL, "KERNELS2(half, half)")
    assert (f.code, f.line) == ("MPS013", first + 1)
    assert f"instantiates what INSTANTIATE_UNARY_KERNELS2(half, half) (line {first}) already does" in f.message
    assert "REGISTER_UNARY_OP(exp, half, half)" in f.message and f.hint == f"delete line {first + 1}"


def test_shorthand_and_explicit_line_overlap(sample_tree: Path):
    edit(sample_tree, BINARY_METAL, "REGISTER_FLOAT_BINARY_OP(hypot);\n",
         "REGISTER_FLOAT_BINARY_OP(hypot);\nREGISTER_BINARY_OP(hypot, half, half);\n")
    f = only(new_findings(sample_tree))
    assert (f.code, f.line) == ("MPS013", line_of(sample_tree, BINARY_METAL, "REGISTER_BINARY_OP(hypot, half, half)"))
    assert "REGISTER_FLOAT_BINARY_OP(hypot)" in f.message


def test_host_name_instance_twice_in_27_and_else_branch_is_fine(tree27: Path):
    edit(tree27, METAL27, "#if __METAL_VERSION__ >= 310\nINSTANTIATE_UNARY_KERNELS2(bfloat, bfloat);\n#endif\n",
         "#if __METAL_VERSION__ >= 310\nINSTANTIATE_UNARY_KERNELS2(bfloat, bfloat);\n#else\n"
         "INSTANTIATE_UNARY_KERNELS2(bfloat, bfloat);\n#endif\n")
    assert new_findings(tree27) == []  # never both compiled
    edit(tree27, METAL27, "INSTANTIATE_SINC_KERNEL(float, long);\n",
         "INSTANTIATE_SINC_KERNEL(float, long);\nINSTANTIATE_SINC_KERNEL(float, long);\n")
    f = only(new_findings(tree27))
    assert f.code == "MPS013" and "sinc_float_long" in f.message


# -- MPS014 unknown-dtype ------------------------------------------------------------------------


def test_misspelt_dtype(sample_tree: Path):
    edit(sample_tree, BINARY_METAL, "REGISTER_OPMATH_BINARY_OP(mul, float2, float2);",
         "REGISTER_OPMATH_BINARY_OP(mul, flaot2, float2);")
    f = only(new_findings(sample_tree))
    line = line_of(sample_tree, BINARY_METAL, "flaot2")
    assert (f.code, f.line, f.col) == ("MPS014", line, len("REGISTER_OPMATH_BINARY_OP(mul, ") + 1)
    assert f.message == "'flaot2' in REGISTER_OPMATH_BINARY_OP(mul, flaot2, float2) is not a Metal type: " \
                        "the .metal does not compile"
    assert f.hint == "did you mean 'float2' for 'flaot2'?"


def test_misspelt_dtype_of_a_local_macro_only_reports_the_spelling(tree27: Path):
    edit(tree27, METAL27, "INSTANTIATE_UNARY_KERNELS2(half, half);", "INSTANTIATE_UNARY_KERNELS2(hafl, half);")
    f = only(new_findings(tree27))  # not also "half is missing": the misspelt line meant it
    assert f.code == "MPS014" and "'hafl'" in f.message and "'half'" in f.hint


def test_a_type_the_file_declares_is_no_misspelling(sample_tree: Path):
    edit(sample_tree, BINARY_METAL, "REGISTER_OPMATH_BINARY_OP(mul, half2, half2);",
         "using flt2 = float2;\nREGISTER_OPMATH_BINARY_OP(mul, flt2, flt2);")
    assert [f.code for f in new_findings(sample_tree)] == []


# -- MPS015 stub-header-missing, MPS016 metal-header-missing -----------------------------------


def test_stub_header_no_longer_included(sample_tree: Path):
    edit(sample_tree, UNARY_MM, "#include <ATen/native/UnaryOps.h>\n", "")
    f = only(new_findings(sample_tree))
    assert (f.code, f.path, f.line) == ("MPS015", UNARY_MM, line_of(sample_tree, UNARY_MM, "REGISTER_UNARY_TI_DISPATCH(exp);"))
    assert f.message.startswith("REGISTER_UNARY_TI_DISPATCH(exp_stub, ...) (and 1 more: expm1_stub) needs the "
                                "DECLARE_DISPATCH in ATen/native/UnaryOps.h (aten/src/ATen/native/UnaryOps.h:")
    assert f.hint == "add `#include <ATen/native/UnaryOps.h>`"


def test_stub_header_included_through_another_header(sample_tree: Path):
    (sample_tree / OPS / "UnaryStubs.h").write_text("#pragma once\n#include <ATen/native/UnaryOps.h>\n")
    edit(sample_tree, UNARY_MM, "#include <ATen/native/UnaryOps.h>\n",
         "#include <ATen/native/mps/operations/UnaryStubs.h>\n")
    assert new_findings(sample_tree) == []


def test_c10_metal_header_no_longer_included(sample_tree: Path):
    edit(sample_tree, UNARY_METAL, "#include <c10/metal/indexing.h>\n", "")
    f = only(new_findings(sample_tree))
    assert (f.code, f.line) == ("MPS016", line_of(sample_tree, UNARY_METAL, "REGISTER_UNARY_OP(exp, DTYPE1"))
    assert f.message.startswith("uses REGISTER_UNARY_OP (line ")
    assert "from c10/metal/indexing.h, which this file no longer includes" in f.message
    assert f.hint == "add `#include <c10/metal/indexing.h>`"


def test_a_macro_no_header_defines_is_not_judged(sample_tree: Path):
    # every reached header's words are read for it (none spells it), then no header is found defining it
    text = (sample_tree / UNARY_METAL).read_text()
    (sample_tree / UNARY_METAL).write_text(text.replace("#include <c10/metal/indexing.h>\n", "")
                                           + "\nNOT_A_HEADER_MACRO(exp);\n")
    f = only([f for f in new_findings(sample_tree) if f.code == "MPS016"])
    assert f.message.startswith("uses REGISTER_UNARY_OP (line ")
    assert "NOT_A_HEADER_MACRO" not in f.message


def test_c10_metal_header_still_reached_through_another(sample_tree: Path):
    edit(sample_tree, UNARY_METAL, "#include <c10/metal/utils.h>\n", "")  # indexing.h includes it
    assert new_findings(sample_tree) == []


# -- MPS017 host-kernel-signature ----------------------------------------------------------------


def test_host_kernel_takes_another_iterator_type(sample_tree: Path):
    edit(sample_tree, BINARY_MM, "static void copysign_mps_kernel(TensorIteratorBase& iter) {",
         "static void copysign_mps_kernel(TensorIterator& iter) {")
    f = only(new_findings(sample_tree))
    assert (f.code, f.line) == ("MPS017", line_of(sample_tree, BINARY_MM, "static void copysign_mps_kernel"))
    assert f.message.startswith("copysign_mps_kernel(TensorIterator&) does not have the type of copysign_stub, "
                                "void(*)(TensorIteratorBase&) (aten/src/ATen/native/BinaryOps.h:")
    assert f"REGISTER_DISPATCH at line {line_of(sample_tree, BINARY_MM, 'REGISTER_DISPATCH(copysign_stub')}" in f.message
    assert f.hint == "declare it as `static void copysign_mps_kernel(TensorIteratorBase& iter)`"


def test_host_kernel_spelt_differently_but_of_the_same_type(tree27: Path):
    edit(tree27, HOST27, "static void exp_kernel(TensorIteratorBase& iter) {",
         "static void exp_kernel(at::TensorIteratorBase &it /* the iterator */) {")
    assert new_findings(tree27) == []
    edit(tree27, HOST27, "static void tanh_kernel(TensorIteratorBase& iter) {",
         "static void tanh_kernel(TensorIteratorBase& iter, int64_t extra) {")
    f = only(new_findings(tree27))
    assert f.code == "MPS017" and f.message.startswith("tanh_kernel(TensorIteratorBase&, int64_t) does not have")


# -- MPS018 unreachable-registration, MPS019 empty-dispatch -------------------------------------


def test_mps_key_removed_from_a_shared_line(sample_tree: Path):
    edit(sample_tree, YAML_REL, "    CPU, CUDA, MPS: hypot_out\n", "    CPU, CUDA: hypot_out\n")
    f = only(new_findings(sample_tree))
    assert (f.code, f.path, f.line) == ("MPS018", BINARY_MM, line_of(sample_tree, BINARY_MM, "REGISTER_DISPATCH(hypot_stub"))
    yaml_line = line_of(sample_tree, YAML_REL, "CPU, CUDA: hypot_out")
    assert f.message.startswith("REGISTER_DISPATCH(hypot_stub, ...) registers a kernel nothing runs: hypot_stub's "
                                "only caller hypot_out (aten/src/ATen/native/BinaryOps.cpp:")
    assert f"dispatched without MPS by hypot.out ({YAML_REL}:{yaml_line})" in f.message
    assert (YAML_REL, yaml_line) in [(b.path, b.line) for b in f.rests_on]


def test_a_stub_a_helper_uses_is_not_judged(sample_tree: Path):
    # hypot_stub also called from a helper no yaml line names: something else may reach it
    edit(sample_tree, YAML_REL, "    CPU, CUDA, MPS: hypot_out\n", "    CPU, CUDA: hypot_out\n")
    edit(sample_tree, "aten/src/ATen/native/BinaryOps.cpp", "} // namespace at::native",
         "void hypot_helper(TensorIterator& iter) { hypot_stub(iter.device_type(), iter); }\n} // namespace at::native")
    assert new_findings(sample_tree) == []


def test_empty_dispatch(sample_tree: Path):
    edit(sample_tree, YAML_REL, "  dispatch:\n    CPU, CUDA, MPS: hypot_out\n", "  dispatch:\n")
    f = only(new_findings(sample_tree))
    assert (f.code, f.path, f.line, f.col) == ("MPS019", YAML_REL, line_of(sample_tree, YAML_REL, "hypot.out(") + 4, 3)
    assert f.message.startswith("hypot.out has an empty `dispatch:`")


def test_flow_empty_dispatch_is_deliberate(sample_tree: Path):
    edit(sample_tree, YAML_REL, "  dispatch:\n    CPU, CUDA, MPS: hypot_out\n", "  dispatch: {}\n")
    assert [f.code for f in new_findings(sample_tree) if f.code == "MPS019"] == []


# -- as pre-commit runs it: `mpsgen check CHANGED_FILE` -----------------------------------------

BREAKS = {
    "dtype line deleted": (UNARY_METAL, "INSTANTIATE_UNARY_KERNELS2(half, half);\n", "", "MPS012"),
    "line twice": (UNARY_METAL, "INSTANTIATE_UNARY_KERNELS2(float, int);\n",
                   "INSTANTIATE_UNARY_KERNELS2(float, int);\nINSTANTIATE_UNARY_KERNELS2(float, int);\n", "MPS013"),
    "misspelt dtype": (BINARY_METAL, "(mul, half2, half2)", "(mul, hafl2, half2)", "MPS014"),
    "stub header": (BINARY_MM, "#include <ATen/native/BinaryOps.h>\n", "", "MPS015"),
    "metal header": (BINARY_METAL, "#include <c10/metal/indexing.h>\n", "", "MPS016"),
    "metal header (2.7)": (METAL27, "#include <c10/metal/special_math.h>\n#include <c10/metal/utils.h>\n", "", "MPS016"),
    "host kernel type": (BINARY_MM, "hypot_mps_kernel(TensorIteratorBase& iter)", "hypot_mps_kernel(TensorIterator& iter)", "MPS017"),
    "MPS key removed": (YAML_REL, "    CPU, CUDA, MPS: hypot_out\n", "    CPU, CUDA: hypot_out\n", "MPS018"),
    "empty dispatch": (YAML_REL, "    CPU, CUDA, MPS: hypot_out\n", "", "MPS019"),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_check_changed_file_fails(sample_tree: Path, name: str):
    rel, old, new, code = BREAKS[name]
    if rel == METAL27:
        lay_tree27(sample_tree)
    runner = CliRunner()
    assert runner.invoke(main, ["-C", str(sample_tree), "check", str(sample_tree / rel)]).exit_code == 0
    edit(sample_tree, rel, old, new)
    r = runner.invoke(main, ["-C", str(sample_tree), "check", str(sample_tree / rel)])
    assert r.exit_code == 1, r.output
    assert f" {code} " in r.output

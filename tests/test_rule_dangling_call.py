"""MPS020 dangling-call: `mpsgen check` catches a call left to an MPS kernel deleted by hand."""

from __future__ import annotations

from pathlib import Path

from mpsgen.lint.inventory import Inventory
from mpsgen.lint.rules import get, run_checks
from mpsgen.tree.checkout import Checkout

OPS = "aten/src/ATen/native/mps/operations"
YAML = "aten/src/ATen/native/native_functions.yaml"
LEGACY_LINE = "CREATE_MPS_BINARY_COMPARISON_OP_FUNC(logical_xor_out_mps, logicalXOR, Tensor);\n"
YAML_LINES = "    CPU, CUDA: logical_xor_out\n    MPS: logical_xor_out_mps\n"
END = "} // namespace at::native\n"

CALLER = """
// logical_xor_out_mps(a, b, out): what a bool ne is
static Tensor& bool_ne_out_mps(const Tensor& self, const Tensor& other, Tensor& output) {
  TORCH_CHECK(true, "logical_xor_out_mps");
  return at::native::logical_xor_out_mps(self, other, output);
}
"""


def edit(root: Path, rel: str, old: str, new: str) -> None:
    p = root / rel
    text = p.read_text()
    assert text.count(old) == 1, f"{old!r} in {rel}"
    p.write_text(text.replace(old, new))


def dangling(root: Path):
    return list(get("MPS020")(Inventory(Checkout(root))))


def line_of(root: Path, rel: str, needle: str) -> int:
    return next(k for k, ln in enumerate((root / rel).read_text().splitlines(), 1) if needle in ln)


def test_a_call_of_a_kernel_deleted_with_its_yaml_line(sample_tree: Path) -> None:
    edit(sample_tree, f"{OPS}/UnaryOps.mm", END, CALLER.lstrip() + END)
    assert dangling(sample_tree) == []  # still defined, and declared by its yaml line
    edit(sample_tree, f"{OPS}/BinaryOps.mm", LEGACY_LINE, "")
    edit(sample_tree, YAML, YAML_LINES, "    CPU, CUDA, MPS: logical_xor_out\n")
    [f] = dangling(sample_tree)  # the comment and the literal are not calls
    line = line_of(sample_tree, f"{OPS}/UnaryOps.mm", "return at::native::logical_xor_out_mps(")
    assert (f.path, f.line, f.col, f.code, f.severity) == (f"{OPS}/UnaryOps.mm", line, 22, "MPS020", "error")
    assert f.message == ("bool_ne_out_mps calls logical_xor_out_mps, which nothing defines any more (no MPS "
                         "source, no native_functions.yaml line): a compile error")
    assert "at::" in (f.hint or "")
    assert [x.code for x in run_checks(Inventory(Checkout(sample_tree))) if x.code == "MPS020"] == ["MPS020"]


def test_a_definition_whose_yaml_line_went_is_not_declared_to_another_file(sample_tree: Path) -> None:
    edit(sample_tree, f"{OPS}/UnaryOps.mm", END, CALLER.lstrip() + END)
    edit(sample_tree, YAML, YAML_LINES, "    CPU, CUDA, MPS: logical_xor_out\n")
    [f] = dangling(sample_tree)
    assert f.path == f"{OPS}/UnaryOps.mm"
    assert f.message.startswith(f"bool_ne_out_mps calls logical_xor_out_mps, which {OPS}/BinaryOps.mm defines but "
                                "nothing this file sees declares")
    # a prototype in the calling file declares it: silent
    edit(sample_tree, f"{OPS}/UnaryOps.mm", "static Tensor& bool_ne_out_mps(",
         "Tensor& logical_xor_out_mps(const Tensor& self, const Tensor& other, Tensor& output);\n\n"
         "static Tensor& bool_ne_out_mps(")
    assert dangling(sample_tree) == []


def test_names_the_file_owns_are_never_reported(sample_tree: Path) -> None:
    local = """
static void run_mps_(const Tensor& self) {
  auto apply_mps = [&](const Tensor& t) { return t; };
  apply_mps(self);
  mps::helper_mps(self);
  self.is_mps();
}
"""
    edit(sample_tree, f"{OPS}/UnaryOps.mm", END, local.lstrip() + END)
    assert dangling(sample_tree) == []

"""`migrate` never deletes a function that code the change keeps still calls (plan/callers.py).

On the sample checkout, logical_xor's in-place overload is given the shape 2.7's floor_divide_.Tensor
has: `CPU, CUDA: logical_xor_` (whose kernel hands its work to at::logical_xor_out in one call) and
`MPS: logical_xor_mps_`, an MPS kernel that only calls logical_xor_out_mps, the kernel the migration
deletes.  Then, per case:

(a) the in-place variant moves with its family instead of being left calling a deleted function;
(b) another op's helper calling logical_xor_out_mps is pointed at at::logical_xor_outf (what
    2.7's _bitwise_not_out_mps needs for logical_not_out_mps), with the header that declares it;
(c) a use that cannot become an at:: call (its address taken) keeps the function and its yaml line.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cli_support import mpsgen, tracked_bytes

NATIVE = "aten/src/ATen/native"
YAML = f"{NATIVE}/native_functions.yaml"
BINARY_MM = f"{NATIVE}/mps/operations/BinaryOps.mm"
UNARY_MM = f"{NATIVE}/mps/operations/UnaryOps.mm"
LEGACY_LINE = "CREATE_MPS_BINARY_COMPARISON_OP_FUNC(logical_xor_out_mps, logicalXOR, Tensor);\n"

INPLACE_MPS = """
Tensor& logical_xor_mps_(Tensor& self, const Tensor& other) {
  return logical_xor_out_mps(self, other, self);
}
"""

# (b): another op's helper.  The comment and the literal name the function too, and must stay as they are.
HELPER = """
// bool ne: logical_xor_out_mps(self, other, out) gives the same answer
static Tensor& bool_ne_out_mps(const Tensor& self, const Tensor& other, Tensor& output) {
  TORCH_CHECK(self.scalar_type() == ScalarType::Bool, "logical_xor_out_mps: bool inputs only");
  return at::native::logical_xor_out_mps(self, other, output);
}
"""

# (c): the in-place kernel's address is taken: no at:: call can stand for it.
BY_ADDRESS = """
static void run_inplace_xor(Tensor& self, const Tensor& other) {
  auto fn = &logical_xor_mps_;
  fn(self, other);
}
"""


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                   capture_output=True)


def _replace_once(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text()
    assert text.count(old) == 1, f"{rel}: expected one {old!r}"
    path.write_text(text.replace(old, new))


def _lay(root: Path, *, inplace: bool = True, unary_tail: str = "") -> Path:
    if inplace:
        _replace_once(root, YAML, "    CompositeExplicitAutograd: logical_xor_\n",
                      "    CPU, CUDA: logical_xor_\n    MPS: logical_xor_mps_\n")
        _replace_once(root, BINARY_MM, LEGACY_LINE, LEGACY_LINE + INPLACE_MPS)
    if unary_tail:
        _replace_once(root, UNARY_MM, "} // namespace at::native\n", unary_tail.lstrip("\n") + "\n} // namespace at::native\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "logical_xor_ on its own MPS kernel")
    return root


def _migrate(root: Path) -> subprocess.CompletedProcess[str]:
    return mpsgen("-C", str(root), "migrate", "logical_xor", "--no-build", "--no-test", "--no-try")


def _entry(yaml: str, head: str) -> str:
    start = yaml.index(f"- func: {head}")
    return yaml[start : yaml.index("\n\n", start)]


def test_inplace_variant_delegating_to_the_out_variant_moves_with_the_family(tree: Path) -> None:
    _lay(tree)
    result = _migrate(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    yaml = (tree / YAML).read_text()
    assert "    CPU, CUDA, MPS: logical_xor_\n" in _entry(yaml, "logical_xor_(")
    assert "    CPU, CUDA, MPS: logical_xor_out\n" in _entry(yaml, "logical_xor.out(")
    assert "logical_xor_mps_" not in yaml and "logical_xor_out_mps" not in yaml
    mm = (tree / BINARY_MM).read_text()
    assert "logical_xor_mps_" not in mm and "logical_xor_out_mps" not in mm  # both gone, none left calling
    assert "kept logical_xor_" not in result.stdout and "move it by hand" not in result.stdout
    assert ("moved logical_xor_ with the family: logical_xor_mps_ calls logical_xor_out_mps "
            f"({BINARY_MM}:82), which goes, and its shared kernel logical_xor_ ({NATIVE}/BinaryOps.cpp:93) "
            f"calls at::logical_xor_out ({NATIVE}/BinaryOps.cpp:94), which calls logical_xor_stub") in result.stdout


def test_another_ops_helper_is_pointed_at_the_at_function(tree: Path) -> None:
    _lay(tree, inplace=False, unary_tail=HELPER)
    unary_before = (tree / UNARY_MM).read_text()
    result = _migrate(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "logical_xor_out_mps" not in (tree / BINARY_MM).read_text()
    unary = (tree / UNARY_MM).read_text()
    assert "  return at::logical_xor_outf(self, other, output);\n" in unary
    assert "at::native::logical_xor_out_mps(" not in unary
    # comments and literals are not calls: left as they were
    assert "// bool ne: logical_xor_out_mps(self, other, out) gives the same answer\n" in unary
    assert '"logical_xor_out_mps: bool inputs only"' in unary
    # the per-operator header, in its sorted place in the #else branch (ATen/Functions.h declares it otherwise)
    assert ("#else\n#include <ATen/ops/asinh_native.h>\n#include <ATen/ops/frac_native.h>\n"
            "#include <ATen/ops/logical_xor.h>\n#include <ATen/ops/signbit_native.h>\n#endif\n") in unary
    # nothing else of the file changed
    assert unary.replace("#include <ATen/ops/logical_xor.h>\n", "").replace(
        "at::logical_xor_outf(self, other, output)", "at::native::logical_xor_out_mps(self, other, output)") \
        == unary_before
    assert (f"bool_ne_out_mps at {UNARY_MM}:") in result.stdout
    assert "now calls at::logical_xor_outf instead of logical_xor_out_mps" in result.stdout


def test_a_use_that_cannot_be_rewritten_keeps_the_function_and_its_yaml_line(tree: Path) -> None:
    _lay(tree, unary_tail=BY_ADDRESS)
    result = _migrate(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    yaml = (tree / YAML).read_text()
    # logical_xor_mps_ stays, declared by its yaml line; the out variant moves, its kernel goes
    assert "    CPU, CUDA: logical_xor_\n    MPS: logical_xor_mps_\n" in _entry(yaml, "logical_xor_(")
    assert "    CPU, CUDA, MPS: logical_xor_out\n" in _entry(yaml, "logical_xor.out(")
    mm = (tree / BINARY_MM).read_text()
    assert "logical_xor_out_mps" not in mm
    # the kept kernel's own call of the deleted one now goes through the dispatcher
    assert "Tensor& logical_xor_mps_(Tensor& self, const Tensor& other) {\n" \
           "  return at::logical_xor_outf(self, other, self);\n}\n" in mm
    assert "#include <ATen/ops/logical_xor.h>\n" in mm
    assert ("kept logical_xor_mps_: still called by run_inplace_xor at "
            f"{UNARY_MM}:") in result.stdout
    assert "(its address is taken); its `MPS: logical_xor_mps_` line stays, and logical_xor_ with it" in result.stdout
    assert "moved logical_xor_ with the family" not in result.stdout


def test_a_family_with_nothing_left_to_move_is_refused_and_nothing_written(tree: Path) -> None:
    _lay(tree, inplace=False, unary_tail=BY_ADDRESS.replace("logical_xor_mps_", "logical_xor_out_mps")
         .replace("Tensor& self, const Tensor& other) {", "const Tensor& self, const Tensor& other, Tensor& out) {")
         .replace("fn(self, other);", "fn(self, other, out);"))
    before = tracked_bytes(tree)
    result = _migrate(tree)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "logical_xor cannot move without breaking code that stays: kept logical_xor_out_mps: still called by " \
           f"run_inplace_xor at {UNARY_MM}:" in result.stderr
    assert "Traceback" not in result.stderr
    assert tracked_bytes(tree) == before


@pytest.mark.parametrize("case", ["delegating", "helper"])
def test_second_run_has_nothing_to_do(tree: Path, case: str) -> None:
    _lay(tree, inplace=case == "delegating", unary_tail=HELPER if case == "helper" else "")
    assert _migrate(tree).returncode == 0
    before = tracked_bytes(tree)
    again = _migrate(tree)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "already on a native Metal kernel" in again.stdout
    assert tracked_bytes(tree) == before

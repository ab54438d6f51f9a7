"""ceil/floor registered through UnaryOps.mm's REGISTER_MPS_UNARY_STUB (as in PyTorch): `migrate`
replaces the op's macro line, changes no yaml, and deletes the #define with its last use (issue 13).

The sample has no ceil/floor, so each test adds them in PyTorch's shapes: yaml entries already routed
to the shared kernel, the stubs, the CPU TORCH_IMPL_FUNCs, and the macro with two uses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cli_support import mpsgen

NATIVE = "aten/src/ATen/native"
UNARY_MM = f"{NATIVE}/mps/operations/UnaryOps.mm"
YAML = f"{NATIVE}/native_functions.yaml"
MACRO = """#define REGISTER_MPS_UNARY_STUB(func, mps_func)                                                 \\
  static void mps_##func##_kernel(TensorIteratorBase& iter) {                                   \\
    mps::unary_op(iter.input(0), iter.output(0), __func__, ^MPSGraphTensor*(MPSGraph * mpsGraph, MPSGraphTensor * inputTensor) { \\
      return [mpsGraph mps_func##WithTensor:inputTensor name:nil];                              \\
    });                                                                                         \\
  }                                                                                             \\
  REGISTER_DISPATCH(func##_stub, mps_##func##_kernel)

REGISTER_MPS_UNARY_STUB(ceil, ceil);
REGISTER_MPS_UNARY_STUB(floor, floor);

"""


def _yaml_entries(op: str) -> str:
    return (f"- func: {op}(Tensor self) -> Tensor\n  structured_delegate: {op}.out\n  variants: function, method\n"
            f"  tags: [core, pointwise]\n\n"
            f"- func: {op}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n"
            f"  structured_inherits: TensorIteratorBase\n  dispatch:\n    CPU, CUDA, MPS: {op}_out\n"
            f"  tags: pointwise\n\n")


def add_ceil_and_floor(root: Path) -> None:
    def edit(rel: str, old: str, new: str) -> None:
        p = root / rel
        text = p.read_text(encoding="utf-8")
        assert old in text, (rel, old)
        p.write_text(text.replace(old, new, 1), encoding="utf-8")

    edit(YAML, "- func: asinh(Tensor self) -> Tensor\n", _yaml_entries("ceil") + _yaml_entries("floor")
         + "- func: asinh(Tensor self) -> Tensor\n")
    edit(f"{NATIVE}/UnaryOps.h", "DECLARE_DISPATCH(unary_fn, exp_stub)\n",
         "DECLARE_DISPATCH(unary_fn, ceil_stub)\nDECLARE_DISPATCH(unary_fn, exp_stub)\nDECLARE_DISPATCH(unary_fn, floor_stub)\n")
    edit(f"{NATIVE}/UnaryOps.cpp", "CREATE_UNARY_TORCH_IMPL_FUNC(exp_out, exp_stub)\n",
         "CREATE_UNARY_TORCH_IMPL_FUNC(ceil_out, ceil_stub)\nCREATE_UNARY_TORCH_IMPL_FUNC(exp_out, exp_stub)\n"
         "CREATE_UNARY_TORCH_IMPL_FUNC(floor_out, floor_stub)\n")
    edit(UNARY_MM, "#define CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC", MACRO + "#define CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "ceil, floor"],
                   cwd=root, check=True)


def test_ceil_then_floor_replace_the_macro_lines_and_the_last_takes_the_macro(tree: Path) -> None:
    add_ceil_and_floor(tree)
    yaml_before = (tree / YAML).read_bytes()

    first = mpsgen("-C", str(tree), "migrate", "ceil", "--no-build", "--no-test", "--format", "json")
    assert first.returncode == 0, first.stderr
    plan = json.loads(first.stdout)["plan"]
    assert plan["moved"] == [] and YAML not in plan["files"]  # no yaml change
    assert [r.split(": ", 1)[1] for r in plan["removed"]] == ["REGISTER_MPS_UNARY_STUB(ceil, …)"]
    rows = {r["dtype"]: r["after"] for r in plan["dtype_table"]}
    assert rows["float16"] == rows["int64"] == "registered T->T"  # integers are copied, as ceil_out does
    mm = (tree / UNARY_MM).read_text(encoding="utf-8")
    assert "REGISTER_MPS_UNARY_STUB(ceil" not in mm
    assert "#define REGISTER_MPS_UNARY_STUB" in mm and "REGISTER_MPS_UNARY_STUB(floor, floor);\n" in mm  # still used
    assert "REGISTER_UNARY_TI_DISPATCH(ceil);" in (tree / f"{NATIVE}/mps/operations/UnaryKernel.mm").read_text()

    second = mpsgen("-C", str(tree), "migrate", "floor", "--no-build", "--no-test", "--allow-dirty", "--format", "json")
    assert second.returncode == 0, second.stderr
    removed = json.loads(second.stdout)["plan"]["removed"]
    assert [r.split(": ", 1)[1] for r in removed] == ["REGISTER_MPS_UNARY_STUB(floor, …)",
                                                       "#define REGISTER_MPS_UNARY_STUB (no use left)"]
    mm = (tree / UNARY_MM).read_text(encoding="utf-8")
    assert "REGISTER_MPS_UNARY_STUB" not in mm
    assert "  });\n}\n\n#define CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC" in mm  # one blank line left at the cut
    assert (tree / YAML).read_bytes() == yaml_before

    again = mpsgen("-C", str(tree), "migrate", "floor", "--no-build", "--no-test")
    assert again.returncode == 0 and again.stdout.startswith("nothing to do: floor is already on a native Metal kernel")

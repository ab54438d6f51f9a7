"""A two-op plan and a one-overload move on the real native_functions.yaml from the torch 2.13.0 wheel:
byte-exact outside the edited lines, and torchgen maps MPS to the shared kernels (and nothing else moves)."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

from conftest import SAMPLE
from mpsgen.model import KernelOptions
from mpsgen.plan.group import plan_group
from mpsgen.sources.native_yaml import names as nf
from mpsgen.tree.checkout import YAML_REL, Checkout


def changed_lines(old: str, new: str) -> list[str]:
    return [line for line in difflib.unified_diff(old.splitlines(True), new.splitlines(True), n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def mps_kernels(yaml_path: Path, tags: Path) -> dict[str, str]:
    from torchgen.gen import parse_native_yaml
    from torchgen.model import DispatchKey

    parsed = parse_native_yaml(str(yaml_path), str(tags), skip_native_fns_gen=True)
    return {str(k): v.kernel for k, v in parsed.backend_indices[DispatchKey.MPS].index.items()}


def test_real_yaml_two_op_plan_then_one_overload(real_yaml_path: Path, tmp_path: Path) -> None:
    root = tmp_path / "pytorch"
    shutil.copytree(SAMPLE, root, symlinks=True)
    real = real_yaml_path.read_bytes()
    (root / YAML_REL).write_bytes(real)
    text = real.decode("utf-8")

    group = plan_group("migrate", Checkout(root), ["frac", "signbit"], KernelOptions(op="frac"))
    planned = group.changeset.current(YAML_REL)
    assert [m.entry for p in group.plans for m in p.moved] == ["frac.out", "signbit.out"]
    assert changed_lines(text, planned) == [
        "-    CPU, CUDA: frac_out\n", "-    MPS: frac_out_mps\n", "+    CPU, CUDA, MPS: frac_out\n",
        "-    MPS: signbit_out_mps\n", "+    MPS: signbit_out\n",
    ]
    # Byte for byte elsewhere: undoing the three line edits gives the wheel's file back.
    restored = planned.replace("    CPU, CUDA, MPS: frac_out\n", "    CPU, CUDA: frac_out\n    MPS: frac_out_mps\n")
    assert restored.replace("    MPS: signbit_out\n", "    MPS: signbit_out_mps\n") == text

    # pow.Tensor_Tensor_out alone, on top: pow.Scalar_out keeps pow_Scalar_out_mps.
    index = nf.index_text(planned)
    family = nf.select_overloads(index, "pow.Tensor_Tensor_out")
    assert family.partial and [e.name for e in family.entries] == [
        "pow.Tensor_Tensor_out", "pow.Tensor_Tensor", "pow_.Tensor"]
    edit = nf.migrate_family(planned, "pow", index=index, only=tuple(e.name for e in family.entries))
    assert [m.entry for m in edit.moved] == ["pow.Tensor_Tensor_out"]
    assert changed_lines(planned, edit.text) == [
        "-    CPU, CUDA: pow_Tensor_Tensor_out\n", "-    MPS: pow_tensor_tensor_out_mps\n",
        "+    CPU, CUDA, MPS: pow_Tensor_Tensor_out\n",
    ]
    assert nf.entry_calling(edit.text, "pow_Scalar_out_mps") == "pow.Scalar_out"
    assert nf.entry_calling(edit.text, "pow_tensor_tensor_out_mps") is None

    edited = tmp_path / "native_functions.yaml"  # a fresh path: torchgen caches by path
    edited.write_text(edit.text, encoding="utf-8")
    tags = real_yaml_path.parent / "tags.yaml"
    before, after = mps_kernels(real_yaml_path, tags), mps_kernels(edited, tags)
    assert {k: (before.get(k), v) for k, v in after.items() if before.get(k) != v} == {
        "frac.out": ("frac_out_mps", "frac_out"),
        "signbit.out": ("signbit_out_mps", "signbit_out"),
        "pow.Tensor_Tensor_out": ("pow_tensor_tensor_out_mps", "pow_Tensor_Tensor_out"),
    }
    assert after["pow.Scalar_out"] == "pow_Scalar_out_mps" and after.keys() == before.keys()

"""OP.OVERLOAD selection and one-overload dispatch edits on a small hand-written yaml (pow's shapes)."""

from __future__ import annotations

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.sources.native_yaml import names as nf

TEXT = """\
- func: pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU, CUDA: pow_Tensor_Tensor_out
    MPS: pow_tensor_tensor_out_mps

- func: pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
  structured_delegate: pow.Tensor_Tensor_out

- func: pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU, CUDA: pow_Scalar_out
    MPS: pow_Scalar_out_mps

- func: pow.Scalar(Scalar self, Tensor exponent) -> Tensor
  structured_delegate: pow.Scalar_out

- func: pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)
  structured_delegate: pow.Tensor_Tensor_out

- func: special_log_ndtr.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, CUDA: special_log_ndtr_out
"""


def names(family: nf.Family) -> list[str]:
    return [e.name for e in family.entries]


def test_an_overload_brings_its_delegates_and_the_entry_it_delegates_to() -> None:
    index = nf.index_text(TEXT)
    family = nf.select_overloads(index, "pow.Tensor_Tensor_out")
    assert family.partial and family.name == "pow"
    assert names(family) == ["pow.Tensor_Tensor_out", "pow.Tensor_Tensor", "pow_.Tensor"]
    assert names(nf.select_overloads(index, "aten::pow.Tensor_Tensor")) == names(family)
    assert names(nf.select_overloads(index, "pow.Scalar")) == ["pow.Scalar_out", "pow.Scalar"]
    whole = nf.select_overloads(index, "pow")
    assert not whole.partial and len(whole.entries) == 5


def test_a_namespace_dot_is_not_an_overload() -> None:
    index = nf.index_text(TEXT)
    assert names(nf.select_overloads(index, "special.log_ndtr")) == ["special_log_ndtr.out"]
    family = nf.select_overloads(index, "special.log_ndtr.out")
    assert family.name == "special_log_ndtr" and not family.partial


def test_an_unknown_overload_names_the_close_ones() -> None:
    with pytest.raises(MpsgenError) as err:
        nf.select_overloads(nf.index_text(TEXT), "pow.Tensor")  # pow_.Tensor is the in-place one
    assert err.value.message == "pow has no overload 'Tensor'" and err.value.line == 1
    assert err.value.hint.startswith("closest names: pow_.Tensor, pow.Tensor_Tensor")
    with pytest.raises(MpsgenError) as err:
        nf.select_overloads(nf.index_text(TEXT), "pow.zzz")
    assert err.value.hint.startswith("its overloads: pow.Tensor_Tensor_out, pow.Tensor_Tensor")


def test_migrating_one_overload_leaves_the_others_byte_for_byte() -> None:
    only = tuple(names(nf.select_overloads(nf.index_text(TEXT), "pow.Tensor_Tensor_out")))
    edit = nf.migrate_family(TEXT, "pow", only=only)
    assert [m.entry for m in edit.moved] == ["pow.Tensor_Tensor_out"] and edit.legacy_kernels == (
        "pow_tensor_tensor_out_mps",)
    assert edit.text == TEXT.replace("    CPU, CUDA: pow_Tensor_Tensor_out\n    MPS: pow_tensor_tensor_out_mps\n",
                                     "    CPU, CUDA, MPS: pow_Tensor_Tensor_out\n")
    assert nf.entry_calling(edit.text, "pow_Scalar_out_mps") == "pow.Scalar_out"
    assert nf.entry_calling(edit.text, "pow_tensor_tensor_out_mps") is None
    # Idempotent on its own output.
    assert nf.migrate_family(edit.text, "pow", only=only).changes == ()

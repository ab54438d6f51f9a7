"""A host file that comes to include a header declaring a stub a header it already includes declares too
(2.7: UnaryKernel.mm adding TensorCompare.h for isposinf_stub, both UnaryOps.h and TensorCompare.h
declaring clamp_stub) loses the stale declaration, the one the stub's defining file does not include."""

from __future__ import annotations

from pathlib import Path

from mpsgen.plan.stale_twin import drop_stale_twins
from mpsgen.plan.texts import Draft
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout

NATIVE = "aten/src/ATen/native"
MM = f"{NATIVE}/mps/operations/UnaryKernel.mm"
UNARY_H = (
    "#pragma once\n"
    "namespace at::native {\n"
    "DECLARE_DISPATCH(void(*)(TensorIteratorBase&, const int64_t), polygamma_stub)\n"
    "DECLARE_DISPATCH(void(*)(TensorIteratorBase&, const Scalar& a, const Scalar& b), clamp_stub)\n"
    "DECLARE_DISPATCH(\n    void (*)(Tensor&, const Tensor&, int64_t),\n    multinomial_stub)\n"
    "} // namespace at::native\n")
COMPARE_H = (
    "#pragma once\n"
    "namespace at::native {\n"
    "using is_infinity_op_fn = void (*)(TensorIteratorBase&);\n"
    "DECLARE_DISPATCH(is_infinity_op_fn, isposinf_stub)\n"
    "using clamp_tensor_fn = void (*)(TensorIteratorBase&);\n"
    "DECLARE_DISPATCH(clamp_tensor_fn, clamp_stub)\n"
    "} // namespace at::native\n")
COMPARE_CPP = ("#include <ATen/native/TensorCompare.h>\nnamespace at::native {\nDEFINE_DISPATCH(clamp_stub);\n"
               "DEFINE_DISPATCH(isposinf_stub);\n}\n")
MM_BEFORE = "#include <ATen/native/UnaryOps.h>\nnamespace at::native {\n}\n"
MM_AFTER = "#include <ATen/native/TensorCompare.h>\n" + MM_BEFORE


def _tree(root: Path, **extra: str) -> Checkout:
    files = {f"{NATIVE}/UnaryOps.h": UNARY_H, f"{NATIVE}/TensorCompare.h": COMPARE_H,
             f"{NATIVE}/TensorCompare.cpp": COMPARE_CPP, MM: MM_BEFORE, f"{NATIVE}/native_functions.yaml": "",
             **extra}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return Checkout(root)


def _planned(checkout: Checkout, mm_after: str = MM_AFTER) -> tuple[Draft, list[str]]:
    draft = Draft(Changeset(checkout))
    draft.set_text(MM, mm_after, "host kernel")
    return draft, drop_stale_twins(draft, MM, mm_after)


def test_the_declaration_the_defining_file_does_not_include_goes(tmp_path: Path) -> None:
    draft, removed = _planned(_tree(tmp_path, **{f"{NATIVE}/cpu/TensorCompareKernel.cpp":
                                                 "#include <ATen/native/TensorCompare.h>\n"
                                                 "REGISTER_DISPATCH(clamp_stub, &clamp_kernel_impl)\n"}))
    assert draft.current(f"{NATIVE}/UnaryOps.h") == UNARY_H.replace(
        "DECLARE_DISPATCH(void(*)(TensorIteratorBase&, const Scalar& a, const Scalar& b), clamp_stub)\n", "")
    assert draft.current(f"{NATIVE}/TensorCompare.h") == COMPARE_H
    assert removed == [f"{NATIVE}/UnaryOps.h:4: DECLARE_DISPATCH of a second clamp_stub "
                       "(void(*)(TensorIteratorBase&, const Scalar&, const Scalar&)), which nothing defines and "
                       "TensorCompare.h's conflicts with in UnaryKernel.mm"]


def test_a_twin_some_file_may_still_use_stays(tmp_path: Path) -> None:
    # A kernel file naming clamp_stub through UnaryOps.h alone may mean the stale declaration.
    draft, removed = _planned(_tree(tmp_path, **{f"{NATIVE}/cuda/Clamp.cu": "#include <ATen/native/UnaryOps.h>\n"
                                                 "REGISTER_DISPATCH(clamp_stub, &clamp_kernel)\n"}))
    assert removed == []
    assert draft.current(f"{NATIVE}/UnaryOps.h") == UNARY_H


def test_twins_the_host_file_saw_before_the_change_are_not_its_business(tmp_path: Path) -> None:
    checkout = _tree(tmp_path, **{MM: MM_AFTER})
    draft, removed = _planned(checkout, MM_AFTER + "// the new host kernel\n")
    assert removed == []
    assert draft.current(f"{NATIVE}/UnaryOps.h") == UNARY_H


def test_a_mention_in_a_comment_is_no_use(tmp_path: Path) -> None:
    _, removed = _planned(_tree(tmp_path, **{f"{NATIVE}/Other.cpp": "#include <ATen/native/UnaryOps.h>\n"
                                             "// clamp_stub lives in TensorCompare.h\n"}))
    assert len(removed) == 1

"""emulate.bound.accepted: which scalar cases torch takes on the kernel's inputs, asked without noise."""

import warnings

import torch

from mpsgen.emulate.bound import accepted
from mpsgen.emulate.reference import Reference


def test_complex_inputs_are_asked_as_complex_without_a_cast_warning() -> None:
    seen: list[torch.dtype] = []

    def addcmul(a, b, c, value):
        seen.append(a.dtype)
        return torch.addcmul(a, b, c, value=value)

    args = [torch.tensor([1 + 2j, 3j], dtype=torch.complex64)] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # casting complex to float32 warns: that would be a bug here
        kept, note = accepted(Reference("torch.addcmul", addcmul), args, (0.5, 2.0))
    assert kept == (0.5, 2.0) and note == ""
    assert seen == [torch.complex64, torch.complex64]


def test_complex32_is_asked_widened_to_complex64_as_the_reference_is() -> None:
    """torch has no complex32 CPU addcdiv: the check's reference runs in complex64, so the probe does too."""
    args = [torch.tensor([1 + 2j, 3j], dtype=torch.complex32)] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kept, note = accepted(Reference("torch.addcdiv", lambda a, b, c, v: torch.addcdiv(a, b, c, value=v)),
                              args, (0.5, 2.0))
    assert kept == (0.5, 2.0) and note == ""


def test_a_case_torch_refuses_is_named() -> None:
    def needs_positive(a, value):
        if value < 0:
            raise RuntimeError("value must be positive")
        return a * value

    kept, note = accepted(Reference("f", needs_positive), [torch.ones(2)], (1.0, -1.0))
    assert kept == (1.0,)
    assert "-1.0" in note

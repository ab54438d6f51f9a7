"""The host-call scan tried only where a callee's name occurs finds the calls the pattern's finditer found."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mpsgen.lint import host_calls
from mpsgen.scan.brackets import calls_outside_directives
from mpsgen.scan.mask import mask_code

_PIECES = ["binary_mps_impl", "xbinary_mps_impl", "ternary_alpha_mps_impl", "getPipelineStateForFunc", "(", ")",
           " ", "\n", "#define X ", '"a"', "iter, ", "_mps_impl", "mps_impl(", "// c\n", "é"]


@given(text=st.lists(st.sampled_from(_PIECES), max_size=25).map("".join))
def test_calls_tried_at_the_callee_names_are_the_patterns(text):
    masked = mask_code(text)
    everywhere = [(m.span(), line, close) for m, line, close in calls_outside_directives(text, masked, host_calls._CALLEE)]
    at_names = [(m.span(), line, close) for m, line, close in
                calls_outside_directives(text, masked, host_calls._CALLEE, words=tuple(host_calls._NAME_ARGUMENT))]
    assert at_names == everywhere

"""A dispatch line's keys and kernel read by index._keys_and_kernel (a lookup of the text before `: `
and a match of the kernel) are exactly what the whole DISPATCH_LINE pattern reads, on crafted lines."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from mpsgen.sources.native_yaml.facts import DISPATCH_LINE
from mpsgen.sources.native_yaml.index import _keys_and_kernel

_PIECES = ["    ", " ", "\t", "CPU", "CUDA", "MPS", "A1", "_x", "1", ",", ", ", " ,", ":", ": ", " : ", ":\t", "::",
           "k", "ns::k", "a:b", "#", " # c", "#c", "é", "\u2003", "-", "(", "\r", "x y", ": k"]


def _read_before(line: str):
    m = DISPATCH_LINE.match(line)
    return None if m is None else (tuple(map(str.strip, m.group(2).split(","))), m.group(3))


@given(line=st.lists(st.sampled_from(_PIECES), max_size=10).map("".join))
@example(line="    CPU, CUDA: k")
@example(line="    CPU:\tx #c: k")
@example(line="    CPU: a: k")
@example(line="    CPU:x: k")
@example(line="    CPU : ns::k")
@example(line="\u2003CPU ,MPS: k")
@example(line="    CPU: k # c")
@example(line="    CPU: :k")
@example(line="  x: CPU: k")
def test_a_dispatch_lines_keys_and_kernel_are_what_the_pattern_reads(line):
    assert _keys_and_kernel(line) == _read_before(line)
    assert _keys_and_kernel(line) == _read_before(line)  # again, its text before `: ` now looked up
    assert _keys_and_kernel("    " + line) == _read_before("    " + line)

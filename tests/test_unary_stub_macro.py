"""unary_stub_macro.py: REGISTER_MPS_UNARY_STUB's #define goes with its last use, and only then."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.sources.host.unary_stub_macro import definition_span, remove_if_unused, uses

TEXT = (Path(__file__).parent / "data" / "host" / "UnaryOps_2026.mm").read_text(encoding="utf-8")
CALLS = ("REGISTER_MPS_UNARY_STUB(ceil, ceil);\n", "REGISTER_MPS_UNARY_STUB(floor, floor);\n",
         "REGISTER_MPS_UNARY_STUB(trunc, truncate);\n")


def without(text: str, *lines: str) -> str:
    for line in lines:
        assert line in text
        text = text.replace(line, "", 1)
    return text


def test_reads_the_definition_and_its_uses():
    assert definition_span(TEXT) == (45, 51)
    assert uses(TEXT) == [53, 54, 55]  # the REGISTER_DISPATCH inside the #define is not a use


def test_kept_while_a_line_still_uses_it():
    text = without(TEXT, CALLS[0], CALLS[2])
    assert remove_if_unused(text) == (text, None)


def test_removed_with_the_last_use_and_nothing_else():
    text = without(TEXT, *CALLS)
    out, line = remove_if_unused(text)
    assert line == 45
    assert "REGISTER_MPS_UNARY_STUB" not in out
    # Only the seven #define lines and the blank line after them left; the rest byte for byte.
    define = "".join(text.splitlines(True)[44:52])
    assert define.startswith("#define REGISTER_MPS_UNARY_STUB(func, mps_func)") and define.endswith("mps_##func##_kernel)\n\n")
    assert out == text.replace(define, "", 1)
    assert remove_if_unused(out) == (out, None)  # idempotent


def test_blank_lines_meeting_at_the_cut_collapse_to_one():
    text = "}\n\n#define REGISTER_MPS_UNARY_STUB(f, g) \\\n  REGISTER_DISPATCH(f##_stub, g)\n\n\n#define OTHER 1\n"
    out, line = remove_if_unused(text)
    assert (out, line) == ("}\n\n#define OTHER 1\n", 3)


def test_an_undef_goes_too():
    text = "#define REGISTER_MPS_UNARY_STUB(f, g) x\n\nint a;\n#undef REGISTER_MPS_UNARY_STUB\n"
    assert remove_if_unused(text)[0] == "int a;\n"


def test_a_definition_running_off_the_file_is_refused():
    with pytest.raises(MpsgenError, match="continues to the end of the file"):
        remove_if_unused("#define REGISTER_MPS_UNARY_STUB(f, g) \\\n  x \\\n", "UnaryOps.mm")


def test_commented_out_use_does_not_keep_it():
    text = without(TEXT, *CALLS).replace("} // namespace at::native", "// REGISTER_MPS_UNARY_STUB(round, round);\n} // namespace at::native")
    out, line = remove_if_unused(text)
    assert line == 45 and "#define REGISTER_MPS_UNARY_STUB" not in out

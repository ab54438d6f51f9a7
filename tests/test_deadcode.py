"""Static helpers and macros used only by a deleted MPSGraph implementation go with it."""

from __future__ import annotations

from pathlib import Path

from mpsgen.sources.deadcode import referenced_names, remove_unused_helpers
from mpsgen.sources.host import find_implementations, remove_implementation

MID_2026 = (Path(__file__).parent / "data" / "deadcode" / "UnaryOps_mid2026.mm").read_text()
PATH = "operations/UnaryOps.mm"


def remove_kernel(text: str, name: str) -> tuple[str, set[str]]:
    used: set[str] = set()
    for impl in find_implementations({PATH: text}, name):
        lines = text.splitlines(True)
        used |= referenced_names("".join(lines[impl.line - 1 : impl.end_line]))
        text = remove_implementation(text, impl)
    return text, used


def test_logit_helper_and_its_macro_go_when_both_logit_kernels_are_deleted() -> None:
    text, used = remove_kernel(MID_2026, "logit_out_mps")
    text, removed, left = remove_unused_helpers(text, PATH, used, "logit")
    assert removed == left == [] and "static void logit_mps_impl(" in text  # logit_mps still calls it

    text, used = remove_kernel(text, "logit_mps")
    text, removed, left = remove_unused_helpers(text, PATH, used, "logit")
    assert [what for _, what in removed] == ["static logit_mps_impl", "#define LOGIT_KEY"] and left == []
    assert "logit" not in text.replace("logit_native.h", "")
    # oneLike is still used by expm1_out_mps: it stays, byte for byte.
    start = MID_2026.index("static MPSGraphTensor* oneLike(")
    helper = MID_2026[start : MID_2026.index("}\n", start) + 2]
    assert helper in text and "TORCH_IMPL_FUNC(expm1_out_mps)" in text and "TORCH_IMPL_FUNC(sgn_out_mps)" in text
    # Only whole definitions were removed: every other line is unchanged and in order.
    kept = iter(MID_2026.splitlines(True))
    assert all(any(line == k for k in kept) for line in text.splitlines(True))
    assert "\n\n\n" not in text


def test_nothing_is_removed_when_the_deleted_code_used_no_local_helper() -> None:
    text, used = remove_kernel(MID_2026, "sgn_out_mps")
    assert remove_unused_helpers(text, PATH, used, "sgn") == (text, [], [])


def test_a_dead_shared_helper_is_reported_not_removed() -> None:
    text, used = remove_kernel(MID_2026, "expm1_out_mps")
    text, _, _ = remove_unused_helpers(text, PATH, used, "expm1")
    text, used2 = remove_kernel(text, "logit_out_mps")
    text, used3 = remove_kernel(text, "logit_mps")
    text, removed, left = remove_unused_helpers(text, PATH, used | used2 | used3, "logit")
    assert [what for _, what in removed] == ["static logit_mps_impl", "#define LOGIT_KEY"]
    assert [what for _, what in left] == ["static oneLike"] and "static MPSGraphTensor* oneLike(" in text

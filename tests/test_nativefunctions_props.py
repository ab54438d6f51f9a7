"""Property-based tests: dispatch edits are idempotent and never touch other entries."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpsgen.errors import MpsgenError
from mpsgen.sources.native_yaml.names import add_mps_to_family, index_text, migrate_family

FAMILIES = ["foo", "foo_bar"]
OVERLOADS = ["", "out", "Tensor", "Scalar_out"]


@st.composite
def dispatch_lines(draw, kernel: str) -> list[str]:
    pieces: list[list[str]] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(
            st.sampled_from(["shared", "shared_mtia", "shared_mps", "separate", "separate_diff", "legacy", "sparse",
                             "comment", "blank", "composite", "cpu_only", "migratable", "migratable", "migratable_mtia",
                             "migratable_separate"])
        )
        pieces.append({
            # the real file's common legacy shapes, weighted so most examples have something to move
            "migratable": [f"    CPU, CUDA: {kernel}", f"    MPS: {kernel}_mps"],
            "migratable_mtia": [f"    CPU, CUDA, MTIA: {kernel}", f"    MPS: {kernel}_mps"],
            "migratable_separate": [f"    CPU: {kernel}", f"    CUDA: {kernel}", f"    MPS: {kernel}_mps"],
            "shared": [f"    CPU, CUDA: {kernel}"],
            "shared_mtia": [f"    CPU, CUDA, MTIA: {kernel}"],
            "shared_mps": [f"    CPU, CUDA, MPS: {kernel}"],
            "separate": [f"    CPU: {kernel}", f"    CUDA: {kernel}"],
            "separate_diff": [f"    CPU: {kernel}_cpu", f"    CUDA: {kernel}_cuda"],
            "legacy": [f"    MPS: {kernel}_mps"],
            "sparse": [f"    SparseCPU, SparseCUDA, SparseMPS: {kernel}_sparse"],
            "comment": ["    # NB: a note"],
            "blank": [""],
            "composite": [f"    CompositeExplicitAutograd: {kernel}"],
            "cpu_only": [f"    CPU: {kernel}_only"],
        }[kind])
    return [line for piece in pieces for line in piece]


@st.composite
def entry(draw) -> str:
    family = draw(st.sampled_from(FAMILIES))
    base = family + draw(st.sampled_from(["", "_"]))
    overload = draw(st.sampled_from(OVERLOADS))
    name = f"{base}.{overload}" if overload else base
    kernel = name.replace(".", "_")
    lines = [f"- func: {name}(Tensor self) -> Tensor"]
    if draw(st.booleans()):
        lines.append("  device_check: NoCheck   # TensorIterator")
    if draw(st.booleans()):
        lines.append("  structured: True")
    style = draw(st.sampled_from(["block", "block_comment", "empty", "none"]))
    if style in ("block", "block_comment"):
        lines.append("  dispatch:" + ("  # a comment" if style == "block_comment" else ""))
        body = draw(dispatch_lines(kernel))
        lines.extend(body or [f"    CPU, CUDA: {kernel}"])
    elif style == "empty":
        lines.append("  dispatch: {}")
    lines.append(draw(st.sampled_from(["  tags: pointwise", "  tags: [core, pointwise]"])))
    return "\n".join(lines)


@st.composite
def native_file(draw) -> str:
    entries = draw(st.lists(entry(), min_size=1, max_size=8))
    separators = [draw(st.sampled_from(["\n\n", "\n# a column-0 comment\n\n", "\n"])) for _ in entries]
    text = "# header\n\n" + "".join(e + sep for e, sep in zip(entries, separators))
    return text.replace("\n", "\r\n") if draw(st.booleans()) else text


def chunks_outside(text: str, family: str) -> list[str]:
    idx = index_text(text)
    members = {e.line for e in idx.family(family).entries} if family in idx.families() else set()
    return [text[h.start : h.end] for h in idx.heads if h.line not in members]


def check_edit(text: str, family: str, edit_fn, **kwargs) -> None:
    try:
        first = edit_fn(text, family, **kwargs)
    except MpsgenError as err:
        assert err.line is not None and err.message  # a located refusal, never a crash
        return
    second = edit_fn(first.text, family, **kwargs)
    assert second.text == first.text and second.changes == ()
    # Other entries are untouched byte for byte, and so is everything before the first entry.
    assert chunks_outside(first.text, family) == chunks_outside(text, family)
    assert first.text[: index_text(text).heads[0].start] == text[: index_text(text).heads[0].start]
    # Only dispatch lines change, and no entry is left with MPS on two lines.
    before, after = index_text(text), index_text(first.text)
    for change in first.changes:
        assert change.old is None or change.old.startswith("    ")
        assert change.new is None or change.new.startswith("    ") and "MPS" in change.new
    for e in after.family(family).entries:
        assert not e.duplicate_mps
    assert first.text.count("\r\n") in (0, first.text.count("\n"))
    assert len(after.entries) == len(before.entries)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(native_file(), st.sampled_from(FAMILIES))
def test_migrate_is_idempotent_and_local(text: str, family: str) -> None:
    if family not in index_text(text).families():
        return
    check_edit(text, family, migrate_family)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(native_file(), st.sampled_from(FAMILIES))
def test_migrate_with_shared_kernel_is_idempotent_and_local(text: str, family: str) -> None:
    if family not in index_text(text).families():
        return
    check_edit(text, family, migrate_family, shared_kernel="named_kernel")


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(native_file(), st.sampled_from(FAMILIES))
def test_new_op_is_idempotent_and_local(text: str, family: str) -> None:
    if family not in index_text(text).families():
        return
    check_edit(text, family, add_mps_to_family)


@given(native_file(), st.sampled_from(FAMILIES))
def test_migrated_family_has_no_legacy_mps(text: str, family: str) -> None:
    if family not in index_text(text).families():
        return
    try:
        edit = migrate_family(text, family)
    except MpsgenError:
        return
    fam = index_text(edit.text).family(family)
    assert fam.legacy_kernels == ()
    assert fam.has_mps == index_text(text).family(family).has_mps

"""`migrate --all --stack`: the checks run before writing see the headers of the tree a family is planned
on (its parent commit's texts, then its own edits), not HEAD's headers on disk (issue 41)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from mpsgen.compiler.change import affected_files, compile_change, compile_planned
from mpsgen.emulate.overlay import include_root, planned_headers
from mpsgen.emulate.plan_numerics import check_plans, kind_check
from mpsgen.model import KernelOptions
from mpsgen.plan.group import plan_group
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import Checkout

UTILS = "c10/metal/utils.h"
HELPER = "c10/metal/stack_helper.h"
METAL = "aten/src/ATen/native/mps/kernels/UnaryKernel.metal"
# What family A's commit adds: a header of its own (HEAD's tree lacks it), included from utils.h.
HELPER_TEXT = """#pragma once
namespace c10 {
namespace metal {
template <typename T>
inline float stack_frac(T x) {
  return float(x) - ::metal::trunc(float(x));
}
} // namespace metal
} // namespace c10
"""
# Family B: frac, its functor calling A's helper.
FRAC = KernelOptions(op="frac", expr="c10::metal::stack_frac(x)")


def stack_base(tree: Path, helper: str = HELPER_TEXT) -> dict[str, str]:
    """The texts of A's commit, which build_stack passes B as its base."""
    return {UTILS: (tree / UTILS).read_text() + "#include <c10/metal/stack_helper.h>\n", HELPER: helper}


def test_a_familys_numeric_check_sees_the_header_an_earlier_commit_of_the_stack_added(sample_tree: Path) -> None:
    checkout = Checkout(sample_tree)
    group = plan_group("migrate", checkout, ["frac"], FRAC, stack_base(sample_tree))
    assert not (sample_tree / HELPER).exists()  # only the parent commit holds it
    check = check_plans(group, checkout, kernel=FRAC)
    assert check.agreed and [c.state for c in check.ops] == ["agreed"], check.summary()
    assert "agree with torch.frac" in check.summary()
    # the check ran A's helper: a helper computing trunc instead makes it disagree
    wrong = plan_group("migrate", checkout, ["frac"], FRAC,
                       stack_base(sample_tree, HELPER_TEXT.replace("float(x) - ::metal::trunc", "::metal::trunc")))
    assert not check_plans(wrong, checkout, kernel=FRAC).agreed


def test_a_familys_compile_check_sees_the_header_an_earlier_commit_of_the_stack_added(sample_tree: Path) -> None:
    checkout = Checkout(sample_tree)
    stacked = compile_planned(plan_group("migrate", checkout, ["frac"], FRAC, stack_base(sample_tree)).changeset)
    assert METAL in stacked.compiled and stacked.ok, [d.render() for d in stacked.findings]
    # the check compiled A's helper: one that does not compile is a finding
    broken = stack_base(sample_tree, HELPER_TEXT.replace("::metal::trunc(", "no_such_function("))
    found = compile_planned(plan_group("migrate", checkout, ["frac"], FRAC, broken).changeset)
    assert METAL in found.compiled and not found.ok
    assert any(d.path == METAL and "no_such_function" in d.message for d in found.findings), found.findings


def test_the_planned_headers_are_the_bases_and_the_plans_own_over_them(sample_tree: Path) -> None:
    kernel_h = "aten/src/ATen/native/mps/kernels/Stack.h"
    cs = Changeset(Checkout(sample_tree), base={HELPER: HELPER_TEXT, kernel_h: "// A's params\n",
                                                "aten/src/ATen/native/mps/kernels/Stack.metal": "// A's kernels\n"})
    cs.set_text(kernel_h, "// B's params over A's\n")
    cs.set_text(UTILS, "// B's utils\n")
    assert planned_headers(cs) == {HELPER: HELPER_TEXT, kernel_h: "// B's params over A's\n", UTILS: "// B's utils\n"}


def test_the_overlay_holds_headers_the_disk_lacks_and_links_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    kernels = root / "aten/src/ATen/native/mps/kernels"
    kernels.mkdir(parents=True)
    (kernels / "Old.h").write_text("// old\n")
    (root / "c10/metal").mkdir(parents=True)
    (root / "c10/metal/utils.h").write_text("// utils\n")
    (root / "c10/util").mkdir()
    planned = {HELPER: HELPER_TEXT, "aten/src/ATen/native/mps/kernels/New.h": "// new\n"}
    overlay = include_root(root, planned, tmp_path / "cache")
    assert (overlay / HELPER).read_text() == HELPER_TEXT
    assert (overlay / "aten/src/ATen/native/mps/kernels/New.h").read_text() == "// new\n"
    assert (overlay / "aten/src/ATen/native/mps/kernels/Old.h").read_text() == "// old\n"
    assert (overlay / "c10/metal/utils.h").read_text() == "// utils\n" and (overlay / "c10/util").is_dir()
    assert not (root / HELPER).exists() and not (kernels / "New.h").exists()  # the checkout is never written


def test_every_kind_check_compiles_against_the_planned_headers(sample_tree: Path, monkeypatch) -> None:
    import mpsgen.emulate.fill_check as fill_check

    seen: list[Path] = []
    monkeypatch.setattr(fill_check, "check_fill", lambda kernel, metal, where: seen.append(Path(where)))
    cs = Changeset(Checkout(sample_tree), base={HELPER: HELPER_TEXT})
    plan = SimpleNamespace(kernel="fill", random=None, reduction=None, indexing=None,
                           nullary=SimpleNamespace(metal_path=METAL))
    kind_check(plan, cs, sample_tree, planned_headers(cs))  # type: ignore[arg-type]
    assert seen and (seen[0] / HELPER).read_text() == HELPER_TEXT


def test_the_compile_check_lists_files_only_a_commit_below_created(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "aten/src/ATen/native/mps/kernels").mkdir(parents=True)
    extra = "aten/src/ATen/native/mps/kernels/Extra.metal"
    texts = {extra: "#include <c10/metal/utils.h>\n"}
    after = {UTILS: "// B's utils\n"}
    before: dict[str, str | None] = {UTILS: "// utils\n"}
    assert affected_files(root, after, before, texts.get) == []
    assert affected_files(root, after, before, texts.get, beyond_disk=(extra, HELPER)) == [extra]


def test_headers_only_the_commits_below_changed_keep_the_quick_parse(tmp_path: Path, monkeypatch) -> None:
    seen = spy_compiles(monkeypatch)
    base = {UTILS: "// A's utils\n"}
    compile_change(tmp_path, {MM: "// B\n"}, {MM: "// A\n"}, disk_text=lambda rel: None, base=base, thorough=False)
    assert seen == [(MM, "// B\n", False)]  # utils.h is A's on both sides: checked with A
    seen.clear()
    compile_change(tmp_path, {MM: "// B\n", UTILS: "// B's utils\n"}, {MM: "// A\n", UTILS: "// A's utils\n"},
                   disk_text=lambda rel: None, base=base, thorough=False)
    assert seen == [(MM, "// B\n", False)]  # B edits it, but B's .mm does not include it


def test_a_header_edit_is_checked_whole_once_and_its_other_includers_against_its_declarations(
        tmp_path: Path, monkeypatch) -> None:
    ops = tmp_path / "aten/src/ATen/native/mps/operations"
    ops.mkdir(parents=True)
    header = "aten/src/ATen/native/mps/OperationUtils.h"
    includer = '#include <ATen/native/mps/OperationUtils.h>\n'
    others = {f"aten/src/ATen/native/mps/operations/{n}.mm": includer for n in ("Activation", "Indexing")}
    for rel, text in others.items():
        (tmp_path / rel).write_text(text)
    seen = spy_compiles(monkeypatch)
    after, before = {header: "// new\n"}, {header: "// old\n"}
    compile_change(tmp_path, after, before, disk_text=others.get, thorough=False)
    assert [(Path(rel).name, deep) for rel, _, deep in seen] == [("Activation.mm", True), ("Indexing.mm", False)]
    seen.clear()
    compile_change(tmp_path, {**after, MM: includer + "// B\n"}, {**before, MM: includer}, disk_text=others.get,
                   thorough=False)
    assert [(Path(rel).name, deep) for rel, _, deep in seen] == \
        [("UnaryKernel.mm", True), ("Activation.mm", False), ("Indexing.mm", False)]


def test_the_old_side_is_compiled_only_when_the_new_side_has_a_diagnostic(tmp_path: Path, monkeypatch) -> None:
    seen = spy_compiles(monkeypatch, failing="// B\n")
    check = compile_change(tmp_path, {MM: "// B\n"}, {MM: "// A\n"}, disk_text=lambda rel: None, thorough=False)
    assert [text for _, text, _ in seen] == ["// B\n", "// A\n"]
    assert [d.message for d in check.findings] == ["broken"]


MM = "aten/src/ATen/native/mps/operations/UnaryKernel.mm"


def spy_compiles(monkeypatch, failing: str = "") -> list[tuple[str, str, bool]]:
    """Each compile the check asks for: (file, text, with header bodies); a text equal to *failing*
    gets one error."""
    import mpsgen.compiler.change as change
    from mpsgen.compiler.diagnostic import ERROR, Diagnostic

    seen: list[tuple[str, str, bool]] = []

    def compile_one(root, rel, text, overlay, yaml, cache, thorough):  # type: ignore[no-untyped-def]
        seen.append((rel, text, thorough))
        return [Diagnostic(rel, 1, 1, ERROR, "broken")] if text == failing else []

    monkeypatch.setattr(change, "_compile", compile_one)
    return seen

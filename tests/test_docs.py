"""The README stays a page a newcomer reads in a minute, its two commands stay what CI runs, and every
link of the README and docs/ leads to a file and heading that exist."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
INSTALL_AND_RUN = ("pip install . ninja && mpsgen sample /tmp/mpsgen-sample && "
                   "mpsgen -C /tmp/mpsgen-sample migrate atan2")
TEST_COMMAND = 'pip install torch==2.13.0 ".[test]" && python -m pytest -q'
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)  # a `# comment` is no heading
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        base = slug(heading)
        out.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return out


def broken_links(doc: Path) -> list[str]:
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        if not dest.exists():
            broken.append(f"{target}: no file {dest}")
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    return broken


def test_readme_is_one_page_with_a_contents_list_near_the_top():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    assert "## Contents" in lines[:30]


def test_readme_commands_are_the_install_run_and_the_ci_test_command():
    text = README.read_text(encoding="utf-8")
    first_block = text[text.index("```bash\n"):text.index("```\n", text.index("```bash\n") + 1)]
    assert INSTALL_AND_RUN in first_block.splitlines() and TEST_COMMAND in first_block.splitlines()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == TEST_COMMAND  # .ci/run runs exactly the README's second command


def test_every_link_of_the_readme_and_docs_resolves():
    docs = [README, *sorted((REPO / "docs").glob("*.md"))]
    assert len(docs) > 5
    assert [b for doc in docs for b in broken_links(doc)] == []


def test_the_readme_links_every_reference_page_of_docs():
    targets = {t.partition("#")[0] for t in LINK.findall(README.read_text(encoding="utf-8"))}
    assert {f"docs/{p.name}" for p in (REPO / "docs").glob("*.md")} <= targets


def test_a_broken_link_or_anchor_is_found(tmp_path: Path):
    (tmp_path / "a.md").write_text("# Top: the `x` part\n\n[ok](#top-the-x-part) [gone](b.md) [bad](#nowhere)\n")
    assert [b.split(":")[0] for b in broken_links(tmp_path / "a.md")] == ["b.md", "#nowhere"]


def test_the_figures_carry_their_date_and_basis():
    text = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    block = text.split("<!-- figures: written by benchmarks/docs_figures.py; do not edit -->\n")[1].split(
        "<!-- end figures -->")[0]
    if block.strip() == "(not measured yet)":  # says so, and shows no figure without its basis
        return
    assert re.match(r"Measured \d{4}-\d{2}-\d{2} \(UTC\) by `python benchmarks/docs_figures.py ", block)
    assert "mpsgen at " in block and " CPUs " in block and "| figure |" in block

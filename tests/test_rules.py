"""The rule registry: one function per code with its metadata beside it, `mpsgen rules`, and the table of docs/rules.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from mpsgen.cli import main
from mpsgen.lint import rules

REPO = Path(__file__).resolve().parent.parent


def test_one_function_per_code_each_in_a_rules_module():
    registry = rules.all_rules()
    codes = [r.code for r in registry]
    assert codes == [f"MPS{i:03d}" for i in range(1, 21)] + ["MPS030"]
    assert codes == sorted(set(codes)) and all(re.fullmatch(r"MPS\d{3}", c) for c in codes)
    functions = [r.check for r in registry]
    assert len(set(functions)) == len(functions)
    for r in registry:
        assert r.check.__module__.startswith("mpsgen.lint.rules."), r.code
        # The long description is the function's docstring: the defect, and how to fix it.
        assert r.description and "Fix:" in r.description, r.code


def test_each_rule_states_its_defect_and_the_severity_follows_it():
    for r in rules.all_rules():
        first = r.description.split("\n\n")[0].lower()
        if r.severity == "error":
            assert any(w in first for w in ("link error", "compile error", "runtime error", "silently wrong")), (r.code, first)
        else:
            assert any(w in first for w in ("half-done migration", "left behind", "leftover", "unfinished", "does nothing")), (r.code, first)


def test_a_second_function_for_a_code_is_refused():
    import pytest

    with pytest.raises(ValueError, match="MPS003 is emitted by two functions"):
        @rules.rule("MPS003", "again", "error", "duplicate")
        def again(inv):
            """Fix: none."""
            return []


def test_docs_table_is_the_registry():
    # docs/regenerate.py writes it; every code once, in the registry's order and words.
    text = (REPO / "docs" / "rules.md").read_text()
    assert rules.markdown_table() in text
    assert text.count("| MPS0") == len(rules.all_rules())


def run(*args: str):
    return CliRunner().invoke(main, ["rules", *args])


def test_rules_lists_every_code_one_line_each():
    r = run()
    assert r.exit_code == 0
    lines = r.output.splitlines()
    n = len(rules.all_rules())
    assert [ln.split()[0] for ln in lines[:n]] == [r.code for r in rules.all_rules()]
    assert lines[6].split()[1:3] == ["host-kernel-unregistered", "error"]
    assert lines[n] == "`mpsgen rules CODE` explains one."
    assert "--select" in lines[n + 1] and "mpsgen: ignore[CODE]" in r.output  # then how to adopt them


def test_rules_explains_one_by_code_or_name():
    r = run("mps001")
    assert r.exit_code == 0
    assert r.output.startswith("MPS001 split-family (warning)\n")
    assert "`mpsgen migrate FAMILY`" in r.output and "set_" in r.output and "pow_Scalar_out" in r.output
    assert run("stale-xfail").output.startswith("MPS010 stale-xfail (warning)\n")


def test_rules_json():
    doc = json.loads(run("MPS007", "--format", "json").output)
    assert doc["code"] == "MPS007" and doc["name"] == "host-kernel-unregistered" and doc["severity"] == "error"
    assert "host_name" in doc["description"]
    every = json.loads(run("--format", "json").output)
    assert [d["code"] for d in every] == [r.code for r in rules.all_rules()]


def test_unknown_rule_is_a_user_error():
    r = run("MPS099")
    assert r.exit_code == 2 and "no rule 'MPS099'" in r.output and "MPS010" in r.output

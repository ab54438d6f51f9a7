"""report.py: the code table, filtering to pre-commit's paths, and each output format by content."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mpsgen.lint import rules
from mpsgen.errors import MpsgenError
from mpsgen.lint.report import Finding, exit_code, filter_to_paths, render

REPO = Path(__file__).resolve().parent.parent

ERR = Finding("aten/src/ATen/native/mps/operations/BinaryKernel.mm", 12, 3, "MPS007", "error",
              "host kernel 'atan2' has no REGISTER_* line", hint="add REGISTER_FLOAT_BINARY_OP(atan2)")
WARN = Finding("torch/testing/_internal/common_mps.py", 40, 9, "MPS010", "warning",
               "xfail 'atan2' is stale: remove it")


def test_codes_are_unique_stable_and_described():
    registry = {r.code: r for r in rules.all_rules()}
    codes = list(registry)
    assert codes == [f"MPS{i:03d}" for i in range(1, 21)] + ["MPS030"]
    assert len({r.name for r in registry.values()}) == len(codes)
    assert rules.get("MPS010").name == "stale-xfail" and rules.get("MPS001").name == "split-family"
    for rule in registry.values():
        assert rule.severity in ("error", "warning") and rule.summary and "\n" not in rule.summary


def test_finding_of_rule_uses_its_code_and_severity():
    f = rules.get("MPS011").finding("a.mm", 5, "dead", col=2)
    assert (f.code, f.severity, f.line, f.col) == ("MPS011", "warning", 5, 2)
    assert rules.get("MPS004").finding("a.mm", 5, "dead").severity == "error"


def test_finding_rejects_bad_severity_and_zero_line():
    with pytest.raises(ValueError):
        Finding("a", 1, 1, "MPS001", "fatal", "m")
    with pytest.raises(ValueError):
        Finding("a", 0, 1, "MPS001", "error", "m")


def test_text_format_sorted_with_hint_and_summary():
    out = render([WARN, ERR], "text")
    lines = out.splitlines()
    assert lines[0] == ("aten/src/ATen/native/mps/operations/BinaryKernel.mm:12:3: MPS007 host kernel 'atan2' has "
                        "no REGISTER_* line (hint: add REGISTER_FLOAT_BINARY_OP(atan2))")
    assert lines[1] == "torch/testing/_internal/common_mps.py:40:9: MPS010 xfail 'atan2' is stale: remove it"
    assert lines[2] == "Found 1 error and 1 warning."
    assert "\033[" not in out


def test_text_colour_only_when_asked():
    out = render([ERR], "text", color=True)
    assert "\033[31mMPS007\033[0m" in out


def test_text_empty_is_empty():
    assert render([], "text") == ""


def test_json_format():
    doc = json.loads(render([ERR, WARN], "json"))
    assert doc["summary"] == {"errors": 1, "warnings": 1}
    first = doc["findings"][0]
    assert first == {
        "path": ERR.path, "line": 12, "col": 3, "code": "MPS007", "name": "host-kernel-unregistered",
        "severity": "error", "message": ERR.message, "hint": ERR.hint,
    }
    assert json.loads(render([], "json")) == {"findings": [], "summary": {"errors": 0, "warnings": 0}}


@pytest.mark.parametrize("text", ["plain", "", 'quote " and \\ backslash', "tab\tnew\nline\r\x00\x1f\x7f",
                                  "caf\u00e9 \u2028 \U0001f600 \ud800 lone surrogate", "</script>"])
def test_json_format_is_json_dumps_with_indent_2(text: str):
    """--format json is written without json's encoder: byte for byte what json.dumps(doc, indent=2) writes."""
    from mpsgen.lint.finding import Basis
    from mpsgen.lint.report import _rule_names, finding_to_dict

    shown = [ERR, WARN, Finding(text or "x", 7, 1, "MPS999", "warning", text, hint=text or None),
             Finding("a.mm", 2, 5, "MPS007", "error", text, via=Basis(text))]
    for findings in (shown, [], [WARN]):
        ordered = sorted(findings, key=lambda f: (f.path, f.line, f.col, f.code, f.message))
        errors = sum(f.severity == "error" for f in ordered)
        doc = {"findings": [finding_to_dict(f, _rule_names()) for f in ordered],
               "summary": {"errors": errors, "warnings": len(ordered) - errors}}
        assert render(findings, "json") == json.dumps(doc, indent=2) + "\n"


def test_json_format_of_a_field_of_another_type_is_json_dumps():
    odd = Finding("a.mm", 2.5, True, "MPS007", "error", "m")  # type: ignore[arg-type]
    doc = json.loads(render([odd], "json"))
    assert (doc["findings"][0]["line"], doc["findings"][0]["col"]) == (2.5, True)


def test_github_annotations_escape_properties_and_data():
    f = Finding("dir,x/a:b.mm", 7, 2, "MPS001", "error", "50% done\nsecond line")
    out = render([f, WARN], "github").splitlines()
    assert out[0] == "::error file=dir%2Cx/a%3Ab.mm,line=7,col=2,title=mpsgen MPS001::MPS001 50%25 done%0Asecond line"
    assert out[1].startswith("::warning file=torch/testing/_internal/common_mps.py,line=40,col=9,")


def test_lintrunner_json_lines(tmp_path: Path):
    out = render([ERR, WARN], "lintrunner", root=tmp_path)
    msgs = [json.loads(line) for line in out.splitlines()]
    assert len(msgs) == 2
    assert set(msgs[0]) == {"path", "line", "char", "code", "severity", "name", "original", "replacement",
                            "description"}
    assert msgs[0]["path"] == str(tmp_path.resolve() / ERR.path)
    assert (msgs[0]["code"], msgs[0]["name"], msgs[0]["severity"]) == ("MPSGEN", "MPS007", "error")
    assert (msgs[0]["line"], msgs[0]["char"]) == (12, 3)
    assert msgs[0]["description"].endswith("(hint: add REGISTER_FLOAT_BINARY_OP(atan2))")
    assert msgs[1]["severity"] == "warning" and msgs[1]["original"] is None


def test_unknown_format_is_a_user_error():
    with pytest.raises(MpsgenError, match="unknown output format 'xml'"):
        render([ERR], "xml")


@pytest.mark.parametrize("fmt,expected", [("text", 1), ("json", 1), ("github", 1), ("lintrunner", 0)])
def test_exit_code_with_errors(fmt, expected):
    assert exit_code([ERR, WARN], fmt) == expected


def test_exit_code_warnings_only_and_none():
    assert exit_code([WARN], "text") == 0
    assert exit_code([], "json") == 0


def test_filter_to_paths_as_precommit_passes_them(tmp_path: Path):
    root = tmp_path / "pytorch"
    root.mkdir()
    absolute = Finding(str(root / "aten/src/ATen/native/native_functions.yaml"), 3, 1, "MPS002", "error", "dup")
    findings = [ERR, WARN, absolute]
    # pre-commit runs from the root with root-relative names
    kept = filter_to_paths(findings, ["torch/testing/_internal/common_mps.py",
                                      "aten/src/ATen/native/native_functions.yaml"], root, cwd=root)
    assert kept == [WARN, absolute]
    # from a sub-folder, names are relative to that folder
    sub = root / "aten"
    kept = filter_to_paths(findings, ["src/ATen/native/mps/operations/BinaryKernel.mm"], root, cwd=sub)
    assert kept == [ERR]
    assert filter_to_paths(findings, [], root) == findings
    assert filter_to_paths(findings, ["setup.py"], root, cwd=root) == []


def test_precommit_manifest_is_valid_and_matches_the_right_files():
    from pre_commit.clientlib import load_manifest

    hooks = load_manifest(str(REPO / ".pre-commit-hooks.yaml"))
    (hook,) = hooks
    assert hook["id"] == "mpsgen-check"
    assert hook["entry"] == "mpsgen check" and hook["language"] == "python" and hook["pass_filenames"] is True
    files = re.compile(hook["files"])
    for path in [
        "aten/src/ATen/native/native_functions.yaml",
        "aten/src/ATen/native/mps/operations/BinaryKernel.mm",
        "aten/src/ATen/native/mps/kernels/UnaryKernel.metal",
        "aten/src/ATen/native/BinaryOps.h",
        "aten/src/ATen/native/BinaryOps.cpp",
        "torch/testing/_internal/common_mps.py",
        "torch/testing/_internal/common_methods_invocations.py",
        "torch/testing/_internal/opinfo/definitions/special.py",
        "test/test_mps.py",  # PyTorch 2.7's MPS test lists (MPS010 reads them)
    ]:
        assert files.search(path), path
    for path in ["aten/src/ATen/native/cuda/BinaryOps.cu", "setup.py", "aten/src/ATen/native/cpu/BinaryOps.cpp",
                 "test/test_ops.py"]:
        assert not files.search(path), path


def test_a_finding_behaves_as_the_frozen_dataclass_it_replaced():
    from dataclasses import FrozenInstanceError, dataclass, replace

    from mpsgen.lint.finding import Basis

    @dataclass(frozen=True)
    class Finding:  # the dataclass lint/finding.py had
        path: str
        line: int
        col: int
        code: str
        severity: str
        message: str
        hint: str | None = None
        rests_on: tuple = ()
        via: Basis | None = None

    from mpsgen.lint import finding as ours

    args = [("a.mm", 3, 2, "MPS001", "error", "m"), ("a.mm", 3, 2, "MPS001", "error", "m", "h", (Basis("b.h", 4),))]
    def shown(f: Finding) -> str:
        return repr(f).replace(Finding.__qualname__, "Finding")

    for a in args:
        mine, ref = ours.Finding(*a), Finding(*a)
        assert repr(mine) == shown(ref) and hash(mine) == hash(ref)
        assert mine == ours.Finding(*a) and mine != ours.Finding(*a[:5], "other") and mine != ref
        assert repr(mine.with_via(Basis("b.h", 4))) == shown(replace(ref, via=Basis("b.h", 4)))
        with pytest.raises(AttributeError):
            mine.line = 4  # type: ignore[misc]
        with pytest.raises(FrozenInstanceError):
            ref.line = 4  # type: ignore[misc]
    rule = rules.get("MPS001")
    assert rule == rules.get("split-family") and len({rule, rules.get("MPS001")}) == 1
    assert repr(rule).startswith("Rule(code='MPS001', name='split-family', severity='warning', summary=")


def test_bases_are_distinct_files_in_order_and_read_once() -> None:
    from mpsgen.lint.finding import Basis, bases
    from mpsgen.lint.rules import get

    made = bases(["a.mm", Basis("b.mm", 7)], [Basis("a.mm", 3), "c.mm"])
    assert made == (Basis("a.mm", 1), Basis("b.mm", 7), Basis("c.mm", 1))
    assert bases(made) is made  # already distinct: handed on as it is
    assert bases(made, ["d.mm", "a.mm"]) == (*made, Basis("d.mm", 1))
    finding = get("MPS003").finding("b.mm", 2, "m", rests_on=made)
    assert finding.rests_on == (Basis("a.mm", 1), Basis("c.mm", 1)) and type(finding.rests_on) is tuple

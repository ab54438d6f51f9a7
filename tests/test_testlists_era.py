"""PyTorch 2.7 kept its MPS test lists in test/test_mps.py (no common_mps.py yet): read and edited there as
newer trees' common_mps.py is, by migrate/new-op and by MPS010.

The tree: the 2.7-shaped sample (tests/tree27.py) whose test/test_mps.py gets, after its own code, the
lists as 2.7 wrote them: module-level functions mps_ops_grad_modifier / mps_ops_modifier holding the
tables, and after them module-level *_LOW_PRECISION_LIST sets (tolerances, not test lists).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen
from tree27 import commit_tree27, lay_tree27

from mpsgen.sources.testlists.commonmps import entries

TEST_MPS = "test/test_mps.py"
LISTS_27 = '''\
import unittest

import torch


def mps_ops_grad_modifier(ops):
    XFAILLIST_GRAD = {
        # Unimplemented backward
        'heaviside': [torch.float16],
        'nn.functional.no_such_op': None,
    }
    for op in ops:
        yield op


def mps_ops_modifier(ops):
    # Supported complex OPS
    SUPPORTED_COMPLEX_OPS = {
        'add',
        'atan2',
    }

    UNIMPLEMENTED_XFAILLIST = {
        # Failures due to lack of op implementation on MPS backend
        'cummax': None,
        'heaviside': None,
        'logspace': None,
    }

    def addDecorator(op, d) -> None:
        op.decorators = list(op.decorators) + [d]

    for op in ops:
        yield op


FP16_LOW_PRECISION_LIST = {
    'heaviside', 'not_an_opinfo_but_a_tolerance',
}

'''


@pytest.fixture()
def tree27_lists(tree: Path) -> Path:
    lay_tree27(tree)
    path = tree / TEST_MPS
    path.write_text(path.read_text() + "\n\n" + LISTS_27)  # after the file's own `from __future__` import
    commit_tree27(tree)
    return tree


def test_the_lists_are_the_modifier_functions_tables_not_module_level_sets():
    found = [(e.table, e.function, e.key) for e in entries(LISTS_27, path=TEST_MPS)]
    assert ("UNIMPLEMENTED_XFAILLIST", "mps_ops_modifier", "heaviside") in found
    assert ("XFAILLIST_GRAD", "mps_ops_grad_modifier", "heaviside") in found
    assert not [t for t, *_ in found if t == "FP16_LOW_PRECISION_LIST"]
    lines = LISTS_27.splitlines()
    assert all(f"'{e.key}'" in lines[e.line - 1] for e in entries(LISTS_27, path=TEST_MPS))  # lines of the file


def test_the_same_lists_read_from_an_indented_region_keep_their_lines():
    """common_mps.py's functions sit under `if torch.backends.mps.is_available():`: only that region is
    parsed (test_mps.py has 13,000 lines), at the file's own line numbers."""
    indented = "import torch\n\nif torch.backends.mps.is_available():\n" + "".join(
        ("    " + ln if ln.strip() else ln) for ln in LISTS_27.split("\n\n\n", 1)[1].splitlines(keepends=True))
    found = entries(indented, path="common_mps.py")
    lines = indented.splitlines()
    assert {e.key for e in found} == {"heaviside", "nn.functional.no_such_op", "add", "atan2", "cummax", "logspace"}
    assert all(f"'{e.key}'" in lines[e.line - 1] for e in found)


def test_new_op_on_27_edits_test_mps_py_and_only_the_ops_entries(tree27_lists: Path):
    before = (tree27_lists / TEST_MPS).read_text()
    result = mpsgen("-C", str(tree27_lists), "new-op", "heaviside", "--expr", "a == 0 ? b : T(a > 0)",
                    "--no-build", "--no-test", "--no-try")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not found" not in result.stdout
    assert f'{TEST_MPS}:' in result.stdout and 'removed "heaviside" from UNIMPLEMENTED_XFAILLIST' in result.stdout
    after = (tree27_lists / TEST_MPS).read_text()
    removed = [ln for ln in before.splitlines() if ln not in after.splitlines()]
    # The xfails of a kernel that now exists go (every MPS test of an op with no kernel failed);
    # the tolerance set stays.
    assert removed == ["        'heaviside': [torch.float16],", "        'heaviside': None,"]
    assert after.count("\n") == before.count("\n") - 2
    assert "'heaviside', 'not_an_opinfo_but_a_tolerance'," in after


def test_mps010_reads_27s_test_mps_py(tree27_lists: Path):
    result = mpsgen("-C", str(tree27_lists), "check", "--no-cache", "--format", "json")
    stale = [f for f in _findings(result) if f["code"] == "MPS010"]
    line = (tree27_lists / TEST_MPS).read_text().splitlines().index("        'nn.functional.no_such_op': None,") + 1
    assert [(f["path"], f["line"], "no_such_op" in f["message"]) for f in stale] == [(TEST_MPS, line, True)]


def _findings(result: subprocess.CompletedProcess[str]) -> list[dict]:
    import json

    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    return data["findings"] if isinstance(data, dict) else data


def test_common_mps_py_wins_when_both_files_exist(tmp_path: Path):
    """The 2026-shaped tree keeps 2.7's test_mps.py beside common_mps.py: the newer file is the one read."""
    from mpsgen.tree.capabilities import of_checkout
    from mpsgen.tree.checkout import COMMON_MPS_REL, YAML_REL, Checkout

    (tmp_path / YAML_REL).parent.mkdir(parents=True)
    (tmp_path / YAML_REL).write_text("")
    checkout = Checkout(tmp_path)
    assert of_checkout(checkout).test_lists_rel is None
    (tmp_path / "test").mkdir()
    (tmp_path / TEST_MPS).write_text("import unittest\n")  # a test_mps.py of another shape holds no lists
    assert of_checkout(Checkout(tmp_path)).test_lists_rel is None
    for rel in (TEST_MPS, COMMON_MPS_REL):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(LISTS_27)
        assert of_checkout(Checkout(tmp_path)).test_lists_rel == rel


SIGNATURE_ON_LINES = '''\
import torch

if torch.backends.mps.is_available():

    def mps_ops_grad_modifier(ops):
        XFAILLIST_GRAD = {"atan2": None}
        return ops

    def mps_ops_modifier(
        ops,
        device_type: str = "mps",
        note: str = NOTE,
    ) -> list:
        XFAILLIST = {"heaviside": None}
        return ops

AFTER_THE_LISTS = {"not_a_list": None}
'''


def test_a_signature_on_several_lines_ends_the_region_at_the_body_not_at_its_close():
    """2.13's common_mps.py spells `def mps_ops_modifier(` ... `) -> Sequence[OpInfo]:` over lines, its
    `)` at the def's own indentation: the region still runs to the end of the body, and parses alone."""
    import ast

    from mpsgen.sources.testlists.tables import modifiers_source

    region = modifiers_source(SIGNATURE_ON_LINES)
    assert region is not None
    ast.parse(region)  # the region alone: the whole file is not parsed
    assert 'XFAILLIST = {"heaviside": None}' in region and "AFTER_THE_LISTS" not in region
    found = entries(SIGNATURE_ON_LINES, path="common_mps.py")
    lines = SIGNATURE_ON_LINES.splitlines()
    assert [(e.table, e.key) for e in found] == [("XFAILLIST_GRAD", "atan2"), ("XFAILLIST", "heaviside")]
    assert all(f'"{e.key}"' in lines[e.line - 1] for e in found)


def test_a_parenthesis_in_a_default_string_falls_back_to_the_whole_file():
    """The signature's `(` is matched in the raw text: a `)` in a default's string closes it early, the
    region is cut inside the signature and does not parse, and the lists are read from the whole file."""
    text = SIGNATURE_ON_LINES.replace("NOTE", '")"')
    found = entries(text, path="common_mps.py")
    assert [(e.table, e.key) for e in found] == [("XFAILLIST_GRAD", "atan2"), ("XFAILLIST", "heaviside")]
    assert all(f'"{e.key}"' in text.splitlines()[e.line - 1] for e in found)

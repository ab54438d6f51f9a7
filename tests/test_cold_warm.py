"""`check` and `status` as CI runs them (cold: an empty fact store) and as a developer re-runs them
(warm: the facts of the first run re-used) give the same answers, finding for finding."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from mpsgen.cli import main
from mpsgen.lint import shared_kernels
from mpsgen.lint.shared_kernels import SharedKernels
from mpsgen.tree import factcache
from mpsgen.tree.factcache import FactCache

from test_checks import build_real_tree


def _run(root: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["-C", str(root), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


@pytest.mark.parametrize("racy", [True, False], ids=["just-written", "edited-long-ago"])
def test_check_and_status_cold_and_warm_agree(sample_tree: Path, real_yaml_path: Path, real_testing_dir: Path,
                                              tmp_path: Path, monkeypatch, racy: bool):
    """A tree with real findings (the sample checkout with the wheel's yaml and test lists): the
    findings of a first run with an empty store, of the next run (facts re-used) and of --no-cache
    are the same records in the same order; so are status's dashboard and one family's details.
    *racy*: the files were written a moment ago (every fact re-checked by checksum) or long
    before (their stamps vouch for them)."""
    root = build_real_tree(sample_tree, real_yaml_path, real_testing_dir)
    if not racy:
        monkeypatch.setattr(factcache, "is_racy", lambda stamp: False)
        monkeypatch.setattr(shared_kernels, "is_racy", lambda stamp: False)
    store = tmp_path / "store"
    monkeypatch.setenv("MPSGEN_CACHE_DIR", str(store))
    monkeypatch.delenv("MPSGEN_NO_CACHE", raising=False)

    commands = [("check", "--format", "json"), ("check",), ("status", "--format", "json"),
                ("status", "--op", "atan2", "--format", "json")]
    cold = [_run(root, *cmd) for cmd in commands]
    assert {p.stem for p in store.rglob("*.pickle")} >= {"definitions", "yaml", "shared-kernels", "metal-names"}
    warm = [_run(root, *cmd) for cmd in commands]
    uncached = [_run(root, *cmd[:1], "--no-cache", *cmd[1:]) for cmd in commands]

    found = json.loads(cold[0][1])
    assert cold[0][0] == 1 and found["summary"]["errors"] > 250  # real findings, not an empty list
    assert {f["code"] for f in found["findings"]} >= {"MPS003", "MPS004", "MPS005", "MPS010"}
    for (cold_code, cold_out), (warm_code, warm_out), (plain_code, plain_out) in zip(cold, warm, uncached):
        assert warm_code == cold_code == plain_code
        assert warm_out == cold_out == plain_out
    assert json.loads(warm[0][1])["findings"] == found["findings"]
    assert json.loads(cold[2][1])["families"] and json.loads(warm[2][1]) == json.loads(cold[2][1])


def test_a_warm_check_sees_what_a_cold_one_sees_after_an_edit(sample_tree: Path, real_yaml_path: Path,
                                                               real_testing_dir: Path, tmp_path: Path, monkeypatch):
    """An edit between runs: the warm run's findings are those of a cold run of the edited tree."""
    root = build_real_tree(sample_tree, real_yaml_path, real_testing_dir)
    monkeypatch.setenv("MPSGEN_CACHE_DIR", str(tmp_path / "warm"))
    _run(root, "check", "--format", "json")
    mm = root / "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
    mm.write_text(mm.read_text().replace("REGISTER_DISPATCH(hypot_stub", "REGISTER_DISPATCH(hypoz_stub"))
    warm = _run(root, "check", "--format", "json")
    monkeypatch.setenv("MPSGEN_CACHE_DIR", str(tmp_path / "cold"))
    cold = _run(root, "check", "--format", "json")
    assert warm == cold
    assert any("hypot_stub" in f["message"] for f in json.loads(cold[1])["findings"])


_TEXT = st.text(st.sampled_from("ab_z09 \n(){}:;\"'/*é\u4e2d"), max_size=60)
_NAME = st.text(st.sampled_from("ab_z09"), min_size=1, max_size=5)


@given(texts=st.lists(_TEXT, min_size=1, max_size=3), name=_NAME)
def test_which_files_spell_a_name_is_a_substring_search(texts: list[str], name: str):
    """The words index answers `name in text` exactly, digits, underscores and non-ASCII text included."""
    paths = {f"f{k}.cpp": Path(f"f{k}.cpp") for k in range(len(texts))}
    by_path = {p: t for p, t in zip(paths.values(), texts)}
    sk = SharedKernels(paths, by_path.__getitem__, FactCache.disabled())
    assert [sk.contains(rel, name) for rel in paths] == [name in t for t in texts]


def test_the_console_script_prints_what_main_prints(sample_tree: Path, real_yaml_path: Path, real_testing_dir: Path,
                                                    tmp_path: Path, monkeypatch):
    """The installed `mpsgen` (console.run: check and status leave without the interpreter's teardown)
    writes through a pipe, to the last byte, what main() writes in process, with the same exit code."""
    from cli_support import mpsgen

    root = build_real_tree(sample_tree, real_yaml_path, real_testing_dir)
    monkeypatch.delenv("MPSGEN_NO_CACHE", raising=False)
    for cmd in [("check", "--format", "json"), ("check",), ("status",), ("status", "--format", "json")]:
        env = {**os.environ, "MPSGEN_CACHE_DIR": str(tmp_path / "script" / cmd[0])}
        monkeypatch.setenv("MPSGEN_CACHE_DIR", str(tmp_path / "main" / cmd[0]))
        code, out = _run(root, *cmd)
        done = mpsgen("-C", str(root), *cmd, env=env)
        assert (done.returncode, done.stdout) == (code, out) and done.stderr == ""
        assert len(out) > 2000  # real findings and families, not an empty report

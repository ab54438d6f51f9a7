"""The line scanner's index of the real native_functions.yaml (torch 2.13.0 wheel) against torchgen's
own parse of it: every entry's name, line, dispatch keys and kernels, structured fields and tags; and
every family found alone (what `migrate` asks) against the families grouped all at once (`status`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpsgen.sources.native_yaml.facts import family_key
from mpsgen.sources.native_yaml.index import index_text, select_overloads


@pytest.fixture(scope="module")
def real_text(real_yaml_path: Path) -> str:
    return real_yaml_path.read_bytes().decode("utf-8")


@pytest.fixture(scope="module")
def torchgen_view(real_yaml_path: Path, tmp_path_factory: pytest.TempPathFactory):
    """(name, line, structured, structured_delegate, tags, {dispatch key: kernel}) per entry, as torchgen reads it."""
    from torchgen.gen import parse_native_yaml

    copy = tmp_path_factory.mktemp("torchgen") / "native_functions.yaml"  # fresh path: torchgen caches by path
    copy.write_bytes(real_yaml_path.read_bytes())
    parsed = parse_native_yaml(str(copy), str(real_yaml_path.parent / "tags.yaml"), skip_native_fns_gen=True)
    view = []
    for f in parsed.native_functions:
        kernels = {str(key): index.index[f.func.name].kernel
                   for key, index in parsed.backend_indices.items() if f.func.name in index.index}
        delegate = str(f.structured_delegate) if f.structured_delegate else None
        view.append((str(f.func.name), f.loc.line, f.structured, delegate, sorted(f.tags), kernels))
    return view


def _our_view(entry) -> tuple:
    kernels: dict[str, str] = {}
    for d in entry.dispatch:  # a later line wins, as in torchgen
        for key in d.keys:
            kernels[key] = d.kernel.rsplit("::", 1)[-1]
    return entry.name, entry.line, entry.structured, entry.structured_delegate, sorted(entry.tags), kernels


def test_every_entry_matches_torchgen(real_text: str, torchgen_view: list) -> None:
    idx = index_text(real_text)
    assert len(idx.entries) == len(torchgen_view) == 2584
    lines = real_text.split("\n")
    for entry, (name, line, structured, delegate, tags, kernels) in zip(idx.entries, torchgen_view):
        ours = _our_view(entry)
        assert ours[:4] == (name, line, structured, delegate)
        assert set(ours[4]) <= set(tags)  # torchgen adds some (pt2_compliant_tag, inplace)
        # torchgen also fills in defaults (CompositeImplicitAutograd for an entry without dispatch):
        # every key the entry spells must be torchgen's, with the same kernel.
        assert ours[5] == {k: kernels[k] for k in ours[5]}, name
        if entry.dispatch_line is None:
            assert not entry.dispatch
        assert lines[entry.line - 1].startswith("- func: " + entry.name)
        assert entry.func == lines[entry.line - 1][len("- func: "):]
        assert not entry.odd_lines
        for d in entry.dispatch:
            assert lines[d.line - 1] == d.text and real_text[d.offset : d.offset + len(d.text)] == d.text


def test_heads_split_the_text(real_text: str) -> None:
    idx = index_text(real_text)
    heads = idx.heads
    assert heads[0].start == real_text.index("\n- func:") + 1
    assert [h.end for h in heads[:-1]] == [h.start for h in heads[1:]] and heads[-1].end == len(real_text)
    line, pos = 1, 0
    for h in heads:
        line, pos = line + real_text.count("\n", pos, h.start), h.start
        assert h.line == line
        assert real_text[h.start : h.end].startswith("- func: " + h.name)
    assert idx.by_name["add.out"] == heads[[h.name for h in heads].index("add.out")]


def test_each_family_alone_equals_all_families(real_text: str, torchgen_view: list) -> None:
    members: dict[str, list[str]] = {}
    for name, *_ in torchgen_view:
        members.setdefault(family_key(name.partition(".")[0]), []).append(name)
    keys = list(members)
    grouped = index_text(real_text).families()
    assert list(grouped) == keys and len(keys) > 1000
    scanned = index_text(real_text)  # families looked up one by one in the split text, never all grouped
    searched = 0
    for key in keys:
        alone = index_text(real_text)  # a fresh index: the family is searched for in the text
        found = alone.family(key)
        searched += "_scan" not in alone.__dict__
        assert found == scanned.family(key) == grouped[key], key
        assert [e.name for e in found.entries] == members[key]
    assert "_families" not in scanned.__dict__ and "_scan" in scanned.__dict__
    assert searched > len(keys) * 0.9  # only keys spelled in hundreds of other places split the text


@pytest.mark.parametrize("typed, family, names", [
    ("torch.atan2", "atan2", ["atan2.out", "atan2", "atan2_"]),
    ("special.log_ndtr", "special_log_ndtr", ["special_log_ndtr", "special_log_ndtr.out"]),
    ("logical_xor_", "logical_xor", ["logical_xor", "logical_xor_", "logical_xor.out"]),
    ("pow.Tensor_Tensor", "pow", ["pow.Tensor_Tensor_out", "pow.Tensor_Tensor", "pow_.Tensor"]),
])
def test_typed_names_on_a_fresh_index(real_text: str, typed: str, family: str, names: list[str]) -> None:
    fresh, scanned, full = index_text(real_text), index_text(real_text), index_text(real_text)
    scanned.heads
    full.families()
    for idx in (fresh, scanned, full):
        selected = select_overloads(idx, typed)
        assert selected.name == family and sorted(e.name for e in selected.entries) == sorted(names)
    assert "_scan" not in fresh.__dict__

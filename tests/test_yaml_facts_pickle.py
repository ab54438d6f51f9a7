"""The yaml's facts come back from the fact store as they went in: YamlFacts pickles as columns of plain
values (lint/yaml_facts.py), so every record, its class and an entry's cached properties must survive."""

from __future__ import annotations

import io
import pickle

from hypothesis import given
from hypothesis import strategies as st

from mpsgen.lint.yaml_facts import yaml_facts
from mpsgen.sources.native_yaml.index import index_text
from mpsgen.tree.factcache import _Pickler

_LINES = ["- func: f(a)", "- func: f_.out(a)", "- func: g.x(a)", "- func: __iand__(a)", "  dispatch:",
          "    CPU, CUDA: k", "    MPS: k_mps", "    MPS: k", "    CPU, CUDA, MPS: s", "    SparseMPS: a:b",
          "    CUDA: c::d::e", "    CPU: k # c", "  dispatch: {}", "  structured_delegate: f.out", "  tags: core",
          "  # c", "", "   ", "x", "  variants: function"]


def _round_trip(value: object) -> object:
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return pickle.loads(out.getvalue())


def _same(facts, back) -> None:
    assert back == facts and type(back) is type(facts)
    assert list(back.family_heads) == list(facts.family_heads)
    for new, old in zip([h for v in back.family_heads.values() for h in v], [h for v in facts.family_heads.values() for h in v]):
        assert type(new) is type(old)
    for new, old in zip(back.mps_entries, facts.mps_entries):
        assert type(new) is type(old) and all(type(a) is type(b) for a, b in zip(new.dispatch, old.dispatch))
        assert new.__dict__ == old.__dict__  # the cached properties computed before the save
        assert all(any(d is x for x in new.dispatch) for d in new.__dict__.get("mps_lines", ()))


@given(text=st.lists(st.sampled_from(_LINES), max_size=16).map("\n".join), asked=st.integers(0, 3))
def test_yaml_facts_come_back_from_a_pickle_unchanged(text, asked):
    facts = yaml_facts(index_text("- func: first(a)\n" + text))  # (a `dispatch:` before any entry is refused)
    for e in facts.mps_entries[asked:]:  # some entries asked for their properties, some not
        e.mps_route, e.legacy_lines
    _same(facts, _round_trip(facts))


def test_the_real_yamls_facts_come_back_from_a_pickle_unchanged(real_yaml_path):
    facts = yaml_facts(index_text(real_yaml_path.read_text()))
    for e in facts.mps_entries[::2]:
        e.mps_route, e.shared_kernel()
    assert len(facts.mps_entries) > 400
    _same(facts, _round_trip(facts))

"""The faster readers of native_functions.yaml and of the test lists find exactly what the forms they
replaced found (each old form is kept here as the reference), on crafted texts full of the edge cases."""

from __future__ import annotations

import re

from hypothesis import assume, example, given
from hypothesis import strategies as st

from mpsgen.lint.file_facts import quoted_names


def _texts(pieces: list[str], max_size: int = 16) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), max_size=max_size).map("".join)


# -- quoted names ---------------------------------------------------------------------------------
_QUOTE_PIECES = ["'", '"', "a", "Z", "_", "1", ".", "é", " ", "\n", "''", '""', "'a'", '"b.c"', "\\", "#", ",", "-"]


@given(text=_texts(_QUOTE_PIECES))
@example(text="'a''b' \"c'd\" 'é' 'x.y\"")
def test_quoted_names_are_those_the_either_quote_pattern_found(text):
    assert quoted_names("f.py", text) == frozenset(re.findall(r"""['"]([\w.]+)['"]""", text))


# -- test lists: the modifier functions' defs, lone CRs --------------------------------------------
_DEF_PIECES = ["def mps_ops_modifier(", "def mps_ops", "_modifier(", "def mps_opsx_modifier", "def mps_ops_grad_modifier(",
               "(", "x", " ", "\t", "\n", "\r", "\r\n", "#", "def ", "_modifier", "mps_ops"]


@given(text=_texts(_DEF_PIECES))
@example(text="def mps_opsdef mps_ops_modifier(\n  def mps_ops_a_modifier(def mps_ops_modifier(")
def test_modifier_defs_are_those_the_finditer_found(text):
    from mpsgen.sources.testlists.tables import _MODIFIER_DEF, _modifier_defs

    before = []  # the finditer form the str.find loop replaced
    for m in _MODIFIER_DEF.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        if not text[start : m.start()].strip(" \t"):
            before.append((start, m.end(), text[start : m.start()]))
    assert _modifier_defs(text) == before


@given(text=_texts(_DEF_PIECES))
def test_a_lone_cr_is_found_as_the_counts_found_it(text):
    from mpsgen.sources.testlists._source import has_lone_cr

    assert has_lone_cr(text) == (text.count("\r") != text.count("\r\n"))


# -- yaml syntax: the suspect lines ---------------------------------------------------------------
def _suspect_lines_before(text: str) -> list[int]:
    """lint/yaml_check._suspect_lines as it was: each opener found by a regex class."""
    from mpsgen.lint.yaml_check import _OPENING, _closes

    found: set[int] = set()
    m = re.search(r"[\[{\"']", text)
    while m is not None:
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.start())
        end = len(text) if end < 0 else end
        hit = _OPENING.match(text, start, end)
        if hit is not None and not _closes(hit.group(1), hit.group(2)):
            found.add(text.count("\n", 0, start) + 1)
        m = re.compile(r"[\[{\"']").search(text, end + 1)
    for m in re.finditer(r"^ *\t", text, re.M):
        found.add(text.count("\n", 0, m.start()) + 1)
    return sorted(found)


_YAML_PIECES = ["[", "{", "]", "}", '"', "'", "''", '\\"', "#", ":", ": ", " ", "  ", "\t", "\n", "\r\n", "- ",
                "a", "key: ", "  tags: ", "- func: f(int[] x)", "x,", "é"]


@given(text=_texts(_YAML_PIECES))
@example(text="a: [b,\n  c]\n- 'x\n\t- y: \"z\\\"\n  k: {a: 'b'}")
def test_suspect_yaml_lines_are_those_the_class_search_found(text):
    from mpsgen.lint.yaml_check import _suspect_lines

    assert _suspect_lines(text) == _suspect_lines_before(text)


# -- yaml: the dispatch lines naming CPU, CUDA or MPS ---------------------------------------------
def _dispatch_hits_before(index) -> list:
    """lint/yaml_facts.dispatch_hits as it was: one search per word, each match's line judged once."""
    from bisect import bisect_right

    text = index.text
    starts = [h.start for h in index.heads]
    seen: set[int] = set()
    hits = []
    for word in ("MPS", "CPU", "CUDA"):
        for m in re.finditer(word + r"[\w, \t]*:[ \t]+([A-Za-z_][\w:]*)", text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            prefix = re.compile(r"[ \t]+(?:[A-Za-z]\w*[ \t]*,[ \t]*)*[A-Za-z]*")
            if line_start in seen or not prefix.fullmatch(text, line_start, m.start()):
                continue
            seen.add(line_start)
            keys = tuple(k.strip() for k in text[line_start : m.start(1)].rstrip(" \t:").split(","))
            hits.append((bisect_right(starts, line_start) - 1, keys, m.group(1)))
    return hits


def _dispatch_hits_each_match_before(index) -> list:
    """lint/yaml_facts.dispatch_hits as it was before a line's keys were split once per distinct text: every
    CPU/CUDA match, then every MPS one, each line judged at its first."""
    from bisect import bisect_right

    from mpsgen.lint.yaml_facts import _DISPATCH_PREFIX, _LINE_OF_WORD, _first_word_hit

    text, starts = index.text, index.starts
    judged: set[int] = set()
    hits = []
    for search in (_LINE_OF_WORD["CPU"], _LINE_OF_WORD["MPS"]):
        for found in search.finditer(text):
            start = found.start()
            line_start = text.rfind("\n", 0, start) + 1
            if line_start in judged:
                continue
            judged.add(line_start)
            before = text[line_start:start]
            indent_alone = bool(before) and not before.strip(" \t")
            m = found if indent_alone or _DISPATCH_PREFIX.fullmatch(before) else _first_word_hit(text, line_start)
            if m is None:
                continue
            keys = tuple(map(str.strip, text[line_start : m.start(1)].rstrip(" \t:").split(",")))
            hits.append((bisect_right(starts, line_start) - 1, keys, m.group(1)))
    return hits


_KEY_PIECES = ["CPU", "CUDA", "MPS", "Sparse", "A1", "_", "1", ", ", ",", " ", "\t", "x", "é", "MP", "CU", ":", "#",
               "CPU: k ", "(", "-", "MPS, CPU"]
_dispatch_lines = st.tuples(
    st.sampled_from(["", " ", "    ", "\t", "- func: f()\n", "  dispatch:\n    ", "# ", "  x: ", " \t ", "\r\n  "]),
    _texts(_KEY_PIECES, max_size=6),
    st.sampled_from([": ", ":", " : ", ":\t", ": #"]),
    st.sampled_from(["k", "ns::k", "1k", "", "k # CPU: c", "k\r"]),
).map("".join)


@given(text=st.lists(_dispatch_lines, max_size=6).map("\n".join))
@example(text="- func: f()\n    CPU, CPU: k\n    A1MPS, MPS: m\n    Sparse2CPU, CUDA: c\n  CUDA: x # MPS: y\n")
@example(text="MPS: k\n    MPS, x: y\n    CPU, CPU1: z\n")
@example(text="  CPU: k\n    A_CPU, CPU: k\n    MPS, CPU: k\n    MPS: k # CPU: c\n    CPU(x), CUDA: k\n  x: CPU: k\n"
              "    MPS CPU: k\n\t \tCUDA ,MPS :\tns::k\n    SparseCPU, SparseMPS: s\n    CPUMPS: k\n    CPU")
def test_dispatch_hits_are_those_each_words_search_found(text):
    from mpsgen.lint.yaml_facts import dispatch_hits
    from mpsgen.sources.native_yaml.index import index_text

    index = index_text(text)
    assert sorted(dispatch_hits(index)) == sorted(_dispatch_hits_before(index))
    assert sorted(dispatch_hits(index)) == sorted(_dispatch_hits_each_match_before(index))


def test_dispatch_hits_of_the_real_yaml_are_those_each_match_found(real_yaml_path):
    from mpsgen.lint.yaml_facts import dispatch_hits
    from mpsgen.sources.native_yaml.index import index_text

    index = index_text(real_yaml_path.read_text())
    hits = dispatch_hits(index)
    assert len(hits) > 2000 and sorted(hits) == sorted(_dispatch_hits_each_match_before(index))


# -- yaml: one entry parsed -----------------------------------------------------------------------
def _parse_entry_before(text: str, head):
    """sources/native_yaml/index._parse_entry as it was (a builder object, every line through one loop)."""
    from mpsgen.sources.native_yaml.facts import DISPATCH_LINE, DispatchLine, Entry
    from mpsgen.sources.native_yaml.index import _FIELD, _split_tags, _unquote

    func_line = re.compile(r"-[ \t]+func:[ \t]*(.*?)\r?$")

    def strip_comment(value: str) -> str:
        value = value.strip()
        if value.startswith("#"):
            return ""
        cut = value.find(" #")
        if cut < 0:
            cut = value.find("\t#")
        return (value[:cut] if cut >= 0 else value).strip()

    cur: dict | None = None
    block = None
    offset = head.start
    for number, raw in enumerate(text[head.start : head.end].split("\n"), head.line):
        start, offset = offset, offset + len(raw) + 1
        line = raw[:-1] if raw.endswith("\r") else raw
        stripped = line.lstrip()
        if not stripped:
            continue
        if stripped[0] == "#":
            if cur is not None and line[0] in " \t":
                cur["end"] = number
            continue
        if cur is None:
            m = func_line.match(line)
            cur = dict(func=_unquote(strip_comment(m.group(1))), line=number, end=number, fields={}, tags=[],
                       dispatch_line=None, dispatch=[], odd=[])
            continue
        cur["end"] = number
        indent = len(line) - len(stripped)
        if indent < 2:
            cur["odd"].append(number)
            continue
        if indent == 2:
            m = _FIELD.match(line)
            if m is not None:
                key, value = m.group(1), strip_comment(m.group(2))
                block = key if value == "" else None
                if key == "dispatch":
                    cur["dispatch_line"] = number
                    if value not in ("", "{}"):
                        cur["odd"].append(number)
                elif key == "tags":
                    cur["tags"].extend(_split_tags(value))
                else:
                    cur["fields"][key] = value
                continue
        if block == "dispatch":
            m = DISPATCH_LINE.match(line)
            if m is None:
                cur["odd"].append(number)
            else:
                keys = tuple(k.strip() for k in m.group(2).split(","))
                cur["dispatch"].append(DispatchLine(number, keys, m.group(3), line, start))
        elif block == "tags" and stripped.startswith("- "):
            cur["tags"].append(strip_comment(stripped[2:]))
    name = cur["func"].split("(", 1)[0].strip()
    base, _, overload = name.partition(".")
    f = cur["fields"]
    return Entry(func=cur["func"], name=name, base=base, overload=overload, line=cur["line"], end_line=cur["end"],
                 structured=f.get("structured", "").lower() == "true",
                 structured_inherits=f.get("structured_inherits") or None,
                 structured_delegate=f.get("structured_delegate") or None, tags=tuple(cur["tags"]),
                 dispatch_line=cur["dispatch_line"], dispatch=tuple(cur["dispatch"]), odd_lines=tuple(cur["odd"]))


_ENTRY_LINES = ["- func: f(int x) -> Tensor", "- func: 'g.out(a)' # c", "-\tfunc: h_.x(a)\r", "- func: i\r\r", "  dispatch:",
                "  dispatch: {}", "  dispatch: {CPU: x}", "    CPU, CUDA: k", "    MPS: k_mps # c", "    MPS:k",
                "    CPU ,CUDA :  ns::k  ", "  tags: [a, b]", "  tags: core", "  tags:", "    - pointwise",
                "    - core # c", "  structured: True", "  structured: true # x", "  structured_delegate: f.out",
                "  structured_inherits: TensorIteratorBase", "# comment", "  # comment", "\t# c", "", "   ", "\r",
                " odd", "\tCPU: k", "   CPU: x", "  variants: function, method", "  x:y", "  a: #", "  b: 'q' #c",
                "\x0c  c: d", "  é: x"]


@given(text=st.lists(st.sampled_from(_ENTRY_LINES), max_size=12).map("\n".join))
@example(text="- func: f(int x) -> Tensor\n  dispatch:\n    CPU, CUDA: k\n  # c\n\n# d\n- func: g\r\r\n  tags:\n    - a")
# The same keys spelled alike and otherwise (a spelling's keys are split once), CRLF lines and their offsets.
@example(text="- func: f(a)\r\n  dispatch:\r\n    CPU, CUDA: k\r\n\r\n    MPS: m\r\n- func: g(a)\n  dispatch:\n"
              "    CPU, CUDA: k\n    CPU ,CUDA: j\n\tCPU,\tCUDA : i\n \n\n    MPS: m # c\n  CPU, CUDA: x")
def test_entries_are_parsed_as_the_builder_parsed_them(text):
    from mpsgen.sources.native_yaml.index import _parse_entry, index_text

    from mpsgen.sources.native_yaml.facts import DispatchLine, Entry

    text = "- func: first(a)\n" + text
    for head in index_text(text).heads:
        entry = _parse_entry(text, head)
        assert entry == _parse_entry_before(text, head)
        assert type(entry) is Entry and all(type(d) is DispatchLine for d in entry.dispatch)


# -- stale keys: the hint's closest OpInfo string -------------------------------------------------
_NAME_CHARS = "abn._1"


def _edited(key: str, edits: list[tuple[str, int, str]]) -> str:
    """*key* with each (insert, delete or replace; where; what) applied."""
    for kind, at, ch in edits:
        at = min(at, len(key))
        key = key[:at] + (ch if kind != "d" else "") + key[at + (kind != "i"):]
    return key


@st.composite
def _key_and_strings(draw) -> tuple[str, frozenset[str]]:
    """A key and strings near it (a few edits away, so that many pass difflib's 0.8) and others."""
    key = draw(st.text(alphabet=_NAME_CHARS, min_size=1, max_size=12))
    edits = st.lists(st.tuples(st.sampled_from("idr"), st.integers(0, 12), st.sampled_from(_NAME_CHARS)), max_size=3)
    near = draw(st.lists(edits.map(lambda e: _edited(key, e)), max_size=30))
    other = draw(st.lists(st.text(alphabet=_NAME_CHARS, min_size=1, max_size=9), max_size=10))
    return key, frozenset(s for s in near + other if s)


@given(key_strings=_key_and_strings())
@example(key_strings=("ab", frozenset({"ab.", "aba", "abn"})))  # ties on the ratio: the larger string wins
def test_the_closest_string_is_difflibs_over_the_near_strings(key_strings):
    import difflib

    from mpsgen.lint.rules import all_rules

    all_rules()  # the registry is filled by discovering every rule module, unless one was imported first
    from mpsgen.lint.rules.xfail_lists import _by_start_and_length, _closest_string

    key, strings = key_strings
    near = [s for s in strings if s[:1] == key[:1] and abs(len(s) - len(key)) <= 3]
    expected = difflib.get_close_matches(key, near, n=1, cutoff=0.8)
    assert _closest_string(key, _by_start_and_length(strings)) == (expected[0] if expected else None)


# -- yaml: the facts of the whole file ------------------------------------------------------------
_FACT_LINES = ["- func: f(int x) -> Tensor", "- func: f_.out(a)", "- func: g__(a)", "- func: h.x(a)", "  dispatch:",
               "  dispatch: {}", "    CPU, CUDA: k", "    MPS: ns::k_mps", "    SparseMPS: a:b", "    CUDA: c::d::e",
               "    CPU: k # c", "    CompositeExplicitAutograd: z", "  # c", "# c", "", "  tags: core", "   ", "x"]


@given(text=st.lists(st.sampled_from(_FACT_LINES), max_size=14).map("\n".join))
@example(text="  dispatch:\n- func: f(a)\n  dispatch:\n  # c\n\n- func: g(a)\n  dispatch: # c\n    CPU: k\n  dispatch:")
def test_yaml_facts_are_those_of_the_forms_before(text):
    from bisect import bisect_right

    from mpsgen.lint.yaml_facts import dispatch_hits, yaml_facts
    from mpsgen.sources.native_yaml.facts import family_key
    from mpsgen.sources.native_yaml.index import index_text

    index = index_text(text)
    assume(index.heads)  # without one, both forms fail alike (a `dispatch:` belongs to no entry)
    heads, hits = index.heads, dispatch_hits(index)
    wanted = sorted({i for i, keys, _ in hits if i >= 0 and set(keys) & {"CPU", "CUDA", "MPS"}})
    groups: dict = {}
    for i in wanted:
        groups.setdefault(family_key(heads[i].name.partition(".")[0]), []).append(heads[i])
    names = {family_key(h.name.partition(".")[0]) for h in heads}
    starts = [h.start for h in heads]
    empty, line, seen = [], 1, 0
    for m in re.finditer(r"  dispatch:(?<![^\n]  dispatch:)[ \t]*(?:#[^\n]*)?\n(?:[ \t]*#[^\n]*\n)*+(?!   [ \t]*[^\s#])",
                         text):
        line += text.count("\n", seen, m.start())
        seen = m.start()
        empty.append((heads[bisect_right(starts, m.start()) - 1].name, line))
    facts = yaml_facts(index)
    assert facts.family_heads == {k: tuple(v) for k, v in groups.items()}
    assert facts.composite_only == len(names - groups.keys())
    assert facts.yaml_kernels == frozenset(k.rsplit("::", 1)[-1] for _, _, k in hits)
    assert facts.empty_dispatch == tuple(empty)
    assert [e.name for e in facts.mps_entries] == [heads[i].name for i in sorted({i for i, k, _ in hits if i >= 0 and "MPS" in k})]


@given(text=st.lists(st.sampled_from(_FACT_LINES + ["    CPU, CUDA, MPS: k", "    MPS: k", "    CUDA: k_mps",
                                                    "    CPU: c", "    CUDA: d", "    MPS: k_mps"]), max_size=14)
       .map("\n".join))
def test_routes_of_an_entry_are_those_of_the_forms_before(text):
    from mpsgen.sources.native_yaml.index import index_text

    text = "- func: first(a)\n  dispatch:\n" + text
    for entry in index_text(text).entries:
        backends = ("CPU", "CUDA")
        shared = frozenset(d.kernel for d in entry.dispatch if any(k in d.keys for k in backends))
        mps = tuple(d for d in entry.dispatch if "MPS" in d.keys)

        def is_shared(d) -> bool:
            return any(k in d.keys for k in backends) or d.kernel in shared

        assert entry.mps_lines == mps and entry.cpu_cuda_kernels == shared
        assert entry.mps_route == ("none" if not mps else "shared" if is_shared(mps[-1]) else "legacy")
        assert entry.legacy_lines == tuple(d for d in mps if not is_shared(d))
        site = next((d for d in entry.dispatch if all(k in d.keys for k in backends)), None)
        assert entry.shared_kernel().line == site
        assert all(d.has_cpu_or_cuda == any(k in d.keys for k in backends) for d in entry.dispatch)

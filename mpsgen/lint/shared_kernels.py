"""Where each shared CPU/CUDA kernel is defined in native/*.cpp and which stubs it calls, and which
files name an identifier, with the answers kept between runs.

An answer (`find_shared_impl` over the files that could define the kernel) depends on the files
it searched and on no other: a file it did not search neither names the kernel nor starts a
definition of it.  So an answer stays valid while the files it searched are unchanged and no
changed or new file now names the kernel; only the changed files are read to tell.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection

from mpsgen.lint.source_words import definition_sites
from mpsgen.records import NamedTuple
from mpsgen.sources.index import index_of
from mpsgen.sources.native.shared_impl import SharedImpl, find_shared_impl
from mpsgen.sources.native.stub_callers import StubUser, stub_users
from mpsgen.tree.factcache import FactCache, Stamp, is_racy

if TYPE_CHECKING:
    from mpsgen.lint.background import Background

_KEY = "shared-kernels"
_WORTH_A_CHILD = 20  # fewer searches than this cost less than forking for them


# A stub's users in native/*.cpp: (the files spelling it, the definitions using it or None when a
# use cannot be placed).  Valid while those files are unchanged and no changed file spells the stub.
_Users = tuple[frozenset[str], "tuple[StubUser, ...] | None"]


class _Answer(NamedTuple):
    impl: SharedImpl | None
    searched: frozenset[str]  # the native/*.cpp files find_shared_impl looked into


def _words(kernel: str) -> set[str]:
    """The kernel and each prefix ending before an underscore (eq_Tensor_out is made by CREATE_...(eq))."""
    return {kernel} | {kernel[:k] for k in range(1, len(kernel)) if kernel[k] == "_"}


# Every byte that is not an ASCII letter or underscore becomes a space: the runs left are the text's
# words with their digits cut out (2 MB of numeric tables in one native/*.cpp leave nothing behind).
_NOT_LETTER = bytes(c if chr(c).isascii() and (chr(c).isalpha() or c == 95) else 32 for c in range(256))
_ASCII_WORD = re.compile(r"[A-Za-z0-9_]+")
_LETTER_RUN = re.compile(r"[A-Za-z_]+")
_MPS = b"mps"


def word_text(utf8: bytes) -> bytes:
    """The distinct runs of ASCII letters and underscores of a text (*utf8*: its UTF-8), one a line.

    A run of letters and underscores occurs in the text exactly when it occurs in this (each
    occurrence lies inside one run), and the distinct runs of a C++ file are ~1/10 of its bytes:
    one pass over the file, then each of the ~160 names `check` looks for is searched in the short
    text (a name with digits only when each of its runs is there, then in the text itself)."""
    return b"\n".join(set(utf8.translate(_NOT_LETTER).split()))


def _could_define(kernel: str, text: str, sites: dict[str, list[str]]) -> bool:
    return kernel in text or any(w in sites for w in _words(kernel))


class SharedKernels:
    """`impl(kernel)` over native/*.cpp ({rel: path}, in the order searched), remembered in *facts*.
    *read(path)* is a file's text; *utf8(path)*, the bytes it was decoded from (the word index reads
    those: no encoding pass over 4.7 MB), by default its text encoded."""

    def __init__(self, paths: dict[str, Path], read: Callable[[Path], str], facts: FactCache,
                 utf8: Callable[[Path], bytes] | None = None) -> None:
        self._paths = paths
        self._read = read
        self._utf8 = utf8 or (lambda p: read(p).encode("utf-8", "surrogatepass"))
        self._facts = facts
        self._texts: dict[str, str] = {}
        self._words: bytes | None = None  # every file's word_text, NUL-separated (built on first use)
        self._rels: list[str] = []
        self._starts: list[int] = []  # where each file's words start in _words (and where they end)
        self._spelled: dict[str, frozenset[str]] = {}
        self._narrowed: dict[bytes, tuple[bytes, list[int]]] = {}  # _runs_with(part), built on first use
        # A racy stamp is stored as None, so the file counts as changed on the next run.
        self._stamps: dict[str, Stamp | None] = {}
        if facts.enabled:
            for rel, p in paths.items():
                s = facts.stamp(rel, p)
                self._stamps[rel] = None if s is None or is_racy(s) else s
        held = facts.named(_KEY)
        if not (isinstance(held, tuple) and len(held) == 4):
            held = ({}, {}, {}, {})
        self._answers, self._mentions, self._users = self._still_valid(*held)
        self._changed = held != (self._stamps, self._answers, self._mentions, self._users)
        self._background: Background | None = None  # a forked search under way (prefetch)

    def text(self, rel: str) -> str:
        if rel not in self._texts:
            self._texts[rel] = self._read(self._paths[rel])
        return self._texts[rel]

    def contains(self, rel: str, name: str) -> bool:
        """`name in self.text(rel)`."""
        return rel in self.spelling(name)

    def spelling(self, name: str) -> frozenset[str]:
        """The files whose text contains *name* (computed once per name)."""
        found = self._spelled.get(name)
        if found is None:
            found = self._spelled[name] = frozenset(self._spelling(name))
        return found

    def _spelling(self, name: str) -> set[str] | list[str]:
        if not _ASCII_WORD.fullmatch(name):
            return [rel for rel in self._paths if name in self.text(rel)]
        self._index_words()
        runs = _LETTER_RUN.findall(name)
        files = self._within_answered(name)
        # Each run narrows the files the next is looked for in: first one holding `mps` (found in the short
        # index of such runs), then the longest.
        for run in sorted(runs, key=lambda r: ("mps" not in r, -len(r))):
            files = self._files_with(run.encode(), files)
            if not files:
                return []
        if files is None:  # digits only
            return [rel for rel in self._paths if name in self.text(rel)]
        rels = [self._rels[k] for k in sorted(files)]
        return rels if runs == [name] else [rel for rel in rels if name in self.text(rel)]

    def _within_answered(self, name: str) -> set[int] | None:
        """Indexes of the files of the narrowest name answered already that *name* contains (a file
        spelling *name* spells that one too), or None."""
        narrowest: frozenset[str] | None = None
        for other, rels in self._spelled.items():
            if other in name and (narrowest is None or len(rels) < len(narrowest)):
                narrowest = rels
        return None if narrowest is None else {self._position[rel] for rel in narrowest}

    def _index_words(self) -> None:
        """Every file's distinct runs, one text: a run is searched once over all files (the child's
        index when it built one)."""
        self._collect()
        if self._words is None:
            self._rels = list(self._paths)
            # each file's runs between line breaks, so a whole run is found as b"\n" + run + b"\n"
            texts = [b"\n" + word_text(self._utf8(self._paths[rel])) + b"\n" for rel in self._rels]
            self._starts = [0]
            for t in texts:
                self._starts.append(self._starts[-1] + len(t) + 1)
            self._words = b"\0".join(texts)

    def _files_with(self, run: bytes, among: set[int] | None) -> set[int]:
        """Indexes of the files whose runs contain *run* (only *among*'s runs are searched when given)."""
        assert self._words is not None  # built above
        # A run holding `mps` (an MPS kernel's name: what MPS003 and MPS020 ask about) lies inside runs
        # holding `mps`: only those are searched (341 bytes of the 367 KB on 2.7).
        words, starts = self._runs_with(_MPS) if _MPS in run else (self._words, self._starts)
        find = words.find
        if among is not None:
            return {f for f in among if find(run, starts[f], starts[f + 1]) >= 0}
        found: set[int] = set()
        k = find(run)
        while k >= 0:
            f = bisect_right(starts, k) - 1
            found.add(f)
            k = find(run, starts[f + 1])  # the next file
        return found

    def _runs_with(self, part: bytes) -> tuple[bytes, list[int]]:
        """The words index cut to the runs containing *part*, laid out as the whole one (same file order)."""
        held = self._narrowed.get(part)
        if held is None:
            words, starts = self._words, self._starts
            assert words is not None
            runs: list[list[bytes]] = [[] for _ in self._rels]
            k = words.find(part)
            while k >= 0:
                a = max(words.rfind(b"\n", 0, k), words.rfind(b"\0", 0, k)) + 1
                b = min(e for e in (words.find(b"\n", k), words.find(b"\0", k), len(words)) if e >= 0)
                runs[bisect_right(starts, k) - 1].append(words[a:b])
                k = words.find(part, b)
            texts = [b"\n".join(r) for r in runs]
            cut = [0]
            for t in texts:
                cut.append(cut[-1] + len(t) + 1)
            held = self._narrowed[part] = (b"\0".join(texts), cut)
        return held

    def _is_run_of(self, run: bytes, rel: str) -> bool:
        """Whether *run* (ASCII letters and `_`) is one of the file's runs: a word spelled only inside
        longer words is none (an index not built yet answers True)."""
        if self._words is None:
            return True
        f = self._position[rel]
        return self._words.find(b"\n" + run + b"\n", self._starts[f], self._starts[f + 1]) >= 0

    def _still_valid(self, snapshot: dict, answers: dict[str, _Answer], mentions: dict[str, frozenset[str]],
                     users: dict[str, _Users]) -> tuple[dict[str, _Answer], dict[str, frozenset[str]], dict[str, _Users]]:
        if not answers and not mentions and not users:
            return {}, {}, {}  # a first run, or --no-cache: nothing to re-validate (and no file to read for it)
        changed = {rel for rel in self._paths if snapshot.get(rel) is None or snapshot.get(rel) != self._stamps.get(rel)}
        gone = snapshot.keys() - self._paths.keys()
        if not changed and not gone:
            return dict(answers), dict(mentions), dict(users)
        sites = {rel: definition_sites({rel: self.text(rel)}) for rel in changed}
        kept_answers = {
            kernel: a for kernel, a in answers.items()
            if not (a.searched & (changed | gone))
            and not any(_could_define(kernel, self.text(rel), sites[rel]) for rel in changed)
        }
        kept_mentions = {
            name: files for name, files in mentions.items()
            if not (files & (changed | gone)) and not any(name in self.text(rel) for rel in changed)
        }
        kept_users = {
            stub: u for stub, u in users.items()
            if not (u[0] & (changed | gone)) and not any(stub in self.text(rel) for rel in changed)
        }
        return kept_answers, kept_mentions, kept_users

    def save(self) -> None:
        """Hand the answers to the fact store (written by its own save()) when they changed."""
        if self._changed:
            self._facts.put_named(_KEY, (dict(self._stamps), dict(self._answers), dict(self._mentions), dict(self._users)))
            self._changed = False

    # -- answers ------------------------------------------------------------------------------
    def _all_texts(self) -> dict[str, str]:
        return {rel: self.text(rel) for rel in self._paths}

    @cached_property
    def _sites(self) -> dict[str, list[str]]:
        return definition_sites(self._all_texts())

    def start_search(self) -> None:
        """On a first run (no answer held), fork the child that will search (lint/background.py):
        it reads and indexes native/*.cpp while this process works out the kernels for prefetch()."""
        if not self._answers and len(self._paths) >= _WORTH_A_CHILD and self._background is None:
            self._fork()

    def prefetch(self, kernels: list[str]) -> None:
        """Search for *kernels* not answered yet in the forked child (started now unless start_search()
        did, and only when there are enough); impl() takes its answers when it first needs one."""
        todo = [k for k in dict.fromkeys(kernels) if k and k not in self._answers]
        if self._background is None and len(todo) >= _WORTH_A_CHILD:
            self._fork()
        if self._background is not None:
            self._background.send(todo)

    def _fork(self) -> None:
        from mpsgen.lint.background import Background, second_core

        if second_core():
            self._background = Background(self._search_all, self._prepare)

    def _prepare(self) -> None:
        """What every search needs, whatever the kernels: the files' texts, definition sites and words."""
        self._sites  # noqa: B018 - reads every file
        self._index_words()

    def _search_all(self, kernels: list[str]) -> dict[str, object]:
        """The child's work: each kernel's answer, and the words index it built on the way (the
        parent's native_identifiers questions use it instead of building their own)."""
        return {"answers": {k: self._search(k) for k in kernels}, "words": (self._words, self._rels, self._starts)}

    def _collect(self) -> None:
        """Take what the child found (once; nothing when it failed)."""
        if self._background is None:
            return
        fetched = self._background.result()
        self._background = None
        answers = fetched.get("answers")
        for k, answer in (answers.items() if isinstance(answers, dict) else ()):
            if k not in self._answers and isinstance(answer, _Answer):
                self._answers[k] = answer
                self._changed = True
        words = fetched.get("words")
        if self._words is None and isinstance(words, tuple) and len(words) == 3 and isinstance(words[0], bytes):
            self._words, self._rels, self._starts = words

    def impl(self, kernel: str) -> SharedImpl | None:
        """The definition of *kernel* (searched only in the .cpp files that could define it)."""
        self._collect()
        held = self._answers.get(kernel)
        if held is not None:
            return held.impl
        answer = self._answers[kernel] = self._search(kernel)
        self._changed = True
        return answer.impl

    def _search(self, kernel: str) -> _Answer:
        """First in the files where a TORCH_IMPL_FUNC or a generating macro names the kernel or a
        prefix of it (eq_Tensor_out from CREATE_...(eq)); a miss or a plain function widens the
        search to every file whose text contains the kernel's name."""
        named = {p for w in _words(kernel) for p in self._sites.get(w, ())}
        sources = self._texts_of(named)
        searched = set(sources)
        impl = find_shared_impl(sources, kernel, may_define=self._may_define(kernel)) if sources else None
        if impl is None or impl.form == "function":
            spelled = self.spelling(kernel)
            wider = self._texts_of(named | spelled)
            if wider.keys() - sources.keys():
                searched |= wider.keys()
                impl = find_shared_impl(wider, kernel, may_define=self._may_define(kernel))
        return _Answer(impl, frozenset(searched))

    def _may_define(self, kernel: str) -> Callable[[str], bool] | None:
        """For find_shared_impl: whether a file may define *kernel* as a plain function.  A definition's name
        stands whole in the text (between characters no identifier holds), so for a name of letters and `_`
        it is then one of the file's runs (source_words: word_text)."""
        if not _LETTER_RUN.fullmatch(kernel):
            return None
        run = kernel.encode()
        return lambda rel: self._is_run_of(run, rel)

    def _texts_of(self, rels: Collection[str]) -> dict[str, str]:
        """{rel: text} of *rels*, in the order searched (sorted by position, not a walk over every file)."""
        return {rel: self.text(rel) for rel in sorted(rels, key=self._position.__getitem__)}

    @cached_property
    def _position(self) -> dict[str, int]:
        return {rel: k for k, rel in enumerate(self._paths)}

    def __contains__(self, name: object) -> bool:
        """Whether *name* is an identifier (outside comments and literals) of a native/*.cpp: a kernel
        named there may be defined there by a macro mpsgen does not expand."""
        if not isinstance(name, str):
            return False
        files = self._mentions.get(name)
        if files is None:
            files = self._mentions[name] = frozenset(
                rel for rel in self.spelling(name) if name in index_of(rel, self.text(rel)).identifiers)
            self._changed = True
        return bool(files)

    def users(self, stub: str) -> tuple[StubUser, ...] | None:
        """The definitions of native/*.cpp that use *stub* (sources/native/stub_callers), with their
        files; None when some use cannot be placed (then anything may reach the stub)."""
        held = self._users.get(stub)
        if held is None:
            files = self.spelling(stub)
            per_file = [stub_users(rel, self.text(rel), stub) for rel in sorted(files)]
            found = None if None in per_file else tuple(u for users in per_file for u in users or ())
            held = self._users[stub] = (files, found)
            self._changed = True
        return held[1]

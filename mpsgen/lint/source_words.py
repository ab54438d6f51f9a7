"""Which native sources name an identifier or define a kernel: found once per tree, not per name.

`check` and `status` ask this for ~100 kernel names over the ~130 native/*.cpp of a full tree
(4.7 MB): a substring search of every file per name costs ~0.2 s, one pass splitting the files
into words ~0.08 s, after which each name is a set lookup.
"""

from __future__ import annotations

import re
import string

from mpsgen.sources.index import enclosing_define, index_of

_WORD_BYTES = frozenset((string.ascii_letters + string.digits + "_").encode())
# Every byte that cannot be part of an identifier becomes a space (non-ASCII bytes too: C++
# identifiers in PyTorch are ASCII).
_TO_SPACES = bytes(c if c in _WORD_BYTES else 0x20 for c in range(256))


class FilesNaming:
    """`files_naming(name)`: the files of *texts* in which *name* occurs as a whole word (in code,
    comments or strings alike), in the order of *texts*."""

    def __init__(self, texts: dict[str, str]) -> None:
        self._texts = texts
        self._words: list[tuple[str, frozenset[bytes]]] | None = None

    def __call__(self, name: str) -> list[str]:
        if self._words is None:
            self._words = [
                (p, frozenset(t.encode("utf-8").translate(_TO_SPACES).split())) for p, t in self._texts.items()
            ]
        word = name.encode("utf-8")
        return [p for p, words in self._words if word in words]


class WordsIn:
    """`name in words`: whether *name* is an identifier (outside comments) of one of *texts*."""

    def __init__(self, texts: dict[str, str]) -> None:
        self._texts = texts

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and any(
            name in t and name in index_of(p, t).identifiers for p, t in self._texts.items()
        )


_IMPL_MACRO_NAME = re.compile(r"(CREATE_\w*IMPL\w*FUNC\w*)\s*\(")
_FIRST_ARG = re.compile(r"\s*\(\s*(\w+)")


def definition_sites(native_sources: dict[str, str]) -> dict[str, list[str]]:
    """{word: native/*.cpp files} for the words that can start a shared kernel's definition: the
    name in `TORCH_IMPL_FUNC(name)` and the first argument of each helper macro that generates
    one (`CREATE_UNARY_TORCH_IMPL_FUNC(exp_out, exp_stub)`, `CREATE_COMPARISON_...(eq)`).

    Found with str.find over the raw texts (C speed), so no file is masked to pick candidates."""
    sites: dict[str, list[str]] = {}

    def add(word: str, path: str) -> None:
        files = sites.setdefault(word, [])
        if path not in files:
            files.append(path)

    for path, text in native_sources.items():
        if "IMPL_FUNC" not in text:
            continue
        macros = {"TORCH_IMPL_FUNC"}
        k = text.find("CREATE_")
        while k >= 0:
            m = _IMPL_MACRO_NAME.match(text, k)
            if m:
                macros.add(m.group(1))
            k = text.find("CREATE_", k + 7)
        k = text.find("IMPL_FUNC")
        while k >= 0:
            define = enclosing_define(text, k)
            if define:
                macros.add(define)
            k = text.find("IMPL_FUNC", k + 9)
        for macro in macros:
            k = text.find(macro)
            while k >= 0:
                m = _FIRST_ARG.match(text, k + len(macro))
                if m and (k == 0 or not (text[k - 1].isalnum() or text[k - 1] == "_")):
                    add(m.group(1), path)
                k = text.find(macro, k + len(macro))
    return sites

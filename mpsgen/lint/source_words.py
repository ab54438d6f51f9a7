"""Which words can start a shared kernel's definition in native/*.cpp, answered from the raw
texts with str.find (C speed), so no file is masked to pick candidates."""

from __future__ import annotations

import re

from mpsgen.sources.index import enclosing_define


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

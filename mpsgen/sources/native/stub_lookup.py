"""Inventory.stub_declarations: index_stub_declarations' answer over every native/*.h, one stub at a time,
reading only the headers that spell its name, and of their DECLARE_DISPATCHes only its own (a check asks
about ~60 of ~370 stubs; the ten headers spelling them declare ~240)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Callable, overload

from mpsgen.sources.native.stubs import (StubDecl, aliases_in, declaration, declaration_sites,
                                         preferred_declaration)

if TYPE_CHECKING:
    from mpsgen.sources.native.stubs import ParsedType


class StubLookup:
    """`get(name)` is index_stub_declarations({path: read(path) for path in paths}).get(name).

    A declaration's name and an alias's are spelled in the raw text too (masking only blanks), so a
    header not spelling them cannot change the answer.  *answers* holds those known already (kept in
    the fact store between runs); *on_answer* is called after each new one is added."""

    def __init__(self, paths: list[str], read: Callable[[str], str],
                 answers: dict[str, StubDecl | None] | None = None, on_answer: Callable[[], None] = lambda: None) -> None:
        self._paths = paths
        self._read = read
        self._answers = {} if answers is None else answers
        self._on_answer = on_answer
        self._aliases: dict[str, dict[str, str]] = {}
        self._alias_types: dict[str, str | None] = {}
        self._parsed_types: dict[str, ParsedType] = {}

    @overload
    def get(self, name: str, /) -> StubDecl | None: ...

    @overload
    def get(self, name: str, default: StubDecl, /) -> StubDecl: ...

    def get(self, name: str, default: StubDecl | None = None, /) -> StubDecl | None:
        """As dict.get on index_stub_declarations' dict."""
        if name not in self._answers:
            self._answers[name] = self._look_up(name)
            self._on_answer()
        found = self._answers[name]
        return default if found is None else found

    @cached_property
    def _texts(self) -> dict[str, str]:
        return {path: self._read(path) for path in self._paths}

    @cached_property
    def _tails(self) -> dict[str, str]:
        """Each header's text from its first DECLARE_DISPATCH on: where the names it declares are spelled."""
        return {path: text[k:] for path, text in self._texts.items() if (k := text.find("DECLARE_DISPATCH")) >= 0}

    def _look_up(self, name: str) -> StubDecl | None:
        found: StubDecl | None = None
        for path, tail in self._tails.items():
            if name in tail:
                for site in declaration_sites(self._texts[path]):  # (each header's read once: cached)
                    if site.name == name:
                        decl = declaration(path, site, self._aliases_of(path), self._everywhere, self._parsed_types)
                        found = preferred_declaration(found, decl)
        return found

    def _aliases_of(self, path: str) -> dict[str, str]:
        held = self._aliases.get(path)
        if held is None:
            held = self._aliases[path] = aliases_in(self._texts[path])
        return held

    def _everywhere(self, key: str) -> str | None:
        """The type the first header (in order) aliasing *key* gives it, as index_stub_declarations's
        `everywhere` holds it."""
        if key not in self._alias_types:
            self._alias_types[key] = next((found for path, text in self._texts.items() if key in text
                                           for found in [self._aliases_of(path).get(key)] if found is not None), None)
        return self._alias_types[key]

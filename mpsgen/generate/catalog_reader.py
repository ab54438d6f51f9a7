"""A small reader for templates/catalog.yaml's fixed shape, so `migrate` does not pay ruamel's
~85 ms pure-Python load on every run (issue 11).

The shape it reads (anything else is refused with the line, never guessed)::

    # comment
    op:                         # a top-level key
      key: plain scalar         # ` #` starts a comment, as in YAML
      key: "double-quoted \\" string"
      key: [a, b, c]            # a flow list of plain scalars
      key: true | false
      key: |                    # a literal block: the more-indented lines below, newlines kept
        line one
        line two

tests/test_catalog.py checks that this reader and ruamel's safe loader agree on the shipped file.
"""

from __future__ import annotations

import re
from typing import Any

_TOP = re.compile(r"^([A-Za-z_][\w.]*):\s*(?:#.*)?$")
_FIELD = re.compile(r"^  ([A-Za-z_]\w*):(?:\s+(.*?))?\s*$")
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}


class CatalogSyntaxError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def read_catalog(text: str) -> dict[str, dict[str, Any]]:
    """op -> {key: str | bool | list[str]}, in file order."""
    lines = text.splitlines()
    data: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    i = 0
    while i < len(lines):
        raw = lines[i]
        number = i + 1
        i += 1
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise CatalogSyntaxError(number, "tabs in indentation")
        top = _TOP.match(raw)
        if top:
            op = top.group(1)
            if op in data:
                raise CatalogSyntaxError(number, f"duplicate entry '{op}'")
            current = data[op] = {}
            continue
        field = _FIELD.match(raw)
        if field is None or current is None:
            raise CatalogSyntaxError(number, "expected `op:` or a two-space indented `key: value` line")
        key, value = field.group(1), field.group(2) or ""
        if key in current:
            raise CatalogSyntaxError(number, f"duplicate key '{key}'")
        if value == "|":
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith("    ")):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            if not block:
                raise CatalogSyntaxError(number, f"'{key}: |' has no indented lines below it")
            current[key] = "\n".join(block) + "\n"
            continue
        current[key] = _scalar_or_list(value, number)
    return data


def _scalar_or_list(value: str, line: int) -> Any:
    if value.startswith('"'):
        text, rest = _double_quoted(value, line)
        _only_comment(rest, line)
        return text
    if value.startswith("'"):
        end = value.find("'", 1)
        while end != -1 and value[end + 1 : end + 2] == "'":
            end = value.find("'", end + 2)
        if end == -1:
            raise CatalogSyntaxError(line, "unclosed single quote")
        _only_comment(value[end + 1 :], line)
        return value[1:end].replace("''", "'")
    if value.startswith("["):
        end = value.find("]")
        if end == -1:
            raise CatalogSyntaxError(line, "unclosed flow list")
        _only_comment(value[end + 1 :], line)
        items = [item.strip() for item in value[1:end].split(",")]
        if items == [""]:
            return []
        for item in items:
            _check_plain(item, line)
        return items
    plain = _strip_comment(value)
    if plain in ("true", "false"):
        return plain == "true"
    _check_plain(plain, line)
    return plain


def _double_quoted(value: str, line: int) -> tuple[str, str]:
    out: list[str] = []
    i = 1
    while i < len(value):
        ch = value[i]
        if ch == '"':
            return "".join(out), value[i + 1 :]
        if ch == "\\":
            esc = value[i + 1 : i + 2]
            if esc not in _ESCAPES:
                raise CatalogSyntaxError(line, f"unsupported escape \\{esc} in a double-quoted string")
            out.append(_ESCAPES[esc])
            i += 2
            continue
        out.append(ch)
        i += 1
    raise CatalogSyntaxError(line, "unclosed double quote")


def _strip_comment(value: str) -> str:
    at = value.find(" #")
    return (value[:at] if at != -1 else value).rstrip()


def _only_comment(rest: str, line: int) -> None:
    rest = rest.strip()
    if rest and not rest.startswith("#"):
        raise CatalogSyntaxError(line, f"unexpected text after the value: {rest!r}")


def _check_plain(value: str, line: int) -> None:
    """Refuse plain scalars that YAML would read as something else (so both readers agree)."""
    if not value:
        raise CatalogSyntaxError(line, "empty value")
    if value[0] in "!&*{}[]|>%@`\"'?-," and not (value[0] == "-" and value[1:2] not in ("", " ")):
        raise CatalogSyntaxError(line, f"a plain value may not start with {value[0]!r}: put it in double quotes")
    if ": " in value or value.endswith(":"):
        raise CatalogSyntaxError(line, "a plain value may not contain ': ': put it in double quotes")
    if value in ("null", "~", "yes", "no", "on", "off", "True", "False") or re.fullmatch(r"[-+]?\d[\d_.eE+-]*", value):
        raise CatalogSyntaxError(line, f"{value!r} would not be read as text: put it in double quotes")

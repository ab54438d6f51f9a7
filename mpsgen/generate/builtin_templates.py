"""The packaged templates rendered without jinja2: importing jinja2 alone costs ~40 ms of a migrate
that should take 0.3 s, to fill three templates of a few lines each.

Each function below returns exactly what jinja2 renders from one shipped template with render.py's
settings (trim_blocks, lstrip_blocks, the final newline dropped).  It is used only while the
template file holds the very text it mirrors (checked by sha256 on every render); a user's
--templates folder or an edited template goes through jinja2.  tests/test_builtin_templates.py
renders every catalog op both ways and pins the hashes to the shipped files.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable


def _indent(text: str, width: int = 4) -> str:
    """jinja2's ``indent(width, first=True)`` filter (blank lines stay empty)."""
    pad = " " * width
    lines = (text + "\n").splitlines()
    out = lines.pop(0)
    if lines:
        out += "\n" + "\n".join(pad + line if line else line for line in lines)
    return pad + out


def _functor(values: dict[str, Any]) -> str:
    out = [f"struct {values['name']}_functor {{\n"]
    tparams, params = values["tparams"], values["params"]
    for o in values["overloads"]:
        if o.trait:
            out.append(f"  template <{tparams}, enable_if_t<{o.trait}, bool> = true>\n")
        else:
            out.append(f"  template <{tparams}>\n")
        out.append(f"  inline {o.ret} operator()({params}) {{\n")
        out.append(f"{_indent(o.body.rstrip())}\n" if o.statements else f"    return {o.body};\n")
        out.append("  }\n")
    out.append("};")
    return "".join(out)


def _host_kernel(values: dict[str, Any]) -> str:
    return f"{values['signature']}\n{values['call']}\n}}"


def _register_dispatch(values: dict[str, Any]) -> str:
    return f"{values['call']}"


# template name -> (sha256 of the shipped file, its renderer)
MIRRORS: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "functor.metal.j2": ("7d8b4da26f762d5363661acc7115410f120a5e4d1beedc318722ff2eac068ac0", _functor),
    "host_kernel.mm.j2": ("7cc1881f69773f369ede42478df8da0c47bb9c0450c9ae3aed75771a1f488758", _host_kernel),
    "register_dispatch.mm.j2": ("80c63abfbadaf5c640bf5a4ad322d87639072055501f5a00548a65e6b7a011bf",
                                _register_dispatch),
}


def render_builtin(template: str, folder: Path, values: dict[str, Any]) -> str | None:
    """*template* from *folder* rendered (jinja2 output, final newlines not yet stripped), or None
    when that file is not the text mirrored here."""
    mirror = MIRRORS.get(template)
    if mirror is None:
        return None
    try:
        data = (folder / template).read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != mirror[0]:
        return None
    return mirror[1](values)

"""The edited entries of native_functions.yaml, checked the way PyTorch's NATIVEFUNCTIONS linter checks the
whole file: loaded and dumped by ruamel.yaml with its settings, the text must come back unchanged.

Only the located entries are parsed (a few lines each, ~30 ms with the import), never the 600 KB file, so
migrate stays fast and still never writes a yaml that PyTorch's lint or torchgen would read differently.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from mpsgen.errors import MpsgenError
from mpsgen.scan.lines import plain_lines, split_lines

if TYPE_CHECKING:
    from ruamel.yaml import YAML


def _pytorch_yaml() -> YAML:
    from ruamel.yaml import YAML

    yaml = YAML()  # round-trip mode, as tools/linter/adapters/nativefunctions_linter.py uses it
    yaml.preserve_quotes = True
    yaml.width = 1000
    yaml.boolean_representation = ["False", "True"]  # type: ignore[attr-defined]
    return yaml


def check_entry(text: str, line: int, end_line: int, *, path: str, mps_kernel: str | None = None,
                original: str | None = None) -> None:
    """Lines *line*..*end_line* of *text* (one `- func:` entry) round-trip unchanged through ruamel, and,
    given *mps_kernel*, its dispatch sends MPS to that kernel.  Raises MpsgenError otherwise.

    Lines that do not round-trip but stand as they are in *original* (the file before the edit) are the
    file's own: PyTorch 2.7 writes `tags: [ core, pointwise ]`, which ruamel 0.18+ dumps without the
    inner spaces."""
    from ruamel.yaml.error import YAMLError

    snippet = "".join(split_lines(text)[line - 1:end_line]).replace("\r\n", "\n")
    yaml = _pytorch_yaml()
    try:
        data = yaml.load(snippet)
    except YAMLError as err:
        raise MpsgenError(f"the edited entry is not valid YAML: {plain_lines(str(err))[0]}", path=path, line=line,
                          hint="nothing was written; please report this with the op name") from None
    out = io.StringIO()
    yaml.dump(data, out)
    if out.getvalue() != snippet and not _only_original_lines(snippet, out.getvalue(), original):
        raise MpsgenError("the edited entry would not round-trip through ruamel.yaml as PyTorch's lint requires",
                          path=path, line=line, hint="nothing was written; please report this with the op name")
    if mps_kernel is None:
        return
    dispatch = data[0].get("dispatch") if isinstance(data, list) and data else None
    routes = {b.strip(): v for k, v in (dispatch or {}).items() for b in str(k).split(",")}
    if routes.get("MPS") != mps_kernel:
        raise MpsgenError(f"the edited entry dispatches MPS to {routes.get('MPS')!r}, not {mps_kernel!r}",
                          path=path, line=line, hint="nothing was written; please report this with the op name")


def _only_original_lines(snippet: str, dumped: str, original: str | None) -> bool:
    """Whether every line ruamel changes was in *original* before the edit (so not written by mpsgen)."""
    if original is None:
        return False
    kept = set(plain_lines(dumped))
    changed = [ln for ln in plain_lines(snippet) if ln not in kept]
    before = set(plain_lines(original.replace("\r\n", "\n")))
    return len(plain_lines(snippet)) == len(plain_lines(dumped)) and all(ln in before for ln in changed)

"""The templates in templates/*.j2 (or a user's --templates DIR), rendered with jinja2."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from mpsgen.errors import MpsgenError

if TYPE_CHECKING:
    import jinja2


def default_templates_dir() -> Path:
    """The packaged templates (mpsgen.templates when installed, else <repo>/templates)."""
    try:
        import mpsgen.templates  # a plain package folder (importlib.resources costs ~10 ms of imports)

        return Path(mpsgen.templates.__file__).parent
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "templates"


def _environment(templates_dir: str | Path | None) -> jinja2.Environment:
    if templates_dir is not None and not Path(templates_dir).is_dir():
        raise MpsgenError("templates folder not found", path=templates_dir, hint="pass --templates DIR with *.j2 files")
    return _cached_environment(str(templates_dir) if templates_dir is not None else None)


@functools.lru_cache(maxsize=8)
def _cached_environment(templates_dir: str | None) -> jinja2.Environment:
    import jinja2

    search = [str(default_templates_dir())]
    if templates_dir is not None:
        search.insert(0, templates_dir)  # a user file overrides the packaged one of the same name
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(search),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
    )


def render_template(template: str, templates_dir: str | Path | None, **values: object) -> str:
    import jinja2

    env = _environment(templates_dir)
    try:
        return env.get_template(template).render(**values).rstrip("\n")
    except jinja2.TemplateSyntaxError as err:
        raise MpsgenError(f"template syntax error: {err.message}", path=err.filename or template, line=err.lineno) from None
    except jinja2.UndefinedError as err:
        raise MpsgenError(
            f"template uses an unknown variable ({err.message})",
            path=template,
            hint=f"variables available: {', '.join(sorted(values))}",
        ) from None

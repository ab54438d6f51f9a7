"""Build and test settings: defaults < `[tool.mpsgen]` in a config file < MPSGEN_BUILD_CMD < --build-cmd.

Config files at the checkout root, first one with a `[tool.mpsgen]` table wins:
`mpsgen.toml`, then `pyproject.toml`.  Keys:

    [tool.mpsgen]
    build_dir = "build"                       # relative to the checkout root
    build_cmd = ["ninja -C build torch_cpu", "ninja -C build install"]   # or one string with '&&'
    test_cmd  = "python test/test_mps.py"     # -v and -k patterns are appended
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from mpsgen.errors import MpsgenError
from mpsgen.model import Argv
from mpsgen.scan.lines import plain_lines

CONFIG_FILES = ("mpsgen.toml", "pyproject.toml")
ENV_BUILD_CMD = "MPSGEN_BUILD_CMD"
DEFAULT_BUILD_DIR = "build"
KNOWN_KEYS = ("build_dir", "build_cmd", "test_cmd")

def default_build_cmds(build_dir: str = DEFAULT_BUILD_DIR) -> tuple[Argv, ...]:
    # torch_cpu builds the metallibs too; install copies the library into torch/lib (anatomy §5).
    return (("ninja", "-C", build_dir, "torch_cpu"), ("ninja", "-C", build_dir, "install"))


@dataclass(frozen=True)
class Config:
    build_dir: str = DEFAULT_BUILD_DIR
    build_cmds: tuple[Argv, ...] = field(default_factory=default_build_cmds)
    test_cmd: Argv | None = None  # None: `<python> test/test_mps.py`
    # Where build_cmds came from, for messages: "default", a file name, the env var or "--build-cmd".
    build_cmd_source: str = "default"


def split_commands(text: str, *, source: str) -> tuple[Argv, ...]:
    """Shell-split *text* into commands separated by a standalone `&&` (no shell is run)."""
    try:
        words = shlex.split(text)
    except ValueError as err:
        raise MpsgenError(f"cannot split the build command {text!r}: {err}", path=source,
                          hint="check the quotes") from None
    commands: list[Argv] = []
    current: list[str] = []
    for word in words:
        if word == "&&":
            if current:
                commands.append(tuple(current))
            current = []
        elif word in ("|", "||", ";", ">", "<", "&"):
            raise MpsgenError(
                f"the build command uses the shell operator {word!r}, but mpsgen runs commands without a shell",
                path=source,
                hint="list the commands separated by '&&', or wrap them in a script",
            )
        else:
            current.append(word)
    if current:
        commands.append(tuple(current))
    if not commands:
        raise MpsgenError(
            "the build command is empty", path=source, hint="give at least one command, or use --no-build"
        )
    return tuple(commands)


def load_config(
    root: Path,
    *,
    env: Mapping[str, str] | None = None,
    cli_build_cmds: Sequence[str] = (),
) -> Config:
    """The settings for the checkout at *root*.  *cli_build_cmds* are the `--build-cmd` values."""
    root = Path(root)
    env = os.environ if env is None else env
    table, shown, text = _find_table(root)
    build_dir = DEFAULT_BUILD_DIR
    build_cmds = None
    test_cmd = None
    source = "default"
    if table is not None:
        for key in table:
            if key not in KNOWN_KEYS:
                raise MpsgenError(
                    f"unknown key {key!r} in [tool.mpsgen]",
                    path=shown, line=_line_of_key(text, key),
                    hint="known keys: " + ", ".join(KNOWN_KEYS),
                )
        if "build_dir" in table:
            build_dir = _expect_str(table["build_dir"], "build_dir", shown, text)
        if "build_cmd" in table:
            build_cmds = _commands_value(table["build_cmd"], "build_cmd", shown, text)
            source = shown
        if "test_cmd" in table:
            test_cmd = _command_value(table["test_cmd"], "test_cmd", shown, text)
    if env.get(ENV_BUILD_CMD, "").strip():
        build_cmds = split_commands(env[ENV_BUILD_CMD], source=ENV_BUILD_CMD)
        source = ENV_BUILD_CMD
    if cli_build_cmds:
        build_cmds = tuple(c for text_ in cli_build_cmds for c in split_commands(text_, source="--build-cmd"))
        source = "--build-cmd"
    return Config(
        build_dir=build_dir,
        build_cmds=build_cmds if build_cmds is not None else default_build_cmds(build_dir),
        test_cmd=test_cmd,
        build_cmd_source=source,
    )


def _parse_toml(text: str, shown: str) -> dict:
    try:
        import tomllib  # type: ignore[import-not-found,unused-ignore]  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef,unused-ignore]
        except ModuleNotFoundError:
            raise MpsgenError(
                "reading [tool.mpsgen] needs tomllib (Python 3.11+) or the tomli package",
                path=shown,
                hint="pip install tomli, or use MPSGEN_BUILD_CMD / --build-cmd instead",
            ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        # The message ends with "(at line N, column M)"; move the line into the error's place.
        msg = str(err)
        m = re.search(r"\(at line (\d+), column \d+\)", msg)
        line = int(m.group(1)) if m else None
        if "(at end of document)" in msg:
            line = max(1, len(plain_lines(text)))
        raise MpsgenError(
            f"not valid TOML: {re.sub(r' *[(]at (line|end of document).*[)]', '', msg)}",
            path=shown,
            line=line,
            hint="fix the TOML syntax",
        ) from None


def _find_table(root: Path) -> tuple[dict | None, str, str]:
    from mpsgen.tree.checkout import read_text_file

    for name in CONFIG_FILES:
        path = root / name
        if not path.is_file():
            continue
        text = read_text_file(path, shown=name)
        if name == "pyproject.toml" and "mpsgen" not in text:
            continue  # PyTorch's own pyproject.toml: no need to parse it
        doc = _parse_toml(text, name)
        tool = doc.get("tool", {})
        table = tool.get("mpsgen") if isinstance(tool, dict) else None
        if table is None:
            continue
        if not isinstance(table, dict):
            raise MpsgenError("tool.mpsgen must be a table", path=name, line=_line_of_key(text, "mpsgen"))
        return table, name, text
    return None, "", ""


def _line_of_key(text: str, key: str) -> int | None:
    m = re.search(rf"^[ \t]*(?:tool\.mpsgen\.)?{re.escape(key)}[ \t]*=", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _bad(key: str, expected: str, shown: str, text: str) -> MpsgenError:
    return MpsgenError(f"[tool.mpsgen] {key} must be {expected}", path=shown, line=_line_of_key(text, key),
                       hint=f"e.g. {key} = \"ninja -C build torch_cpu\"" if key.endswith("cmd") else None)


def _expect_str(value: object, key: str, shown: str, text: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _bad(key, "a non-empty string", shown, text)
    return value


def _commands_value(value: object, key: str, shown: str, text: str) -> tuple[Argv, ...]:
    """A string ('a && b'), a list of command strings, or a list of argv lists."""
    if isinstance(value, str):
        return split_commands(value, source=shown)
    if isinstance(value, list) and value:
        out: list[Argv] = []
        for item in value:
            if isinstance(item, str):
                out.extend(split_commands(item, source=shown))
            elif isinstance(item, list) and item and all(isinstance(w, str) for w in item):
                out.append(tuple(item))
            else:
                raise _bad(key, "a string or a list of command strings / argv lists", shown, text)
        return tuple(out)
    raise _bad(key, "a string or a list of command strings / argv lists", shown, text)


def _command_value(value: object, key: str, shown: str, text: str) -> Argv:
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        return tuple(value)
    if isinstance(value, str):
        cmds = split_commands(value, source=shown)
        if len(cmds) == 1:
            return cmds[0]
    raise _bad(key, "one command (a string or an argv list)", shown, text)

"""console.py reads the plain forms of `check` and `status` without click: every argument list it reads
must mean to it what it means to click (cli.py), and the ones it leaves must reach click."""

from __future__ import annotations

import inspect
from typing import Any

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpsgen import cli, console


def click_reading(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, tuple[Any, ...]] | None:
    """(command, the arguments cli.py passes its body) as click reads *args*; None when click refuses them
    or runs something else (help, version)."""
    seen: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(cli, "check_command", lambda *a: seen.append(("check", a)))
    monkeypatch.setattr(cli, "status_command", lambda *a: seen.append(("status", a)))
    try:
        cli.main.main(args, prog_name="mpsgen", standalone_mode=False)
    except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
        return None
    return seen[0] if seen else None


def console_reading(args: list[str]) -> tuple[str, tuple[Any, ...]] | None:
    plain = console.plain_arguments(args)
    if plain is None:
        return None
    command, checkout_dir, options = plain
    body = console.check_command if command == "check" else console.status_command
    return command, inspect.signature(body).bind(checkout_dir, **options).args


PLAIN = [
    ["check"],
    ["-C", "/tree", "check", "--format", "json"],
    ["--checkout", "/tree", "check", "--format=github", "a.mm", "--no-cache", "b.metal"],
    ["--checkout=/tree", "check", "@paths.txt", "--format", "lintrunner"],
    ["check", "--select", "MPS001", "--select=MPS003,MPS005", "--ignore", "split-family", "x.yaml"],
    ["check", "--baseline", "base.json", "--write-baseline=new.json", "--compile"],
    ["check", ""],
    ["--checkout=", "status"],
    ["status", "--format", "markdown", "--op", "atan2", "--no-cache"],
    ["-C", "t", "status", "--op="],
]

CLICKS_OWN = [
    [], ["--help"], ["-h"], ["--version"], ["check", "--help"], ["status", "-h"], ["migrate", "atan2"],
    ["check", "--format", "yaml"],  # a bad choice: click says so
    ["check", "--format", "json", "--format", "text"],  # given twice
    ["check", "--no-cache", "--no-cache"], ["check", "--no-cache=yes"], ["check", "--format"],
    ["check", "--format", "-x"], ["check", "--", "-odd.mm"], ["check", "-"], ["status", "a.mm"],
    ["-C"], ["-C", "--version"], ["-Ctree", "check"], ["check", "-C", "tree"], ["--format", "json", "check"],
    ["check", "--formats", "json"], ["check", "--op", "x"], ["status", "--select", "MPS001"],
]


@pytest.mark.parametrize("args", PLAIN, ids=" ".join)
def test_a_plain_form_means_what_it_means_to_click(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    read = console_reading(args)
    assert read is not None
    assert read == click_reading(args, monkeypatch)


def test_a_plain_form_s_values() -> None:
    assert console.plain_arguments(["-C", "/t", "check", "--format=json", "a.mm", "--select", "MPS001"]) == (
        "check", "/t", {"fmt": "json", "no_cache": False, "select": ("MPS001",), "ignore": (), "baseline": None,
                        "write_baseline": None, "compile_": False, "paths": ("a.mm",)})
    assert console.plain_arguments(["status"]) == ("status", None, {"fmt": "table", "op": None, "no_cache": False})


@pytest.mark.parametrize("args", CLICKS_OWN, ids=lambda a: " ".join(a) or "(none)")
def test_any_other_argument_list_is_click_s(args: list[str]) -> None:
    assert console.plain_arguments(args) is None


def test_every_option_of_check_and_status_is_known_or_left_to_click() -> None:
    """The plain options are click's options of the two commands, with click's keywords and choices."""
    for name, options in console.PLAIN_OPTIONS.items():
        command = cli.main.commands[name]
        by_flag = {flag: p for p in command.params if isinstance(p, click.Option) for flag in p.opts}
        for flag, (keyword, kind, choices) in options.items():
            param = by_flag[flag]
            assert param.name == keyword
            assert kind == ("flag" if param.is_flag else "many" if param.multiple else "value")
            assert choices == (tuple(param.type.choices) if isinstance(param.type, click.Choice) else None)
        assert sorted(p.name for p in command.params if isinstance(p, click.Option)) == sorted(
            keyword for keyword, _, _ in options.values())


TOKENS = ["-C", "--checkout", "--checkout=d", "d", "check", "status", "migrate", "--format", "--format=json", "json",
          "text", "table", "github", "markdown", "--no-cache", "--no-cache=1", "--select", "MPS001", "--select=MPS002",
          "--ignore", "--baseline", "b.json", "--write-baseline", "--compile", "--op", "add", "--op=", "a.mm", "-",
          "--", "--help", "-h", "--version", "@paths.txt", ""]


PREFIXES = [[], ["-C", "d"], ["--checkout", "d"], ["--checkout=d"], ["-C"], ["--checkout=d", "-C", "e"]]
ARGUMENT_LISTS = st.one_of(
    st.lists(st.sampled_from(TOKENS), max_size=8),
    st.builds(lambda prefix, command, rest: [*prefix, command, *rest], st.sampled_from(PREFIXES),
              st.sampled_from(["check", "status"]), st.lists(st.sampled_from(TOKENS), max_size=7)))


@settings(max_examples=400, deadline=None)
@given(ARGUMENT_LISTS)
def test_whatever_console_reads_click_reads_the_same(args: list[str]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        read = console_reading(args)
        if read is not None:
            assert read == click_reading(args, monkeypatch)

"""Shared frozen types: where a fact was found, and the options a command runs with.

Options are built once by the CLI and passed down typed; no ``dict[str, Any]`` crosses a module
boundary (modelled on torchgen's model.py, whose parsed objects each carry a ``Location``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Command = Literal["migrate", "new-op"]


@dataclass(frozen=True)
class Location:
    """A file (as shown to the user, relative to the checkout) and a 1-based line."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class KernelOptions:
    """What to plan: the op and how its kernel is generated (shared by migrate and new-op)."""

    op: str
    expr: str | None = None
    int_expr: str | None = None
    complex_expr: str | None = None
    dtypes: str | None = None
    stub_override: str | None = None
    templates_dir: str | None = None
    shared_kernel: str | None = None
    drop_complex: bool = False
    drop_dtypes: str | None = None  # torch dtypes MPS served that the new kernel deliberately leaves out


@dataclass(frozen=True)
class RunOptions:
    """What to do with a plan: show it, apply it, build, test, commit."""

    fmt: str = "text"
    print_only: bool = False
    dry_run: bool = False
    no_build: bool = False
    no_test: bool = False
    grad_tests: bool = False
    build_cmds: tuple[str, ...] = ()
    allow_dirty: bool = False
    branch: str | None = None
    commit: bool = False

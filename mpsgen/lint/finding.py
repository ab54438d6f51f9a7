"""One located problem found by a rule: the shape shared by the rules and the output formats."""

from __future__ import annotations

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"
SEVERITIES = (ERROR, WARNING)


@dataclass(frozen=True)
class Finding:
    """One located problem.  `path` is relative to the checkout root (posix) or absolute."""

    path: str
    line: int
    col: int
    code: str
    severity: str
    message: str
    hint: str | None = None

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, not {self.severity!r}")
        if self.line < 1 or self.col < 1:
            raise ValueError("line and col are 1-based")

    def full_message(self) -> str:
        return f"{self.message} (hint: {self.hint})" if self.hint else self.message


def sort_key(f: Finding) -> tuple:
    return (f.path, f.line, f.col, f.code, f.message)

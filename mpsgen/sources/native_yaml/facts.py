"""native_functions.yaml facts: dispatch lines, entries and op families, each with its line."""

from __future__ import annotations

import re
from functools import cached_property
from typing import Iterable, Literal, Mapping

from mpsgen.records import NamedTuple

MPS = "MPS"
SHARED_BACKENDS = ("CPU", "CUDA")
Route = Literal["legacy", "shared", "none"]
KernelOverride = str | Mapping[str, str] | None

DEFAULT_PATH = "aten/src/ATen/native/native_functions.yaml"

# `    CPU, CUDA: kernel   # comment` -> indent, keys, colon, kernel, trailing comment.
DISPATCH_LINE = re.compile(
    r"(\s+)([A-Za-z][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z][A-Za-z0-9_]*)*)\s*:\s+([A-Za-z_][A-Za-z0-9_:]*)(\s*(?:#.*)?)$"
)

# --------------------------------------------------------------------------------------
# Facts (named tuples: a frozen dataclass costs ~2 ms to create when mpsgen starts, a
# NamedTuple ~0.3 ms, and thousands of instances are made per index)
# --------------------------------------------------------------------------------------
class DispatchLine(NamedTuple):
    """One `KEYS: kernel` line of a dispatch block."""

    line: int
    keys: tuple[str, ...]
    kernel: str
    text: str  # as written, without its newline (or its \r)
    offset: int  # where the line starts in the file's text

    @property
    def has_mps(self) -> bool:
        return MPS in self.keys

    @property
    def has_cpu_or_cuda(self) -> bool:
        return "CPU" in self.keys or "CUDA" in self.keys  # SHARED_BACKENDS, tested without a generator


class SharedKernelSite(NamedTuple):
    """Where an entry's kernel shared by CPU and CUDA lives (kernel None: there is none)."""

    kernel: str | None
    line: DispatchLine | None  # the `CPU, CUDA[, ...]` line; None when CPU and CUDA are on separate lines
    reason: str  # why there is none (empty when there is one)


class _EntryFields(NamedTuple):

    func: str
    name: str  # "add.out"
    base: str  # "add"
    overload: str  # "out" ("" for the default overload)
    line: int
    end_line: int
    structured: bool
    structured_inherits: str | None
    structured_delegate: str | None
    tags: tuple[str, ...]
    dispatch_line: int | None  # the `dispatch:` line (None: no dispatch field)
    dispatch: tuple[DispatchLine, ...]
    odd_lines: tuple[int, ...]  # lines in a shape the scanner does not understand (flow dispatch, ...)


class Entry(_EntryFields):
    """One `- func:` entry, with the fields mpsgen needs and where they are."""

    # No __slots__: the instance's __dict__ holds the cached properties (check and status ask
    # each of ~500 entries these several times).
    @cached_property
    def mps_lines(self) -> tuple[DispatchLine, ...]:
        return tuple(d for d in self.dispatch if MPS in d.keys)

    @property
    def duplicate_mps(self) -> bool:
        """MPS on two lines: torchgen silently lets the later one win."""
        return len(self.mps_lines) > 1

    @cached_property
    def cpu_cuda_kernels(self) -> frozenset[str]:
        """The kernels of the lines keyed CPU or CUDA: an MPS line naming one is shared (`MPS: signbit_out`
        beside `CPU: signbit_out` / `CUDA: signbit_out` too, and a `CPU, CUDA, MPS` line itself)."""
        return frozenset(d.kernel for d in self.dispatch if "CPU" in d.keys or "CUDA" in d.keys)

    @cached_property
    def mps_route(self) -> Route:
        """Where MPS dispatches, judged by the line torchgen would keep (the last)."""
        lines = self.mps_lines
        if not lines:
            return "none"
        return "shared" if lines[-1].kernel in self.cpu_cuda_kernels else "legacy"

    @property
    def mps_kernel(self) -> str | None:
        lines = self.mps_lines
        return lines[-1].kernel if lines else None

    @property
    def marked_pointwise(self) -> bool:
        """The entry says it is elementwise: TensorIterator-structured or tagged pointwise."""
        return self.structured_inherits == "TensorIteratorBase" or "pointwise" in self.tags

    @property
    def legacy_lines(self) -> tuple[DispatchLine, ...]:
        """MPS lines that call an MPS-only kernel."""
        shared = self.cpu_cuda_kernels
        return tuple(d for d in self.mps_lines if d.kernel not in shared)

    def shared_kernel(self) -> SharedKernelSite:
        """The CPU/CUDA kernel MPS could share: one `CPU, CUDA[, ...]` line or equal separate lines."""
        for d in self.dispatch:
            if "CPU" in d.keys and "CUDA" in d.keys:  # every one of SHARED_BACKENDS
                return SharedKernelSite(d.kernel, d, "")
        cpu = [d for d in self.dispatch if "CPU" in d.keys]
        cuda = [d for d in self.dispatch if "CUDA" in d.keys]
        if cpu and cuda:
            if cpu[-1].kernel == cuda[-1].kernel:
                return SharedKernelSite(cpu[-1].kernel, None, "")
            return SharedKernelSite(
                None, None, f"CPU uses {cpu[-1].kernel} but CUDA uses {cuda[-1].kernel}, so there is no kernel to share"
            )
        if cpu or cuda:
            only = (cpu or cuda)[-1]
            backend = "CPU" if cpu else "CUDA"
            return SharedKernelSite(None, None, f"only {backend} has a kernel ({only.kernel}), not both CPU and CUDA")
        return SharedKernelSite(None, None, "it has no CPU or CUDA kernel to share")


class Family(NamedTuple):
    """An op's entries: functional, in-place (`op_`), `.out` and named overloads."""

    name: str
    entries: tuple[Entry, ...]
    partial: bool = False  # only the overloads the user selected (`migrate pow.Tensor_Tensor_out`)

    @property
    def has_mps(self) -> bool:
        return any(e.mps_lines for e in self.entries)

    @property
    def legacy_entries(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.legacy_lines)

    @property
    def legacy_kernels(self) -> tuple[str, ...]:
        """MPS-only kernels (their .mm implementations go when the family migrates)."""
        return unique(d.kernel for e in self.entries for d in e.legacy_lines)

    @property
    def shared_kernels(self) -> tuple[str, ...]:
        """CPU/CUDA kernels of the entries that would move to a shared key."""
        return unique(k for e in self.legacy_entries if (k := e.shared_kernel().kernel))

    @property
    def is_migrated(self) -> bool:
        """Every MPS key is shared with CPU/CUDA: `migrate` has nothing to do."""
        return self.has_mps and not self.legacy_entries

    def routes(self) -> dict[str, Route]:
        return {e.name: e.mps_route for e in self.entries}

    def effective_route(self, entry: Entry) -> Route:
        """Follow `structured_delegate` for entries without an MPS key of their own."""
        if entry.mps_route == "none" and entry.structured_delegate:
            for other in self.entries:
                if other.name == entry.structured_delegate:
                    return other.mps_route
        return entry.mps_route


class EntryHead(NamedTuple):
    """Where an entry is, found without parsing it (a tuple: thousands are made per index)."""

    name: str
    line: int
    start: int  # offset of its `- func:` line
    end: int  # offset of the next entry's `- func:` line (or the end of the text)


def family_key(base: str) -> str:
    """`relu_` -> `relu`; dunders (`__iand__`) keep their name."""
    if base.endswith("_") and not base.endswith("__") and len(base) > 1:
        return base[:-1]
    return base


def unique(items: Iterable[str]) -> tuple[str, ...]:
    """The items in first-seen order, without repeats."""
    return tuple(dict.fromkeys(items))

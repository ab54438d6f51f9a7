"""What the checkout can do: the one model of its era that plan, lint, `try` and the compile check read.

PyTorch grew its Metal support piece by piece, and mpsgen asks which pieces a checkout has instead of
which version it is: the c10/metal helpers and macros (2.7's utils.h has no is_complex_v), how each
kernels/*.metal registers kernels (sources/metal/layout), the host API forms MetalShaderLibrary.h
declares (2.7 has no exec_binary_kernel: BinaryKernel.mm's binary_mps_impl runs two-input kernels),
where the MPS test lists live (common_mps.py, or 2.7's test/test_mps.py), the math mode its Metal
library compiles with, and whether it pins its own clang-format style.

Each fact is read from the texts a `Source` gives the first time it is asked, and kept: a plan's
source is its changeset's planned texts (plan/texts.capabilities), lint's and the emulation's the
disk's (tree/capabilities).  A record remembers the texts it read, so a planner can tell when an edit
(a host API form the change adds) has made it stale.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from mpsgen.records import NamedTuple
from mpsgen.tree.checkout import COMMON_MPS_REL, OPERATIONS_REL, TEST_MPS_REL

if TYPE_CHECKING:  # the readers are imported where a fact is first asked: lint asks only where the test lists are
    from mpsgen.sources.host.api import HostApi
    from mpsgen.sources.host.launch import Launch
    from mpsgen.sources.metal.layout import LayoutFound
    from mpsgen.sources.metal.math_mode import MathMode

C10_INDEXING_REL = "c10/metal/indexing.h"
BINARY_KERNEL_MM_REL = f"{OPERATIONS_REL}/BinaryKernel.mm"
CLANG_FORMAT_REL = ".clang-format"


class Source(NamedTuple):
    """How a record reads the checkout: a file's text by checkout path (called only for files
    `exists` says are there), whether a file is there, and the c10/metal headers it lists."""

    read: Callable[[str], str]
    exists: Callable[[str], bool]
    c10_headers: tuple[str, ...]  # checkout paths of c10/metal/*.h, sorted


class Capabilities:
    """The checkout's capabilities, each read once, on first use (cached properties, set by nothing
    else: a record does not change once read).  Not a dataclass: ~1 ms less to import, on check's path."""

    def __init__(self, source: Source) -> None:
        self.source = source
        # checkout path -> the text read (None: not there); what `is_current` compares
        self.seen: dict[str, str | None] = {}

    def _text(self, rel: str) -> str | None:
        if rel not in self.seen:
            self.seen[rel] = self.source.read(rel) if self.source.exists(rel) else None
        return self.seen[rel]

    def is_current(self, source: Source) -> bool:
        """Whether *source* still gives every text this record was read from (the same objects: a
        changeset hands out the same string until an edit replaces it)."""
        return all((source.read(rel) if source.exists(rel) else None) is text for rel, text in self.seen.items())

    # -- c10/metal ------------------------------------------------------------------------
    @cached_property
    def c10_texts(self) -> dict[str, str]:
        """{checkout path: text} of the c10/metal headers (none in a trimmed checkout)."""
        return {rel: text for rel in self.source.c10_headers if (text := self._text(rel)) is not None}

    @cached_property
    def c10_code(self) -> str:
        """The c10/metal headers' code, comments and strings blanked (what a body's c10::metal calls
        are looked up in: backfill/c10_shims)."""
        from mpsgen.scan.mask import mask_code

        return "\n".join({PurePosixPath(rel).name: mask_code(text) for rel, text in self.c10_texts.items()}.values())

    @cached_property
    def c10_macros(self) -> frozenset[str] | None:
        """Function-like macros c10/metal defines (None when the checkout has no such headers)."""
        from mpsgen.sources.metal.layout import macros_defined

        return macros_defined(self.c10_texts.values()) if self.c10_texts else None

    @cached_property
    def c10_traits(self) -> bool:
        """Whether c10/metal/utils.h defines is_complex_v and is_scalar_*_v (2.8 and newer): without
        them a functor selects its overloads with Metal's own traits.  True without a utils.h."""
        from mpsgen.scan.mask import mask_code

        utils = {PurePosixPath(rel).name: text for rel, text in self.c10_texts.items()}.get("utils.h")
        # a definition (code only), not a comment that names it
        return utils is None or re.search(r"\bis_complex_v\s*=", mask_code(utils)) is not None

    def has_file(self, rel: str) -> bool:
        """Whether the checkout has the file (a c10/metal header a catalog body includes)."""
        return self.source.exists(rel)

    # -- host API -------------------------------------------------------------------------
    @cached_property
    def host_api(self) -> HostApi:
        """The exec_*_kernel forms MetalShaderLibrary.h declares, c10/metal's REGISTER_* macros, the
        input counts its *_strided_cast kernels read in each input's dtype, and 2.7's binary_mps_impl."""
        from mpsgen.sources.host.api import LIBRARY_HEADER_REL, cast_input_counts, defines_binary_mps_impl, read_host_api

        api = read_host_api(self._text(LIBRARY_HEADER_REL), self.c10_macros or frozenset())
        api = api._replace(cast_inputs=cast_input_counts(self.c10_texts.get(C10_INDEXING_REL)))
        binary_mm = self._text(BINARY_KERNEL_MM_REL) if not api.has("exec_binary_kernel") else None
        if binary_mm is not None:
            api = api._replace(binary_mps_impl=defines_binary_mps_impl(binary_mm))
        return api

    @cached_property
    def launch(self) -> Launch:
        """How the host headers spell a kernel launch written out by hand (sources/host/launch)."""
        from mpsgen.sources.host.launch import READ_FROM, read_launch

        return read_launch({rel: self._text(rel) for rel in READ_FROM})

    # -- kernels/*.metal ------------------------------------------------------------------
    def metal_layout(self, rel: str) -> LayoutFound:
        """How the .metal file *rel* registers kernels (sources/metal/layout), which decides the writer."""
        from mpsgen.sources.metal.index import index_metal
        from mpsgen.sources.metal.layout import layout_of

        text = self._text(rel)
        return layout_of(index_metal(text or "", rel))

    # -- test lists, build settings, style -----------------------------------------------
    @cached_property
    def test_lists_rel(self) -> str | None:
        """The file holding the MPS test lists (mps_ops_modifier's xfail/skip tables): common_mps.py, or
        test/test_mps.py in PyTorch 2.7 and before, which has no common_mps.py; None when neither has them."""
        if self.source.exists(COMMON_MPS_REL):
            return COMMON_MPS_REL
        test_mps = self._text(TEST_MPS_REL)
        if test_mps is not None and "def mps_ops_modifier(" in test_mps:
            return TEST_MPS_REL
        return None

    @cached_property
    def math_mode(self) -> MathMode:
        """The math the checkout's Metal library compiles with (sources/metal/math_mode)."""
        from mpsgen.sources.metal.math_mode import MATH_MODE_FILES, math_mode

        return math_mode({rel: self._text(rel) for rel in MATH_MODE_FILES})

    @cached_property
    def own_clang_format(self) -> bool:
        """Whether the checkout has its own .clang-format (else PyTorch's settings, bundled, apply)."""
        return self.source.exists(CLANG_FORMAT_REL)

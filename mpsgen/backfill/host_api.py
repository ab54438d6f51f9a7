"""A host API form the checkout lacks, added by the change itself (the shape table's backfill column,
plan/shape.py): which files it touches, the edits the backfill/ modules (exec_ternary_host,
exec_ternary_metal, binary_alpha_*, unary_alpha, ternary_*) derive from the siblings in those files, laid out by the checkout's own
clang-format, and the section the plan, the summary and the PR text show.

Pure over texts: *read* gives a file's planned text (None when absent); the result is the new texts by
path and one line per added piece (clang-format lays them out with every other written line).  A piece already there
(added by an earlier op of the same run, or an earlier run) is reused, never written twice.
"""

from __future__ import annotations

from typing import Callable

from mpsgen.errors import MpsgenError
from mpsgen.backfill import exec_ternary_host as exec_ternary_host
from mpsgen.backfill import binary_alpha_host as binary_alpha_host
from mpsgen.sources.host import launch
from mpsgen.backfill import ternary_host as ternary_host
from mpsgen.backfill import unary_alpha as unary_alpha
from mpsgen.backfill import exec_ternary_metal as exec_ternary_metal
from mpsgen.backfill import binary_alpha_metal as binary_alpha_metal
from mpsgen.backfill import ternary_cond as ternary_cond
from mpsgen.backfill import ternary_metal as ternary_metal
from mpsgen.records import NamedTuple
from mpsgen.sources.host.api import LIBRARY_HEADER_REL
from mpsgen.tree.checkout import KERNELS_REL, OPERATIONS_REL

INDEXING_REL = "c10/metal/indexing.h"


class Backfill(NamedTuple):
    texts: dict[str, str]  # path -> new text (only the files that changed)
    added: tuple[str, ...]  # "path: what" per piece added (empty: every piece was there already)


_METAL = (INDEXING_REL, exec_ternary_metal.add_ternary_alpha,
          "ternary_alpha_{strided,strided_cast,dense,dense_cast} kernels and REGISTER_TERNARY_ALPHA_OP_, "
          "REGISTER_OPMATH_TERNARY_ALPHA_OP, REGISTER_TERNARY_ALPHA_OP after their ternary siblings")
Edit = tuple[str, Callable[[str, str], str], str]


def _definer(read: Callable[[str], str | None], files: tuple[str, ...], test: Callable[[str], bool], what: str) -> str:
    found = next((rel for rel in files if (t := read(rel)) is not None and test(t)), None)
    if found is None:
        raise MpsgenError(f"no file among {', '.join(files)} defines {what}, the sibling to model on",
                          path=LIBRARY_HEADER_REL, line=1, hint="add the ternary host API by hand")
    return found


def _ternary_alpha(read: Callable[[str], str | None]) -> list[Edit]:
    definer = _definer(read, exec_ternary_host.DEFINITION_FILES, exec_ternary_host.defines_sibling,
                       "MetalShaderLibrary::exec_ternary_kernel(iter, name)")
    return [
        (LIBRARY_HEADER_REL, exec_ternary_host.add_declaration,
         "exec_ternary_kernel(iter, name, alpha, scalar_arg_type) declared beside exec_ternary_kernel(iter, name)"),
        (definer, exec_ternary_host.add_definition,
         "exec_ternary_kernel(iter, name, alpha, scalar_arg_type) defined after exec_ternary_kernel(iter, name), "
         "with exec_binary_kernel's alpha path"),
        _METAL,
    ]


def _ternary_params(read: Callable[[str], str | None]) -> list[Edit]:
    sibling_file = _definer(read, exec_ternary_host.DEFINITION_FILES, exec_ternary_host.defines_sibling,
                            "MetalShaderLibrary::exec_ternary_kernel(iter, name)")
    sibling = exec_ternary_host.ternary_definition(str(read(sibling_file)), sibling_file)
    # Copied from the .mm into the header beside exec_binary_kernel_with_params: its profiler calls as the
    # checkout's MPSProfiler.h declares them (a 2026 OperationUtils.mm passes a stream 2.13's does not take).
    sibling = launch.respelled(sibling, launch.read_launch({rel: read(rel) for rel in launch.READ_FROM}))
    files = (exec_ternary_host.HEADER_DEFINITIONS, *exec_ternary_host.DEFINITION_FILES)
    definer = _definer(read, files, lambda t: bool(exec_ternary_host.find_callables(
        t, exec_ternary_host.BINARY_PARAMS, qualified=True)), f"MetalShaderLibrary::{exec_ternary_host.BINARY_PARAMS}")
    return [
        (LIBRARY_HEADER_REL, exec_ternary_host.add_params_declaration,
         "exec_ternary_kernel_with_params<T>(iter, name, params, params_type_name) declared after its binary sibling"),
        (definer, lambda text, rel: exec_ternary_host.add_params_definition(text, rel, sibling, sibling_file),
         f"exec_ternary_kernel_with_params<T> defined after exec_binary_kernel_with_params: {sibling_file}'s "
         "exec_ternary_kernel(iter, name) with the binary template's params path"),
        _METAL,
    ]


def _binary_alpha_mps_impl(read: Callable[[str], str | None]) -> list[Edit]:
    """PyTorch 2.7: BinaryKernel.mm's file-local binary_mps_impl and BinaryKernel.metal's
    binary_indexing/binary_dense kernels, each given a form passing one more argument (a scalar, or a
    params struct of the op's own) through mtl_setBytes."""
    return [
        (BINARY_MM_REL, binary_alpha_host.add_helper,
         f"{binary_alpha_host.HELPER}<T>(iter, func_name, alpha, ...) after {binary_alpha_host.SIBLING}, "
         "alpha bound with mtl_setBytes after the kernel's buffers"),
        (BINARY_METAL_REL, binary_alpha_metal.add_binary_alpha,
         f"binary_alpha_indexing/binary_alpha_dense kernels and {binary_alpha_metal.ALPHA_MACRO}(NAME, DTYPE, DTYPEA) "
         f"after their binary_indexing/binary_dense and {binary_alpha_metal.SIBLING_MACRO} siblings"),
    ]


def _ternary_mps_impl(alpha: bool) -> Callable[[Callable[[str], str | None]], list[Edit]]:
    """PyTorch 2.7 runs no kernel of three inputs: BinaryKernel.mm gets ternary_mps_impl (or its alpha form)
    derived from binary_mps_impl, BinaryKernel.metal ternary kernels and their macro derived from the
    binary ones, the offsets computed from sizes and strides with 2.7's c10/metal/indexing.h."""
    helper = ternary_host.ALPHA_HELPER + "<T>" if alpha else ternary_host.HELPER
    macro = ternary_metal.TERNARY.alpha_macro if alpha else ternary_metal.TERNARY.macro
    kernels = "ternary_alpha_indexing/ternary_alpha_dense" if alpha else "ternary_indexing/ternary_dense"
    scalar = "alpha, " if alpha else ""
    return lambda read: [
        (INDEXING_REL, ternary_metal.require_offset_helpers, ""),  # a check: the kernels' offsets come from it
        (BINARY_MM_REL, ternary_host.add_alpha_helper if alpha else ternary_host.add_helper,
         f"{helper}(iter, func_name, {scalar}...) after {ternary_host.SIBLING}, with a third input and the "
         "iterator's sizes and strides where it binds offsets"),
        (BINARY_METAL_REL, lambda text, rel: ternary_metal.add_ternary(text, rel, alpha=alpha),
         f"{kernels} kernels and {macro}(NAME, DTYPE{', DTYPEA' if alpha else ''}) modeled on "
         "binary_indexing/binary_dense and REGISTER_BINARY_INDEXING_OP, offsets from c10/metal/indexing.h"),
    ]


def _ternary_cond_mps_impl(read: Callable[[str], str | None]) -> list[Edit]:
    """PyTorch 2.7's where: ternary_mps_impl's form naming its kernels after the condition's type and the
    inputs' (ternary_cond_mps_impl), and the ternary kernels' form reading the condition in its own type."""
    return [
        (INDEXING_REL, ternary_metal.require_offset_helpers, ""),
        (BINARY_MM_REL, ternary_cond.add_cond_helper,
         f"{ternary_cond.COND_HELPER}(iter, func_name, ...) after {ternary_host.SIBLING}: {ternary_host.HELPER} "
         "with its kernels named after the condition's type and the inputs' (NAME_bool_float)"),
        (BINARY_METAL_REL, ternary_cond.add_cond,
         f"ternary_cond_indexing/ternary_cond_dense kernels and {ternary_cond.MACRO}(NAME, CTYPE, DTYPE): "
         "the ternary kernels with the condition read as its own type and handed to the functor as T"),
    ]


def _unary_alpha_mps_impl(read: Callable[[str], str | None]) -> list[Edit]:
    """PyTorch 2.7: MetalShaderLibrary::exec_unary_kernel passes one int64_t: UnaryKernel.mm gets a form
    passing a scalar or params struct, derived from that definition (the kernels are the op's own
    template kernels in the file's layout, generate/template_kernel)."""
    definer = _definer(read, exec_ternary_host.DEFINITION_FILES, unary_alpha.defines_sibling,
                       "MetalShaderLibrary::exec_unary_kernel(iter, name, extra)")
    definer_text = str(read(definer))
    return [(UNARY_MM_REL, lambda text, rel: unary_alpha.add_helper(text, rel, definer_text, definer),
             f"{unary_alpha.HELPER}<T>(iter, name, alpha): {definer}'s exec_unary_kernel with the file's lib, "
             "alpha bound with mtl_setBytes where it binds its extra")]


UNARY_MM_REL = f"{OPERATIONS_REL}/UnaryKernel.mm"
BINARY_MM_REL = f"{OPERATIONS_REL}/BinaryKernel.mm"
BINARY_METAL_REL = f"{KERNELS_REL}/BinaryKernel.metal"
BINARY_ALPHA_27, UNARY_ALPHA_27 = "binary_alpha_mps_impl", "unary_alpha_mps_impl"  # plan/shape.py's 2.7 names
TERNARY_27, TERNARY_ALPHA_27 = ternary_host.HELPER, ternary_host.ALPHA_HELPER
TERNARY_COND_27 = ternary_cond.COND_HELPER
_BACKFILLS = {"ternary_alpha": _ternary_alpha, "ternary_params": _ternary_params,
               BINARY_ALPHA_27: _binary_alpha_mps_impl, UNARY_ALPHA_27: _unary_alpha_mps_impl,
               TERNARY_27: _ternary_mps_impl(False), TERNARY_ALPHA_27: _ternary_mps_impl(True),
               TERNARY_COND_27: _ternary_cond_mps_impl}
# The files a backfill models its pieces on; each must exist
_NEEDS = {"ternary_alpha": (LIBRARY_HEADER_REL, INDEXING_REL), "ternary_params": (LIBRARY_HEADER_REL, INDEXING_REL),
          BINARY_ALPHA_27: (BINARY_MM_REL, BINARY_METAL_REL), UNARY_ALPHA_27: (UNARY_MM_REL,),
          TERNARY_27: (BINARY_MM_REL, BINARY_METAL_REL, INDEXING_REL),
          TERNARY_ALPHA_27: (BINARY_MM_REL, BINARY_METAL_REL, INDEXING_REL),
          TERNARY_COND_27: (BINARY_MM_REL, BINARY_METAL_REL, INDEXING_REL)}


def backfill(name: str, read: Callable[[str], str | None]) -> Backfill:
    """Add the pieces of backfill *name* (a key of _BACKFILLS) the texts lack."""
    if name not in _BACKFILLS:
        raise MpsgenError(f"no backfill for the host API form '{name}'", hint="write the host API by hand")
    missing = next((rel for rel in _NEEDS[name] if read(rel) is None), None)
    if missing is not None:
        raise MpsgenError(f"{missing} not found: no sibling to model the host API form '{name}' on",
                          path=missing, hint="add the host API form by hand")
    texts: dict[str, str] = {}
    added: list[str] = []
    for rel, edit, what in _BACKFILLS[name](read):
        before = texts.get(rel) or read(rel)
        assert before is not None
        after = edit(before, rel)
        if after != before:
            texts[rel] = after
            added.append(f"{rel}: {what}")
    return Backfill(texts, tuple(added))


class Form(NamedTuple):
    """How a commit adding one backfill names it (`migrate --all --stack` lands it alone)."""

    title: str  # what it adds, short
    modeled_on: str  # the siblings its pieces are derived from
    # Whether it can land before any op calls it: a non-template `static` function nobody calls is
    # -Wunused-function under PyTorch's -Wall, so that one lands with its first user.
    alone: bool = True


FORMS = {
    "ternary_alpha": Form(f"exec_ternary_kernel(iter, name, alpha) and {exec_ternary_metal.TERNARY_ALPHA_MACRO}",
                          "exec_ternary_kernel(iter, name) with exec_binary_kernel's alpha path; c10/metal's "
                          "ternary kernels and REGISTER_TERNARY_OP_ with the binary kernels' alpha form"),
    "ternary_params": Form("exec_ternary_kernel_with_params", "exec_ternary_kernel(iter, name) with "
                           "exec_binary_kernel_with_params's params path"),
    BINARY_ALPHA_27: Form(f"{binary_alpha_host.HELPER} and {binary_alpha_metal.ALPHA_MACRO}",
                          f"{binary_alpha_host.SIBLING} and the binary_indexing/binary_dense kernels"),
    UNARY_ALPHA_27: Form(unary_alpha.HELPER, "MetalShaderLibrary::exec_unary_kernel(iter, name, extra)"),
    TERNARY_27: Form(f"{ternary_host.HELPER} and {ternary_metal.TERNARY.macro}",
                     f"{ternary_host.SIBLING} and REGISTER_BINARY_INDEXING_OP", alone=False),
    TERNARY_ALPHA_27: Form(f"{ternary_host.ALPHA_HELPER} and {ternary_metal.TERNARY.alpha_macro}",
                           f"{ternary_host.SIBLING}'s alpha form with a third input"),
    TERNARY_COND_27: Form(f"{ternary_cond.COND_HELPER} and {ternary_cond.MACRO}",
                          f"{ternary_host.HELPER} with the condition read in its own type", alone=False),
}

"""The host half of PyTorch 2.7's ternary kernels, which that checkout has none of (no exec_ternary_kernel):
BinaryKernel.mm gets a file-local `ternary_mps_impl(iter, func_name, ...)` derived from its
`binary_mps_impl` (pure text -> text), and for kernels with scalars `ternary_alpha_mps_impl<T>(iter,
func_name, alpha, ...)` derived from that by backfill/binary_alpha_host's transform (alpha bound last);
where's form of it is backfill/ternary_cond's.

The move from two inputs to three: `iter.input(2)` read beside the other two and bound after the second
input in both kernels' mtl_setArgs, and profiled with them.  binary_mps_impl's strided kernel reads the
offsets generateKernelDataOffsets computes for an output and two inputs; the ternary kernels
(backfill/ternary_metal) compute them from the iterator's shape and each operand's byte strides,
so those are bound where the offsets buffer was: `iter.shape(), iter.strides(0..3), nDim`, as 2.7's
Indexing.mm binds sizes and strides for masked_fill_scalar_strided.  A sibling of another shape is
refused, naming what was not found.
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.mask import mask_code
from mpsgen.backfill import binary_alpha_host
from mpsgen.sources.host.text import without_todo_comments

SIBLING = binary_alpha_host.SIBLING
HELPER = "ternary_mps_impl"
ALPHA_HELPER = "ternary_alpha_mps_impl"
INPUT_LINE = re.compile(r"^([ \t]*)(?:at::)?Tensor\s+(\w+)\s*=\s*(\w+)\.input\((\d)\);[ \t]*$", re.M)
_BIND = re.compile(r"^([ \t]*)mtl_setArgs\((\w+)\s*,([^;]*)\);[ \t]*$", re.M)
_OFFSETS = re.compile(r"^[ \t]*auto\s+(\w+)\s*=\s*generateKernelDataOffsets\(\s*\w+\s*,\s*\w+\s*\);[ \t]*\n", re.M)


def refusal(path: str, what: str, helper: str = HELPER) -> MpsgenError:
    return MpsgenError(f"{path}: {what}, the sibling {helper} would be modeled on", path=path, line=1,
                       hint=f"add {helper} by hand")


def _third(name: str) -> str:
    return f"{name}2"


def helper_definition(sibling: str, path: str) -> str:
    """binary_mps_impl's definition -> ternary_mps_impl's (without its TODO comments)."""
    text = re.sub(rf"\bstatic\s+void\s+{SIBLING}\b", f"static void {HELPER}", without_todo_comments(sibling), count=1)
    text = re.sub(r"\bbinary(?=[A-Z])", "ternary", text)  # binaryPSO -> ternaryPSO
    inputs = {int(m.group(4)): m for m in INPUT_LINE.finditer(mask_code(text))}
    if sorted(inputs) != [0, 1]:
        raise refusal(path, f"{SIBLING} does not read its inputs as `Tensor x = iter.input(0)` and input(1)")
    first, second = inputs[0].group(2), inputs[1].group(2)
    third, it = _third(second), inputs[1].group(3)
    at = inputs[1].end()
    text = f"{text[:at]}\n{inputs[1].group(1)}Tensor {third} = {it}.input(2);{text[at:]}"
    text = re.sub(r"(\bconstexpr\s+uint32_t\s+nOffsets\s*=\s*)3\b", r"\g<1>4", text)
    offsets = _OFFSETS.search(mask_code(text))
    if offsets is None:
        raise refusal(path, f"{SIBLING}'s strided kernel does not read generateKernelDataOffsets(encoder, iter)")
    text = text[: offsets.start()] + text[offsets.end() :]
    set_offsets = re.compile(rf"\n[ \t]*\[\w+\s+setBuffer:\s*{offsets.group(1)}\s+offset:\s*0\s+atIndex:\s*\d+\];[ \t]*")
    found = set_offsets.search(mask_code(text))
    if found is None:
        raise refusal(path, f"{SIBLING} does not bind {offsets.group(1)} with setBuffer after its tensors")
    binds = list(_BIND.finditer(mask_code(text)))
    strided = [b for b in binds if b.end() == found.start()]
    n_dim = re.search(rf"\bconst\s+uint32_t\s+(\w+)\s*=\s*{it}\.ndim\(\);", text)
    ndim = n_dim.group(1) if n_dim else f"static_cast<uint32_t>({it}.ndim())"
    text = text[: found.start()] + text[found.end() :]
    if len(binds) != 2 or len(strided) != 1:
        raise refusal(path, f"{SIBLING} does not bind its tensors with one mtl_setArgs per kernel (dense, strided)")
    strides = ", ".join(f"{it}.strides({k})" for k in range(4))
    for bind in reversed(binds):
        args = [a.strip() for a in bind.group(3).split(",")]
        if second not in args:
            raise refusal(path, f"{SIBLING}'s mtl_setArgs does not bind {second}")
        args.insert(args.index(second) + 1, third)
        if bind is strided[0]:
            args += [f"{it}.shape()", strides, ndim]
        text = f"{text[: bind.start()]}{bind.group(1)}mtl_setArgs({bind.group(2)}, {', '.join(args)});{text[bind.end():]}"
    text, profiled = re.subn(rf"(beginProfileKernel\([^;]*\{{\s*{first}\s*,\s*{second})(\s*\}})", rf"\1, {third}\2", text)
    if not profiled and "beginProfileKernel" in mask_code(text):
        raise refusal(path, f"{SIBLING} does not profile its kernel with {{{first}, {second}}}")
    return text


def alpha_helper_definition(sibling: str, path: str) -> str:
    """binary_mps_impl's definition -> ternary_alpha_mps_impl's: the ternary form given alpha."""
    return binary_alpha_host.helper_definition(helper_definition(sibling, path), path, HELPER, ALPHA_HELPER)


def add_helper(mm_text: str, path: str) -> str:
    """BinaryKernel.mm with ternary_mps_impl after binary_mps_impl; unchanged when it has one (reused)."""
    return binary_alpha_host.add_helper(mm_text, path, HELPER, helper_definition)


def add_alpha_helper(mm_text: str, path: str) -> str:
    """BinaryKernel.mm with ternary_alpha_mps_impl<T> after binary_mps_impl; unchanged when it has one."""
    return binary_alpha_host.add_helper(mm_text, path, ALPHA_HELPER, alpha_helper_definition)


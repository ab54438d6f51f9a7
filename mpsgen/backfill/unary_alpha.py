"""The host half of PyTorch 2.7's unary kernels with scalar arguments: 2.7's
`MetalShaderLibrary::exec_unary_kernel(iter, name, std::optional<int64_t> extra)` passes one integer
only (round_decimals' ndigits), so the change adds a file-local `unary_alpha_mps_impl<T>(iter, name,
alpha)` to UnaryKernel.mm, derived from that definition's text (pure text -> text): the same body,
with the library the file's own `lib`, and *alpha* (a scalar, or the op's params struct) bound where
exec_unary_kernel binds its extra, as the template kernels with a scalar (generate/template_kernel)
expect: through mtl_setArgs, whose double overload casts down to float (mtl_setBytes takes no double,
and AT_DISPATCH instantiates the helper for double although no MPS tensor holds one).  A sibling of another shape is refused, naming it.
"""

from __future__ import annotations

import re

from mpsgen.errors import MpsgenError
from mpsgen.scan.brackets import match_close
from mpsgen.scan.mask import mask_code
from mpsgen.backfill.exec_ternary_host import find_callables
from mpsgen.sources.host.text import without_todo_comments

SIBLING = "exec_unary_kernel"
HELPER = "unary_alpha_mps_impl"
_LIB = re.compile(r"^[ \t]*static\s+auto\s*&\s*lib\s*=", re.M)


def _refuse(path: str, what: str) -> MpsgenError:
    return MpsgenError(f"{path}: {what}, the sibling {HELPER} would be modeled on", path=path, line=1,
                       hint=f"add {HELPER} by hand")


def defines_sibling(text: str) -> bool:
    return bool(find_callables(text, SIBLING, qualified=True))


def defines_helper(mm_text: str) -> bool:
    return re.search(rf"^[ \t]*static\s+void\s+{HELPER}\s*\(", mask_code(mm_text), re.M) is not None


def helper_definition(definer_text: str, path: str) -> str:
    """MetalShaderLibrary::exec_unary_kernel's definition (in *definer_text*) -> unary_alpha_mps_impl's."""
    found = find_callables(definer_text, SIBLING, qualified=True)
    if len(found) != 1 or len(found[0].params) != 3 or "extra" not in found[0].params[2]:
        raise _refuse(path, f"no one definition of MetalShaderLibrary::{SIBLING}(iter, name, extra)")
    sibling = definer_text[found[0].start : found[0].end]
    close = match_close(mask_code(sibling), found[0].params_open - found[0].start)
    assert close is not None  # find_callables matched it
    body = without_todo_comments(sibling[close + 1 :])  # the sibling's TODO comments stay with it
    text = f"static void {HELPER}({found[0].params[0]}, {found[0].params[1]}, const T alpha){body}"
    text, bound = re.subn(r"if\s*\(\s*extra\s*\)\s*\{\s*mtl_setBytes\(\s*(\w+)\s*,\s*\*extra\s*,\s*(\d+)\s*\)\s*;\s*\}",
                          r"mtl_setArgs<\2>(\1, alpha);", text)
    text, looked_up = re.subn(r"(?<![\w.>])getPipelineStateForFunc\(", "lib.getPipelineStateForFunc(", text)
    if bound != 1 or not looked_up or re.search(r"\bextra\b", mask_code(text)):
        raise _refuse(path, f"{SIBLING} does not bind its extra with one `if (extra) mtl_setBytes(...)` and "
                            "look its kernels up with getPipelineStateForFunc")
    return f"template <typename T>\n{text}"


def add_helper(mm_text: str, path: str, definer_text: str, definer: str) -> str:
    """UnaryKernel.mm with unary_alpha_mps_impl before its first kernel function, after its `lib`;
    unchanged when it has one already (reused)."""
    if defines_helper(mm_text):
        return mm_text
    masked = mask_code(mm_text)
    lib = _LIB.search(masked)
    first = re.search(r"^static\s+void\s+\w+\s*\(", masked[lib.end() :] if lib else "", re.M)
    if lib is None or first is None:
        raise _refuse(path, "no `static auto& lib = ...` followed by kernel functions")
    at = lib.end() + first.start()
    nl = "\r\n" if "\r\n" in mm_text else "\n"
    new = helper_definition(definer_text, definer)
    return mm_text[:at] + new.replace("\n", nl) + nl + nl + mm_text[at:]

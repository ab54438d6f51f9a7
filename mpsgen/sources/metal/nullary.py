"""The nullary kind's .metal (generate/nullary_kernel.py): which element types its `REGISTER_<NAME>_OP(T)`
lines instantiate `<name>_dense_<T>` and `<name>_strided_<T>` for, read back from the text."""

from __future__ import annotations

import re

from mpsgen.scan.mask import mask_code


def registered_types(text: str, name: str) -> tuple[str, ...]:
    """The T of every `REGISTER_<NAME>_OP(T);` line of *text* whose macro instantiates both kernels of *name*."""
    masked = mask_code(text)
    macro = f"REGISTER_{name.upper()}_OP"
    define = re.search(rf"#\s*define\s+{macro}\s*\(\s*T\s*\)((?:[^\n]*\\\n)*[^\n]*)", text)
    if define is None or f'"{name}_dense_"' not in define.group(1) or f'"{name}_strided_"' not in define.group(1):
        return ()
    return tuple(m.group(1) for m in re.finditer(rf"^\s*{macro}\s*\(\s*(\w+)\s*\)\s*;", masked, re.MULTILINE))

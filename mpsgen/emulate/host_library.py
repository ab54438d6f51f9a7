"""The host libraries the checks of the kinds beside pointwise load (fills, indexing, random): a source compiled
into a shared library, cached by its text and command; and c10's own Scalar conversion, built against the
installed torch, which the kernels' value must match (`Scalar::to<T>`, as the CPU kernels convert)."""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
from pathlib import Path
from typing import Any

from mpsgen.emulate.compile import FLAGS, cache_dir
from mpsgen.errors import MpsgenError
from mpsgen.scan.lines import plain_lines


def build_library(name: str, source: str, argv: list[str], libs: tuple[str, ...] = ()) -> ctypes.CDLL:
    """*source* compiled with *argv* (and linked with *libs*) into a shared library, cached by its text and
    command; each process builds its own source and output and renames it into place (concurrent runs)."""
    key = hashlib.sha256(("3\0" + source + "\0".join((*argv, "--", *libs))).encode()).hexdigest()[:20]
    folder = cache_dir() / "kinds"
    folder.mkdir(parents=True, exist_ok=True)
    lib = folder / f"{name}-{key}.so"
    if not lib.exists():
        src = folder / f"{name}-{key}.{os.getpid()}.cpp"
        tmp = folder / f"{name}-{key}.{os.getpid()}.so"
        src.write_text(source, encoding="utf-8")
        try:
            done = subprocess.run([*argv, str(src), "-o", str(tmp), *libs], capture_output=True, text=True)
            if done.returncode != 0:
                first = next((ln for ln in plain_lines(done.stderr) if "error" in ln), done.stderr.strip()[:300])
                raise MpsgenError(f"the numeric check's {name} library does not compile: {first}")
            os.replace(tmp, lib)
        finally:
            src.unlink(missing_ok=True)
            tmp.unlink(missing_ok=True)
    return ctypes.CDLL(str(lib))


# The C++ types the converter serves, in the order of its `dtype` argument (one library for every check: c10's
# headers take seconds to compile).
CONVERTED = ("float", "c10::Half", "c10::BFloat16", "int64_t", "int32_t", "int16_t", "int8_t", "uint8_t", "bool",
             "c10::complex<float>", "c10::complex<c10::Half>")


def scalar_converter(cxx: list[str], torch: Any) -> ctypes.CDLL:
    """`mpsgen_to(dtype, re, im, i, kind, out)`: a c10::Scalar (kind 0 a double, 1 an int64, 2 a bool, 3 a
    complex) converted by `Scalar::to<CONVERTED[dtype]>()` into *out*; its size, or -1 where c10 raises."""
    cases = "\n".join(f"    case {k}: {{ auto v = s.to<{cpp}>(); std::memcpy(out, &v, sizeof v); return sizeof v; }}"
                      for k, cpp in enumerate(CONVERTED))
    source = f"""#include <c10/core/Scalar.h>
#include <c10/util/Exception.h>
#include <cstring>
#include <exception>
extern "C" int mpsgen_to(int dtype, double re, double im, long long i, int kind, void* out) {{
  try {{
    c10::Scalar s = kind == 1 ? c10::Scalar(static_cast<int64_t>(i)) : kind == 2 ? c10::Scalar(i != 0)
        : kind == 3 ? c10::Scalar(c10::complex<double>(re, im)) : c10::Scalar(re);
    switch (dtype) {{
{cases}
    }}
  }} catch (const std::exception&) {{  // c10::Error, or report_overflow's runtime_error
    return -1;
  }}
  return -2;
}}
"""
    torch_dir = Path(torch.__file__).parent
    abi = int(torch.compiled_with_cxx11_abi())
    return build_library("convert", source, [*cxx, *[f for f in FLAGS if f != "-fwrapv"], f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
                                             "-I", str(torch_dir / "include")],
                         ("-L", str(torch_dir / "lib"), "-lc10", f"-Wl,-rpath,{torch_dir / 'lib'}"))

"""The emulation's headers compiled once: a g++ precompiled header of the emulated metal_stdlib and the
checkout's c10/metal headers every driver includes first (compile.BASE_HEADERS).

Parsing them is most of a functor's compile (sample headers: 0.33 -> 0.18 s; the 2.13 wheel's, whose
templates are instantiated per functor: 0.74 -> 0.48 s), and `migrate --all` or the catalog's tests
compile one driver per kernel against the same headers.  The PCH lives in the cache, keyed by the
headers' content, the compiler and the flags; g++ uses it only where it was built with the same
options (-Winvalid-pch says otherwise), and reads the headers themselves where it cannot.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

_STDLIB = ("-include", "metal_stdlib")


def with_preamble(argv: list[str], headers: list[str], key: str, cache: Path) -> list[str]:
    """*argv* (compile.emulation_argv's) with its forced metal_stdlib replaced by a header including it
    and *headers*, precompiled under *cache* (built on first use); *argv* unchanged when that fails.
    *key*: the headers' content, the compiler and its flags, not the checkout's path: another checkout
    with the same c10/metal reuses the PCH (g++ then skips its #pragma once headers of the same content)."""
    at = next((k for k in range(len(argv) - 1) if tuple(argv[k:k + 2]) == _STDLIB), None)
    if at is None:
        return argv
    text = "".join(f"#include <{h}>\n" for h in ("metal_stdlib", *headers))
    folder = cache / "pch" / hashlib.sha256(f"{key}\0{text}".encode()).hexdigest()[:24]
    header = folder / "mpsgen_preamble.h"
    if not (folder / "mpsgen_preamble.h.gch").is_file() and not _build(argv[:at] + argv[at + 2:], header, text):
        return argv
    return [*argv[:at], "-include", str(header), "-Winvalid-pch", *argv[at + 2:]]


def _build(argv: list[str], header: Path, text: str) -> bool:
    """Write *header* and its .gch (each atomically: concurrent runs see all or nothing)."""
    header.parent.mkdir(parents=True, exist_ok=True)
    pid = os.getpid()
    tmp_header = header.with_name(f"{header.name}.{pid}.tmp")
    tmp_header.write_text(text, encoding="utf-8")
    os.replace(tmp_header, header)
    gch = header.with_name(header.name + ".gch")
    tmp_gch = header.with_name(f"{header.name}.{pid}.gch.tmp")
    flags = [a for a in argv if a != "-shared"]
    done = subprocess.run([*flags, "-x", "c++-header", str(header), "-o", str(tmp_gch)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if done.returncode != 0:
        tmp_gch.unlink(missing_ok=True)
        return False
    os.replace(tmp_gch, gch)
    return True

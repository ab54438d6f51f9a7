"""Time loading templates/catalog.yaml: mpsgen's small reader against ruamel's safe loaders (issue 11).

    python benchmarks/bench_catalog.py [--repeat 21]

Each measurement reads and parses the file from text in-process (no lru_cache); the ruamel rows
include a fresh YAML() object per load, as the old loader did once per process, and ruamel's
import is measured once in a separate interpreter.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_native_functions import median_ms  # noqa: E402

from mpsgen.generate.catalog import catalog_path  # noqa: E402
from mpsgen.generate.catalog_reader import read_catalog  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    path = catalog_path()
    text = path.read_text(encoding="utf-8")

    from ruamel.yaml import YAML

    def ruamel(typ: str, pure: bool) -> None:
        yaml = YAML(typ=typ, pure=pure)
        yaml.load(text)

    importing = subprocess.run(
        [sys.executable, "-c", "import time; t = time.perf_counter(); import ruamel.yaml; "
         "print((time.perf_counter() - t) * 1000)"], capture_output=True, text=True, check=True).stdout
    rows = [
        ("mpsgen catalog_reader (read + parse)", median_ms(lambda: read_catalog(path.read_text(encoding="utf-8")), args.repeat)),
        ("ruamel safe, pure Python (the old path without clib)", median_ms(lambda: ruamel("safe", True), args.repeat)),
        ("ruamel safe, C loader if installed", median_ms(lambda: ruamel("safe", False), args.repeat)),
        ("import ruamel.yaml (once per process, fresh interpreter)", float(importing)),
    ]
    print(f"catalog: {path} ({len(text):,} bytes, {len(read_catalog(text))} entries)")
    print("| measurement | median ms |\n|---|---:|")
    for name, ms in rows:
        print(f"| {name} | {ms:.2f} |")


if __name__ == "__main__":
    main()

"""Time loading templates/catalog.yaml: ruamel's safe loader with its C parser (what mpsgen uses) and
pure Python, and ruamel's import (once per process; migrate imports it for the yaml edit anyway).

    python benchmarks/bench_catalog.py [--repeat 21]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_native_functions import median_ms  # noqa: E402

from mpsgen.generate.catalog import catalog_path  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    path = catalog_path()
    text = path.read_text(encoding="utf-8")

    from ruamel.yaml import YAML

    def ruamel(pure: bool) -> None:
        YAML(typ="safe", pure=pure).load(text)

    importing = subprocess.run(
        [sys.executable, "-c", "import time; t = time.perf_counter(); import ruamel.yaml; "
         "print((time.perf_counter() - t) * 1000)"], capture_output=True, text=True, check=True).stdout
    rows = [
        ("ruamel safe, C parser (ruamel.yaml.clib; mpsgen's path)", median_ms(lambda: ruamel(False), args.repeat)),
        ("ruamel safe, pure Python (no clib)", median_ms(lambda: ruamel(True), args.repeat)),
        ("import ruamel.yaml (once per process, fresh interpreter)", float(importing)),
    ]
    entries = len(YAML(typ="safe").load(text))
    print(f"catalog: {path} ({len(text):,} bytes, {entries} entries)")
    print("| measurement | median ms |\n|---|---:|")
    for name, ms in rows:
        print(f"| {name} | {ms:.2f} |")


if __name__ == "__main__":
    main()

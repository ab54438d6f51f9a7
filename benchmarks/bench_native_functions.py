"""Measure mpsgen's native_functions.yaml index + family edit against full YAML parses.

Run: python benchmarks/bench_native_functions.py [--repeat N] [--family NAME]
Uses the real file from the installed torch wheel (torchgen/packaged/ATen/native/).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mpsgen.sources.native_yaml.names import index_text, migrate_family, select_overloads  # noqa: E402


def real_yaml() -> Path:
    spec = importlib.util.find_spec("torchgen")
    if spec is None or spec.origin is None:
        sys.exit("torchgen is not installed: pip install torch==2.13.0")
    return Path(spec.origin).parent / "packaged" / "ATen" / "native" / "native_functions.yaml"


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def ruamel_round_trip(text: str) -> None:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 1000
    yaml.boolean_representation = ["False", "True"]
    out = io.StringIO()
    yaml.dump(yaml.load(text), out)
    assert out.getvalue() == text


def torchgen_parse(path: Path) -> None:
    from torchgen.gen import parse_native_yaml

    # torchgen caches by path: parse a fresh copy so the parse really happens.
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "native_functions.yaml"
        copy.write_bytes(path.read_bytes())
        parse_native_yaml(str(copy), str(path.parent / "tags.yaml"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21, help="runs of the mpsgen measurement (median)")
    parser.add_argument("--slow-repeat", type=int, default=3, help="runs of the ruamel and torchgen measurements")
    parser.add_argument("--family", default="logit")
    args = parser.parse_args()

    path = real_yaml()
    text = path.read_bytes().decode("utf-8")
    edit = migrate_family(text, args.family)  # warm-up, and proof the edit does something
    assert edit.changed, f"{args.family} has nothing to migrate"

    family_ms = median_ms(lambda: select_overloads(index_text(text), args.family), args.repeat)
    heads_ms = median_ms(lambda: index_text(text).heads, args.repeat)
    edit_ms = median_ms(lambda: migrate_family(text, args.family), args.repeat)
    full_ms = median_ms(lambda: index_text(text).families(), max(3, args.repeat // 4))
    ruamel_ms = median_ms(lambda: ruamel_round_trip(text), args.slow_repeat)
    torchgen_ms = median_ms(lambda: torchgen_parse(path), args.slow_repeat)

    rows = [
        (f"mpsgen index + family {args.family}", family_ms),
        ("mpsgen index, every entry located", heads_ms),
        (f"mpsgen index + migrate {args.family}", edit_ms),
        ("mpsgen index + all families parsed", full_ms),
        ("ruamel round trip (load + dump)", ruamel_ms),
        ("torchgen parse_native_yaml", torchgen_ms),
    ]
    print(f"native_functions.yaml: {len(text):,} chars, {text.count(chr(10)):,} lines, {len(index_text(text).heads):,} entries")
    print(f"{'measurement':<40} {'median ms':>10} {'x edit':>8}")
    for label, ms in rows:
        print(f"{label:<40} {ms:>10.1f} {ms / edit_ms:>8.1f}")
    print(f"ruamel / edit = {ruamel_ms / edit_ms:.0f}x; torchgen / edit = {torchgen_ms / edit_ms:.0f}x")


if __name__ == "__main__":
    main()

"""Shared helpers of the `mpsgen try` tests: header roots and a one-call check."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from mpsgen.generate import catalog, render
from mpsgen.emulate.numerics import check_kernel
from mpsgen.emulate.compare import TryResult

REPO = Path(__file__).resolve().parent.parent
SAMPLE_HEADERS = REPO / "fixtures" / "sample"


def wheel_headers() -> Path:
    """torch/include from the installed torch 2.13.0 wheel (holds the real c10/metal)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise RuntimeError("torch is not installed: pip install torch==2.13.0")
    return Path(spec.origin).parent / "include"


HEADERS = {"sample": SAMPLE_HEADERS, "wheel": None}


def include_root(name: str) -> Path:
    return SAMPLE_HEADERS if name == "sample" else wheel_headers()


def run(op: str, arity: str, headers: str = "sample", **spec_options: object) -> TryResult:
    spec = catalog.spec_for(op, arity, **spec_options)  # type: ignore[arg-type]
    return check_kernel(spec, render.render_functor(spec), op=op, include_root=include_root(headers))


def failing(result: TryResult) -> set[str]:
    return {r.dtype for r in result.rows if not r.ok}


def table(result: TryResult) -> str:
    from mpsgen.emulate.compare import render_text

    return render_text(result)

"""SharedKernels.spelling(name) is `[rel for rel in files if name in text(rel)]` whatever was asked before it:
an answer narrowed by a name asked earlier that the name contains, the runs of a name with digits searched
holding `mps` first and then the longest, each within the files the one before left."""

from __future__ import annotations

import random
from pathlib import Path

from mpsgen.lint.shared_kernels import SharedKernels

TEXTS = {
    "a.cpp": "Tensor& std_out(const Tensor& self) { return at::std(self); } // std::vector\n",
    "b.cpp": "void std_mean_mps(int) {}\nauto x = log1p_mps(y);  /* conv2d */\n",
    "c.cpp": "static void stdx() {}\n#define MPS_STUB(x) x##_stub\nREGISTER_DISPATCH(cross_stub, &cross_mps);\n",
    "d.cpp": "const char* s = \"std_mean\"; int conv2d_mps = 1; // \u00e9std_mean\u00e9\n",
    "e.cpp": "int a2b3c = 0; int _mps_ = 1; int mpsmps = 2; int std_ = 3;\n",
    "f.cpp": "",
}
NAMES = ["std", "std_mean", "std_mean_mps", "mean", "std_", "stdx", "log1p_mps", "log", "p_mps", "mps", "_mps",
         "conv2d", "conv2d_mps", "d_mps", "2d", "2", "a2b3c", "b3c", "cross_stub", "cross", "_stub", "stub",
         "mpsmps", "smp", "x", "\u00e9std", "std_mean\u00e9", "nowhere", "std_meanx", "s_mps", "MPS_STUB"]


def _naive(name: str) -> frozenset[str]:
    return frozenset(rel for rel, text in TEXTS.items() if name in text)


def _kernels() -> SharedKernels:
    class NoFacts:
        enabled = False

        def named(self, key: str) -> None:
            return None

    paths = {rel: Path(rel) for rel in TEXTS}
    return SharedKernels(paths, lambda p: TEXTS[str(p)], NoFacts())  # type: ignore[arg-type]


def test_spelling_is_the_naive_search_in_any_order_of_questions() -> None:
    rng = random.Random(40)
    for _ in range(60):
        names = NAMES[:]
        rng.shuffle(names)
        kernels = _kernels()
        for name in names:
            assert kernels.spelling(name) == _naive(name), name


def test_a_name_narrowed_by_an_earlier_answer() -> None:
    kernels = _kernels()
    assert kernels.spelling("std") == _naive("std")
    assert kernels.spelling("std_mean") == {"b.cpp", "d.cpp"}  # searched among std's files only
    assert kernels.spelling("std_mean_mps") == {"b.cpp"}
    assert kernels.spelling("nowhere") == frozenset()
    assert kernels.spelling("nowhere_mps") == frozenset()  # within nowhere's (no) files

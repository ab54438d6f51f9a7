"""migrate into the early-2025 TEMPLATE_HOST_NAME layout (PyTorch 2.6-2.7 UnaryKernel.metal): a
template kernel per op that applies its functor, instantiated by `template [[host_name(...)]]`
declarations in the file's own macros (tests/data/metal/UnaryKernel_template_host_name.metal)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from cli_support import mpsgen

DATA = Path(__file__).parent / "data" / "metal"
METAL = "aten/src/ATen/native/mps/kernels/UnaryKernel.metal"
INCLUDE = Path(__file__).resolve().parents[1] / "mpsgen" / "emulate" / "include"


def _commit(tree: Path) -> None:
    subprocess.run(["git", "add", "-A"], cwd=tree, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "2.7 layout"], cwd=tree, check=True, capture_output=True)


def _compile_errors(path: Path, root: Path) -> list[str]:
    """g++ -fsyntax-only of a .metal under mpsgen's Metal emulation: the template instances included."""
    done = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-w", f"-I{INCLUDE}", f"-I{root}", "-include",
                           "metal_stdlib", "-x", "c++", str(path)], capture_output=True, text=True)
    return sorted(re.sub(r"^.*?:\d+:\d+: ", "", ln) for ln in done.stderr.splitlines() if ": error:" in ln)


def test_frac_gets_its_own_instantiation_macro_at_the_end(tree: Path) -> None:
    # frac registers float types only, not INSTANTIATE_UNARY_KERNELS2's list (every integer -> float):
    # like 2.7's sinc, it gets a kernel and macro of its own after the file's last instantiation.
    (tree / METAL).write_text((DATA / "UnaryKernel_template_host_name.metal").read_text())
    _commit(tree)
    before = (tree / METAL).read_text()
    errors_before = _compile_errors(tree / METAL, tree)
    result = mpsgen("-C", str(tree), "migrate", "frac", "--no-build", "--no-test")
    assert result.returncode == 0, result.stdout + result.stderr
    after = (tree / METAL).read_text()
    assert after.startswith(before)  # appended: every line that was there is unchanged
    added = after[len(before):]
    assert "struct frac_functor {" in added
    assert "kernel void frac_kernel(" in added
    assert "output[index] = static_cast<T0>(frac_functor()(input[index]));" in added
    assert '#define INSTANTIATE_FRAC_KERNEL(DTYPE0, DTYPE1)' in added
    assert 'template [[host_name("frac_" #DTYPE0 "_" #DTYPE1)]] kernel void frac_kernel(' in added
    calls = [ln for ln in added.splitlines() if ln.startswith("INSTANTIATE_FRAC_KERNEL(")]
    assert calls == ["INSTANTIATE_FRAC_KERNEL(bfloat, bfloat);", "INSTANTIATE_FRAC_KERNEL(half, half);",
                     "INSTANTIATE_FRAC_KERNEL(float, float);"]
    assert "#if __METAL_VERSION__ >= 310\nINSTANTIATE_FRAC_KERNEL(bfloat, bfloat);\n#endif" in added
    assert "REGISTER_UNARY_OP" not in added  # not defined in that layout
    assert _compile_errors(tree / METAL, tree) == errors_before  # the fixture's own erf aside: no new error
    again = mpsgen("-C", str(tree), "migrate", "frac", "--no-build", "--no-test")
    assert (tree / METAL).read_text() == after, again.stdout + again.stderr

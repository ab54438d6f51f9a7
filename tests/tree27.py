"""The 2.7 tree: the git-initialised sample checkout with PyTorch 2.7's shapes laid over it, committed.

PyTorch 2.7 wrote UnaryKernel.metal in the TEMPLATE_HOST_NAME layout (template kernels instantiated
by `template [[host_name(...)]]` entries in INSTANTIATE_UNARY_KERNELS2 / _VEC2), UnaryKernel.mm as
static functions plus REGISTER_DISPATCH lines, and its c10/metal/utils.h lacked is_complex_v,
is_scalar_*_v, result_of, mul, hypot and REGISTER_UNARY_OP (no expm1f.h at all).  sigmoid, expm1 and
log1p still ran through MPSGraph (`MPS: X_out_mps` + TORCH_IMPL_FUNC in operations/UnaryOps.mm);
upstream moved them to Metal in mid-2025 (PRs #155080, #155611, #154936).

The hand-written files are in tests/data/tree27/ (each says what real file it mirrors); the stubs
and the yaml/OpInfo entries of acosh, logical_not, log1p and sigmoid are added to the sample's own
files here.  `lay_tree27(root)` edits a copy of the sample in place; `commit_tree27(root)` commits it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "tree27"
NATIVE = "aten/src/ATen/native"
METAL = f"{NATIVE}/mps/kernels/UnaryKernel.metal"
HOST = f"{NATIVE}/mps/operations/UnaryKernel.mm"
GRAPH = f"{NATIVE}/mps/operations/UnaryOps.mm"
YAML = f"{NATIVE}/native_functions.yaml"
CMI = "torch/testing/_internal/common_methods_invocations.py"

# UnaryOps.h / UnaryOps.cpp: the stubs 2.7 declares for these ops, in the sample's (= upstream's) shapes.
DECLARES = """DECLARE_DISPATCH(unary_fn, acosh_stub)
DECLARE_DISPATCH(unary_fn, log1p_stub)
DECLARE_DISPATCH(unary_fn, logical_not_stub)
DECLARE_DISPATCH(unary_fn, sigmoid_stub)
DECLARE_DISPATCH(unary_fn, sinc_stub)
DECLARE_DISPATCH(unary_fn, sqrt_stub)
DECLARE_DISPATCH(unary_fn, tanh_stub)
"""
META_FUNCS = """CREATE_UNARY_FLOAT_META_FUNC(acosh)
CREATE_UNARY_FLOAT_META_FUNC(log1p)
CREATE_UNARY_FLOAT_META_FUNC(sigmoid)
"""
LOGICAL_NOT_OUT = (Path(__file__).parent / "data" / "logical_not_out.cpp.txt").read_text().split("\n", 1)[1]
IMPL_FUNCS = """CREATE_UNARY_TORCH_IMPL_FUNC(acosh_out, acosh_stub)
CREATE_UNARY_TORCH_IMPL_FUNC(log1p_out, log1p_stub)
CREATE_UNARY_TORCH_IMPL_FUNC(sigmoid_out, sigmoid_stub)

""" + LOGICAL_NOT_OUT + """
"""
DEFINES = """DEFINE_DISPATCH(acosh_stub);
DEFINE_DISPATCH(log1p_stub);
DEFINE_DISPATCH(logical_not_stub);
DEFINE_DISPATCH(sigmoid_stub);
DEFINE_DISPATCH(sinc_stub);
DEFINE_DISPATCH(sqrt_stub);
DEFINE_DISPATCH(tanh_stub);
"""


def _replace_once(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text()
    assert text.count(old) == 1, f"{rel}: expected one {old!r} in the sample"
    path.write_text(text.replace(old, new))


def lay_tree27(root: Path) -> Path:
    """Turn a copy of the sample checkout into the 2.7-shaped tree (in place); returns root."""
    for name, rel in (("UnaryKernel.metal", METAL), ("UnaryKernel.mm", HOST), ("UnaryOps.mm", GRAPH),
                      ("utils.h", "c10/metal/utils.h"), ("special_math.h", "c10/metal/special_math.h")):
        shutil.copyfile(DATA / name, root / rel)
    # 2.7 has no expm1f.h; the sample's indexing.h is written against the newer utils.h (is_complex_v).
    for rel in ("c10/metal/expm1f.h", "c10/metal/indexing.h",
                # 2.7 kept its MPS test lists in test/test_mps.py: no common_mps.py yet.
                "torch/testing/_internal/common_mps.py"):
        (root / rel).unlink()

    # expm1 back to its 2.7 dispatch (the sample has it migrated already), then the other ops' entries.
    _replace_once(root, YAML, "    CPU, CUDA, MPS: expm1_out\n", "    CPU, CUDA: expm1_out\n    MPS: expm1_out_mps\n")
    yaml = root / YAML
    yaml.write_text(yaml.read_text().rstrip("\n") + "\n\n" + (DATA / "native_functions.yaml").read_text())

    _replace_once(root, f"{NATIVE}/UnaryOps.h", "DECLARE_DISPATCH(unary_fn, signbit_stub);\n",
                  DECLARES + "DECLARE_DISPATCH(unary_fn, signbit_stub);\n")
    cpp = f"{NATIVE}/UnaryOps.cpp"
    _replace_once(root, cpp, "CREATE_UNARY_FLOAT_META_FUNC(special_log_ndtr)\n",
                  META_FUNCS + "CREATE_UNARY_FLOAT_META_FUNC(special_log_ndtr)\n")
    _replace_once(root, cpp, "TORCH_IMPL_FUNC(signbit_out)", IMPL_FUNCS + "TORCH_IMPL_FUNC(signbit_out)")
    _replace_once(root, cpp, "DEFINE_DISPATCH(signbit_stub);\n", DEFINES + "DEFINE_DISPATCH(signbit_stub);\n")

    _replace_once(root, CMI, "    UnaryUfuncInfo('signbit',\n",
                  (DATA / "op_db_entries.py.txt").read_text() + "    UnaryUfuncInfo('signbit',\n")
    return root


def commit_tree27(root: Path) -> None:
    for args in (["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "2.7 layout"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)

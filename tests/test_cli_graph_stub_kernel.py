"""isneginf/isposinf as PyTorch 2026 has them: the yaml already shares the CPU/CUDA kernel with MPS,
but the stubs are registered with REGISTER_DISPATCH(stub, &fn) where fn calls an MPSGraph helper of
the file.  `migrate` must move such an op (not call it "already native"): its registration and
kernel go, the helper goes with its last user, the Metal kernel returns bool as the CPU meta
function says.  The sample has neither op, so each test adds both in PyTorch's shapes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cli_support import mpsgen
from test_checks import edit

NATIVE = "aten/src/ATen/native"
UNARY_MM = f"{NATIVE}/mps/operations/UnaryOps.mm"
YAML = f"{NATIVE}/native_functions.yaml"
METAL = f"{NATIVE}/mps/kernels/UnaryKernel.metal"

GRAPH_KERNELS = """namespace mps {
static void is_posneginf_helper(TensorIteratorBase& iter, bool is_neg) {
  @autoreleasepool {
    auto cachedGraph = LookUpOrCreateCachedGraph<MPSUnaryCachedGraph>(
        __func__ + std::to_string(is_neg), [&](auto mpsGraph, auto newCachedGraph) {
          newCachedGraph->inputTensor_ = mpsGraphRankedPlaceHolder(mpsGraph, iter.input(0));
        });
    runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), nil, nil);
  }
}
} // namespace mps

static void isneginf_kernel_mps(TensorIteratorBase& iter) {
  mps::is_posneginf_helper(iter, true);
}

static void isposinf_kernel_mps(TensorIteratorBase& iter) {
  mps::is_posneginf_helper(iter, false);
}

REGISTER_DISPATCH(isneginf_stub, &isneginf_kernel_mps)
REGISTER_DISPATCH(isposinf_stub, &isposinf_kernel_mps)

} // namespace at::native
"""


def _yaml_entries(op: str) -> str:
    return (f"- func: {op}(Tensor self) -> Tensor\n  variants: function, method\n  structured_delegate: {op}.out\n\n"
            f"- func: {op}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n"
            f"  structured_inherits: TensorIteratorBase\n  dispatch:\n    CPU, CUDA, MPS: {op}_out\n\n")


def _cpu(op: str) -> tuple[str, str]:
    meta = (f"TORCH_META_FUNC({op}) (const Tensor& self) {{\n"
            f"  TORCH_CHECK(!self.is_complex(), \"{op} does not support complex inputs.\");\n"
            "  build_borrowing_unary_force_boolean_op(maybe_get_output(), self);\n}\n\n")
    impl = (f"TORCH_IMPL_FUNC({op}_out) (const Tensor& self, const Tensor& result) {{\n"
            "  if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/true)) {\n    result.fill_(false);\n"
            f"  }} else {{\n    {op}_stub(device_type(), *this);\n  }}\n}}\n\n")
    return meta, impl


def add_isneginf_and_isposinf(root: Path) -> None:
    edit(root, YAML, "- func: asinh(Tensor self) -> Tensor\n", _yaml_entries("isneginf") + _yaml_entries("isposinf")
         + "- func: asinh(Tensor self) -> Tensor\n")
    edit(root, f"{NATIVE}/UnaryOps.h", "DECLARE_DISPATCH(unary_fn, exp_stub)\n",
         "DECLARE_DISPATCH(unary_fn, exp_stub)\nDECLARE_DISPATCH(unary_fn, isneginf_stub)\n"
         "DECLARE_DISPATCH(unary_fn, isposinf_stub)\n")
    (neg_meta, neg_impl), (pos_meta, pos_impl) = _cpu("isneginf"), _cpu("isposinf")
    edit(root, f"{NATIVE}/UnaryOps.cpp", "} // namespace at::meta\n", neg_meta + pos_meta + "} // namespace at::meta\n")
    edit(root, f"{NATIVE}/UnaryOps.cpp", "DEFINE_DISPATCH(abs_stub);\n", neg_impl + pos_impl + "DEFINE_DISPATCH(abs_stub);\n"
         "DEFINE_DISPATCH(isneginf_stub);\nDEFINE_DISPATCH(isposinf_stub);\n")
    edit(root, UNARY_MM, "} // namespace at::native\n", GRAPH_KERNELS)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "isneginf"],
                   cwd=root, check=True)


def _migrate(tree: Path, op: str, expr: str, *extra: str):
    return mpsgen("-C", str(tree), "migrate", op, "--expr", expr, "--dtypes", "float32,float16", "--no-build",
                  "--no-test", "--no-try", "--format", "json", *extra)


def test_a_stub_registered_with_an_mpsgraph_kernel_is_moved_and_the_helper_goes_with_its_last_user(tree: Path) -> None:
    add_isneginf_and_isposinf(tree)
    status = mpsgen("-C", str(tree), "status", "--op", "isneginf")
    assert "MPSGraph" in status.stdout and "candidate" in status.stdout, status.stdout

    first = _migrate(tree, "isneginf", "x == -INFINITY")
    assert first.returncode == 0, first.stderr
    plan = json.loads(first.stdout)["plan"]
    assert plan["moved"] == [] and YAML not in plan["files"]  # the yaml already shares the kernel
    assert [r.split(": ", 1)[1] for r in plan["removed"]] == [
        "REGISTER_DISPATCH(isneginf_stub, isneginf_kernel_mps) (MPSGraph)",
        "static isneginf_kernel_mps (used only by the MPSGraph kernel of isneginf_stub)",
    ]
    assert {r["dtype"]: r["after"] for r in plan["dtype_table"]}["float16"] == "registered T->bool"
    mm = (tree / UNARY_MM).read_text(encoding="utf-8")
    assert "isneginf_kernel_mps" not in mm
    assert "static void is_posneginf_helper" in mm and "REGISTER_DISPATCH(isposinf_stub, &isposinf_kernel_mps)" in mm
    metal = (tree / METAL).read_text(encoding="utf-8")
    assert "inline bool operator()(const T x) {\n    return x == -INFINITY;" in metal
    assert "REGISTER_UNARY_OP(isneginf, half, bool);" in metal

    second = _migrate(tree, "isposinf", "x == INFINITY", "--allow-dirty")
    assert second.returncode == 0, second.stderr
    removed = [r.split(": ", 1)[1] for r in json.loads(second.stdout)["plan"]["removed"]]
    assert removed[-1] == "static is_posneginf_helper (used only by the MPSGraph kernel of isposinf_stub)"
    mm = (tree / UNARY_MM).read_text(encoding="utf-8")
    assert "posneginf" not in mm and "REGISTER_DISPATCH(is" not in mm

    again = mpsgen("-C", str(tree), "migrate", "isposinf", "--no-build", "--no-test", "--no-try")
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("nothing to do: isposinf is already on a native Metal kernel")
    check = mpsgen("-C", str(tree), "check", "--no-cache")
    assert "isposinf" not in check.stdout and "isneginf" not in check.stdout, check.stdout


def test_a_registered_kernel_mpsgen_cannot_classify_is_left_alone_and_said_so(tree: Path) -> None:
    add_isneginf_and_isposinf(tree)
    mm = tree / UNARY_MM
    mm.write_text(mm.read_text(encoding="utf-8").replace("  mps::is_posneginf_helper(iter, true);",
                                                         "  isinf_sign_kernel(iter, true);  // defined elsewhere"))
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "opaque"],
                   cwd=tree, check=True)
    before = mm.read_bytes()
    done = mpsgen("-C", str(tree), "migrate", "isneginf", "--expr", "x == -INFINITY", "--no-build", "--no-test", "--no-try")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"nothing to do: isneginf already has an MPS kernel that is not MPSGraph code "
                                  f"mpsgen knows (isneginf_stub registered at {UNARY_MM}:"), done.stdout
    assert "isneginf_kernel_mps calls neither Metal nor MPSGraph directly): left as it is" in done.stdout
    assert mm.read_bytes() == before

"""Replaying upstream's 2.13 -> 2.14 migrations of asinh, acosh, atanh, conj_physical, logical_not and
sigmoid_backward: `mpsgen migrate --all --branch-per-op` on a 2.13 tree gives the dispatch the torch
2.14.1 wheel's native_functions.yaml ships for them (torchgen's parse of both), and leaves their
common_mps.py entries as 2.14.1 has them: no "sigmoid_backward" in SUPPORTED_COMPLEX_OPS, a key no
OpInfo has (sigmoid's OpInfo tests its gradient).

The tree: the sample checkout with the 2.13 wheel's yaml and test lists, its scalar-ops sources, and
the CPU and MPSGraph code of the six ops added in the shapes of the real 2.13 files.

What 2.14.1 shipped is in tests/data/replay214/, hand-written (no PyTorch file is fetched or copied):
native_functions.yaml mirrors the 2.14.1 wheel's entries asinh.out, acosh.out, atanh.out,
conj_physical.out, logical_not.out and sigmoid_backward.grad_input with their whole dispatch blocks
(XPU keys included, dropped by the comparison); common_mps.py mirrors the 2.14.1 lines naming the
six ops or sigmoid, which all sit in SUPPORTED_COMPLEX_OPS, in the file's order.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen

from scalar_ops_tree import NATIVE

OPS = {"asinh": "asinh.out", "acosh": "acosh.out", "atanh": "atanh.out", "conj_physical": "conj_physical.out",
       "logical_not": "logical_not.out", "sigmoid_backward": "sigmoid_backward.grad_input"}
LOGICAL_NOT_OUT = (Path(__file__).parent / "data" / "logical_not_out.cpp.txt").read_text().split("\n", 1)[1]
NEW_IN_214 = ("XPU",)  # dispatch keys 2.14 added to these lines in a separate change (XPU kernels)

UNARY_CPU = "\n" + LOGICAL_NOT_OUT + """
template <typename Stub>
static inline Tensor& unary_op_impl_out(Tensor& result, const Tensor& self, Stub& stub) {
  auto iter = TensorIterator::unary_op(result, self);
  stub(iter.device_type(), iter);
  return result;
}

Tensor& conj_physical_out(const Tensor& self, Tensor& result) {
  return unary_op_impl_out(result, self, conj_physical_stub);
}

DEFINE_DISPATCH(acosh_stub);
DEFINE_DISPATCH(atanh_stub);
DEFINE_DISPATCH(conj_physical_stub);
DEFINE_DISPATCH(logical_not_stub);
"""

UNARY_MPS = """
CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(acosh_out_mps, acosh)
CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(atanh_out_mps, atanh)

Tensor& logical_not_out_mps(const Tensor& self, Tensor& output) {
  auto bool_self = self.to(ScalarType::Bool);
  mps::unary_op(bool_self, output, "logical_not_out_mps", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* inputTensor) {
    return [mpsGraph notWithTensor:inputTensor name:nil];
  });
  return output;
}

Tensor& conj_physical_out_mps(const Tensor& self, Tensor& result) {
  TORCH_CHECK(self.is_complex());
  mps::unary_op(self, result, "conj", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* inputTensor) {
    return [mpsGraph conjugateWithTensor:inputTensor name:nil];
  });
  return result;
}
"""

BINARY_CPU = """
TORCH_META_FUNC(sigmoid_backward) (const Tensor& grad_output, const Tensor& output) {
  build_borrowing_binary_op(maybe_get_output(), grad_output, output);
}

TORCH_IMPL_FUNC(sigmoid_backward_out) (const Tensor& grad_output, const Tensor& output, const Tensor& result) {
  sigmoid_backward_stub(device_type(), *this);
}

DEFINE_DISPATCH(sigmoid_backward_stub);
"""

SIGMOID_BACKWARD_MPS = """
TORCH_IMPL_FUNC(sigmoid_backward_out_mps)(const Tensor& grad_output, const Tensor& output, const Tensor& grad_input) {
  using namespace mps;
  using CachedGraph = MPSUnaryGradCachedGraph;
  @autoreleasepool {
    auto cachedGraph = LookUpOrCreateCachedGraph<CachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      MPSGraphTensor* unitTensor = [mpsGraph constantWithScalar:1.0 shape:@[ @1 ] dataType:getMPSDataType(grad_output)];
      MPSGraphTensor* oneMinusSigmoidTensor = [mpsGraph subtractionWithPrimaryTensor:unitTensor
                                                                     secondaryTensor:outputTensor
                                                                                name:nil];
    });
    runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), feeds, gradInputPlaceholder);
  }
}
"""


def _insert(path: Path, before: str, text: str) -> None:
    body = path.read_text()
    assert before in body, f"{path.name} lost its anchor {before!r}"
    path.write_text(body.replace(before, text + before, 1))


def _lay_the_six_ops(root: Path) -> None:
    native = root / NATIVE
    _insert(native / "UnaryOps.cpp", "CREATE_UNARY_FLOAT_META_FUNC(exp)\n",
            "CREATE_UNARY_FLOAT_META_FUNC(acosh)\nCREATE_UNARY_FLOAT_META_FUNC(atanh)\n")
    _insert(native / "UnaryOps.cpp", "CREATE_UNARY_TORCH_IMPL_FUNC(exp_out, exp_stub)\n",
            "CREATE_UNARY_TORCH_IMPL_FUNC(acosh_out, acosh_stub)\nCREATE_UNARY_TORCH_IMPL_FUNC(atanh_out, atanh_stub)\n")
    _insert(native / "UnaryOps.cpp", "DEFINE_DISPATCH(abs_stub);\n", UNARY_CPU.lstrip("\n") + "\n")
    _insert(native / "UnaryOps.h", "DECLARE_DISPATCH(unary_fn, exp_stub)\n",
            "".join(f"DECLARE_DISPATCH(unary_fn, {op}_stub)\n" for op in ("acosh", "atanh", "conj_physical", "logical_not")))
    _insert(native / "BinaryOps.cpp", "DEFINE_DISPATCH(add_stub);\n", BINARY_CPU.lstrip("\n") + "\n")
    _insert(native / "BinaryOps.h", "DECLARE_DISPATCH(structured_binary_fn, mul_stub)\n",
            "DECLARE_DISPATCH(structured_binary_fn, sigmoid_backward_stub)\n")
    _insert(native / "mps/operations/UnaryOps.mm", "} // namespace at::native", UNARY_MPS.lstrip("\n") + "\n")
    _insert(native / "mps/operations/Activation.mm", "} // namespace at::native",
            SIGMOID_BACKWARD_MPS.lstrip("\n") + "\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "the six ops on MPSGraph, as in 2.13"], cwd=root, check=True)


def _mps_kernels(yaml: Path, entries) -> dict[str, str | None]:
    """torchgen's answer: the MPS kernel of each entry."""
    from torchgen.gen import parse_native_yaml

    tags = Path(__import__("torchgen").__file__).parent / "packaged/ATen/native/tags.yaml"
    parsed = parse_native_yaml(str(yaml), str(tags), skip_native_fns_gen=True)
    index = next(i for k, i in parsed.backend_indices.items() if str(k) == "MPS")
    kernels = {str(f.func.name): index.get_kernel(f) for f in parsed.native_functions}
    return {e: (kernels[e].kernel if kernels[e] else None) for e in entries}


def _entry_text(text: str, entry: str) -> str:
    head = re.search(rf"^- func: {re.escape(entry)}\(.*?(?=^- func:|\Z)", text, re.S | re.M)
    assert head, entry
    return head.group(0)


def _dispatch_block(text: str, entry: str) -> list[str]:
    block = re.search(r"  dispatch:\n((?:    .*\n)+)", _entry_text(text, entry))
    lines = block.group(1).splitlines() if block else []
    drop = "|".join(NEW_IN_214)
    return [re.sub(rf", \w*(?:{drop})(?=[,:])", "", ln) for ln in lines if not re.match(rf"    (?:{drop}):", ln)]


def _show(root: Path, branch: str, path: str) -> str:
    return subprocess.run(["git", "show", f"{branch}:{path}"], cwd=root, check=True, capture_output=True,
                          text=True).stdout


def _entries_naming(text: str, keys) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if any(f'"{k}"' in ln for k in keys)]


RELEASED_214 = Path(__file__).parent / "data" / "replay214"


@pytest.fixture(scope="module")
def released_214() -> dict[str, Path]:
    return {"yaml": RELEASED_214 / "native_functions.yaml", "common_mps": RELEASED_214 / "common_mps.py"}


def test_the_six_upstream_migrations_replayed_give_214s_dispatch_and_test_lists(scalar_tree: Path, released_214):
    _lay_the_six_ops(scalar_tree)
    result = mpsgen("migrate", "--all", "--branch-per-op", "--no-build", "--no-test", "--no-try", "--format", "json",
                    cwd=scalar_tree)
    assert result.returncode == 0, result.stderr
    yaml_214 = released_214["yaml"].read_text()
    keys = [*OPS, "sigmoid"]
    lists_214 = _entries_naming(released_214["common_mps"].read_text(), keys)
    for k, (op, entry) in enumerate(OPS.items()):  # each upstream migration was its own PR: compare each branch
        yaml_ours = _show(scalar_tree, f"mps-metal/{op}", f"{NATIVE}/native_functions.yaml")
        assert _dispatch_block(yaml_ours, entry) == _dispatch_block(yaml_214, entry), entry
        # torchgen reads the whole edited yaml once (~2 s each), then the entry alone
        ours = scalar_tree / f"{op}.yaml"
        ours.write_text(yaml_ours if k == 0 else _entry_text(yaml_ours, entry))
        assert _mps_kernels(ours, [entry]) == _mps_kernels(released_214["yaml"], [entry]) == {entry: op + "_out"}
        lists = _show(scalar_tree, f"mps-metal/{op}", "torch/testing/_internal/common_mps.py")
        assert _entries_naming(lists, keys) == lists_214, op
        assert '"sigmoid_backward"' not in lists
    report = mpsgen("migrate", "sigmoid_backward", "--dry-run", "--no-build", "--no-test", "--no-try", cwd=scalar_tree)
    assert "note      no OpInfo named sigmoid_backward: sigmoid's OpInfo covers it through its gradient" in report.stdout

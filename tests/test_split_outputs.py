"""An op of two outputs with no upstream kernel writing both (_prelu_kernel_backward): one kernel per output
(plan/split_outputs.py).  Each output's catalog body is named after the shared kernel's add_output
(`_prelu_kernel_backward_grad_self`, `..._grad_weight`), checked against its element of torch's tuple, and
run by the stub's host kernel on an iterator of that output and the inputs.

The tree: the scalar-ops tree (conftest.py's scalar_tree, the 2026 wheel's MetalShaderLibrary.h, which has
exec_ternary_kernel) with Activation.cpp's `_prelu_kernel_backward`, its stub and 2.7's MPSGraph
`prelu_backward_mps`, cut from the real files' shapes; for 2.7, tests/data/binary27 laid over it.

frexp on 2.7 (no MPS kernel at all; upstream's frexp_dense/_strided came later, test_scalar_shapes.py):
the 2.7-shaped sample (tests/tree27.py) with frexp's yaml entries, stub, frexp_out (tests/data/two_outputs)
and OpInfo in their real shapes, cut; its kernels frexp_mantissa (the input's type) and frexp_exponent
(int32), each compared bit for bit with its element of torch.frexp's tuple.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen, only_insertions, tracked_bytes
from tree27 import commit_tree27, lay_tree27

from mpsgen.emulate.numerics import check_kernel
from mpsgen.generate import catalog, render
from mpsgen.plan.binding import Binding, schema_args
from try_support import include_root

NATIVE = "aten/src/ATen/native"
MPS = f"{NATIVE}/mps"
METAL = f"{MPS}/kernels/BinaryKernel.metal"
MM = f"{MPS}/operations/BinaryKernel.mm"
DATA27 = Path(__file__).parent / "data" / "binary27"
FUNC = "_prelu_kernel_backward(Tensor grad_output, Tensor self, Tensor weight) -> (Tensor, Tensor)"
KERNELS = ("_prelu_kernel_backward_grad_self", "_prelu_kernel_backward_grad_weight")

SHARED = """
std::tuple<Tensor, Tensor> _prelu_kernel_backward(const Tensor& grad_out, const Tensor& self, const Tensor& weight) {
  Tensor grad_self = at::empty({0}, self.options());
  Tensor grad_weight = at::empty({0}, weight.options());
  auto iter = TensorIteratorConfig()
    .add_output(grad_self)
    .add_output(grad_weight)
    .add_const_input(self)
    .add_const_input(weight)
    .add_const_input(grad_out)
    .build();
  prelu_backward_stub(iter.device_type(), iter);
  return {grad_self, grad_weight};
}
"""
LEGACY = """
std::tuple<Tensor, Tensor> prelu_backward_mps(const Tensor& grad_output, const Tensor& self, const Tensor& weight_) {
  using namespace mps;

  Tensor grad_input = at::empty_like(self, self.suggest_memory_format());
  Tensor weight_grad = at::empty_like(self, at::MemoryFormat::Contiguous);
  if (grad_output.numel() == 0) {
    return std::tuple<Tensor, Tensor>{grad_input, weight_grad};
  }
  MPSStream* stream = getCurrentMPSStream();
  @autoreleasepool {
    string key = "prelu_backward_mps:" + getTensorsStringKey({grad_output, self, weight_});
    auto cachedGraph = LookUpOrCreateCachedGraph<MPSBinaryCachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      newCachedGraph->inputTensor_ = mpsGraphRankedPlaceHolder(mpsGraph, self);
    });
    runMPSGraph(stream, cachedGraph->graph(), nil, nil);
  }
  return std::tuple<Tensor, Tensor>{grad_input, weight_grad};
}
"""


def _lay_prelu(root: Path, *, era27: bool = False) -> Path:
    act_h, act_cpp, act_mm = (root / NATIVE / "Activation.h", root / NATIVE / "Activation.cpp",
                              root / MPS / "operations" / "Activation.mm")
    act_h.write_text(act_h.read_text().replace(
        "DECLARE_DISPATCH(structured_activation_fn, mish_stub)",
        "DECLARE_DISPATCH(structured_activation_fn, mish_stub)\nDECLARE_DISPATCH(activation_backward_fn, prelu_backward_stub)"))
    cpp = act_cpp.read_text().replace("DEFINE_DISPATCH(mish_stub);", "DEFINE_DISPATCH(mish_stub);\nDEFINE_DISPATCH(prelu_backward_stub);")
    act_cpp.write_text(cpp.replace("\n} // namespace at::native", SHARED + "\n} // namespace at::native"))
    act_mm.write_text(act_mm.read_text().replace("\n} // namespace at::native", LEGACY + "\n} // namespace at::native"))
    if era27:  # 2.7: no exec_ternary_kernel; the change adds ternary_mps_impl beside binary_mps_impl
        shutil.copy(DATA27 / "BinaryKernel.metal", root / METAL)
        shutil.copy(DATA27 / "BinaryKernel.mm", root / MM)
        shutil.copy(DATA27 / "MetalShaderLibrary.h", root / MPS / "MetalShaderLibrary.h")
        shutil.copy(DATA27 / "indexing.h", root / "c10/metal/indexing.h")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "prelu backward"], cwd=root,
                   check=True)
    return root


def _errors(root: Path) -> list[str]:
    r = mpsgen("check", "--format", "json", cwd=root)
    return sorted(f"{f['path']}: {f['code']} {f['message']}" for f in json.loads(r.stdout)["findings"]
                  if f["severity"] == "error")


RUNNER = """static void _prelu_kernel_backward_mps_kernel(TensorIterator& iter) {
  if (iter.numel() == 0) {
    return;
  }
  // one kernel per output, each on an iterator of that output and the inputs
  auto grad_self = TensorIteratorConfig()
                       .add_output(iter.output(0))
                       .add_const_input(iter.input(0))
                       .add_const_input(iter.input(1))
                       .add_const_input(iter.input(2))
                       .build();
  _prelu_kernel_backward_grad_self_mps_kernel(grad_self);
  auto grad_weight = TensorIteratorConfig()
                         .add_output(iter.output(1))
                         .add_const_input(iter.input(0))
                         .add_const_input(iter.input(1))
                         .add_const_input(iter.input(2))
                         .build();
  _prelu_kernel_backward_grad_weight_mps_kernel(grad_weight);
}
"""


def test_each_output_gets_its_kernel_and_the_stub_runs_both(scalar_tree: Path) -> None:
    root = _lay_prelu(scalar_tree)
    metal_before, mm_before, errors_before = (root / METAL).read_text(), (root / MM).read_text(), _errors(root)
    r = mpsgen("migrate", "_prelu_kernel_backward", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    for k, kernel in enumerate(KERNELS):  # each against its own element of torch's tuple
        assert (f"numeric check of {kernel}: 3 dtype(s) agree with torch.ops.aten._prelu_kernel_backward(...)[{k}]"
                in r.stdout), r.stdout
    assert r.stdout.count("  stub      prelu_backward_stub") == 1
    # its gradient test runs the op
    assert "nn.functional.prelu's OpInfo covers it through its gradient (test_output_grad_match; its aten_backward_name)" in r.stdout
    metal, mm = (root / METAL).read_text(), (root / MM).read_text()

    # Metal: a functor per output in the iterator's input order (self, weight, grad_output); the weight's
    # gradient does not read the weight, whose parameter goes unnamed (-Wunused-parameter)
    assert "inline T operator()(const T a, const T b, const T c) {\n    return static_cast<T>(\n        float(a) > 0.0f ? c" in metal
    assert "inline T operator()(const T a, const T /*b*/, const T c) {" in metal
    for kernel in KERNELS:
        assert all(f"REGISTER_TERNARY_OP({kernel}, {t}, {t});" in metal for t in ("float", "half", "bfloat"))
    assert only_insertions(metal_before, metal)

    # Host: a function per output, unregistered, and the stub's kernel running both
    assert 'static void _prelu_kernel_backward_grad_self_mps_kernel(TensorIterator& iter) {\n  lib.exec_ternary_kernel(iter, "_prelu_kernel_backward_grad_self");\n}' in mm
    assert 'lib.exec_ternary_kernel(iter, "_prelu_kernel_backward_grad_weight");' in mm
    assert RUNNER in mm
    assert mm.count("REGISTER_DISPATCH(prelu_backward_stub") == 1
    assert "REGISTER_DISPATCH(prelu_backward_stub, &_prelu_kernel_backward_mps_kernel)" in mm
    assert "#include <ATen/native/Activation.h>" in mm
    assert only_insertions(mm_before, mm)

    # The MPSGraph function goes; the yaml routes MPS to the shared kernel
    assert "prelu_backward_mps" not in (root / MPS / "operations" / "Activation.mm").read_text()
    yaml = (root / NATIVE / "native_functions.yaml").read_text()
    entry = yaml[yaml.index("- func: _prelu_kernel_backward("):]
    assert entry.split("\n\n", 1)[0].splitlines()[2:] == ["    CPU, CUDA, MPS: _prelu_kernel_backward",
                                                         "    MkldnnCPU: mkldnn_prelu_backward"]
    assert _errors(root) == errors_before

    before = tracked_bytes(root)
    again = mpsgen("migrate", "_prelu_kernel_backward", "--no-build", "--no-test", cwd=root)
    assert again.returncode == 0 and "nothing to do" in again.stdout and tracked_bytes(root) == before

    # try, now that the op runs them: both kernels of the tree, each against its element; again from the cache
    for run in range(2):
        checked = mpsgen("try", "_prelu_kernel_backward", cwd=root)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        for k, kernel in enumerate(KERNELS):
            assert f"checked: the kernel in the tree, {kernel}_functor at {METAL}:" in checked.stdout, checked.stdout
            assert f"vs torch.ops.aten._prelu_kernel_backward(...)[{k}] (CPU)" in checked.stdout


def test_on_2_7_each_output_runs_through_the_ternary_helper_the_change_adds(scalar_tree: Path) -> None:
    root = _lay_prelu(scalar_tree, era27=True)
    errors_before = _errors(root)
    r = mpsgen("migrate", "_prelu_kernel_backward", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    api = [ln for ln in r.stdout.splitlines() if ln.startswith("  api ")]
    assert len(api) == 2 and "ternary_mps_impl(iter, func_name, ...)" in api[0], r.stdout  # added once, for both
    metal, mm = (root / METAL).read_text(), (root / MM).read_text()
    assert metal.count("#define REGISTER_TERNARY_INDEXING_OP(NAME, DTYPE)") == 1
    for kernel in KERNELS:
        assert f"REGISTER_TERNARY_INDEXING_OP({kernel}, half);" in metal
        assert f'  mps::ternary_mps_impl(iter, "{kernel}");\n}}' in mm
    assert mm.count("static void ternary_mps_impl(") == 1 and RUNNER in mm
    assert _errors(root) == errors_before


FREXP_FUNC = "frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)"
FREXP_KERNELS = ("frexp_mantissa", "frexp_exponent")
# (op, schema, the schema index of each kernel input, the kernels, their arity, the headers checked):
# prelu's iterator's inputs are (self, weight, grad_output), schema arguments 1, 2 and 0; frexp's is self
SPLIT = {"_prelu_kernel_backward": (FUNC, (1, 2, 0), KERNELS, "ternary", ("sample", "wheel")),
         "frexp": (FREXP_FUNC, (0,), FREXP_KERNELS, "unary", ("wheel",))}


@pytest.mark.parametrize(("op", "headers"), [(op, h) for op, case in SPLIT.items() for h in case[4]])
@pytest.mark.parametrize("output", [0, 1])
def test_each_body_agrees_with_its_element_of_the_tuple_and_not_the_other(op: str, output: int, headers: str) -> None:
    """(Not in test_try_catalog.py: torch has no op of the kernels' names.)"""
    func, tensors, kernels, arity, _ = SPLIT[op]
    spec = catalog.spec_for(kernels[output], arity)
    functor = render.render_functor(spec)
    for element in (0, 1):
        binding = Binding(op.split(".")[0], schema_args(func), tensors, (), output=element)
        result = check_kernel(spec, functor, op=binding.op, include_root=include_root(headers), binding=binding)
        assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16"}
        assert result.reference == f"torch.ops.aten.{op}(...)[{element}]"
        assert result.ok == (element == output), result.rows
        if op == "frexp" and element == output:  # exact: bit for bit, subnormals' exponents included
            assert result.backend.endswith(", bit for bit") and all(r.max_abs_error == 0 for r in result.rows)
            assert {r.out_dtype for r in result.rows} == ({"int32"} if output else {"float32", "float16", "bfloat16"})


def test_an_exact_body_is_compared_bit_for_bit() -> None:
    """Within float32's tolerance, but one ULP off (and a zero of the other sign): an exact body disagrees."""
    from mpsgen.emulate.compare import compare

    rows, want, got = [("x",), ("y",)], [0.5, -0.0], [0.50000006, 0.0]
    assert compare("float32", "float32", rows, want, got, signed_zero=False).ok
    assert compare("float32", "float32", rows, want, got, signed_zero=False, exact=True).mismatches == 2
    assert compare("float32", "float32", [("z",)], [float("nan")], [float("nan")], exact=True).ok


# -- frexp on PyTorch 2.7: a kernel per output, the exponent's of another dtype -------------------

TWO_OUTPUTS = Path(__file__).parent / "data" / "two_outputs"
UNARY_METAL, UNARY_MM = f"{MPS}/kernels/UnaryKernel.metal", f"{MPS}/operations/UnaryKernel.mm"
FREXP_YAML = """
- func: frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)
  variants: method, function
  dispatch:
    CompositeExplicitAutograd: frexp
  tags: pointwise

- func: frexp.Tensor_out(Tensor self, *, Tensor(a!) mantissa, Tensor(b!) exponent) -> (Tensor(a!) mantissa, Tensor(b!) exponent)
  dispatch:
    CPU, CUDA: frexp_out
  tags: pointwise
"""
# 2.7's test/test_mps.py keeps its lists in mps_ops_modifier (tests/test_testlists_era.py)
LISTS_27 = """

def mps_ops_modifier(ops):
    UNIMPLEMENTED_XFAILLIST = {
        # Failures due to lack of op implementation on MPS backend
        'cummax': None,
        'frexp': None,
    }
    for op in ops:
        yield op
"""
FREXP_RUNNER = """static void frexp_mps_kernel(TensorIteratorBase& iter) {
  if (iter.numel() == 0) {
    return;
  }
  // one kernel per output, each on an iterator of that output and the inputs
  auto mantissa = TensorIteratorConfig().add_output(iter.output(0)).add_const_input(iter.input(0)).build();
  frexp_mantissa_mps_kernel(mantissa);
  auto exponent = TensorIteratorConfig()
                      .add_output(iter.output(1))
                      .add_const_input(iter.input(0))
                      .check_all_same_dtype(false)
                      .build();
  frexp_exponent_mps_kernel(exponent);
}
"""


def _lay_frexp27(root: Path) -> Path:
    lay_tree27(root)
    yaml = root / NATIVE / "native_functions.yaml"
    yaml.write_text(yaml.read_text() + FREXP_YAML)
    header = root / NATIVE / "UnaryOps.h"
    header.write_text(header.read_text().replace("DECLARE_DISPATCH(unary_fn, abs_stub)\n",
                                                 "DECLARE_DISPATCH(unary_fn, abs_stub)\nDECLARE_DISPATCH(unary_fn, frexp_stub)\n"))
    ops = root / NATIVE / "UnaryOps.cpp"
    ops.write_text(ops.read_text().replace("\n} // namespace at::native", (TWO_OUTPUTS / "frexp_out.cpp").read_text()
                                           + "DEFINE_DISPATCH(frexp_stub);\n\n} // namespace at::native"))
    cmi = root / "torch/testing/_internal/common_methods_invocations.py"
    cmi.write_text(cmi.read_text().replace(
        "    OpInfo('frexp', dtypes=all_types_and(torch.bool, torch.half)),\n",
        "    UnaryUfuncInfo('frexp', op=torch.frexp, dtypes=floating_types_and(torch.half, torch.bfloat16)),\n"))
    test_mps = root / "test/test_mps.py"
    test_mps.write_text(test_mps.read_text() + LISTS_27)
    commit_tree27(root)
    return root


def test_on_2_7_frexp_gets_a_kernel_per_output_the_exponent_int32(tree: Path) -> None:
    root = _lay_frexp27(tree)
    metal_before, mm_before, errors_before = (root / UNARY_METAL).read_text(), (root / UNARY_MM).read_text(), _errors(root)
    r = mpsgen("new-op", "frexp", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    for k, kernel in enumerate(FREXP_KERNELS):  # each against its own element of torch.frexp's tuple, exactly
        assert (f"numeric check of {kernel}: 3 dtype(s) agree with torch.ops.aten.frexp(...)[{k}] (emulated Metal "
                in r.stdout and ", bit for bit)" in r.stdout), r.stdout
    assert "frexp_exponent: float16    xfailed (UNIMPLEMENTED_XFAILLIST)  ->  registered T->int32" in r.stdout
    metal, mm = (root / UNARY_METAL).read_text(), (root / UNARY_MM).read_text()

    # Metal: 2.7's template kernels, the exponent's output int for each floating input
    assert "struct frexp_exponent_functor {\n  template <typename T, enable_if_t<is_floating_point_v<T>, bool> = true>\n" \
           "  inline int operator()(const T x) {" in metal
    assert "  inline T operator()(const T x) {" in metal.split("struct frexp_mantissa_functor {")[1]
    for t in ("bfloat", "half", "float"):
        assert f"INSTANTIATE_FREXP_MANTISSA_KERNEL({t}, {t});" in metal
        assert f"INSTANTIATE_FREXP_EXPONENT_KERNEL(int, {t});" in metal
    assert only_insertions(metal_before, metal)

    # Host: each output's function through exec_unary_kernel (frexp_exponent_int_float, ...), the stub's
    # kernel building the exponent's iterator as frexp_out builds its own (an int32 output of a float input)
    assert 'static void frexp_exponent_mps_kernel(TensorIteratorBase& iter) {\n  lib.exec_unary_kernel(iter, "frexp_exponent");\n}' in mm
    assert FREXP_RUNNER in mm and "REGISTER_DISPATCH(frexp_stub, frexp_mps_kernel);" in mm
    assert only_insertions(mm_before, mm)

    yaml = (root / NATIVE / "native_functions.yaml").read_text()
    assert "  dispatch:\n    CPU, CUDA, MPS: frexp_out\n" in yaml and "    CompositeExplicitAutograd: frexp\n" in yaml
    assert "'frexp': None" not in (root / "test/test_mps.py").read_text()
    assert _errors(root) == errors_before

    before = tracked_bytes(root)
    again = mpsgen("new-op", "frexp", "--no-build", "--no-test", cwd=root)
    assert again.returncode == 0 and "nothing to do" in again.stdout and tracked_bytes(root) == before


def test_the_kernels_are_named_after_the_outputs_and_need_a_body_each(scalar_tree: Path) -> None:
    from mpsgen.plan import two_output_ops as two_outputs
    from mpsgen.tree.changeset import Changeset
    from mpsgen.tree.checkout import Checkout

    root = _lay_prelu(scalar_tree)
    checkout = Checkout.locate(root)
    cs = Changeset(checkout)
    shared = ("_prelu_kernel_backward",)
    built = two_outputs.iterator_outputs("_prelu_kernel_backward", shared, cs, checkout)
    assert built is not None
    count, where, names = built
    line = (root / NATIVE / "Activation.cpp").read_text().splitlines().index("    .add_output(grad_self)") + 1
    assert (count, str(where), names) == (2, f"{NATIVE}/Activation.cpp:{line}", ("grad_self", "grad_weight"))
    assert two_outputs.output_kernels("_prelu_kernel_backward", built, lambda n: True) == KERNELS
    # a body for one output only: no kernels (the op is then refused, the hint naming both bodies)
    assert two_outputs.output_kernels("_prelu_kernel_backward", built, lambda n: "self" in n) == ()

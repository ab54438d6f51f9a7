"""Kernel shapes with scalar parameters, three inputs, and stubs MPS already runs (plan/shape.py).

The tree: the sample checkout with the torch 2.13 wheel's native_functions.yaml, test lists and
MetalShaderLibrary.h, and tests/data/scalar_ops (hand-written Activation/PointwiseOps/Loss sources
and MPSGraph .mm files in the real files' shapes) laid over it.  Each mechanism is migrated through
the installed entry point and the written code is checked line by line; the numeric check runs
through the op's own arguments (threshold: self read twice, threshold and value in a struct).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen, tracked_bytes

from mpsgen.plan.binding import Binding, SchemaArg, bind, schema_args
from mpsgen.plan.shape import choose_shape
from mpsgen.sources.host.api import read_host_api
from mpsgen.sources.native.iterator_operands import operands_in, parameter_names
from mpsgen.sources.metal.params_header import add_struct
from mpsgen.sources.native.stubs import StubDecl
from mpsgen.errors import MpsgenError

from scalar_ops_tree import LIBRARY_H, NATIVE  # the tree: conftest.py's scalar_tree
from scalar_ops_tree import migrate as _migrate, read as _read


def _mps_route(root: Path, entry: str) -> str | None:
    """What torchgen's own parser says an entry dispatches MPS to."""
    from torchgen.gen import parse_native_yaml

    tags = root / NATIVE / "tags.yaml"
    if not tags.exists():
        shutil.copyfile(Path(__import__("torchgen").__file__).parent / "packaged/ATen/native/tags.yaml", tags)
    parsed = parse_native_yaml(str(root / NATIVE / "native_functions.yaml"), str(tags), skip_native_fns_gen=True)
    for f in parsed.native_functions:
        if str(f.func.name) == entry:
            for key, index in parsed.backend_indices.items():
                if str(key) == "MPS" and index.get_kernel(f) is not None:
                    return index.get_kernel(f).kernel
    return None


# -- the params struct (threshold: two scalars, a binary iterator built from (self, self)) -----------


@pytest.fixture(scope="module")
def threshold_migrated(pristine_scalar_tree: Path, tmp_path_factory: pytest.TempPathFactory):
    """`migrate threshold` on a fresh scalar-ops tree, which the two tests below both start from: the
    tree after it (shared: each test that writes copies it) and the run."""
    root = tmp_path_factory.mktemp("threshold-migrated") / "pytorch"
    shutil.copytree(pristine_scalar_tree, root, symlinks=True)
    return root, _migrate(root, "threshold")


def _copy(tree: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "pytorch"
    shutil.copytree(tree, dest, symlinks=True)
    return dest


@pytest.mark.xdist_group("threshold_migrated")
def test_threshold_gets_a_params_struct_shared_by_host_and_kernel(threshold_migrated, tmp_path: Path):
    scalar_tree, r = threshold_migrated
    assert r.returncode == 0, r.stderr + r.stdout
    assert "numeric check: 9 dtype(s) agree with torch.ops.aten.threshold" in r.stdout
    header = _read(scalar_tree, f"{NATIVE}/mps/kernels/BinaryKernel.h")
    assert header.startswith("#pragma once\n")
    assert "template <typename T>\nstruct ThresholdParams {\n  T threshold;\n  T value;\n};\n" in header
    metal = _read(scalar_tree, f"{NATIVE}/mps/kernels/BinaryKernel.metal")
    assert metal.startswith("#include <ATen/native/mps/kernels/BinaryKernel.h>\n#include <c10/metal/indexing.h>")
    assert ("  inline T operator()(const T a, const T b, const P params) {\n"
            "    const auto threshold = params.threshold;\n    const auto value = params.value;\n") in metal
    # opmath: float for float/half/bfloat (the CPU kernel's float threshold), the type itself for integers
    assert "typedef ThresholdParams<float> ThresholdParams_float;\ntypedef ThresholdParams<long> ThresholdParams_long;" in metal
    assert "REGISTER_BINARY_ALPHA_OP(threshold, half, ThresholdParams_float, half);" in metal
    assert "REGISTER_BINARY_ALPHA_OP(threshold, uchar, ThresholdParams_uchar, uchar);" in metal
    mm = _read(scalar_tree, f"{NATIVE}/mps/operations/BinaryKernel.mm")
    assert ("static void threshold_mps_kernel(TensorIteratorBase& iter, const c10::Scalar& threshold, "
            "const c10::Scalar& value) {\n"
            '  AT_DISPATCH_ALL_TYPES_AND3(kBool, kHalf, kBFloat16, iter.common_dtype(), "threshold_mps", [&]() {\n'
            "    using opmath_t = at::opmath_type<scalar_t>;\n"
            "    ThresholdParams<opmath_t> params{threshold.to<opmath_t>(), value.to<opmath_t>()};\n"
            "    lib.exec_binary_kernel_with_params(\n") in mm
    assert 'fmt::format("ThresholdParams_{}", mps::scalarToMetalTypeString(c10::CppTypeToScalarType<opmath_t>::value))' in mm
    assert "REGISTER_DISPATCH(threshold_stub, &threshold_mps_kernel)\n} // namespace at::native" in mm
    for header_name in ("ATen/native/mps/kernels/BinaryKernel.h", "ATen/Dispatch.h", "ATen/OpMathType.h",
                        "ATen/native/Activation.h"):
        assert f"#include <{header_name}>" in mm
    activation = _read(scalar_tree, f"{NATIVE}/mps/operations/Activation.mm")
    assert "threshold_out_mps" not in activation
    # its header goes although threshold_backward_out_mps (the other header's) and its `threshold` scalar stay
    assert "#include <ATen/ops/threshold_native.h>" not in activation
    assert "#include <ATen/ops/threshold_backward_native.h>" in activation and "threshold_backward_out_mps" in activation
    assert _mps_route(scalar_tree, "threshold.out") == "threshold_out"
    # every REGISTER_* macro written is one the checkout defines
    defined = set(re.findall(r"#define (REGISTER_\w+)\(", _read(scalar_tree, "c10/metal/indexing.h") + metal))
    used = set(re.findall(r"^(REGISTER_\w+)\(threshold,", metal, re.M))
    assert used == {"REGISTER_BINARY_ALPHA_OP"} and used <= defined
    again = _migrate(_copy(scalar_tree, tmp_path), "threshold")  # the rerun on a copy: the next test reads the tree
    assert again.returncode == 0 and "nothing to do" in again.stdout


@pytest.mark.xdist_group("threshold_migrated")
def test_threshold_backward_after_threshold_only_moves_the_dispatch(threshold_migrated, tmp_path: Path):
    migrated, first = threshold_migrated
    assert first.returncode == 0
    scalar_tree = _copy(migrated, tmp_path)  # this test commits and migrates on: a copy of the shared tree
    subprocess.run(["git", "commit", "-qam", "threshold"], cwd=scalar_tree, check=True)
    before = tracked_bytes(scalar_tree)
    r = _migrate(scalar_tree, "threshold_backward")
    assert r.returncode == 0, r.stderr
    assert "threshold_stub is already registered for MPS" in r.stdout and "no new kernel" in r.stdout
    after = tracked_bytes(scalar_tree)
    changed = {k for k in after if after[k] != before.get(k)}
    assert changed == {f"{NATIVE}/native_functions.yaml", f"{NATIVE}/mps/operations/Activation.mm"}
    assert _mps_route(scalar_tree, "threshold_backward.grad_input") == "threshold_backward_out"


def test_threshold_backward_alone_writes_thresholds_kernel(scalar_tree: Path):
    """threshold_backward passes threshold_stub (threshold, 0): the kernel is threshold's, named so,
    and the check feeds it value 0 with (self, grad) in the meta function's order."""
    r = _migrate(scalar_tree, "threshold_backward")
    assert r.returncode == 0, r.stderr
    assert "agree with torch.ops.aten.threshold_backward" in r.stdout
    assert "struct threshold_functor {" in _read(scalar_tree, f"{NATIVE}/mps/kernels/BinaryKernel.metal")


# -- one scalar: the alpha forms ------------------------------------------------------------------------


def test_huber_loss_passes_its_double_as_alpha(scalar_tree: Path):
    r = _migrate(scalar_tree, "huber_loss")
    assert r.returncode == 0, r.stderr
    assert "agree with torch.ops.aten.huber_loss" in r.stdout
    mm = _read(scalar_tree, f"{NATIVE}/mps/operations/BinaryKernel.mm")
    assert ("static void huber_loss_mps_kernel(TensorIterator& iter, double delta) {\n"
            '  lib.exec_binary_kernel(iter, "huber_loss", Scalar(delta));\n}') in mm
    metal = _read(scalar_tree, f"{NATIVE}/mps/kernels/BinaryKernel.metal")
    assert "inline T operator()(const T a, const T b, const T2 delta) {" in metal
    assert "REGISTER_BINARY_ALPHA_OP(huber_loss, half, half, half);" in metal
    # both overloads move; the functional MPSGraph wrapper goes first (it only calls the .out one)
    assert _mps_route(scalar_tree, "huber_loss") == "huber_loss"
    assert "huber_loss_out_mps" not in _read(scalar_tree, f"{NATIVE}/mps/operations/LossOps.mm")


@pytest.fixture(scope="module")
def tried_tree(pristine_scalar_tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One scalar-ops tree the `mpsgen try` runs below share (the facts read from it, once): try writes nothing."""
    root = tmp_path_factory.mktemp("tried") / "pytorch"
    shutil.copytree(pristine_scalar_tree, root, symlinks=True)
    return root


@pytest.mark.parametrize("op", ["softplus", "softplus_backward", "hardtanh_backward", "smooth_l1_loss", "mse_loss",
                                "mish", "mish_backward", "softshrink_backward"])
def test_each_new_body_agrees_with_torch_through_its_plan(tried_tree: Path, op: str):
    before = tracked_bytes(tried_tree)
    r = mpsgen("try", op, cwd=tried_tree)
    assert tracked_bytes(tried_tree) == before and not subprocess.run(
        ["git", "status", "--porcelain"], cwd=tried_tree, capture_output=True, text=True, check=True).stdout
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all dtypes agree" in r.stdout and ("torch.ops.aten." + op) in r.stdout or f"torch.{op}" in r.stdout
    rows = [ln for ln in r.stdout.splitlines() if re.match(r"\s+(float32|float16|bfloat16)\s+\d+\s+0\s", ln)]
    assert len(rows) == 3, r.stdout


def test_try_on_wheel_headers_for_the_params_struct(scalar_tree: Path, wheel_include: Path):
    for h in (wheel_include / "c10/metal").glob("*.h"):
        shutil.copyfile(h, scalar_tree / "c10/metal" / h.name)
    for op in ("threshold", "hardtanh_backward", "softplus"):
        r = mpsgen("try", op, cwd=scalar_tree)
        assert r.returncode == 0 and "all dtypes agree" in r.stdout, r.stdout + r.stderr


# -- what the checkout lacks is refused, naming the API ---------------------------------------------


def test_no_params_api_is_refused_with_nothing_written(scalar_tree: Path):
    header = scalar_tree / LIBRARY_H
    text = header.read_text()
    start = text.index("  template <typename T>\n  void exec_unary_kernel_with_params(")
    end = text.index("protected:")
    header.write_text(text[:start] + text[end:])  # a mid-2025 header: no *_with_params
    subprocess.run(["git", "commit", "-qam", "old header"], cwd=scalar_tree, check=True)
    before = tracked_bytes(scalar_tree)
    r = _migrate(scalar_tree, "softplus")
    assert r.returncode == 2
    assert r.stderr.startswith(f"mpsgen: error: {LIBRARY_H}:1: softplus_stub needs a unary kernel with 2 scalars, "
                               "but this checkout's MetalShaderLibrary.h has no exec_unary_kernel_with_params")
    assert len(r.stderr.strip().splitlines()) == 1 and tracked_bytes(scalar_tree) == before


def test_sub_is_refused_until_add_runs_on_metal(scalar_tree: Path):
    r = _migrate(scalar_tree, "sub")
    assert r.returncode == 2
    assert "sub_out passes add_stub (-alpha)" in r.stderr and "register add_stub on MPS first" in r.stderr
    # status says the same (issue 31: it listed sub as a candidate migrate refused)
    shown = mpsgen("status", "--op", "sub", cwd=scalar_tree).stdout
    assert "frontier: not a candidate" in shown
    assert "passes add_stub (-alpha): add's kernel, which MPS does not run on Metal yet; sub follows add" in shown


ADD_ON_METAL = """
static void add_mps_kernel(TensorIteratorBase& iter, const Scalar& alpha) {
  lib.exec_binary_kernel(iter, "add", alpha);
}
REGISTER_DISPATCH(add_stub, &add_mps_kernel)
"""


def test_sub_follows_add_once_add_stub_runs_metal(scalar_tree: Path):
    """With add_stub registered by a Metal kernel, sub is a candidate again and its move is only the
    dispatch lines and the MPSGraph code: no kernel written."""
    mm = scalar_tree / NATIVE / "mps/operations/BinaryKernel.mm"
    mm.write_text(mm.read_text().replace("\n} // namespace at::native", ADD_ON_METAL + "\n} // namespace at::native"))
    subprocess.run(["git", "commit", "-qam", "add on Metal"], cwd=scalar_tree, check=True)
    assert "frontier: candidate" in mpsgen("status", "--op", "sub", cwd=scalar_tree).stdout
    metal_before = _read(scalar_tree, f"{NATIVE}/mps/kernels/BinaryKernel.metal")
    r = _migrate(scalar_tree, "sub", "--no-try")
    assert r.returncode == 0, r.stderr
    assert "add_stub is already registered for MPS" in r.stdout
    assert _read(scalar_tree, f"{NATIVE}/mps/kernels/BinaryKernel.metal") == metal_before
    assert "CPU, CUDA, MPS: sub_out" in _read(scalar_tree, f"{NATIVE}/native_functions.yaml")


# -- the pieces on strings ---------------------------------------------------------------------------


def _decl(params: tuple[str, ...], names: tuple[str, ...] = ()) -> StubDecl:
    return StubDecl("x_stub", "void(*)(...)", params, names or ("",) * len(params), "ATen/native/X.h", "X.h", 3,
                    returns="void")


API_213 = read_host_api(
    "void exec_unary_kernel(TensorIteratorBase& iter, const std::string& name, std::optional<Scalar> alpha = {});\n"
    "void exec_binary_kernel(TensorIteratorBase& iter, const std::string& name, std::optional<Scalar> alpha = {});\n"
    "void exec_ternary_kernel(TensorIteratorBase& iter, const std::string& name);\n"
    "template <typename T> void exec_unary_kernel_with_params(TensorIteratorBase& iter, const std::string& name, T p, "
    "const std::string& t);\n"
    "template <typename T> void exec_binary_kernel_with_params(TensorIteratorBase& iter, const std::string& name, T p, "
    "const std::string& t);\n",
    frozenset({"REGISTER_UNARY_ALPHA_OP", "REGISTER_BINARY_ALPHA_OP", "REGISTER_TERNARY_OP"}))
# A header with the unary params form only: no binary one.
API_UNARY_PARAMS = API_213._replace(functions={k: v for k, v in API_213.functions.items()
                                               if k != "exec_binary_kernel_with_params"})


def test_shape_choice():
    from mpsgen.sources.native.shared_impl import StubCall

    two = _decl(("TensorIteratorBase&", "const c10::Scalar&", "const c10::Scalar&"))
    shape = choose_shape(stub=two, call=StubCall("x_stub", 1, None, ("threshold", "0")), operands=("self", "grad"),
                         schema_tensors=2, api=API_213)
    assert shape.arity == "binary_params" and shape.scalar_names == ("threshold", "p1")
    assert [p.source for p in shape.scalars] == ["threshold", "0"]
    named = choose_shape(stub=two, call=None, operands=("self",), schema_tensors=2, api=API_213,
                         declared_names=("beta", "threshold"))
    assert named.arity == "unary_params" and named.scalar_names == ("beta", "threshold")
    one = _decl(("TensorIterator&", "double"))
    assert choose_shape(stub=one, call=None, operands=None, schema_tensors=2, api=API_213).arity == "binary_alpha"
    with pytest.raises(MpsgenError, match="has no exec_binary_kernel_with_params"):
        choose_shape(stub=two, call=None, operands=("a", "b"), schema_tensors=2, api=API_UNARY_PARAMS)
    # no ternary alpha or params form in 2.13: the change adds it, modeled on exec_ternary_kernel(iter, name)
    three = choose_shape(stub=two, call=None, operands=("a", "b", "c"), schema_tensors=3, api=API_213)
    assert three.arity == "ternary_params" and three.backfill == "ternary_params"
    ternary_one = choose_shape(stub=one, call=None, operands=("a", "b", "c"), schema_tensors=3, api=API_213)
    assert ternary_one.arity == "ternary_alpha" and ternary_one.backfill == "ternary_alpha"
    no_sibling = API_213._replace(functions={k: v for k, v in API_213.functions.items() if k != "exec_ternary_kernel"})
    with pytest.raises(MpsgenError, match="has no exec_ternary_kernel_with_params, nor exec_ternary_kernel\\(iter, name\\) to model one on"):
        choose_shape(stub=two, call=None, operands=("a", "b", "c"), schema_tensors=3, api=no_sibling)
    # a bool (elu_backward's is_result) and an int64_t (polygamma's n) are scalars like the others
    flag = choose_shape(stub=_decl(("TensorIteratorBase&", "const c10::Scalar&", "bool"), ("", "", "is_result")),
                        call=None, operands=("grad", "self"), schema_tensors=2, api=API_213)
    assert flag.arity == "binary_params" and [p.cpp_type for p in flag.scalars] == ["const c10::Scalar&", "bool"]
    assert flag.scalar_names == ("p0", "is_result")
    order = choose_shape(stub=_decl(("TensorIteratorBase&", "const int64_t"), ("", "n")), call=None,
                         operands=("self",), schema_tensors=1, api=API_213)
    assert order.arity == "unary_alpha" and order.scalar_names == ("n",) and order.scalars[0].cpp_type == "const int64_t"
    with pytest.raises(MpsgenError, match="takes c10::string_view; mpsgen passes Scalar, double, int64_t, bool"):
        choose_shape(stub=_decl(("TensorIteratorBase&", "c10::string_view")), call=None, operands=None,
                     schema_tensors=1, api=API_213)


def test_host_api_of_the_real_header(wheel_include: Path):
    api = read_host_api((wheel_include / "ATen/native/mps/MetalShaderLibrary.h").read_text(), frozenset())
    assert api.takes_alpha("exec_unary_kernel") and api.takes_alpha("exec_binary_kernel")
    assert api.has("exec_ternary_kernel") and not api.takes_alpha("exec_ternary_kernel")
    assert api.has("exec_unary_kernel_with_params") and api.has("exec_binary_kernel_with_params")


def test_iterator_operands_and_parameters():
    meta = ("TORCH_META_FUNC(threshold_backward)(const Tensor& grad, const Tensor& self, const Scalar& threshold) {\n"
            "  build(TensorIteratorConfig().add_output(gradInput).add_const_input(self).add_const_input(grad));\n}")
    assert operands_in(meta[meta.index("{"):]) == ("self", "grad")
    assert parameter_names(meta, meta.index("{")) == ("grad", "self", "threshold")
    assert operands_in("{ auto iter = TensorIterator::borrowing_binary_op(result, grad_output, self); }") == \
        ("grad_output", "self")
    assert operands_in("{ build_ternary_op(maybe_get_output(), self, tensor1, tensor2); }") == \
        ("self", "tensor1", "tensor2")
    assert operands_in("{ return x; }") is None


def test_binding_maps_the_kernel_back_to_the_schema():
    func = ("threshold_backward.grad_input(Tensor grad_output, Tensor self, Scalar threshold, *, "
            "Tensor(a!) grad_input) -> Tensor(a!)")
    assert [a.name for a in schema_args(func)] == ["grad_output", "self", "threshold"]
    b = bind("threshold_backward.grad_input", func, ("self", "grad"), ("grad", "self", "threshold"),
             ("threshold", "0"), ("grad", "self", "threshold", "gradInput"))
    assert b.tensors == (1, 0) and b.scalars == ("arg:2", "const:0") and b.traced
    glu = bind("glu.out", "glu.out(Tensor self, int dim=-1, *, Tensor(a!) out) -> Tensor(a!)",
               ("firstHalf", "secondHalf"), ("self", "dim"), (), ("self", "dim", "out"))
    assert glu.tensors == (-1, -1) and not glu.traced
    assert schema_args("addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor")[3] == \
        SchemaArg("Scalar", "value", "1", True)
    assert isinstance(b, Binding)


def test_params_header_edits():
    struct = "template <typename T>\nstruct XParams {\n  T a;\n};"
    new = add_struct(None, struct, "XParams", path="K.h", purpose="K.mm and K.metal")
    assert new.startswith("#pragma once\n") and new.endswith(struct + "\n")
    assert add_struct(new, struct, "XParams", path="K.h", purpose="") == new  # idempotent
    with pytest.raises(MpsgenError, match="already exists with other fields"):
        add_struct(new, struct.replace("T a;", "T b;"), "XParams", path="K.h", purpose="")
    installed = ("#if !defined(TORCH_STABLE_ONLY)\n#pragma once\n\nstruct Y {};\n\n#else\n"
                 "#error \"This file should not be included when either TORCH_STABLE_ONLY or X\"\n#endif\n")
    out = add_struct(installed, struct, "XParams", path="K.h", purpose="")
    assert out.index("struct XParams") < out.index("#else") and out.endswith("#endif\n")
    crlf = add_struct("#pragma once\r\n", struct, "XParams", path="K.h", purpose="")
    assert "\r\nstruct XParams {\r\n" in crlf and "\n" not in crlf.replace("\r\n", "")


# -- three inputs and a scalar: the ternary alpha form of a 2026 fork ----------------------------------

# The fork's API (PointwiseOps.mm: `lib.exec_ternary_kernel(iter, "addcmul", value, addc_alpha_type(...))`,
# BinaryKernel.metal: `REGISTER_OPMATH_TERNARY_ALPHA_OP(addcmul, half, float, half)`), here in the
# shapes of the wheel's header and of the sample's host-side indexing.h.
FORK_TERNARY = """  void exec_ternary_kernel(
      TensorIteratorBase& iter,
      const std::string& name,
      const std::optional<c10::Scalar> alpha = std::nullopt,
      const std::optional<c10::ScalarType> scalar_arg_type = std::nullopt);"""
FORK_MACROS = r"""
#define REGISTER_TERNARY_ALPHA_OP(NAME, DTYPEI, DTYPEA, DTYPEO)                          \
  extern "C" void NAME##_dense_##DTYPEO##_##DTYPEI##_##DTYPEA(                            \
      double* out, const double* a, const double* b, const double* c, const double* alpha, long n) { \
    using namespace ::c10::metal::host;                                                    \
    NAME##_functor f;                                                                      \
    const DTYPEA al = io<DTYPEA>::load(alpha);                                             \
    constexpr int w = io<DTYPEI>::width;                                                   \
    for (long i = 0; i < n; ++i)                                                           \
      io<DTYPEO>::store(out + i * io<DTYPEO>::width, static_cast<DTYPEO>(f(                \
          io<DTYPEI>::load(a + i * w), io<DTYPEI>::load(b + i * w), io<DTYPEI>::load(c + i * w), al))); \
  }
#define REGISTER_OPMATH_TERNARY_ALPHA_OP(NAME, DTYPEI, DTYPEA, DTYPEO) \
  REGISTER_TERNARY_ALPHA_OP(NAME, DTYPEI, DTYPEA, DTYPEO)
"""


@pytest.fixture()
def fork_tree(scalar_tree: Path) -> Path:
    header = scalar_tree / LIBRARY_H
    text = header.read_text()
    old = "  void exec_ternary_kernel(TensorIteratorBase& iter, const std::string& name);"
    assert old in text
    header.write_text(text.replace(old, FORK_TERNARY))
    indexing = scalar_tree / "c10/metal/indexing.h"
    indexing.write_text(indexing.read_text() + FORK_MACROS)
    subprocess.run(["git", "commit", "-qam", "fork API"], cwd=scalar_tree, check=True)
    return scalar_tree


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_ternary_alpha_where_the_checkout_has_it(fork_tree: Path, op: str):
    r = _migrate(fork_tree, op)
    assert r.returncode == 0, r.stderr + r.stdout
    assert f"agree with torch.ops.aten.{op}" in r.stdout
    metal = _read(fork_tree, f"{NATIVE}/mps/kernels/BinaryKernel.metal")
    assert "  inline T operator()(const T a, const T b, const T c, const T2 value) {" in metal
    assert f"REGISTER_TERNARY_ALPHA_OP({op}, half, float, half);" in metal  # value at float, as the CPU's
    mm = _read(fork_tree, f"{NATIVE}/mps/operations/BinaryKernel.mm")
    assert (f"static void {op}_mps_kernel(TensorIteratorBase& iter, const Scalar& value) {{\n"
            f'  lib.exec_ternary_kernel(\n      iter, "{op}", value, at::isReducedFloatingType(iter.common_dtype()) ? '
            "kFloat : iter.common_dtype());\n}") in mm
    assert f"REGISTER_DISPATCH({op}_stub, &{op}_mps_kernel)" in mm and "#include <ATen/native/PointwiseOps.h>" in mm
    assert f"{op}_out_mps" not in _read(fork_tree, f"{NATIVE}/mps/operations/PointwiseOps.mm")
    assert _mps_route(fork_tree, f"{op}.out") == f"{op}_out"
    if op == "addcmul":  # integers keep their type (the CPU kernel's scalar_t value)
        assert "REGISTER_TERNARY_ALPHA_OP(addcmul, long, long, long);" in metal


# -- upstream's own kernel already registered: the host calls it ---------------------------------------

HUBER_UPSTREAM = """
struct huber_functor {
  template <typename T>
  inline T operator()(const T a, const T b, const T alpha) {
    const float d = float(a) - float(b);
    const float ad = ::metal::fabs(d);
    const float delta = float(alpha);
    return static_cast<T>(
        ad < delta ? 0.5f * d * d : delta * (ad - 0.5f * delta));
  }
};

REGISTER_BINARY_ALPHA_OP(huber, float, float, float);
REGISTER_BINARY_ALPHA_OP(huber, half, half, half);
"""


def test_a_registered_kernel_of_the_stubs_name_is_reused_when_it_covers_the_dtypes(scalar_tree: Path):
    """2026's BinaryKernel.metal registers `huber` (the huber_stub kernel) while its .mm does not yet
    register huber_stub: migrate huber_loss writes only the host side, after checking upstream's functor."""
    metal = scalar_tree / NATIVE / "mps/kernels/BinaryKernel.metal"
    metal.write_text(metal.read_text() + HUBER_UPSTREAM)
    subprocess.run(["git", "commit", "-qam", "upstream huber, float and half only"], cwd=scalar_tree, check=True)
    r = _migrate(scalar_tree, "huber_loss")
    assert r.returncode == 2  # bfloat16 is declared by the OpInfo, and the registered kernel lacks it
    assert "BinaryKernel.metal:" in r.stderr and "kernel name 'huber' is already registered by REGISTER_BINARY_ALPHA_OP without bfloat" in r.stderr
    assert "without bfloat" in r.stderr and "extend its registrations and run again" in r.stderr
    metal.write_text(metal.read_text() + "REGISTER_BINARY_ALPHA_OP(huber, bfloat, bfloat, bfloat);\n")
    subprocess.run(["git", "commit", "-qam", "and bfloat"], cwd=scalar_tree, check=True)
    before = metal.read_text()
    r = _migrate(scalar_tree, "huber_loss")
    assert r.returncode == 0, r.stderr
    # upstream's huber_functor is what MPS will run: lifted out of its file and checked against the CPU
    assert "numeric check: 3 dtype(s) agree with torch.ops.aten.huber_loss" in r.stdout
    assert metal.read_text() == before  # no Metal written
    mm = _read(scalar_tree, f"{NATIVE}/mps/operations/BinaryKernel.mm")
    assert 'static void huber_mps_kernel(TensorIterator& iter, double delta) {\n  lib.exec_binary_kernel(iter, "huber", Scalar(delta));' in mm


def test_two_outputs_are_refused_in_one_line(scalar_tree: Path):
    r = _migrate(scalar_tree, "_prelu_kernel_backward")
    assert r.returncode == 2
    assert "_prelu_kernel_backward returns (Tensor, Tensor): mpsgen writes kernels with one output" in r.stderr


# -- two outputs: upstream's frexp kernels (the 2026 tree) get their host ----------------------------

TWO_OUTPUTS = Path(__file__).resolve().parent / "data" / "two_outputs"


def _lay_frexp(root: Path, helper: str = "") -> None:
    """frexp_out (a TensorIterator of two outputs), its stub, upstream-shaped two-output kernels and the
    OperationUtils.h names their host uses; *helper* replaces the kernels' frexp_of body."""
    metal = root / NATIVE / "mps/kernels/UnaryKernel.metal"
    kernels = (TWO_OUTPUTS / "frexp_kernels.metal").read_text()
    if helper:
        kernels = kernels.replace("  return T(frexp(float(x), e));\n", helper)
    metal.write_text(metal.read_text() + kernels)
    shutil.copyfile(TWO_OUTPUTS / "OperationUtils.h", root / NATIVE / "mps/OperationUtils.h")
    header = root / NATIVE / "UnaryOps.h"
    header.write_text(header.read_text().replace("DECLARE_DISPATCH(unary_fn, abs_stub)\n",
                                                 "DECLARE_DISPATCH(unary_fn, abs_stub)\nDECLARE_DISPATCH(unary_fn, frexp_stub)\n"))
    ops = root / NATIVE / "UnaryOps.cpp"
    ops.write_text(ops.read_text().replace("\n} // namespace at::native", (TWO_OUTPUTS / "frexp_out.cpp").read_text()
                                           + "DEFINE_DISPATCH(frexp_stub);\n\n} // namespace at::native"))
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "frexp's two-output kernels"], cwd=root, check=True)


def test_frexp_reuses_upstreams_two_output_kernels(scalar_tree: Path):
    _lay_frexp(scalar_tree)
    metal = _read(scalar_tree, f"{NATIVE}/mps/kernels/UnaryKernel.metal")
    r = mpsgen("new-op", "frexp", "--no-build", "--no-test", cwd=scalar_tree)
    assert r.returncode == 0, r.stderr
    # the kernels' frexp_of, lifted out, against torch.frexp: mantissa and exponent each
    assert "numeric check: 2 dtype(s) agree with torch.frexp (emulated Metal (g++), both outputs bit for bit)" in r.stdout
    assert "bfloat16   xfailed (UNIMPLEMENTED_XFAILLIST)  ->  not registered" in r.stdout  # no bfloat kernel
    assert _read(scalar_tree, f"{NATIVE}/mps/kernels/UnaryKernel.metal") == metal  # no Metal written
    mm = _read(scalar_tree, f"{NATIVE}/mps/operations/UnaryKernel.mm")
    assert 'static void frexp_mps_kernel(TensorIteratorBase& iter) {\n  exec_two_outputs_kernel(iter, "frexp");\n}' in mm
    assert "REGISTER_DISPATCH(frexp_stub, " in mm and mm.count("static void exec_two_outputs_kernel(") == 1
    assert "bind_iter_tensors(computeEncoder, iter);" in mm and "mtl_setArgs<3>(computeEncoder," in mm
    assert "    CPU, CUDA, MPS: frexp_out\n" in _read(scalar_tree, f"{NATIVE}/native_functions.yaml")
    again = mpsgen("new-op", "frexp", "--no-build", "--no-test", cwd=scalar_tree)
    assert again.returncode == 0 and "nothing to do" in again.stdout


def test_frexp_check_compares_each_output(scalar_tree: Path):
    _lay_frexp(scalar_tree, helper="  const T m = T(frexp(float(x), e));\n  e += 1;\n  return m;\n")
    r = mpsgen("try", "frexp", cwd=scalar_tree)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "frexp(0.0): expected (0.0, 0), got (0.0, 1)" in r.stdout  # the mantissa agrees, the exponent does not

"""`check` and `status` on a tree built from the torch wheel's real native_functions.yaml and
common_mps.py, the sample's sources, and hand-written fixtures in the shapes of the real files that
caused false findings: kernels CPU/CUDA define differently (set_), composite-style siblings
(remainder, pow.Scalar_out, isin), a non-pointwise stub (isin_default_stub), and early-2025
template kernels registered by host_name instantiations (SpecialOps.metal)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpsgen.lint.inventory import Inventory
from mpsgen.lint.rules import run_checks
from mpsgen.lint.status import dashboard, family_details
from mpsgen.tree.checkout import YAML_REL, Checkout

from test_checks import OPS, add_template_special_ops, build_real_tree, line_of

NATIVE = "aten/src/ATen/native"

# Same shapes as upstream (Pow.cpp, TensorCompare.cpp, TensorShape.cpp), cut to what the readers see.
SHAPES_H = """\
#pragma once
#include <ATen/native/DispatchStub.h>

namespace at::native {
using pow_tensor_tensor_fn = void (*)(TensorIteratorBase&);
using pow_tensor_scalar_fn = void (*)(TensorIteratorBase&, const c10::Scalar&);
using isin_default_fn = void (*)(const Tensor&, const Tensor&, bool, const Tensor&);
using hardswish_fn = void (*)(TensorIterator&);
using reduce_fn = void (*)(TensorIterator&);
using flip_fn = void (*)(TensorIterator&, const bool);

DECLARE_DISPATCH(pow_tensor_tensor_fn, pow_tensor_tensor_stub)
DECLARE_DISPATCH(pow_tensor_scalar_fn, pow_tensor_scalar_stub)
DECLARE_DISPATCH(isin_default_fn, isin_default_stub)
DECLARE_DISPATCH(hardswish_fn, hardswish_stub)
DECLARE_DISPATCH(reduce_fn, max_values_stub)
DECLARE_DISPATCH(reduce_fn, prod_stub)
DECLARE_DISPATCH(flip_fn, flip_stub)
} // namespace at::native
"""

SHAPES_CPP = """\
#include <ATen/native/Shapes.h>

namespace at::native {

DEFINE_DISPATCH(pow_tensor_tensor_stub);
DEFINE_DISPATCH(pow_tensor_scalar_stub);
DEFINE_DISPATCH(isin_default_stub);

TORCH_IMPL_FUNC(pow_Tensor_Tensor_out) (const Tensor& base, const Tensor& exp, const Tensor& out) {
  pow_tensor_tensor_stub(device_type(), *this);
}

TORCH_IMPL_FUNC(pow_Tensor_Scalar_out) (const Tensor& base, const Scalar& exp, const Tensor& out) {
  if (exp.equal(0.0) || exp.equal(false)) {
    out.fill_(1);
  } else {
    pow_tensor_scalar_stub(device_type(), *this, exp);
  }
}

TORCH_IMPL_FUNC(pow_Scalar_out) (const Scalar& base, const Tensor& exp, const Tensor& out) {
  if (base.equal(1.0)) {
    out.fill_(1);
  } else {
    at::pow_out(const_cast<Tensor&>(out), wrapped_scalar_tensor(base, exp.device()), exp);
  }
}

TORCH_IMPL_FUNC(isin_Tensor_Tensor_out)
(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert, const Tensor& out) {
  if (test_elements.numel() < 10) {
    out.fill_(invert);
    isin_default_stub(elements.device().type(), elements, test_elements, invert, out);
  } else {
    isin_sorting(elements, test_elements, assume_unique, invert, out);
  }
}

TORCH_IMPL_FUNC(isin_Tensor_Scalar_out)
(const Tensor& elements, const c10::Scalar& test_elements, bool assume_unique, bool invert, const Tensor& out) {
  if (invert) {
    at::ne_out(const_cast<Tensor&>(out), elements, test_elements);
  } else {
    at::eq_out(const_cast<Tensor&>(out), elements, test_elements);
  }
}

Tensor& hardswish_out(const Tensor& self, Tensor& result) {
  auto iter = TensorIterator::unary_op(result, self);
  hardswish_stub(iter.device_type(), iter);
  return result;
}

TORCH_IMPL_FUNC(amax_out) (const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& result) {
  auto iter = meta::make_reduction(self, result, dim, keepdim, self.scalar_type());
  if (iter.numel() != 0) {
    max_values_stub(iter.device_type(), iter);
  }
}

TORCH_IMPL_FUNC(prod_out)
(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype, const Tensor& result) {
  auto iter = meta::make_reduction_from_out_ty(self, result, dim, keepdim, result.scalar_type());
  if (iter.numel() == 0) {
    result.fill_(1);
  } else {
    prod_stub(iter.device_type(), iter);
  }
}

Tensor flip(const Tensor& self, IntArrayRef dims) {
  Tensor out_tensor = at::empty_like(self, MemoryFormat::Preserve);
  const auto restrided_self = self.as_strided(self.sizes(), self.strides());
  auto iter = TensorIteratorConfig().add_output(out_tensor).add_const_input(restrided_self).build();
  flip_stub(iter.device_type(), iter, self.is_quantized());
  return out_tensor;
}

Tensor& set_(Tensor& result, Storage source) {
  return result.set_(std::move(source), 0, {static_cast<int64_t>(source.nbytes())}, {});
}

Tensor& set_storage_cpu_(Tensor& result, Storage storage, int64_t storage_offset, IntArrayRef size, IntArrayRef stride) {
  result.unsafeGetTensorImpl()->set_storage_offset(storage_offset);
  return result;
}

Tensor& set_cpu_(Tensor& result) {
  return result.set_(Storage(), 0, {0}, {});
}

} // namespace at::native
"""

# The historic two-step migration of pow.Tensor_Tensor_out: the Metal kernel and its registration land first.
POW_MM = """\
#include <ATen/native/Shapes.h>
#include <ATen/native/mps/OperationUtils.h>

namespace at::native {
static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();

static void pow_tensor_tensor_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_binary_kernel(iter, "hypot");
}

REGISTER_DISPATCH(pow_tensor_tensor_stub, &pow_tensor_tensor_mps_kernel)
} // namespace at::native
"""


@pytest.fixture()
def shapes_tree(sample_tree: Path, real_yaml_path: Path, real_testing_dir: Path) -> Path:
    root = build_real_tree(sample_tree, real_yaml_path, real_testing_dir)
    (root / NATIVE / "Shapes.h").write_text(SHAPES_H)
    (root / NATIVE / "Shapes.cpp").write_text(SHAPES_CPP)
    add_template_special_ops(root)
    return root


def by_code(root: Path) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in run_checks(Inventory(Checkout(root))):
        out.setdefault(f.code, []).append(f)
    return out


def test_real_yaml_with_real_shapes_exact_findings(shapes_tree: Path):
    found = by_code(shapes_tree)
    # No half-done migration: set_ (CPU and CUDA differ), pow.Scalar_out (its kernel calls another op),
    # isin (its stub does not run on MPS, and the shared sibling calls no stub).
    assert "MPS001" not in found
    # The template host_name kernels of SpecialOps.metal are registered; nothing else is wrong between .mm and .metal.
    assert not {"MPS006", "MPS007", "MPS008", "MPS009"} & found.keys()
    # What remains is what the sample's few .mm files cannot provide for the real yaml: its ~290 MPS-only
    # kernels (link errors in this tree), the stubs of shared entries the sample does not register, and the
    # sample's own MPSGraph atan2 implementation, which the 2.13 yaml no longer names.
    missing = {f.message.split()[4].rstrip(",") for f in found["MPS003"]}
    assert {"pow_tensor_tensor_out_mps", "pow_Scalar_out_mps", "isin_Tensor_Tensor_out_mps", "set_storage_mps_",
            "set_mps_"} <= missing
    assert [f.message.split()[0] for f in found["MPS004"]] == ["TORCH_IMPL_FUNC(atan2_out_mps)"]
    unregistered = {f.message.split()[2] for f in found["MPS005"]}
    assert {"pow_Tensor_Scalar_out", "atan2_out"} <= unregistered and "isin_Tensor_Scalar_out" not in unregistered


def test_two_step_pow_migration_is_the_one_split(shapes_tree: Path):
    (shapes_tree / OPS / "Pow.mm").write_text(POW_MM)
    (f,) = by_code(shapes_tree)["MPS001"]
    assert (f.path, f.line) == (YAML_REL, line_of(shapes_tree, YAML_REL, "MPS: pow_tensor_tensor_out_mps"))
    assert "pow.Tensor_Tensor_out dispatches MPS to the MPS-only pow_tensor_tensor_out_mps" in f.message
    assert f"registered for MPS at {OPS}/Pow.mm:" in f.message


def test_status_frontier_on_real_shapes(shapes_tree: Path):
    inv = Inventory(Checkout(shapes_tree))
    board = dashboard(inv)
    rows = {r.name: r for r in board.rows}
    pow_ = rows["pow"].frontier
    assert rows["pow"].state.state == "split" and pow_.candidate
    verdicts = {o.entry: o.candidate for o in pow_.overloads}
    assert verdicts == {"pow.Tensor_Tensor_out": True, "pow.Scalar_out": False}
    assert "pow_tensor_tensor_stub(TensorIteratorBase&...)" in pow_.why
    (scalar,) = [o for o in pow_.overloads if o.entry == "pow.Scalar_out"]
    assert "calls no DispatchStub" in scalar.why
    isin = family_details(inv, "isin").frontier
    assert not isin.candidate and "neither TensorIterator-structured nor tagged pointwise" in isin.why
    set_ = family_details(inv, "set_").frontier
    assert not set_.candidate and "CPU uses set_storage_cpu_ but CUDA uses set_storage_cuda_" in set_.why
    # MPSGraph here means an MPSGraph body found in the sample's .mm files (the other legacy kernels are
    # "unknown" in this tree): the sample's four pointwise families, all candidates.
    graph = sorted(r.name for r in board.rows if r.state.state == "MPSGraph")
    assert graph == ["asinh", "frac", "logical_xor", "signbit"]
    assert board.frontier_totals() == {"candidate": 4, "not a candidate": 0, "new-op candidate": 2,
                                       "stub unregistered": 3}
    # The 2.13 yaml shares these, but the sample's .mm files do not register their stubs (MPS005): half done,
    # and migrate writes the rest.
    half_done = sorted(r.name for r in board.rows if r.state.state == "stub unregistered" and r.frontier.candidate)
    assert half_done == ["amax", "atan2", "hardswish"]


def test_non_structured_elementwise_kernel_is_a_candidate_a_reduction_or_flip_is_not(shapes_tree: Path):
    # (amax's reduction is the reduction kind's candidate; prod's stub is one that kind does not serve)
    # Both are shared in the 2.13 yaml; here they are turned back into MPS-only overloads.
    from test_checks import edit

    edit(shapes_tree, YAML_REL, "    CPU, CUDA, MPS: hardswish_out\n", "    CPU, CUDA: hardswish_out\n    MPS: hardswish_out_mps\n")
    edit(shapes_tree, YAML_REL, "    CPU, CUDA, MPS: amax_out\n", "    CPU, CUDA: amax_out\n    MPS: amax_out_mps\n")
    inv = Inventory(Checkout(shapes_tree))
    hardswish = family_details(inv, "hardswish").frontier
    assert hardswish.candidate and "hardswish_stub(TensorIterator&...)" in hardswish.why
    amax = family_details(inv, "amax").frontier
    assert amax.candidate and "calls max_values_stub: a TensorIterator reduction (the reduction kind)" in amax.why
    prod = next(o for o in family_details(inv, "prod").frontier.overloads if o.entry == "prod.int_out")
    assert not prod.candidate and "builds no elementwise TensorIterator" in prod.why
    flip = family_details(inv, "flip").frontier  # MPS: flip_mps in the 2.13 yaml; an iterator over a restrided view
    assert not flip.candidate and "builds no elementwise TensorIterator" in flip.why


def test_migrate_refuses_a_reduction_status_calls_no_candidate(shapes_tree: Path):
    # prod_stub takes a TensorIterator like a pointwise stub, but prod_out builds a reduction: a Metal
    # elementwise kernel registered for it would compute garbage, and the reduction kind does not serve
    # prod_stub.  migrate refuses it as status's frontier does, before anything is written; an elementwise
    # sibling is not refused by it.
    from cli_support import mpsgen
    from test_checks import edit

    def tracked_bytes(root: Path) -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}

    before = tracked_bytes(shapes_tree)
    done = mpsgen("-C", str(shapes_tree), "migrate", "prod.int_out", "--expr", "x", "--no-build", "--no-test",
                  "--no-try")
    assert done.returncode == 2, done.stdout + done.stderr
    line = line_of(shapes_tree, YAML_REL, "func: prod.int_out(")
    assert done.stderr.startswith(f"mpsgen: error: {YAML_REL}:{line}: prod.int_out is not a pointwise op: prod_out (")
    assert "is a TensorIterator reduction of prod_stub, which mpsgen's reduction kernels do not serve" in done.stderr
    assert "`mpsgen status --op prod` shows the frontier" in done.stderr and done.stderr.count("\n") == 1
    assert tracked_bytes(shapes_tree) == before

    edit(shapes_tree, YAML_REL, "    CPU, CUDA, MPS: hardswish_out\n", "    CPU, CUDA: hardswish_out\n    MPS: hardswish_out_mps\n")
    elementwise = mpsgen("-C", str(shapes_tree), "migrate", "hardswish", "--expr", "x", "--dry-run", "--no-try")
    assert elementwise.returncode == 0, elementwise.stderr
    assert "stub      hardswish_stub (void(*)(TensorIterator&)" in elementwise.stdout

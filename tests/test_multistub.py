"""Families whose shared kernels call several stubs (plan/multistub.py): the branch around each call
(sources/native/stub_guard.py), what it says of the inputs reaching the stub, one kernel per stub planned
together on the sample checkout, and each stub's kernel checked through the op with the arguments
that select it (div's rounding_mode)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import mpsgen, tracked_bytes
from try_support import include_root

from mpsgen.plan.binding import Binding, fixing, schema_args
from mpsgen.plan.multistub import meaning, stub_kernel_name
from mpsgen.sources.native.stub_guard import Guard, guard_of_call

# Written for these tests in the shapes of native/*.cpp's shared kernels (not copied from them).
MODES = """\
TORCH_IMPL_FUNC(quot_out_mode) (
  const Tensor& self, const Tensor& other, std::optional<std::string_view> mode, const Tensor& result
) {
  if (!mode.has_value()) {
    quot_true_stub(device_type(), *this);
  } else if (*mode == "trunc") {
    quot_trunc_stub(device_type(), *this);
  } else if (*mode == "floor") {
    quot_floor_stub(device_type(), *this);
  }
}

TORCH_IMPL_FUNC(signum_out) (const Tensor& self, const Tensor& result) {
  if (self.is_complex()) {
    csignum_stub(device_type(), *this);
  } else {
    signum_stub(device_type(), *this);
  }
}

TORCH_IMPL_FUNC(plain_out) (const Tensor& self, const Tensor& result) {
  for (int k = 0; k < 1; ++k) {
    plain_stub(device_type(), *this);
  }
  if (self.is_complex()) other_stub(device_type(), *this);
}
"""


def _line(text: str, needle: str) -> int:
    return next(k for k, line in enumerate(text.split("\n"), 1) if needle in line)


@pytest.mark.parametrize(("stub", "guard"), [
    ("quot_true_stub", Guard("!mode.has_value()", False)),
    ("quot_trunc_stub", Guard('*mode == "trunc"', False)),
    ("quot_floor_stub", Guard('*mode == "floor"', False)),
    ("csignum_stub", Guard("self.is_complex()", False)),
    ("signum_stub", Guard("self.is_complex()", True)),
    ("plain_stub", Guard("", False)),  # a loop's block is no branch
    ("other_stub", Guard("", False)),  # an if without braces: not read
])
def test_the_guard_of_each_stub_call_is_the_if_around_it(stub: str, guard: Guard) -> None:
    first = _line(MODES, "TORCH_IMPL_FUNC(plain_out)") if stub in ("plain_stub", "other_stub") else 1
    assert guard_of_call(MODES, _line(MODES, f"{stub}("), stub, first) == guard


def test_what_a_guard_says_of_the_inputs_that_reach_the_stub() -> None:
    names = frozenset({"self", "other", "mode"})
    assert meaning(Guard('*mode == "trunc"', False), names) == ((("mode", "trunc"),), "")
    assert meaning(Guard("!mode.has_value()", False), names) == ((("mode", None),), "")
    assert meaning(Guard("self.is_complex()", False), names) == ((), "only")
    assert meaning(Guard("self.is_complex()", True), names) == ((), "never")
    # an argument the schema does not name, a negated mode test, any other condition: nothing
    assert meaning(Guard('*how == "trunc"', False), names) == ((), "")
    assert meaning(Guard('*mode == "trunc"', True), names) == ((), "")
    assert meaning(Guard("decimals != 0", False), names) == ((), "")


def test_a_stub_kernel_is_named_after_its_stub() -> None:
    assert stub_kernel_name("div_trunc_stub") == "div_trunc"
    assert stub_kernel_name("sign_stub") == "sign"
    assert stub_kernel_name("lerp_kernel_scalar_weight") == "lerp_scalar_weight"


def test_fixing_an_argument_makes_a_binding_for_the_ops_tensors() -> None:
    func = "div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)"
    made = fixing(None, "div.out_mode", func, 2, (("rounding_mode", "floor"),))
    assert made == Binding("div", schema_args(func), (0, 1), (), (("rounding_mode", "floor"),))
    assert made.traced


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_each_div_stub_kernel_agrees_with_torch_div_in_its_rounding_mode(mode: str) -> None:
    """The catalog's div_trunc / div_floor bodies, checked as migrate checks them: torch.ops.aten.div
    called with rounding_mode held at the value that selects the stub."""
    from mpsgen.emulate.numerics import check_kernel
    from mpsgen.generate import catalog, render

    func = "div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)"
    spec = catalog.spec_for(f"div_{mode}", "binary", dtypes=("float", "integer"))
    binding = fixing(None, "div.out_mode", func, 2, (("rounding_mode", mode),))
    result = check_kernel(spec, render.render_functor(spec), op="div", include_root=include_root("sample"),
                          binding=binding)
    assert result.reference == "torch.ops.aten.div"
    assert {r.dtype for r in result.rows} >= {"float32", "float16", "int64", "int8"}
    assert result.ok, [r for r in result.rows if not r.ok]


def test_the_true_division_kernel_disagrees_with_a_rounding_mode() -> None:
    """The fixed argument reaches torch: div_true's body checked against rounding_mode="trunc" fails."""
    from mpsgen.emulate.numerics import check_kernel
    from mpsgen.generate import catalog, render

    func = "div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out) -> Tensor(a!)"
    spec = catalog.spec_for("div_true", "binary", dtypes=("float",))
    trunc = fixing(None, "div.out_mode", func, 2, (("rounding_mode", "trunc"),))
    wrong = check_kernel(spec, render.render_functor(spec), op="div", include_root=include_root("sample"),
                         binding=trunc)
    assert not wrong.ok
    right = check_kernel(spec, render.render_functor(spec), op="div", include_root=include_root("sample"),
                         binding=trunc._replace(fixed=(("rounding_mode", None),)))
    assert right.ok


# -- one kernel per stub, planned together, on the sample checkout ------------------------------------

BINARY_OPS_CPP = "aten/src/ATen/native/BinaryOps.cpp"
BINARY_KERNEL_MM = "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
BINARY_KERNEL_METAL = "aten/src/ATen/native/mps/kernels/BinaryKernel.metal"
YAML = "aten/src/ATen/native/native_functions.yaml"
TWO_STUBS = ("  if (self.is_complex()) {\n    hypot_stub(device_type(), *this);\n"
             "  } else {\n    atan2_stub(device_type(), *this);\n  }\n")


def _replace(root: Path, rel: str, old: str, new: str) -> None:
    text = (root / rel).read_text()
    assert text.count(old) == 1, old
    (root / rel).write_text(text.replace(old, new))


def test_a_stub_mps_already_runs_is_reused_and_the_other_gets_its_kernel(tree: Path) -> None:
    _replace(tree, BINARY_OPS_CPP, "  atan2_stub(device_type(), *this);\n", TWO_STUBS)
    done = mpsgen("-C", str(tree), "migrate", "atan2", "--no-build", "--no-test", "--allow-dirty")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "stub      hypot_stub (" in out and "stub      atan2_stub (" in out
    assert "note      hypot_stub: hypot_stub is already registered for MPS at" in out
    assert "numeric check of atan2: 9 dtype(s) agree with torch.atan2" in out
    assert "numeric check of hypot" not in out  # kept: no new kernel to check
    mm = (tree / BINARY_KERNEL_MM).read_text()
    assert mm.count("REGISTER_DISPATCH(hypot_stub,") == 1  # kept, not doubled
    assert "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)" in mm
    assert "CPU, CUDA, MPS: atan2_out" in (tree / YAML).read_text()


def test_every_stub_mps_does_not_run_gets_a_kernel_of_its_own_name(tree: Path) -> None:
    _replace(tree, BINARY_OPS_CPP, "  atan2_stub(device_type(), *this);\n", TWO_STUBS.replace("hypot_stub", "heaviside_stub"))
    assert "heaviside" not in (tree / BINARY_KERNEL_MM).read_text()
    # Each stub's kernel is checked against the op: heaviside's body is no atan2 (this fixture's
    # atan2_out is made up), so the check refuses before anything is written.
    before = tracked_bytes(tree)
    refused = mpsgen("-C", str(tree), "migrate", "atan2", "--no-build", "--no-test", "--allow-dirty")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "the atan2 (heaviside) kernel disagrees with the CPU: nothing written" in refused.stdout
    assert tracked_bytes(tree) == before
    done = mpsgen("-C", str(tree), "migrate", "atan2", "--no-build", "--no-test", "--allow-dirty", "--no-try")
    assert done.returncode == 0, done.stdout + done.stderr
    mm = (tree / BINARY_KERNEL_MM).read_text()
    assert "REGISTER_DISPATCH(atan2_stub, &atan2_mps_kernel)" in mm
    # the other stub's kernel is named after its stub (heaviside), though the family is atan2's
    assert "REGISTER_DISPATCH(heaviside_stub, &heaviside_mps_kernel)" in mm
    assert "\"heaviside\"" in mm
    metal = (tree / BINARY_KERNEL_METAL).read_text()
    assert "struct heaviside_functor" in metal and "struct atan2_functor" in metal
    # complex inputs go to heaviside_stub: atan2's kernel never registers them (said so)
    assert "complex inputs reach another stub" in done.stdout
    assert "stub      atan2_stub (" in done.stdout and "stub      heaviside_stub (" in done.stdout


def test_a_second_run_changes_nothing(tree: Path) -> None:
    _replace(tree, BINARY_OPS_CPP, "  atan2_stub(device_type(), *this);\n", TWO_STUBS)
    first = mpsgen("-C", str(tree), "migrate", "atan2", "--no-build", "--no-test", "--allow-dirty", "--no-try")
    assert first.returncode == 0, first.stdout + first.stderr
    before = tracked_bytes(tree)
    again = mpsgen("-C", str(tree), "migrate", "atan2", "--no-build", "--no-test", "--allow-dirty", "--no-try")
    assert again.returncode == 0, again.stdout + again.stderr
    # every stub already runs a Metal kernel: both are named
    assert "nothing to do: atan2 is already on a native Metal kernel (atan2_stub registered at" in again.stdout
    assert "; hypot_stub registered at aten/src/ATen/native/mps/operations/BinaryKernel.mm:" in again.stdout
    assert tracked_bytes(tree) == before


def test_a_bool_or_int_scalar_reaches_torch_in_its_schema_type() -> None:
    """elu_backward's is_result is drawn from 0 and 1 and passed to torch as a bool (0.25 is no bool)."""
    import torch

    from mpsgen.emulate import bound
    from mpsgen.generate import catalog

    func = ("elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, bool is_result, "
            "Tensor self_or_result) -> Tensor")
    args = schema_args(func)
    binding = Binding("elu_backward", args, (0, 5), ("arg:1", "arg:2", "arg:3", "arg:4"))
    spec = catalog.spec_for("elu_backward", "binary_params", scalars=("alpha", "scale", "input_scale", "is_result"))
    cases = bound.scalar_cases(binding, spec, "float")
    assert {case[3] for case in cases} == {0.0, 1.0}
    assert {case[0] for case in cases} == set(bound.SCALAR_VALUES["float"])
    grad, x = torch.tensor([1.0, 2.0]), torch.tensor([-1.0, 0.5])
    got = bound.reference(binding).fn(grad, x, (1.0, 2.0, 0.5, 1.0))
    want = torch.ops.aten.elu_backward(grad, 1.0, 2.0, 0.5, True, x)
    assert torch.equal(got, want)


def test_try_checks_every_stubs_kernel_and_remembers_each(tree: Path) -> None:
    _replace(tree, BINARY_OPS_CPP, "  atan2_stub(device_type(), *this);\n", TWO_STUBS.replace("hypot_stub", "heaviside_stub"))
    for _ in range(2):  # planned, then from the cache: the same two tables
        run = mpsgen("-C", str(tree), "try", "atan2")
        assert run.returncode == 1, run.stdout + run.stderr
        assert run.stdout.startswith("atan2:\n") and "\nheaviside:\n" in run.stdout
        first, second = run.stdout.split("\nheaviside:\n")
        assert "all dtypes agree" in first  # atan2's own body
        assert "MISMATCH" in second  # heaviside's body is no atan2 (this fixture's atan2_out is made up)


@pytest.mark.parametrize(("kernel", "bound", "func"), [
    ("clamp_min_scalar", "min", "clamp_min(Tensor self, Scalar min) -> Tensor"),
    ("clamp_max_scalar", "max", "clamp_max(Tensor self, Scalar max) -> Tensor"),
])
def test_the_clamp_stub_kernels_agree_with_torch_through_their_bound(kernel: str, bound: str, func: str) -> None:
    """clamp_min's clamp_min_scalar_stub kernel, checked as its plan would: torch.ops.aten.clamp_min with the
    bound drawn from edge values (a NaN input stays NaN, the bound's type is the input's)."""
    from mpsgen.emulate.numerics import check_kernel
    from mpsgen.generate import catalog, render

    spec = catalog.spec_for(kernel, "unary_alpha", dtypes=("float", "integer"), scalars=(bound,))
    binding = Binding(func.split("(")[0], schema_args(func), (0,), ("arg:1",))
    result = check_kernel(spec, render.render_functor(spec), op=binding.op, include_root=include_root("sample"),
                          binding=binding)
    assert result.reference == f"torch.ops.aten.{binding.op}"
    assert {r.dtype for r in result.rows} >= {"float32", "float16", "bfloat16", "int64", "uint8"}
    assert result.ok, [r for r in result.rows if not r.ok]


def test_the_elu_backward_kernel_agrees_with_torch_for_both_is_result_values() -> None:
    from mpsgen.emulate.numerics import check_kernel
    from mpsgen.generate import catalog, render

    func = ("elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, bool is_result, "
            "Tensor self_or_result) -> Tensor")
    spec = catalog.spec_for("elu_backward", "binary_params", scalars=("alpha", "scale", "input_scale", "is_result"))
    binding = Binding("elu_backward", schema_args(func), (0, 5), ("arg:1", "arg:2", "arg:3", "arg:4"))
    result = check_kernel(spec, render.render_functor(spec), op="elu_backward", include_root=include_root("sample"),
                          binding=binding)
    assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16"}
    assert result.ok, [r for r in result.rows if not r.ok]

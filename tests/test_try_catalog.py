"""Every catalog body agrees with torch's CPU op for every dtype it registers, on the sample's
c10/metal headers and on the real ones from the torch 2.13.0 wheel (mpsgen try, emulated)."""

from __future__ import annotations

import pytest
from try_support import include_root, run, table

from mpsgen.emulate.compare import TryResult
from mpsgen.emulate.numerics import check_kernel
from mpsgen.generate import catalog, render

# Catalog entries that disagree with the CPU, found by this test and reported (not hidden):
# the assertion stays strict, and a fix turns these into XPASS failures (strict=True).
KNOWN = {
    ("wheel", "logaddexp"): "c10/metal/special_math.h's complex logaddexp picks the same operand as max "
                            "and min when the real parts are equal: logaddexp(0, 1j) = log(2) + 1j",
    ("sample", "logaddexp"): "complex logaddexp with +inf real parts and an infinite imaginary part: "
                             "CPU (inf + nan j), the sample's header (nan + nan j)",
}
# Fixed in the catalog after this test found them (now strict passes): expm1 no longer relies on the
# 2.13 wheel's one-constant expm1f.h, remainder/log1p/logit follow their CPU kernels at inf, FLT_MAX and
# in half/bfloat16.


# Bodies whose kernel is not fed the op's own tensors in order, or takes its scalars under other
# names than torch's: only the op's plan can say how its arguments reach the kernel (threshold reads
# self twice, mse_loss is the Reduction::None part).  test_scalar_shapes.py checks them through it.
THROUGH_PLAN = {op for op, e in catalog.load_catalog().items()
                if e.get("params") or e["arity"] in ("unary_params", "binary_params", "ternary_alpha")} | {
    "mse_loss",
    "glu",  # reads two halves of self: no torch call takes them (its check is skipped, and says so)
    # the kernels of one stub each of a family calling several (div_out_mode): torch has no op of their
    # name; test_multistub.py checks them through torch.div with the rounding mode that selects each
    "div_true", "div_trunc", "div_floor",
    "lerp_tensor_weight",  # lerp.Tensor's stub: checked through torch.lerp by `migrate lerp` (2.7 tree)
    # one kernel per output of _prelu_kernel_backward: test_split_outputs.py checks each against its element
    "_prelu_kernel_backward_grad_self", "_prelu_kernel_backward_grad_weight",
    # and of frexp: below, on the sample's headers (test_split_outputs.py: the wheel's, and the other element)
    "frexp_mantissa", "frexp_exponent",
}
# The kernels of one output each of an op of one input: (op's schema, the element each computes)
ELEMENT_OF = {"frexp_mantissa": ("frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)", 0),
              "frexp_exponent": ("frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)", 1)}


TESTED = sorted(set(catalog.load_catalog()) - THROUGH_PLAN)
# The bodies are compiled a batch at a time (batch_build.py: a translation unit for many bodies, each
# still run from a library of its own, and built alone when its batch does not compile); each test
# builds its batch when it is the first of it to run in its worker.
BATCH = 24
_batched: set[tuple[str, int]] = set()


def _run_batched(op: str, headers: str) -> TryResult:
    import batch_build

    at = TESTED.index(op) // BATCH
    if (headers, at) not in _batched:
        _batched.add((headers, at))
        specs = [catalog.spec_for(o, catalog.load_catalog()[o]["arity"]) for o in TESTED[at * BATCH:(at + 1) * BATCH]]
        batch_build.prebuild([(s, render.render_functor(s)) for s in specs], include_root(headers))
    return run(op, catalog.load_catalog()[op]["arity"], headers)


def _cases() -> list:
    cases = []
    for headers in ("sample", "wheel"):
        for op in TESTED:
            mark = [pytest.mark.xfail(reason=KNOWN[(headers, op)], strict=True)] if (headers, op) in KNOWN else []
            cases.append(pytest.param(headers, op, id=f"{headers}-{op}", marks=mark))
    return cases


@pytest.mark.parametrize(("headers", "op"), _cases())
def test_catalog_body_agrees_with_torch_for_every_registered_dtype(headers: str, op: str) -> None:
    entry = catalog.load_catalog()[op]
    result = _run_batched(op, headers)
    registered = {"float": {"float32", "float16", "bfloat16"},
                  "integer": {"int64", "int32", "int16", "int8", "uint8", "bool"},
                  "int2float": {"int64", "int32", "int16", "int8", "uint8", "bool"},
                  "complex": {"complex64", "complex32"}}
    wanted = set().union(*(registered[d] for d in entry.get("dtypes", ["float"])))
    if entry.get("result") == "complex":  # complex(real, imag): torch has no complex bfloat16
        wanted -= {"bfloat16"}
    assert {r.dtype for r in result.rows} == wanted
    assert all(r.values > 100 for r in result.rows)
    assert result.ok, table(result)


@pytest.mark.parametrize("kernel", sorted(ELEMENT_OF))
def test_a_body_of_one_output_agrees_with_its_element_bit_for_bit(kernel: str) -> None:
    from mpsgen.plan.binding import Binding, schema_args

    func, element = ELEMENT_OF[kernel]
    spec = catalog.spec_for(kernel, "unary")
    binding = Binding(func.split(".")[0], schema_args(func), (0,), (), output=element)
    result = check_kernel(spec, render.render_functor(spec), op=binding.op, include_root=include_root("sample"),
                          binding=binding)
    assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16"}
    assert result.backend.endswith(", bit for bit") and result.ok, table(result)


# The CPU kernels' own branch points (where they switch formula or special-case a value), tried with
# their float32 neighbours on top of the generic edge values (which hold +-inf, NaN, +-0, subnormals).
BRANCH_POINTS = {
    # Math.h airy_ai_forward: asymptotic below -2.09, decaying form from 2.09, its own return above
    # 8.3203353, 0 above 103.892; deep in the oscillating tail, the argument of sin/cos is huge.
    "special_airy_ai": (-2.09, 2.09, 8.3203353, 103.892, -25.0, -1e4, -1e10),
    # calc_ndtri: 0 and 1, the tails' switch at exp(-2) and 1 - exp(-2), z = 8 (y = exp(-32))
    "special_ndtri": (0.0, 1.0, 0.1353352832366127, 0.8646647167633873, 1.2664165549094176e-14, 0.5),
    # calc_log_ndtr: erfcx below -1, log1p above; erfc underflows near -9
    "special_log_ndtr": (-1.0, -9.0, -20.0, 5.0),
    # calc_erfcx: the continued fraction above 50, ispi / x above 5e7; 2 exp(x^2) alone below -6.1, +inf
    # below -26.7; erfcx_y100's intervals end at y100 = 400 / (4 + |x|) = 99, 50 (|x| ~ 0.04, 4)
    "special_erfcx": (50.0, 5e7, -6.1, -26.7, 0.04040404, 4.0, -4.0, 1e-7),
    "erfc": (50.0, -6.1, 10.0541, 9.194, -0.04040404, 4.0, 1e-7),
    # the Chebyshev halves of calc_i0e / calc_i1e at |x| = 8; bessel_j*/y*: the rational form up to 5,
    # 1 - x^2 / 4 below 1e-5 (j0); modified_bessel_k*: the small form up to 2, log(x / 2) near 0
    "special_i0e": (8.0, -8.0), "special_i1e": (8.0, -8.0),
    "special_bessel_j0": (5.0, -5.0, 1e-5, 2.404825), "special_bessel_j1": (5.0, -5.0, 3.831706),
    "special_bessel_y0": (5.0, 0.8935770), "special_bessel_y1": (5.0, 2.197141),
    "special_modified_bessel_i0": (8.0, 88.72), "special_modified_bessel_i1": (8.0, -8.0, 88.72),
    "special_modified_bessel_k0": (2.0, 1e-38, 1e-44), "special_modified_bessel_k1": (2.0, 1e-38),
    "special_scaled_modified_bessel_k0": (2.0, 1e-38), "special_scaled_modified_bessel_k1": (2.0, 1e-38),
}


def _float_neighbours(value: float, steps: int = 3) -> list[float]:
    import struct

    bits = struct.unpack("<i", struct.pack("<f", value))[0]
    out = []
    for d in range(-steps, steps + 1):
        b = bits + d if value > 0 or (value == 0 and d >= 0) else bits - d
        if value == 0 and d < 0:
            b = (1 << 31) | -d  # -0.0's neighbours: negative subnormals
        out.append(struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0])
    return out


def _result_key_names(monkeypatch: pytest.MonkeyPatch, points: list[float]) -> None:
    """A check's cached result is keyed by its kernel, not by its input set: the extra points go into the
    result's key, so the check is run on them (the session's builds and precompiled headers, which do
    not depend on the inputs, are reused: a cache folder per test rebuilt both, ~0.7 s a test)."""
    import hashlib

    from mpsgen.emulate import numerics

    digest = hashlib.sha256(repr(points).encode()).hexdigest()[:16]
    monkeypatch.setattr(numerics, "RESULT_VERSION", f"{numerics.RESULT_VERSION}.points-{digest}")


@pytest.mark.parametrize("op", sorted(BRANCH_POINTS))
def test_catalog_body_agrees_at_the_cpu_kernels_branch_points(op: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from mpsgen.emulate import inputs

    generic = inputs.edge_values
    points = [v for p in BRANCH_POINTS[op] for v in _float_neighbours(p)]
    monkeypatch.setattr(inputs, "edge_values", lambda metal: generic(metal) + (points if metal == "float" else []))
    _result_key_names(monkeypatch, points)
    result = _run_batched(op, "wheel")
    f32 = next(r for r in result.rows if r.dtype == "float32")
    assert f32.values == len(generic("float")) + len(points) + 4 * inputs.RANDOM_COUNT
    assert result.ok, table(result)


def test_log_ndtr_agrees_with_torch_through_the_erfcx_and_erfc_stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """On 2.7 (no c10::metal::erfcx or erfc, a log1p less exact than the CPU's) special_log_ndtr's body calls
    the functor's stand-ins (erfc_ through erfcx_, the catalog's special_erfcx body): every registered dtype
    agrees at calc_log_ndtr's branch points; the body no longer calls the headers' (the sample's) helpers."""
    from mpsgen.emulate import inputs
    from mpsgen.emulate.numerics import check_kernel
    from mpsgen.backfill import c10_shims
    from mpsgen.generate import render
    from try_support import include_root

    generic = inputs.edge_values
    points = [v for p in BRANCH_POINTS["special_log_ndtr"] for v in _float_neighbours(p)]
    monkeypatch.setattr(inputs, "edge_values", lambda metal: generic(metal) + (points if metal == "float" else []))
    _result_key_names(monkeypatch, points)
    spec = catalog.spec_for("special_log_ndtr", "unary")
    shims = tuple(c10_shims.called(spec.expr))
    assert set(shims) == {"erfcx", "erfc", "log1p"}
    spec = spec._replace(expr=c10_shims.redirect(spec.expr, set(shims)), shims=shims)
    functor = render.render_functor(spec)
    assert "c10::metal::" not in functor and functor.count("constexpr float Y100[700]") == 1
    result = check_kernel(spec, functor, op="special_log_ndtr", include_root=include_root("sample"))
    assert {r.dtype for r in result.rows} == {"float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                                              "uint8", "bool"}
    assert all(r.values > 100 for r in result.rows)
    assert result.ok, table(result)


def test_a_batch_build_gives_each_body_its_own_result_and_a_body_that_does_not_compile_its_own_error(
        monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """batch_build (which the tests above compile their bodies with) places the libraries the bodies' own
    builds would make: the same results; with a body that does not compile in the batch, none, and that
    body's own check then reports its error on its expression."""
    import json

    import batch_build
    from mpsgen.emulate import compile as cc
    from mpsgen.errors import MpsgenError

    root = include_root("sample")
    specs = [catalog.spec_for(op, catalog.load_catalog()[op]["arity"]) for op in ("frac", "ceil")]
    items = [(s, render.render_functor(s)) for s in specs]
    results = {}
    for folder in ("own", "batched"):
        monkeypatch.setenv("MPSGEN_CACHE_DIR", str(tmp_path / folder))
        if folder == "batched":
            assert batch_build.prebuild(items, root) == 2
            assert all(cc.build_plan(s, f, root).library.is_file() for s, f in items)
        results[folder] = [check_kernel(s, f, op=s.name, include_root=root).to_json() for s, f in items]
    assert json.dumps(results["own"]) == json.dumps(results["batched"]) and all(r["dtypes"] for r in results["own"])

    monkeypatch.setenv("MPSGEN_CACHE_DIR", str(tmp_path / "failing"))
    bad = catalog.spec_for("ceil", "unary", expr="precise::nosuch(float(x))")
    items = [items[0], (bad, render.render_functor(bad))]
    assert batch_build.prebuild(items, root) == 0
    assert not any(cc.build_plan(s, f, root).library.is_file() for s, f in items)
    with pytest.raises(MpsgenError) as err:
        run("ceil", "unary", expr="precise::nosuch(float(x))")
    assert err.value.render().startswith("--expr:1:10: error: ") and "nosuch" in err.value.render()

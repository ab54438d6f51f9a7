"""The reduction kind (sum_stub, mean_stub, max_values_stub, min_values_stub, nansum_stub, and_stub, or_stub,
norm_stub, aminmax_stub with aminmax_allreduce_stub): `migrate sum mean amax amin nansum all`, then
`migrate linalg_vector_norm` and norm (whose norm_out hands its work to at::linalg_vector_norm_out), and
`migrate aminmax` (one kernel writing both outputs), on the
sample laid with 2.7-shaped reduction files (tests/data/reductions: ReduceOps.h, ReduceOps.cpp, LinearAlgebra.cpp,
ReduceOps.mm,
c10/metal/reduction_utils.h and the yaml entries, written after the real files' shapes), prod refused, the
frontier, and the numeric check of the threadgroup kernels under the emulation (agreeing, catching a kernel
that drops a simdgroup's partial, and reporting simd calls in diverged control flow)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen, tracked_bytes

DATA = Path(__file__).parent / "data" / "reductions"


def _c10_headers_with_simd_helpers(root: Path) -> None:
    """c10/metal under *root*: the fixture's utils.h, and its reduction_utils.h with the simd helpers 2.7 lacks."""
    from mpsgen.backfill.simd_helpers import render_simd_helpers, with_simd_helpers

    headers = root / "c10" / "metal"
    headers.mkdir(parents=True)
    shutil.copy(DATA / "utils.h", headers / "utils.h")
    helpers = render_simd_helpers(bfloat_guarded=True, templates_dir=None)
    (headers / "reduction_utils.h").write_text(with_simd_helpers((DATA / "reduction_utils.h").read_text(), helpers))
NATIVE = "aten/src/ATen/native"
MM = f"{NATIVE}/mps/operations/ReduceOps.mm"
METAL = f"{NATIVE}/mps/kernels/ReduceOps.metal"
UTILS = "c10/metal/reduction_utils.h"
YAML = f"{NATIVE}/native_functions.yaml"
FAST = ("--no-build", "--no-test", "--no-try", "--no-compile")


def _at(definition: str) -> str:
    """Where the fixture's ReduceOps.cpp defines *definition*, as mpsgen names it."""
    lines = (DATA / "ReduceOps.cpp").read_text().split("\n")
    return f"{NATIVE}/ReduceOps.cpp:{next(i for i, ln in enumerate(lines, 1) if ln.startswith(definition))}"


def _lay(root: Path) -> Path:
    for name in ("ReduceOps.h", "ReduceOps.cpp", "LinearAlgebra.cpp"):
        (root / NATIVE / name).write_text((DATA / name).read_text())
    (root / MM).write_text((DATA / "ReduceOps.mm").read_text())
    (root / UTILS).write_text((DATA / "reduction_utils.h").read_text())
    entries = (DATA / "native_functions.yaml").read_text().split("\n", 1)[1]  # without its header comment
    (root / YAML).write_text((root / YAML).read_text() + entries)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "reductions"], cwd=root,
                   check=True)
    return root


OPS = ("sum", "mean", "amax", "amin", "nansum", "all")


def test_reductions_move_to_their_reduce_stubs_kernels(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("migrate", *OPS, *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    yaml = (root / YAML).read_text()
    for kernel in ("sum_out", "mean_out", "amax_out", "amin_out", "nansum", "nansum_out", "all_out", "all_all_out"):
        assert f"    CPU, CUDA, MPS: {kernel}\n" in yaml and f"MPS: {kernel}_mps" not in yaml
    assert "    MPS: prod_out_mps\n" in yaml
    assert (f"sum_out ({_at('TORCH_IMPL_FUNC(sum_out)')}) -> sum_stub: a TensorIterator reduction, "
            "the reduction kind (reduce_sum_<T>)") in r.stdout
    # all_out passes and_stub to allany_impl, whose get_allany_iter builds the reduction
    assert f"all_out ({_at('TORCH_IMPL_FUNC(all_out)')}) -> and_stub: a TensorIterator reduction" in r.stdout
    # the functional nansum hands its work to nansum_out: it moves with the family
    assert "moved nansum with the family: nansum_mps calls nansum_out_mps" in r.stdout

    metal = (root / METAL).read_text()
    assert metal.count("kernel void reduce(") == 1 and "threadgroup A partials[32];" in metal
    assert "accumulator = Op::simd(accumulator);" in metal and "threadgroup_barrier(mem_flags::mem_threadgroup);" in metal
    for struct in ("sum_op", "mean_op : sum_op", "nansum_op : sum_op", "max_op", "min_op", "all_op"):
        assert metal.count(f"struct {struct} {{") == 1, struct
    # the CPU's accumulation: float for half and bfloat, long for an integer or bool sum
    assert "::metal::conditional_t<::metal::is_integral_v<T>, long, opmath_t<T>>" in metal
    assert "return static_cast<T>(accumulator / static_cast<float>(length));" in metal  # mean divides in float
    for line in ("REGISTER_REDUCTION(reduce_sum, sum_op, bool);", "REGISTER_REDUCTION(reduce_sum, sum_op, float2);",
                 "REGISTER_REDUCTION(reduce_mean, mean_op, half);", "REGISTER_REDUCTION(reduce_amax, max_op, long);",
                 "REGISTER_REDUCTION(reduce_amin, min_op, uchar);", "REGISTER_REDUCTION(reduce_amin, min_op, bfloat);"):
        assert metal.count(line) == 1, line
    assert "REGISTER_REDUCTION(reduce_mean, mean_op, int);" not in metal  # mean takes floating and complex only
    assert "REGISTER_REDUCTION(reduce_all, all_op, uchar);" in metal and "::metal::simd_all(accumulator)" in metal
    assert "const A element = static_cast<A>(value);\n    return ::metal::isnan(element) ? accumulator" in metal

    utils = (root / UTILS).read_text()
    assert utils.startswith((DATA / "reduction_utils.h").read_text().rsplit("} // namespace metal", 1)[0])
    assert "inline ::metal::enable_if_t<::metal::is_floating_point_v<T>, T> simd_max(\n    T val) {" in utils
    assert "if (::metal::simd_any(::metal::isnan(val))) {" in utils  # NaN propagates as on the CPU
    assert "val += as_type<T>(::metal::simd_shuffle_down(as_type<int2>(val), offset));" in utils  # long: as int2

    mm = (root / MM).read_text()
    assert mm.count("static void reduce_mps_impl(TensorIteratorBase& iter, const std::string& kernel) {") == 1
    for op, stub in (("sum", "sum_stub"), ("mean", "mean_stub"), ("amax", "max_values_stub"),
                     ("amin", "min_values_stub"), ("nansum", "nansum_stub"), ("all", "and_stub")):
        assert f'static void {op}_mps_kernel(TensorIterator& iter) {{\n  reduce_mps_impl(iter, "reduce_{op}");\n}}' in mm
        assert mm.count(f"REGISTER_DISPATCH({stub}, &{op}_mps_kernel);") == 1
        assert f"TORCH_IMPL_FUNC({op}_out_mps)" not in mm and f"{op}_out_mps(" not in mm
    assert "TORCH_IMPL_FUNC(prod_out_mps)" in mm and "static void reduction_out_mps(" in mm  # prod still uses it
    assert "[computeEncoder dispatchThreadgroups:MTLSizeMake(groups, 1, 1) threadsPerThreadgroup:" in mm
    assert "#include <ATen/native/ReduceOps.h>" in mm and "#include <ATen/native/mps/ReduceOps_metallib.h>" in mm

    before = tracked_bytes(root)  # a second run: nothing to do, nothing written
    again = mpsgen("migrate", *OPS, *FAST, cwd=root)
    assert again.returncode == 0, again.stderr
    assert "sum is already on a native Metal kernel" in again.stdout and "all is already" in again.stdout
    assert tracked_bytes(root) == before


def test_prod_is_still_refused_and_status_lists_the_reductions(tree: Path) -> None:
    root = _lay(tree)
    before = tracked_bytes(root)
    r = mpsgen("migrate", "prod", *FAST, cwd=root)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"{YAML}:" in r.stderr and "prod.int_out is not a pointwise op" in r.stderr
    assert "is a TensorIterator reduction of prod_stub, which mpsgen's reduction kernels do not serve" in r.stderr
    assert tracked_bytes(root) == before
    s = mpsgen("-C", str(root), "status", "--op", "mean")
    assert s.returncode == 0, s.stderr
    assert (f"mean.out (mean_out_mps): candidate: mean_out ({_at('TORCH_IMPL_FUNC(mean_out)')}) calls mean_stub: "
            "a TensorIterator reduction (the reduction kind)") in s.stdout
    a = mpsgen("-C", str(root), "status", "--op", "all")  # all_out passes and_stub to allany_impl
    assert f"all_out ({_at('TORCH_IMPL_FUNC(all_out)')}) calls and_stub: a TensorIterator reduction" in a.stdout
    assert "prod.int_out (prod_out_mps): not a candidate" in mpsgen("-C", str(root), "status", "--op", "prod").stdout
    m = mpsgen("-C", str(root), "status", "--op", "aminmax")
    assert (f"aminmax.out (aminmax_out_mps): candidate: aminmax_out ({_at('TORCH_IMPL_FUNC(aminmax_out)')}) calls "
            "aminmax_stub: a reduction of whole tensors (the reduction kind)") in m.stdout


@pytest.mark.parametrize("wrong", ["", "one simdgroup", "diverged"])
def test_reduction_check_agrees_and_catches_wrong_kernels(tmp_path: Path, wrong: str) -> None:
    from mpsgen.emulate.reduce_check import check_reduction
    from mpsgen.generate import reduction_kernel as render

    _c10_headers_with_simd_helpers(tmp_path)
    metal = render.render_metal(["sum"], bfloat_guarded=True, templates_dir=None)
    if wrong == "one simdgroup":  # the second stage reads simdgroup 0's partial only
        metal = metal.replace("lane < simdgroups ? partials[lane]", "lane < 1 ? partials[lane]")
    elif wrong == "diverged":  # half the lanes skip the first simd_sum: the emulation's barrier never fills
        metal = metal.replace("  accumulator = Op::simd(accumulator);\n", "  if (lane < 16) {\n    accumulator = Op::simd(accumulator);\n  }\n", 1)
    types = ("half", "long", "float2")
    result = check_reduction("sum", metal, tmp_path, types)
    assert [r.dtype for r in result.rows] == ["float16", "int64", "complex64"]
    assert result.ok is not bool(wrong), [(r.dtype, r.first_mismatches) for r in result.rows]
    if wrong == "one simdgroup":  # only the reductions longer than one simdgroup's 32 threads
        assert all(r.mismatches for r in result.rows)
        assert all(m.inputs[0].startswith(("(37,)", "(4, 70)", "(70, 3)", "(2, 300)")) for r in result.rows
                   for m in r.first_mismatches)
    if wrong == "diverged":
        assert all("never reached by every thread" in r.note for r in result.rows)
    if not wrong:
        assert "2·n·2^-24·Σ|x|" in result.reference


@pytest.mark.parametrize("wrong", ["", "no root"])
def test_norm_check_agrees_and_catches_a_wrong_root(tmp_path: Path, wrong: str) -> None:
    from mpsgen.emulate.reduce_check import check_reduction
    from mpsgen.generate import reduction_kernel as render

    _c10_headers_with_simd_helpers(tmp_path)
    metal = render.render_metal(["norm"], bfloat_guarded=True, templates_dir=None)
    if wrong:  # ord p's sum of powers left without its 1/p root
        metal = metal.replace("return ::metal::precise::pow(accumulator, 1 / p);", "return accumulator;")
    result = check_reduction("norm", metal, tmp_path, ("half", "float2"))
    assert [(r.dtype, r.out_dtype) for r in result.rows] == [("float16", "float16"), ("complex64", "float32")]
    assert result.ok is not bool(wrong), [(r.dtype, r.first_mismatches) for r in result.rows]
    if wrong:  # only the p class: ord 3, 0.5 and -1.5
        assert all(m.inputs[0].split(" ord=")[1].startswith(("3.0", "0.5", "-1.5")) for r in result.rows
                   for m in r.first_mismatches)
    else:
        assert "(2n + 4)·2^-24/|p|" in result.reference


def test_norm_moves_through_linalg_vector_norm_once_mps_shares_it_and_aminmax_on_one_kernel(tree: Path) -> None:
    root = _lay(tree)
    before = tracked_bytes(root)
    alone = mpsgen("migrate", "norm", *FAST, cwd=root)  # linalg_vector_norm.out still on MPSGraph
    assert alone.returncode == 2 and alone.stderr.count("\n") == 1, alone.stderr
    assert (f"norm_dtype_out ({_at('TORCH_IMPL_FUNC(norm_dtype_out)')}) hands its work to "
            "at::linalg_vector_norm_out (through impl_func_norm), whose linalg_vector_norm.out still runs "
            "linalg_vector_norm_out_mps on MPS") in alone.stderr
    assert "hint: migrate linalg_vector_norm first, or both at once: `mpsgen migrate linalg_vector_norm norm`" \
        in alone.stderr
    assert tracked_bytes(root) == before
    s = mpsgen("-C", str(root), "status", "--op", "norm")
    assert (f"norm.out (norm_out_mps): not a candidate: norm_out ({_at('TORCH_IMPL_FUNC(norm_out)')}) hands its work "
            "to at::linalg_vector_norm_out (a reduction of norm_stub): waits for linalg_vector_norm") in s.stdout
    # norm's kernels join sum's file; amax's max_op is there when aminmax adds its own block
    r = mpsgen("migrate", "sum", "linalg_vector_norm", "norm", "amax", "aminmax", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "-> norm_stub: a TensorIterator reduction, the reduction kind (reduce_norm_<class>_<T>)" in r.stdout
    metal = (root / METAL).read_text()
    assert metal.count("kernel void reduce(") == 1 and metal.count("kernel void reduce_norm(") == 1
    assert metal.index("struct norm_op {") < metal.index("// NAME_<T> (reduce_<op>_<T>)")  # before the registrations
    for cls in ("zero", "one", "two", "inf", "neg_inf", "p"):  # the CPU's classes of the ord, a kernel each
        assert f"struct norm_{cls}_op : norm_op {{" in metal
        assert f"REGISTER_NORM(reduce_norm, {cls}, float2);" in metal  # complex64 in, float out
    assert "REGISTER_REDUCTION(reduce_sum, sum_op, float);" in metal  # sum's registrations kept
    assert "return ::metal::precise::pow(accumulator, 1 / p);" in metal
    assert "device typename norm_result<T>::type* output [[buffer(1)]]" in metal
    yaml = (root / YAML).read_text()
    for kernel in ("linalg_vector_norm_out", "norm_out", "norm_dtype_out"):
        assert f"    CPU, CUDA, MPS: {kernel}\n" in yaml and f"MPS: {kernel}_mps" not in yaml
    assert (f"norm_out ({_at('TORCH_IMPL_FUNC(norm_out)')}) -> at::linalg_vector_norm_out (through impl_func_norm), "
            "whose linalg_vector_norm.out MPS shares (linalg_vector_norm_out") in r.stdout
    mm = (root / MM).read_text()
    assert "TORCH_IMPL_FUNC(norm_out_mps)" not in mm and "TORCH_IMPL_FUNC(norm_dtype_out_mps)" not in mm
    assert "static void impl_func_norm_mps(" in mm and "Tensor _cdist_forward_mps(" in mm  # cdist still uses it
    assert mm.count("REGISTER_DISPATCH(norm_stub, &norm_mps_kernel);") == 1
    assert "static void norm_mps_kernel(TensorIterator& iter, const c10::Scalar& ord) {" in mm
    assert 'reduce_norm_mps_impl(iter, std::string("reduce_norm_") + kind, static_cast<float>(p));' in mm
    assert "mtl_setArgs(computeEncoder, input, output, sizes, input_strides, output_strides, dims, p);" in mm
    assert "TORCH_IMPL_FUNC(linalg_vector_norm_out_mps)" not in mm
    # aminmax: one kernel writing both outputs, a host kernel per stub
    assert "    CPU, CUDA, MPS: aminmax_out\n" in yaml
    assert "aminmax_stub / aminmax_allreduce_stub: a reduction of whole tensors (no iterator)" in r.stdout
    assert metal.count("struct max_op {") == 1 and metal.count("struct min_op {") == 1
    assert metal.count("kernel void reduce_aminmax(") == 1 and "REGISTER_AMINMAX(reduce_aminmax, char);" in metal
    assert "    low = min_op::fold(low, value);\n    high = max_op::fold(high, value);" in metal
    assert "min_output[min_offset] = static_cast<T>(low);" in metal  # each output through its own strides
    assert mm.count("static void aminmax_mps_impl(const Tensor& input,") == 1
    assert ("static void aminmax_mps_kernel(const Tensor& self, int64_t dim, bool keepdim, Tensor& min, Tensor& max) "
            "{\n  aminmax_mps_impl(self, dim, keepdim, min, max);\n}") in mm
    assert "aminmax_mps_impl(self, std::nullopt, false, min, max);" in mm
    assert mm.count("REGISTER_DISPATCH(aminmax_stub, &aminmax_mps_kernel);") == 1
    assert mm.count("REGISTER_DISPATCH(aminmax_allreduce_stub, &aminmax_allreduce_mps_kernel);") == 1
    assert "TORCH_IMPL_FUNC(aminmax_out_mps)" not in mm
    before = tracked_bytes(root)
    again = mpsgen("migrate", "linalg_vector_norm", "norm", "aminmax", *FAST, cwd=root)
    assert again.returncode == 0 and "linalg_vector_norm is already on a native Metal kernel" in again.stdout
    assert "norm is already on a native Metal kernel (norm_stub registered at" in again.stdout, again.stderr
    assert "aminmax is already on a native Metal kernel" in again.stdout
    assert tracked_bytes(root) == before


NORM_OPINFOS = '''op_db = [
    OpInfo('norm', dtypes=floating_and_complex_types_and(torch.float16, torch.bfloat16)),
    OpInfo('norm', variant_test_name='nuc', decorators=[skipCUDAIfNoMagmaAndNoCusolver, skipCPUIfNoLapack],
           dtypes=floating_and_complex_types()),
]
'''
NORM_LISTS = '''def mps_ops_modifier(ops):
    SUPPORTED_COMPLEX_OPS = {
        'add',
    }

    UNIMPLEMENTED_XFAILLIST = {
        'normnuc': None,
    }
'''


def test_an_opinfo_needing_lapack_keeps_its_test_lists() -> None:
    from mpsgen.sources.testlists import plan_test_lists

    plan = plan_test_lists("norm", common_mps_text=NORM_LISTS, cmi_text=NORM_OPINFOS, definitions={},
                           complex_action="add", supported_dtypes=("float32", "float16", "bfloat16", "complex64"),
                           common_mps_path="test_mps.py", cmi_path="cmi.py")
    text = plan.texts["test_mps.py"]
    assert "        'add',\n        'norm',\n    }" in text  # norm's own OpInfo: the reduction kernels serve it
    assert "'normnuc': None," in text and "        'normnuc',\n" not in text  # nuclear_norm's SVD: left alone


@pytest.mark.parametrize("wrong", ["", "min at max's offset"])
def test_aminmax_check_agrees_and_catches_an_output_through_the_wrong_strides(tmp_path: Path, wrong: str) -> None:
    from mpsgen.emulate.reduce_check import check_reduction
    from mpsgen.generate import reduction_kernel as render

    _c10_headers_with_simd_helpers(tmp_path)
    metal = render.render_metal(["aminmax"], bfloat_guarded=True, templates_dir=None)
    if wrong:
        metal = metal.replace("min_output[min_offset] =", "min_output[max_offset] =")
    result = check_reduction("aminmax", metal, tmp_path, ("half", "long"))
    assert [r.dtype for r in result.rows] == ["float16", "int64"]
    assert result.ok is not bool(wrong), [(r.dtype, r.first_mismatches) for r in result.rows]
    if wrong:  # only the case of two output dims, where the min output's strides are the transposed ones
        assert all(m.inputs[0].startswith("(3, 5, 6) dim=1 min") for r in result.rows for m in r.first_mismatches)

"""Binary kernels with scalars on PyTorch 2.7 (issue 31): that checkout has no exec_binary_kernel at all, only
BinaryKernel.mm's file-local binary_mps_impl and BinaryKernel.metal's REGISTER_BINARY_INDEXING_OP, so the
change adds their alpha forms, derived from those siblings (backfill/binary_alpha_host, backfill/binary_alpha_metal):
`binary_alpha_mps_impl<T>` binding the scalar (or the op's params struct) with mtl_setBytes after the kernel's
buffers, `binary_alpha_indexing` / `binary_alpha_dense` taking `constant T2& alpha` there, and
`REGISTER_BINARY_ALPHA_INDEXING_OP(NAME, DTYPE, DTYPEA)`.  A second op reuses them.

The tree: the scalar-ops tree (conftest.py's scalar_tree) with tests/data/binary27 (hand-written in the shape
of 2.7's BinaryKernel.metal/.mm and MetalShaderLibrary.h) laid over it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import emulated_compile_errors, mpsgen, only_insertions, tracked_bytes

from mpsgen.errors import MpsgenError
from mpsgen.plan.shape import choose_shape
from mpsgen.backfill import binary_alpha_host as binary_alpha_host
from mpsgen.backfill import binary_alpha_metal as binary_alpha_metal
from mpsgen.sources.host.api import read_host_api
from mpsgen.sources.native.stubs import StubDecl

DATA = Path(__file__).parent / "data" / "binary27"
MPS = "aten/src/ATen/native/mps"
METAL = f"{MPS}/kernels/BinaryKernel.metal"
MM = f"{MPS}/operations/BinaryKernel.mm"
MACRO = "REGISTER_BINARY_ALPHA_INDEXING_OP"


def _lay_2_7(root: Path) -> Path:
    shutil.copy(DATA / "BinaryKernel.metal", root / METAL)
    shutil.copy(DATA / "BinaryKernel.mm", root / MM)
    shutil.copy(DATA / "MetalShaderLibrary.h", root / MPS / "MetalShaderLibrary.h")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "2.7 binary"], cwd=root,
                   check=True, capture_output=True)
    return root


def _errors(root: Path) -> list[str]:
    """`mpsgen check`'s errors, without their lines (an insertion moves them)."""
    r = mpsgen("check", "--format", "json", cwd=root)
    found = json.loads(r.stdout)["findings"]
    return sorted(f"{f['path']}: {f['code']} {f['message']}" for f in found if f["severity"] == "error")


def test_threshold_adds_the_alpha_helper_and_kernels_modeled_on_the_file(scalar_tree: Path) -> None:
    root = _lay_2_7(scalar_tree)
    metal_before, mm_before = (root / METAL).read_text(), (root / MM).read_text()
    compile_before = emulated_compile_errors(root / METAL, root)
    r = mpsgen("migrate", "threshold", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"numeric check: \d+ dtype\(s\) agree with torch\.ops\.aten\.threshold", r.stdout), r.stdout
    api = [ln for ln in r.stdout.splitlines() if ln.startswith("  api ")]
    assert len(api) == 2 and "binary_alpha_mps_impl<T>" in api[0] and MACRO in api[1], r.stdout
    metal, mm = (root / METAL).read_text(), (root / MM).read_text()

    # Metal: the kernels derived from binary_indexing/binary_dense, alpha after their last buffer; the macro
    # keeps the sibling's host names; the op's struct before its functor; one registration per input type.
    assert "constant uint3* offsets [[buffer(3)]],\n    constant T2& alpha [[buffer(4)]],\n    uint tid" in metal
    assert "device alpha_result_of<T, T2, F>* out [[buffer(2)]],\n    constant T2& alpha [[buffer(3)]]," in metal
    assert "*out = f(*input, *other, alpha);" in metal and "out[tid] = f(input[tid], other[tid], alpha);" in metal
    assert metal.count(f"#define {MACRO}(NAME, DTYPE, DTYPEA)") == 1
    assert metal.index("#define REGISTER_BINARY_INDEXING_OP") < metal.index(f"#define {MACRO}") \
        < metal.index("REGISTER_BINARY_INDEXING_OP(copysign, long);")
    assert metal.index("struct ThresholdParams {") < metal.index("struct threshold_functor") < metal.index("// Future")
    assert f"{MACRO}(threshold, half, ThresholdParams<float>);" in metal  # opmath: half's scalars ride in float
    assert f"{MACRO}(threshold, long, ThresholdParams<long>);" in metal
    block = metal[metal.index("#if __METAL_VERSION__ >= 310"):metal.index("#endif")]
    assert f"{MACRO}(threshold, bfloat, ThresholdParams<float>);" in block
    assert "REGISTER_BINARY_ALPHA_OP" not in metal and "ThresholdParams_float" not in metal
    assert only_insertions(metal_before, metal)
    assert emulated_compile_errors(root / METAL, root) == compile_before

    # Host: the helper after binary_mps_impl, alpha after the dense kernel's tensors and the strided one's offsets;
    # the struct's host twin and AT_DISPATCH filling it in opmath; no shared header (2.7's Metal build sees none).
    helper = mm[mm.index("template <typename T>\nstatic void binary_alpha_mps_impl("):]
    assert mm.index("static void binary_mps_impl(") < mm.index("static void binary_alpha_mps_impl(")
    assert "mtl_setArgs(encoder, input, other, out, alpha);" in helper
    assert "[encoder setBuffer:offsets offset:0 atIndex:3];\n      mtl_setArgs<4>(encoder, alpha);" in helper
    assert "template <typename T>\nstruct ThresholdParams {\n  T threshold;\n  T value;\n};" in mm
    assert "const ThresholdParams<opmath_t> params{threshold.to<opmath_t>(), value.to<opmath_t>()};" in mm
    assert 'mps::binary_alpha_mps_impl(iter, "threshold", params);' in mm
    assert "#include <ATen/Dispatch.h>" in mm and "#include <ATen/OpMathType.h>" in mm
    assert "REGISTER_DISPATCH(threshold_stub, &threshold_mps_kernel)" in mm
    assert only_insertions(mm_before, mm)
    assert not (root / MPS / "kernels" / "Activation.h").exists()

    before = tracked_bytes(root)
    again = mpsgen("migrate", "threshold", "--no-build", "--no-test", cwd=root)
    assert again.returncode == 0 and tracked_bytes(root) == before, again.stdout + again.stderr


def test_a_second_op_reuses_the_helper_and_the_macro(scalar_tree: Path) -> None:
    root = _lay_2_7(scalar_tree)
    errors_before = _errors(root)
    r = mpsgen("migrate", "threshold", "huber_loss", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    huber = r.stdout[r.stdout.index("mpsgen migrate huber_loss:"):]
    assert "  api " not in huber and r.stdout.count("  api ") == 2, r.stdout
    metal, mm = (root / METAL).read_text(), (root / MM).read_text()
    assert metal.count(f"#define {MACRO}(") == 1 and metal.count("kernel void binary_alpha_dense(") == 1
    assert mm.count("static void binary_alpha_mps_impl(") == 1
    # one scalar: the alpha itself, in the input's type (the CPU kernel rounds delta to scalar_t)
    assert f"{MACRO}(huber_loss, half, half);" in metal
    assert "const scalar_t delta_value = static_cast<scalar_t>(delta);" in mm
    assert 'mps::binary_alpha_mps_impl(iter, "huber_loss", delta_value);' in mm
    assert _errors(root) == errors_before  # check knows what was written ...
    (root / MM).write_text(mm.replace('binary_alpha_mps_impl(iter, "huber_loss",', 'binary_alpha_mps_impl(iter, "huber",'))
    typo = [e for e in _errors(root) if e not in errors_before]  # ... and reads the helper's kernel names
    assert len(typo) == 1 and "MPS007 kernel 'huber' is run here but no kernels/*.metal registers it" in typo[0], typo


def test_the_numeric_check_compiles_the_written_kernels(scalar_tree: Path) -> None:
    # A file that already has the macro is reused, and the check compiles it as the file has it: a kernel
    # passing the functor a wrong argument count fails the check before anything is written.
    root = _lay_2_7(scalar_tree)
    metal = root / METAL
    text = binary_alpha_metal.add_binary_alpha(metal.read_text(), METAL)
    metal.write_text(text.replace("out[tid] = f(input[tid], other[tid], alpha);",
                                  "out[tid] = f(input[tid], other[tid], alpha, alpha);"))
    subprocess.run(["git", "commit", "-qam", "broken alpha kernel"], cwd=root, check=True, capture_output=True)
    before = tracked_bytes(root)
    r = mpsgen("migrate", "threshold", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 2, r.stdout + r.stderr
    # the compiler's error on the written kernel's call: the functor given alpha twice
    assert "no match for call to '(threshold_functor) (const float&, const float&, const ThresholdParams<float>&, " \
           "const ThresholdParams<float>&)'" in r.stderr, r.stderr
    assert tracked_bytes(root) == before


def test_complex_and_polar_move_to_the_stub_with_a_complex_result(scalar_tree: Path) -> None:
    # complex_out/polar_out build their iterator with check_all_same_dtype(false) for the complex output only:
    # a helper checked their inputs share one dtype, so 2.7's binary_mps_impl serves them (issue 31).
    root = _lay_2_7(scalar_tree)
    data = Path(__file__).parent / "data" / "complex27"
    native = "aten/src/ATen/native"
    for name in ("TensorFactories.h", "TensorFactories.cpp"):
        shutil.copy(data / name, root / native / name)
    mm = (root / MM).read_text()
    (root / MM).write_text(mm[: mm.rindex("}")] + (data / "BinaryKernel_complex.mm").read_text().lstrip("\n")
                           + mm[mm.rindex("}"):])
    metal = (root / METAL).read_text()  # polar's kernel is there already: reused, not written again
    metal = metal.replace("// Future", (data / "polar_functor.metal").read_text() + "\n// Future", 1)
    (root / METAL).write_text(metal.replace("\n#if __METAL_VERSION__ >= 310\n",
                                            "REGISTER_BINARY_INDEXING_OP(polar, float);\n"
                                            "REGISTER_BINARY_INDEXING_OP(polar, half);\n\n#if __METAL_VERSION__ >= 310\n", 1))
    yaml = root / native / "native_functions.yaml"
    text = yaml.read_text()
    for op in ("complex", "polar"):
        text = text.replace(f"    CPU, CUDA, MPS: {op}_out\n", f"    CPU, CUDA: {op}_out\n    MPS: {op}_out_mps\n", 1)
    yaml.write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "complex"], cwd=root,
                   check=True, capture_output=True)
    errors_before, metal_before = _errors(root), (root / METAL).read_text()

    r = mpsgen("migrate", "complex", "polar", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 dtype(s) agree with torch.complex" in r.stdout and "2 dtype(s) agree with torch.polar" in r.stdout
    assert re.search(r"float16 +\S.* ->  registered T->complex", r.stdout), r.stdout
    assert "kernel 'polar' is already registered" in r.stdout
    metal, mm = (root / METAL).read_text(), (root / MM).read_text()
    assert "struct complex_functor {\n" in metal and "inline c10::metal::vec2type_t<T> operator()(const T a, const T b) {\n" \
        "    return c10::metal::vec2type_t<T>(a, b);" in metal
    assert "REGISTER_BINARY_INDEXING_OP(complex, float);" in metal and "REGISTER_BINARY_INDEXING_OP(complex, half);" in metal
    assert "(complex, bfloat)" not in metal and metal.count("struct polar_functor") == 1  # no complex bfloat16
    assert only_insertions(metal_before, metal)
    for op in ("complex", "polar"):  # no same-dtype fallback: a float temporary cannot take the complex result
        assert f'static void {op}_mps_kernel(TensorIterator& iter) {{\n  //' in mm
        assert f'  mps::binary_mps_impl(iter, "{op}");\n}}' in mm and f"REGISTER_DISPATCH({op}_stub, &{op}_mps_kernel)" in mm
        assert f"{op}_out_mps" not in mm
    assert not set(_errors(root)) - set(errors_before)  # check knows what was written (nothing new)
    before = tracked_bytes(root)
    again = mpsgen("migrate", "complex", "polar", "--no-build", "--no-test", cwd=root)
    assert again.returncode == 0 and "nothing to do" in again.stdout and tracked_bytes(root) == before


# -- the editors, on the hand-written files ----------------------------------------------------------------


def test_the_metal_block_is_added_once_and_found_again() -> None:
    text = (DATA / "BinaryKernel.metal").read_text()
    added = binary_alpha_metal.add_binary_alpha(text, METAL)
    assert binary_alpha_metal.add_binary_alpha(added, METAL) == added
    assert only_insertions(text, added)
    found = binary_alpha_metal.block_in(added, METAL)
    assert found.startswith("template <typename T, typename T2, typename F>\nusing alpha_result_of")
    assert "kernel void binary_alpha_indexing(" in found and found.rstrip().endswith("uint tid)")
    derived = binary_alpha_metal.block_in(text, METAL)
    assert "binary_alpha_dense<DTYPE, DTYPEA, NAME##_functor>(" in derived
    assert "constant DTYPEA& alpha, \\\n      uint tid); \\" in derived


def test_a_metal_file_without_the_siblings_is_refused_in_one_line() -> None:
    text = (DATA / "BinaryKernel.metal").read_text()
    no_dense = re.sub(r"template <typename T, typename F>\nkernel void binary_dense\(.*?\n}\n", "", text, flags=re.S)
    assert "binary_dense(" not in no_dense
    with pytest.raises(MpsgenError) as err:
        binary_alpha_metal.add_binary_alpha(no_dense, METAL)
    assert f"{METAL} has no result_of, binary_indexing, binary_dense" in err.value.message
    assert "\n" not in err.value.render()


def test_the_host_helper_is_derived_and_refused_without_its_binds() -> None:
    text = (DATA / "BinaryKernel.mm").read_text()
    added = binary_alpha_host.add_helper(text, MM)
    assert binary_alpha_host.add_helper(added, MM) == added and only_insertions(text, added)
    assert ("static void binary_alpha_mps_impl(TensorIteratorBase& iter, const std::string func_name, const T alpha, "
            "bool supports_dense = true) {") in added
    unbound = text.replace("      mtl_setArgs(encoder, input, other, out);\n      [encoder setBuffer", "      [encoder setBuffer")
    with pytest.raises(MpsgenError, match="does not bind its tensors with one mtl_setArgs per kernel"):
        binary_alpha_host.add_helper(unbound, MM)


API_27 = read_host_api("void exec_unary_kernel(TensorIteratorBase& iter, const std::string& name, "
                       "std::optional<int64_t> extra = std::nullopt);\n", frozenset())._replace(binary_mps_impl=True)


def _decl(params: tuple[str, ...]) -> StubDecl:
    return StubDecl("x_stub", "void(*)(...)", params, ("",) * len(params), "ATen/native/X.h", "X.h", 3, returns="void")


def test_the_2_7_shape_rows() -> None:
    one, two = _decl(("TensorIteratorBase&", "double")), _decl(("TensorIteratorBase&", "const Scalar&", "const Scalar&"))
    shape = choose_shape(stub=one, call=None, operands=("a", "b"), schema_tensors=2, api=API_27)
    assert (shape.arity, shape.backfill) == ("binary_alpha", "binary_alpha_mps_impl")
    shape = choose_shape(stub=two, call=None, operands=("a", "b"), schema_tensors=2, api=API_27)
    assert (shape.arity, shape.backfill) == ("binary_params", "binary_alpha_mps_impl")
    plain = choose_shape(stub=_decl(("TensorIteratorBase&",)), call=None, operands=("a", "b"), schema_tensors=2,
                         api=API_27)
    assert (plain.arity, plain.backfill) == ("binary", "")
    # nothing in 2.7 runs three inputs: the change adds a ternary form of binary_mps_impl, with scalars its alpha form
    rows = {(d.params, t): choose_shape(stub=d, call=None, operands=("a", "b", "c"), schema_tensors=3, api=API_27)
            for d in (one, two, _decl(("TensorIteratorBase&",))) for t in [3]}
    assert sorted((s.arity, s.backfill) for s in rows.values()) == [
        ("ternary", "ternary_mps_impl"), ("ternary_alpha", "ternary_alpha_mps_impl"),
        ("ternary_params", "ternary_alpha_mps_impl")]


# -- three inputs: ternary_mps_impl and its kernels, derived from the binary ones ---------------------------


def _lay_ternary_2_7(root: Path) -> Path:
    """The 2.7 files and a c10/metal/indexing.h of 2.7's shape (offset helpers, no kernels)."""
    _lay_2_7(root)
    shutil.copy(DATA / "indexing.h", root / "c10/metal/indexing.h")
    subprocess.run(["git", "commit", "-qam", "2.7 indexing.h"], cwd=root, check=True, capture_output=True)
    return root


TERNARY = "REGISTER_TERNARY_ALPHA_INDEXING_OP"


def test_addcmul_adds_the_ternary_helper_and_kernels_and_addcdiv_reuses_them(scalar_tree: Path) -> None:
    root = _lay_ternary_2_7(scalar_tree)
    metal_before, mm_before, errors_before = (root / METAL).read_text(), (root / MM).read_text(), _errors(root)
    r = mpsgen("migrate", "addcmul", "addcdiv", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    for op in ("addcmul", "addcdiv"):
        assert re.search(rf"\d+ dtype\(s\) agree with torch\.ops\.aten\.{op} ", r.stdout), r.stdout
    addcmul, addcdiv = r.stdout.split("mpsgen migrate addcdiv:")
    api = [ln for ln in addcmul.splitlines() if ln.startswith("  api ")]
    assert len(api) == 2 and "ternary_alpha_mps_impl<T>" in api[0] and TERNARY in api[1], addcmul
    assert "  api " not in addcdiv  # reused
    metal, mm = (root / METAL).read_text(), (root / MM).read_text()

    # Metal: the binary kernels with a third input; the strided one computes its offsets from sizes and strides
    assert metal.count(f"#define {TERNARY}(NAME, DTYPE, DTYPEA)") == 1
    assert metal.count("kernel void ternary_alpha_indexing(") == 1 and "#include <c10/metal/indexing.h>" in metal
    assert "    constant void* other2_ [[buffer(2)]],\n    device void* out_ [[buffer(3)]]," in metal
    assert "constant uint& ndim [[buffer(9)]],\n    constant T2& alpha [[buffer(10)]]," in metal
    assert "c10::metal::pos_from_thread_index(long(tid), pos, sizes, ndim);" in metal
    assert "*out = f(*input, *other, *other2, alpha);" in metal
    assert "out[tid] = f(input[tid], other[tid], other2[tid], alpha);" in metal
    assert f"{TERNARY}(addcmul, half, float);" in metal and f"{TERNARY}(addcdiv, float, float);" in metal
    assert only_insertions(metal_before, metal)

    # Host: one helper after binary_mps_impl, a third input bound after the second, the sizes and strides
    # where binary_mps_impl binds its offsets, alpha last; both ops call it
    assert mm.count("static void ternary_alpha_mps_impl(") == 1 and "generateKernelDataOffsets" in mm_before
    start = mm.index("static void ternary_alpha_mps_impl(")
    helper = mm[start:mm.index("\n}\n", start)]
    assert "mtl_setArgs(encoder, input, other, other2, out, alpha);" in helper
    assert "iter.shape(),\n" in helper and "iter.strides(3),\n" in helper and "generateKernelDataOffsets" not in helper
    assert 'mps::ternary_alpha_mps_impl(iter, "addcmul", value_value);' in mm
    # addcmul's CPU kernel has no bool case and its OpInfo declares none: no bool kernel, nor a bool dispatch
    assert f"{TERNARY}(addcmul, bool" not in metal and f"{TERNARY}(addcmul, uchar, uchar);" in metal
    assert 'AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, iter.common_dtype(), "addcmul_mps"' in mm
    assert "the CPU kernel has no bool case (torch raises) and the OpInfo runs none: not registered" in addcmul
    assert 'mps::ternary_alpha_mps_impl(iter, "addcdiv", value_value);' in mm
    assert only_insertions(mm_before, mm)
    # PointwiseOps.mm loses what it held for them: the helper, the comments heading it and the two kernels
    pointwise = (root / "aten/src/ATen/native/mps/operations/PointwiseOps.mm").read_text()
    assert pointwise.endswith("#endif\n\nnamespace at::native {} // namespace at::native\n") and "addc" not in pointwise
    assert "PointwiseOps.mm holds no code any more: delete the file" in addcdiv
    assert _errors(root) == errors_before  # check knows the kernels' names ...
    (root / MM).write_text(mm.replace('ternary_alpha_mps_impl(iter, "addcdiv",', 'ternary_alpha_mps_impl(iter, "addcdivv",'))
    typo = [e for e in _errors(root) if e not in errors_before]  # ... run through the helper
    assert len(typo) == 1 and "MPS007 kernel 'addcdivv' is run here" in typo[0], typo
    (root / MM).write_text(mm)

    before = tracked_bytes(root)
    again = mpsgen("migrate", "addcmul", "addcdiv", "--no-build", "--no-test", cwd=root)
    assert again.returncode == 0 and tracked_bytes(root) == before, again.stdout + again.stderr


def test_a_checkout_with_the_ternary_api_reuses_it(scalar_tree: Path) -> None:
    from mpsgen.backfill import ternary_host
    from mpsgen.backfill import ternary_metal

    root = _lay_ternary_2_7(scalar_tree)
    (root / MM).write_text(ternary_host.add_alpha_helper((root / MM).read_text(), MM))
    (root / METAL).write_text(ternary_metal.add_ternary((root / METAL).read_text(), METAL, alpha=True))
    subprocess.run(["git", "commit", "-qam", "ternary api"], cwd=root, check=True, capture_output=True)
    r = mpsgen("migrate", "addcdiv", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "  api " not in r.stdout and "agree with torch.ops.aten.addcdiv" in r.stdout, r.stdout
    metal, mm = (root / METAL).read_text(), (root / MM).read_text()
    assert metal.count(f"#define {TERNARY}(") == 1 and mm.count("static void ternary_alpha_mps_impl(") == 1
    assert f"{TERNARY}(addcdiv, float, float);" in metal


def test_no_offset_helpers_no_ternary_kernel() -> None:
    from mpsgen.backfill.ternary_metal import require_offset_helpers

    text = (DATA / "indexing.h").read_text()
    assert require_offset_helpers(text, "c10/metal/indexing.h") == text
    with pytest.raises(MpsgenError, match="defines no pos_from_thread_index: nothing to compute") as err:
        require_offset_helpers(text.replace("pos_from_thread_index", "position_of"), "c10/metal/indexing.h")
    assert "\n" not in err.value.render()


def test_where_reads_its_condition_in_its_own_type(scalar_tree: Path) -> None:
    """where's iterator holds a bool condition and two inputs of the result's dtype: the change adds
    ternary_cond_mps_impl, naming kernels after both types, and kernels reading the condition as its own."""
    root = _lay_ternary_2_7(scalar_tree)
    for name, rel in (("TensorCompare.h", "TensorCompare.h"), ("TensorCompare.cpp", "TensorCompare.cpp"),
                      ("TensorCompare.mm", "mps/operations/TensorCompare.mm")):
        shutil.copyfile(DATA.parent / "mixed_dtypes" / name, root / "aten/src/ATen/native" / rel)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "where"], cwd=root, check=True, capture_output=True)
    metal_before, mm_before, errors_before = (root / METAL).read_text(), (root / MM).read_text(), _errors(root)
    r = mpsgen("migrate", "where", "--no-build", "--no-test", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"\d+ dtype\(s\) agree with torch\.where", r.stdout), r.stdout
    metal, mm = (root / METAL).read_text(), (root / MM).read_text()
    assert metal.count("#define REGISTER_TERNARY_COND_INDEXING_OP(NAME, CTYPE, DTYPE)") == 1
    assert '[[host_name(#NAME "_dense_" #CTYPE "_" #DTYPE)]]' in metal and "constant C* input [[buffer(0)]]" in metal
    assert "out[tid] = f(static_cast<T>(input[tid]), other[tid], other2[tid]);" in metal
    assert "REGISTER_TERNARY_COND_INDEXING_OP(where, bool, float);" in metal
    assert "REGISTER_TERNARY_INDEXING_OP" not in metal.replace("#define REGISTER_TERNARY_INDEXING_OP", "")
    assert only_insertions(metal_before, metal) and only_insertions(mm_before, mm)
    start = mm.index("static void ternary_cond_mps_impl(")
    helper = " ".join(mm[start:mm.index("\n}\n", start)].split())  # clang-format's line breaks aside
    assert "scalarToMetalTypeString(input), scalarToMetalTypeString(other)" in helper  # where_dense_bool_float
    assert '"_" + scalarToMetalTypeString(input) + "_" + scalarToMetalTypeString(other)' in helper  # where_bool_float
    assert "common_dtype" not in helper
    kernel = mm[mm.index("static void where_mps_kernel("):]
    kernel = kernel[:kernel.index("\n}\n")]
    assert ".add_owned_const_input(iter.input(0).to(device))\n" in kernel and "iter.input(0).to(device, dtype)" not in kernel
    assert 'mps::ternary_cond_mps_impl(iter, "where");' in kernel and "common_dtype" not in kernel
    from mpsgen.backfill.ternary_metal import add_ternary

    # a plain ternary op after where reuses where's result alias (one definition)
    assert add_ternary(metal, METAL, alpha=False).count("using ternary_result_of") == 1
    assert _errors(root) == errors_before  # check finds where_bool_float & co. registered ...
    (root / MM).write_text(mm.replace('ternary_cond_mps_impl(iter, "where")', 'ternary_cond_mps_impl(iter, "wher")'))
    typo = [e for e in _errors(root) if e not in errors_before]  # ... run through the helper
    assert len(typo) == 1 and "MPS007 kernel 'wher' is run here" in typo[0], typo
    (root / MM).write_text(mm)
    before = tracked_bytes(root)
    again = mpsgen("migrate", "where", "--no-build", "--no-test", cwd=root)
    assert again.returncode == 0 and "already on a native Metal kernel" in again.stdout and tracked_bytes(root) == before

"""The indexing kind (index_fill_stub, gather_stub, scatter_add_stub, scatter's four stubs): `migrate
index_fill_`, `gather`, `scatter_add` and `scatter` on the sample
laid with 2.7-shaped indexing files (tests/data/indexing: IndexKernel.h, TensorAdvancedIndexing.h/.cpp,
NamedTensor.cpp, Indexing.mm, Indexing.metal, ScatterGather.mm and the yaml entries, written after the real
files' shapes), the shared kernel found past the named-tensor overload, the stub only a CPU tensor reaches,
the refusal of another stub signature, status, and the numeric checks."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_support import mpsgen, tracked_bytes

from mpsgen.sources.native.shared_impl import find_shared_impl

DATA = Path(__file__).parent / "data" / "indexing"
NATIVE = "aten/src/ATen/native"
MM = f"{NATIVE}/mps/operations/Indexing.mm"
METAL = f"{NATIVE}/mps/kernels/Indexing.metal"
SG_MM = f"{NATIVE}/mps/operations/ScatterGather.mm"
SG_METAL = f"{NATIVE}/mps/kernels/ScatterGather.metal"
YAML = f"{NATIVE}/native_functions.yaml"
CMI = "torch/testing/_internal/common_methods_invocations.py"
COMMON_MPS = "torch/testing/_internal/common_mps.py"
FAST = ("--no-build", "--no-test", "--no-try", "--no-compile")
GRAD_XFAIL = '            "index_fill": [torch.float16, torch.float32],  # missing `aten::_unique`.\n'


def _lay(root: Path, index_kernel_h: str | None = None) -> Path:
    (root / NATIVE / "IndexKernel.h").write_text(index_kernel_h or (DATA / "IndexKernel.h").read_text())
    for name in ("TensorAdvancedIndexing.h", "TensorAdvancedIndexing.cpp", "NamedTensor.cpp"):
        (root / NATIVE / name).write_text((DATA / name).read_text())
    (root / MM).write_text((DATA / "Indexing.mm").read_text())
    (root / SG_MM).write_text((DATA / "ScatterGather.mm").read_text())
    (root / METAL).write_text((DATA / "Indexing.metal").read_text())
    entries = (DATA / "native_functions.yaml").read_text().split("\n", 1)[1]  # without its header comment
    (root / YAML).write_text((root / YAML).read_text() + entries)
    cmi = (root / CMI).read_text()
    anchor = "    OpInfo('add', dtypes=all_types_and(torch.bool, torch.half)),\n"
    (root / CMI).write_text(cmi.replace(anchor, anchor + "    OpInfo('index_fill', dtypes=all_types_and_complex_and("
                                                 "torch.bool, torch.float16, torch.bfloat16, torch.complex32)),\n"))
    lists = (root / COMMON_MPS).read_text()
    grad = '            "_chunk_cat": [torch.float16, torch.float32],\n'
    (root / COMMON_MPS).write_text(lists.replace(grad, grad + GRAD_XFAIL))
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "indexing"], cwd=root, check=True)
    return root


def test_index_fill_moves_to_index_fill_stubs_metal_kernel(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("migrate", "index_fill_", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    yaml = (root / YAML).read_text()
    assert "index_fill_mps_" not in yaml and yaml.count("    MPS: index_fill_\n") == 1
    assert "    CPU, CUDA, MPS: index_fill_\n" in yaml  # the int_Tensor overload's shared line
    assert "- func: index_fill_.Dimname_Scalar(Tensor(a!) self, Dimname dim, Tensor index, Scalar value) -> " \
           "Tensor(a!)\n  device_check: NoCheck   # TensorIterator\n  variants: method\n" in yaml  # left alone
    assert f"index_fill_ ({NATIVE}/TensorAdvancedIndexing.cpp:21) -> index_fill_stub: the indexing kind\n" in r.stdout
    assert "function index_fill_mps_ (a method call of an op only)" in r.stdout

    mm = (root / MM).read_text()
    for gone in ("index_fill_mps_(", "CachedGraph", "wrapped_scalar_tensor_mps"):
        assert gone not in mm, gone
    assert ("static void index_fill_mps_kernel(TensorIterator& iter,\n                                  int64_t dim,\n"
            "                                  int64_t self_dim_size,") in mm
    assert 'lib.getPipelineStateForFunc("index_fill_" + getBitSizeString(self.scalar_type()));' in mm
    assert "                  self_dim_size,\n                  self_dim_stride);" in mm
    assert mm.endswith("REGISTER_DISPATCH(index_stub, &mps::index_kernel_mps)\n"
                       "REGISTER_DISPATCH(index_fill_stub, &index_fill_mps_kernel)\n} // namespace at::native\n")

    metal = (root / METAL).read_text()
    assert metal.startswith((DATA / "Indexing.metal").read_text())  # appended to, the rest byte for byte
    assert "kernel void index_fill(" in metal and "self[self_offset + idx * dim_stride] = value;" in metal
    for size, t in (("8bit", "char"), ("16bit", "short"), ("32bit", "int"), ("64bit", "long")):
        assert f"REGISTER_INDEX_FILL_OP({size}, {t});" in metal, size

    lists = (root / COMMON_MPS).read_text()
    assert GRAD_XFAIL in lists  # its gradient still needs aten::_unique: the new kernel does not fix it
    assert '"index_fill",' in lists.split("SUPPORTED_COMPLEX_OPS", 1)[1].split("}", 1)[0]

    before = tracked_bytes(root)  # a second run: nothing to do, nothing written
    again = mpsgen("migrate", "index_fill_", *FAST, cwd=root)
    assert again.returncode == 0, again.stderr
    assert "nothing to do: index_fill is already on a native Metal kernel" in again.stdout
    assert tracked_bytes(root) == before

    check = mpsgen("-C", str(root), "check")
    assert " error" not in check.stdout.replace("0 errors", ""), check.stdout


def test_gather_moves_to_gather_stubs_metal_kernel_in_a_new_scatter_gather_metal(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("migrate", "gather", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "    CPU, CUDA, MPS: gather_out\n" in (root / YAML).read_text()
    assert (f"gather_out ({NATIVE}/TensorAdvancedIndexing.cpp:62) -> gather_stub: the indexing kind "
            "(gather_expanded_index_stub: only a CPU tensor reaches it)") in r.stdout
    mm = (root / SG_MM).read_text()
    assert "gather_out_mps" not in mm and "TORCH_IMPL_FUNC(scatter_src_out_mps)" in mm  # scatter's code stays
    assert ("namespace at::native {\n\n#ifndef PYTORCH_JIT_COMPILE_SHADERS\n"
            "static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();\n#else\n"
            "#include <ATen/native/mps/ScatterGather_metallib.h>\n#endif\n") in mm
    assert 'lib.getPipelineStateForFunc("gather_" + std::to_string(self_.element_size() * 8) + "bit");' in mm
    assert "static void gather_mps_kernel(const Tensor& result, const Tensor& self, int64_t dim, const Tensor& index)" in mm
    assert mm.endswith("REGISTER_DISPATCH(gather_stub, &gather_mps_kernel);\n} // namespace at::native\n")
    metal = (root / SG_METAL).read_text()
    assert metal.startswith("#include <metal_stdlib>\nusing namespace metal;\n\n// gather_stub's kernel.")
    assert "result[result_offset] = self[self_offset + idx * self_strides[dim]];" in metal
    assert [ln for ln in metal.splitlines() if ln.startswith("REGISTER_GATHER_OP(")] == [
        "REGISTER_GATHER_OP(8bit, char);", "REGISTER_GATHER_OP(16bit, short);", "REGISTER_GATHER_OP(32bit, int);",
        "REGISTER_GATHER_OP(64bit, long);"]
    before = tracked_bytes(root)
    again = mpsgen("migrate", "gather", *FAST, cwd=root)
    assert again.returncode == 0 and "nothing to do: gather is already on a native Metal kernel" in again.stdout
    assert tracked_bytes(root) == before
    check = mpsgen("-C", str(root), "check")
    assert " error" not in check.stdout.replace("0 errors", ""), check.stdout


def test_scatter_add_after_gather_appends_to_scatter_gather_metal(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("migrate", "gather", "scatter_add", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "    CPU, CUDA, MPS: scatter_add\n" in (root / YAML).read_text()
    assert (f"scatter_add ({NATIVE}/TensorAdvancedIndexing.cpp:74) -> scatter_add_stub: the indexing kind "
            "(scatter_add_expanded_index_stub: only a CPU tensor reaches it)") in r.stdout
    mm = (root / SG_MM).read_text()
    assert "scatter_add_mps_out" not in mm and "static void scatter_mps_general(" in mm  # scatter's helper stays
    assert mm.count("getBundledLibrary") == 1
    assert 'lib.getPipelineStateForFunc("scatter_add_" + scalarToMetalTypeString(self_));' in mm
    assert mm.endswith("REGISTER_DISPATCH(gather_stub, &gather_mps_kernel);\n"
                       "REGISTER_DISPATCH(scatter_add_stub, &scatter_add_mps_kernel);\n} // namespace at::native\n")
    metal = (root / SG_METAL).read_text()
    assert metal.index("kernel void gather(") < metal.index("kernel void scatter_add(")  # one file, appended
    assert "struct scatter_add_acc<half> {\n  using type = float;\n};" in metal  # the CPU's float buffer
    assert "REGISTER_SCATTER_ADD_OP(float2);\n#if __METAL_VERSION__ >= 310\nREGISTER_SCATTER_ADD_OP(bfloat);\n#endif" \
        not in metal and "REGISTER_SCATTER_ADD_OP(bfloat);" in metal  # the sample's c10/metal does not guard bfloat
    before = tracked_bytes(root)
    again = mpsgen("migrate", "scatter_add", *FAST, cwd=root)
    assert again.returncode == 0 and "nothing to do: scatter_add is already" in again.stdout
    assert tracked_bytes(root) == before


def test_scatter_registers_its_four_stubs_on_one_kernel(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("migrate", "scatter", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    yaml = (root / YAML).read_text()
    assert "    CPU, CUDA, MPS: scatter_src_out\n" in yaml and "    CPU, CUDA, MPS: scatter_value_out\n" in yaml
    assert (f"scatter_src_out ({NATIVE}/TensorAdvancedIndexing.cpp:112) -> scatter_stub, scatter_fill_stub, "
            "scatter_reduce_stub, scatter_scalar_reduce_stub: the indexing kind") in r.stdout
    mm = (root / SG_MM).read_text()
    assert "scatter_src_out_mps" not in mm and "scatter_value_out_mps" not in mm and "scatter_add_mps_out" in mm
    assert mm.endswith("REGISTER_DISPATCH(scatter_stub, &scatter_mps_kernel);\n"
                       "REGISTER_DISPATCH(scatter_fill_stub, &scatter_fill_mps_kernel);\n"
                       "REGISTER_DISPATCH(scatter_reduce_stub, &scatter_reduce_mps_kernel);\n"
                       "REGISTER_DISPATCH(scatter_scalar_reduce_stub, &scatter_scalar_reduce_mps_kernel);\n"
                       "} // namespace at::native\n")
    fill = mm[mm.index("static void scatter_fill_mps_kernel("): mm.index("static void scatter_reduce_mps_kernel(")]
    assert "getMPSScalar(src, self_.scalar_type())," in fill and "const uint32_t op = 0;" in fill
    reduce = mm[mm.index("static void scatter_scalar_reduce_mps_kernel("):]
    assert "const uint32_t op = reduce == ReductionType::SUM ? 1 : 2;" in reduce and "src_strides," in reduce
    metal = (root / SG_METAL).read_text()
    assert metal.count("kernel void scatter(") == 1 and "inline float2 scatter_mul(float2 a, float2 b) {" in metal
    before = tracked_bytes(root)
    again = mpsgen("migrate", "scatter", *FAST, cwd=root)
    assert again.returncode == 0 and "nothing to do: scatter is already" in again.stdout
    assert tracked_bytes(root) == before
    check = mpsgen("-C", str(root), "check")
    assert " error" not in check.stdout.replace("0 errors", ""), check.stdout


def test_a_stub_a_tensor_off_the_cpu_reaches_is_not_passed_over(tree: Path) -> None:
    text = (DATA / "TensorAdvancedIndexing.cpp").read_text().replace(
        "  if (!self.device().is_cpu()) {\n    return false;\n  }\n", "")
    root = _lay(tree)
    (root / NATIVE / "TensorAdvancedIndexing.cpp").write_text(text)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "any device"], cwd=root,
                   check=True)
    before = tracked_bytes(root)
    r = mpsgen("migrate", "gather", *FAST, cwd=root)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert tracked_bytes(root) == before


def test_the_shared_kernel_is_the_int_overload_not_the_named_one() -> None:
    sources = {f"{NATIVE}/{n}": (DATA / n).read_text() for n in ("NamedTensor.cpp", "TensorAdvancedIndexing.cpp")}
    impl = find_shared_impl(sources, "index_fill_")
    assert impl is not None and impl.path.endswith("TensorAdvancedIndexing.cpp") and impl.line == 21
    assert impl.stub_names == ("index_fill_stub",)
    alone = find_shared_impl({f"{NATIVE}/NamedTensor.cpp": sources[f"{NATIVE}/NamedTensor.cpp"]}, "index_fill_")
    assert alone is None  # a Dimname overload is never a dispatch key's kernel


def test_a_plain_kernel_is_judged_from_the_region_its_lookup_masked() -> None:
    """The named-overload test reads the definition's head from the region plain_function masked: the
    whole file is not masked for it (the shared-kernel search finds ~100 plain kernels in files it
    never masks otherwise), and the answer is the one a whole-file mask gives."""
    from mpsgen.sources.index import index_of

    texts = {n: (DATA / n).read_text() for n in ("NamedTensor.cpp", "TensorAdvancedIndexing.cpp")}
    regions = {f"{NATIVE}/{n}": t for n, t in texts.items()}
    wholes = {f"whole/{n}": t for n, t in texts.items()}  # other paths: indexes of their own
    for path, text in wholes.items():
        index_of(path, text).masked  # noqa: B018 - masked whole before the lookup
    by_region, by_whole = find_shared_impl(regions, "index_fill_"), find_shared_impl(wholes, "index_fill_")
    assert by_region is not None and by_whole is not None
    assert by_region._replace(path="") == by_whole._replace(path="") and by_region.line == 21
    assert "_masked" not in index_of(f"{NATIVE}/TensorAdvancedIndexing.cpp", texts["TensorAdvancedIndexing.cpp"]).__dict__
    assert find_shared_impl({f"{NATIVE}/NamedTensor.cpp": texts["NamedTensor.cpp"]}, "index_fill_") is None


def test_a_stub_of_another_signature_is_refused(tree: Path) -> None:
    other = (DATA / "IndexKernel.h").read_text().replace("int64_t self_dim_stride, ", "")
    root = _lay(tree, other)
    before = tracked_bytes(root)
    r = mpsgen("migrate", "index_fill_", *FAST, cwd=root)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"{YAML}:" in r.stderr and "index_fill_.int_Scalar is not a pointwise op" in r.stderr
    assert tracked_bytes(root) == before


def test_try_checks_the_kernel_migrate_would_write(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("try", "gather", cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("checked: plan (aten/src/ATen/native/mps/kernels/ScatterGather.metal)\n")
    assert "float32" in r.stdout and "int64" in r.stdout and r.stdout.endswith("all dtypes agree\n")
    assert not (root / "aten/src/ATen/native/mps/kernels/ScatterGather.metal").exists()  # nothing written


def test_status_lists_index_fill_as_a_candidate_of_the_indexing_kind(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("-C", str(root), "status", "--op", "index_fill")
    assert r.returncode == 0, r.stderr
    assert "frontier: candidate" in r.stdout
    assert (f"index_fill_.int_Scalar (index_fill_mps_): candidate: index_fill_ ({NATIVE}/TensorAdvancedIndexing.cpp:21)"
            " calls index_fill_stub: the indexing kind") in r.stdout


def test_gather_check_agrees_and_catches_a_kernel_ignoring_dim() -> None:
    from mpsgen.emulate.gather_check import TYPES, check_gather
    from mpsgen.generate.indexing_kernel import render_metal

    metal = "#include <metal_stdlib>\n\n" + render_metal("gather", "gather_stub", None)
    root = Path(__file__).resolve().parents[1] / "fixtures" / "sample"
    good = check_gather("gather", "gather_stub", metal, root)
    assert good.ok and [r.dtype for r in good.rows] == list(TYPES)
    wrong = check_gather("gather", "gather_stub", metal.replace("if (d != int(dim)) {", "if (true) {"), root)
    assert all(r.mismatches for r in wrong.rows) and wrong.rows[0].first_mismatches[0].inputs[0].startswith("dim 0,")


def test_scatter_add_check_agrees_and_catches_a_sum_in_half() -> None:
    from mpsgen.emulate.scatter_add_check import TYPES, check_scatter_add
    from mpsgen.generate.indexing_kernel import render_metal

    metal = "#include <metal_stdlib>\n\n" + render_metal("scatter_add", "scatter_add_stub", None)
    root = Path(__file__).resolve().parents[1] / "fixtures" / "sample"
    good = check_scatter_add("scatter_add", "scatter_add_stub", metal, root)
    assert good.ok and [r.dtype for r in good.rows] == list(TYPES)
    # rounding to half after each add, not once from the CPU kernel's float buffer
    half = metal.replace("struct scatter_add_acc<half> {\n  using type = float;", "struct scatter_add_acc<half> {\n  using type = half;")
    wrong = check_scatter_add("scatter_add", "scatter_add_stub", half, root)
    assert [r.dtype for r in wrong.rows if not r.ok] == ["float16"]


def test_scatter_check_agrees_and_catches_the_first_duplicate_winning() -> None:
    from mpsgen.emulate.scatter_check import check_scatter
    from mpsgen.generate.indexing_kernel import render_metal

    metal = "#include <metal_stdlib>\n\n" + render_metal("scatter", "scatter_stub", None)
    root = Path(__file__).resolve().parents[1] / "fixtures" / "sample"
    assert check_scatter("scatter", "scatter_stub", metal, root).ok
    first = metal.replace("    changed = true;\n", "    changed = true;\n    break;\n")  # the CPU's last one wins
    wrong = check_scatter("scatter", "scatter_stub", first, root)
    assert all(r.mismatches for r in wrong.rows)
    assert wrong.rows[0].first_mismatches[0].inputs[0].startswith("dim 0, duplicates (src)")


def test_index_fill_check_agrees_and_catches_an_unwrapped_negative_index() -> None:
    from mpsgen.emulate.index_fill_check import TYPES, check_index_fill
    from mpsgen.generate.indexing_kernel import render_metal

    metal = "#include <metal_stdlib>\n\n" + render_metal("index_fill", "index_fill_stub", None)
    root = Path(__file__).resolve().parents[1] / "fixtures" / "sample"
    good = check_index_fill("index_fill", "index_fill_stub", metal, root)
    assert good.ok and [r.dtype for r in good.rows] == list(TYPES)
    wrong = check_index_fill("index_fill", "index_fill_stub", metal.replace("idx += dim_size;", "idx += 0;"), root)
    assert all(r.mismatches for r in wrong.rows)
    first = wrong.rows[0].first_mismatches[0]
    assert first.inputs == ("2.5 (dense dim 0), from byte 360",) and first.got.endswith(" +guard")  # a write before self

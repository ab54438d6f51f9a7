"""The indexing kind (index_fill_stub): `migrate index_fill_` on the sample laid with 2.7-shaped indexing
files (tests/data/indexing: IndexKernel.h, TensorAdvancedIndexing.cpp, NamedTensor.cpp, Indexing.mm,
Indexing.metal and the yaml entries, written after the real files' shapes), the shared kernel found past
the named-tensor overload, the refusal of another stub signature, status, and the numeric check."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_support import mpsgen, tracked_bytes

from mpsgen.sources.native.shared_impl import find_shared_impl

DATA = Path(__file__).parent / "data" / "indexing"
NATIVE = "aten/src/ATen/native"
MM = f"{NATIVE}/mps/operations/Indexing.mm"
METAL = f"{NATIVE}/mps/kernels/Indexing.metal"
YAML = f"{NATIVE}/native_functions.yaml"
CMI = "torch/testing/_internal/common_methods_invocations.py"
COMMON_MPS = "torch/testing/_internal/common_mps.py"
FAST = ("--no-build", "--no-test", "--no-try", "--no-compile")
GRAD_XFAIL = '            "index_fill": [torch.float16, torch.float32],  # missing `aten::_unique`.\n'


def _lay(root: Path, index_kernel_h: str | None = None) -> Path:
    (root / NATIVE / "IndexKernel.h").write_text(index_kernel_h or (DATA / "IndexKernel.h").read_text())
    for name in ("TensorAdvancedIndexing.cpp", "NamedTensor.cpp"):
        (root / NATIVE / name).write_text((DATA / name).read_text())
    (root / MM).write_text((DATA / "Indexing.mm").read_text())
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
    assert (f"index_fill_ ({NATIVE}/TensorAdvancedIndexing.cpp:10) -> index_fill_stub: an iterator of one output "
            "and one index, the indexing kind") in r.stdout
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


def test_the_shared_kernel_is_the_int_overload_not_the_named_one() -> None:
    sources = {f"{NATIVE}/{n}": (DATA / n).read_text() for n in ("NamedTensor.cpp", "TensorAdvancedIndexing.cpp")}
    impl = find_shared_impl(sources, "index_fill_")
    assert impl is not None and impl.path.endswith("TensorAdvancedIndexing.cpp") and impl.line == 10
    assert impl.stub_names == ("index_fill_stub",)
    alone = find_shared_impl({f"{NATIVE}/NamedTensor.cpp": sources[f"{NATIVE}/NamedTensor.cpp"]}, "index_fill_")
    assert alone is None  # a Dimname overload is never a dispatch key's kernel


def test_a_stub_of_another_signature_is_refused(tree: Path) -> None:
    other = (DATA / "IndexKernel.h").read_text().replace("int64_t self_dim_stride, ", "")
    root = _lay(tree, other)
    before = tracked_bytes(root)
    r = mpsgen("migrate", "index_fill_", *FAST, cwd=root)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"{YAML}:" in r.stderr and "index_fill_.int_Scalar is not a pointwise op" in r.stderr
    assert tracked_bytes(root) == before


def test_status_lists_index_fill_as_a_candidate_of_the_indexing_kind(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("-C", str(root), "status", "--op", "index_fill")
    assert r.returncode == 0, r.stderr
    assert "frontier: candidate" in r.stdout
    assert (f"index_fill_.int_Scalar (index_fill_mps_): candidate: index_fill_ ({NATIVE}/TensorAdvancedIndexing.cpp:10)"
            " calls index_fill_stub: an iterator of one output and one index (the indexing kind)") in r.stdout


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

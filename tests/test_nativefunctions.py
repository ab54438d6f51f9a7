"""nativefunctions: index facts, families and dispatch edits on small hand-written texts."""

from __future__ import annotations

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.sources.native_yaml.names import (
    add_mps_to_family,
    family_key,
    index_text,
    migrate_family,
)

# A small file in the real file's shapes (written for these tests).
SAMPLE = """\
# Header comment
# more header

- func: asinh(Tensor self) -> Tensor
  variants: function, method
  structured_delegate: asinh.out
  dispatch:
    SparseCPU, SparseCUDA, SparseMPS: asinh_sparse
  tags: [core, pointwise]

- func: asinh_(Tensor(a!) self) -> Tensor(a!)
  variants: function, method
  structured_delegate: asinh.out
  tags: pointwise

- func: asinh.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  device_check: NoCheck   # TensorIterator
  structured: True
  structured_inherits: TensorIteratorBase
  dispatch:
    CPU, CUDA: asinh_out
    MPS: asinh_out_mps
    SparseCPU, SparseCUDA, SparseMPS: asinh_sparse_out
    SparseCsrCPU, SparseCsrCUDA, SparseCsrMeta: asinh_sparse_csr_out
  tags: pointwise
# arcsinh, alias for asinh

- func: fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    # NB: a comment inside the block

    CPU, CUDA, MTIA: fmod_out
    MPS: fmod_mps_out
  tags: pointwise

- func: fmod.Tensor(Tensor self, Tensor other) -> Tensor
  structured_delegate: fmod.Tensor_out

- func: signbit.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: signbit_out
    CUDA: signbit_out
    MPS: signbit_out_mps
  tags: pointwise

- func: gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: gelu_out_cpu
    CUDA: gelu_out_cuda
    MPS: gelu_out_mps

- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  structured: True
  ufunc_inner_loop:
    Generic: add (AllAndComplex, BFloat16, Half, ComplexHalf)
  dispatch:
    SparseCPU, SparseMeta: add_out_sparse_cpu
    MPS: add_out_mps

- func: hypot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU, CUDA, MPS: hypot_out

- func: heaviside.out(Tensor self, Tensor values, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch: # backends with a kernel
    CPU, CUDA: heaviside_out

- func: heaviside(Tensor self, Tensor values) -> Tensor
  structured_delegate: heaviside.out

- func: special_log_ndtr.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: special_log_ndtr_out
    CUDA: special_log_ndtr_out

- func: _empty_thing(Tensor self) -> Tensor
  dispatch: {}

- func: flowy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch: {CPU: flowy_out}
"""


def lines_of(text: str) -> list[str]:
    return text.split("\n")


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """(removed, added) lines between two texts, by multiset difference."""
    import collections

    a, b = collections.Counter(lines_of(before)), collections.Counter(lines_of(after))
    return sorted((a - b).elements()), sorted((b - a).elements())


# -- index ---------------------------------------------------------------------------------
def test_index_entry_fields_and_spans() -> None:
    idx = index_text(SAMPLE, "nf.yaml")
    out = idx.entry("asinh.out")
    assert (out.base, out.overload) == ("asinh", "out")
    assert out.line == 16 and out.end_line == 25  # the column-0 comment after it is not part of it
    assert out.structured and out.structured_inherits == "TensorIteratorBase"
    assert out.structured_delegate is None
    assert out.tags == ("pointwise",)
    assert out.dispatch_line == 20
    assert [(d.line, d.keys, d.kernel) for d in out.dispatch] == [
        (21, ("CPU", "CUDA"), "asinh_out"),
        (22, ("MPS",), "asinh_out_mps"),
        (23, ("SparseCPU", "SparseCUDA", "SparseMPS"), "asinh_sparse_out"),
        (24, ("SparseCsrCPU", "SparseCsrCUDA", "SparseCsrMeta"), "asinh_sparse_csr_out"),
    ]
    functional = idx.entry("asinh")
    assert functional.tags == ("core", "pointwise")
    assert functional.structured_delegate == "asinh.out"
    assert functional.mps_route == "none"  # SparseMPS is a different key


def test_index_comments_blank_lines_and_dispatch_comment() -> None:
    idx = index_text(SAMPLE)
    fmod = idx.entry("fmod.Tensor_out")
    assert [(d.keys, d.kernel) for d in fmod.dispatch] == [(("CPU", "CUDA", "MTIA"), "fmod_out"), (("MPS",), "fmod_mps_out")]
    assert fmod.odd_lines == ()
    heav = idx.entry("heaviside.out")
    assert heav.dispatch_line is not None and [d.kernel for d in heav.dispatch] == ["heaviside_out"]
    empty = idx.entry("_empty_thing")
    assert empty.dispatch == () and empty.odd_lines == () and empty.dispatch_line is not None
    flowy = idx.entry("flowy.out")
    assert flowy.odd_lines == (flowy.dispatch_line,)
    add = idx.entry("add.out")
    assert [d.kernel for d in add.dispatch] == ["add_out_sparse_cpu", "add_out_mps"]  # ufunc_inner_loop ignored


def test_index_counts_every_entry_and_line_numbers_match() -> None:
    idx = index_text(SAMPLE)
    names = [e.name for e in idx.entries]
    assert len(names) == SAMPLE.count("\n- func:") + SAMPLE.startswith("- func:")
    for e in idx.entries:
        assert lines_of(SAMPLE)[e.line - 1].startswith(f"- func: {e.name}(")


def test_routes_and_shared_kernels() -> None:
    idx = index_text(SAMPLE)
    assert idx.entry("asinh.out").mps_route == "legacy"
    assert idx.entry("hypot.out").mps_route == "shared"
    assert idx.entry("heaviside.out").mps_route == "none"
    site = idx.entry("signbit.out").shared_kernel()
    assert (site.kernel, site.line) == ("signbit_out", None)
    gelu = idx.entry("gelu.out").shared_kernel()
    assert gelu.kernel is None and "gelu_out_cpu" in gelu.reason and "gelu_out_cuda" in gelu.reason
    assert idx.entry("add.out").shared_kernel().kernel is None


def test_crlf_text_indexes_like_lf() -> None:
    crlf = SAMPLE.replace("\n", "\r\n")
    a, b = index_text(SAMPLE), index_text(crlf)
    assert b.newline == "\r\n"
    assert [(e.name, e.line, e.end_line, [(d.keys, d.kernel, d.text) for d in e.dispatch]) for e in a.entries] == [
        (e.name, e.line, e.end_line, [(d.keys, d.kernel, d.text) for d in e.dispatch]) for e in b.entries
    ]


# -- families ------------------------------------------------------------------------------
def test_family_members_and_name_forms() -> None:
    idx = index_text(SAMPLE)
    assert [e.name for e in idx.family("asinh").entries] == ["asinh", "asinh_", "asinh.out"]
    assert idx.family("asinh_").name == "asinh"
    assert idx.family("torch.asinh").name == "asinh"
    assert idx.family("special.log_ndtr").name == "special_log_ndtr"
    assert idx.family("fmod").legacy_kernels == ("fmod_mps_out",)
    assert set(idx.families()) >= {"asinh", "fmod", "signbit", "hypot", "heaviside", "_empty_thing"}
    assert family_key("__iand__") == "__iand__" and family_key("relu_") == "relu"


def test_family_facts() -> None:
    idx = index_text(SAMPLE)
    asinh = idx.family("asinh")
    assert asinh.has_mps and not asinh.is_migrated
    assert asinh.legacy_kernels == ("asinh_out_mps",) and asinh.shared_kernels == ("asinh_out",)
    assert asinh.effective_route(idx.entry("asinh_")) == "legacy"
    hypot = idx.family("hypot")
    assert hypot.has_mps and hypot.is_migrated
    assert not idx.family("heaviside").has_mps


def test_unknown_family_suggests_closest() -> None:
    with pytest.raises(MpsgenError) as err:
        index_text(SAMPLE, "nf.yaml").family("asihn")
    rendered = err.value.render()
    assert "asinh" in rendered and rendered.startswith("nf.yaml: ") and "\n" not in rendered


# -- migrate -------------------------------------------------------------------------------
def test_migrate_moves_mps_onto_shared_key_byte_exact() -> None:
    edit = migrate_family(SAMPLE, "asinh")
    removed, added = changed_lines(SAMPLE, edit.text)
    assert removed == ["    CPU, CUDA: asinh_out", "    MPS: asinh_out_mps"]
    assert added == ["    CPU, CUDA, MPS: asinh_out"]
    assert len(lines_of(edit.text)) == len(lines_of(SAMPLE)) - 1
    assert [(c.entry, c.line, c.old, c.new) for c in edit.changes] == [
        ("asinh.out", 21, "    CPU, CUDA: asinh_out", "    CPU, CUDA, MPS: asinh_out"),
        ("asinh.out", 22, "    MPS: asinh_out_mps", None),
    ]
    assert edit.legacy_kernels == ("asinh_out_mps",) and edit.shared_kernels == ("asinh_out",)
    again = migrate_family(edit.text, "asinh")
    assert again.text == edit.text and not again.changed
    assert index_text(edit.text).family("asinh").is_migrated


def test_migrate_keeps_other_keys_in_order_and_irregular_names() -> None:
    edit = migrate_family(SAMPLE, "fmod")
    # MPS before MTIA, as upstream's own fmod migration (#154280) wrote it in the 2.13 yaml.
    assert "    CPU, CUDA, MPS, MTIA: fmod_out\n" in edit.text
    assert "fmod_mps_out" not in edit.text
    assert "    # NB: a comment inside the block\n\n    CPU, CUDA, MPS, MTIA" in edit.text
    assert edit.legacy_kernels == ("fmod_mps_out",)


def test_migrate_separate_cpu_cuda_lines_points_mps_at_kernel() -> None:
    edit = migrate_family(SAMPLE, "signbit")
    assert changed_lines(SAMPLE, edit.text) == (["    MPS: signbit_out_mps"], ["    MPS: signbit_out"])
    after = index_text(edit.text)
    assert after.entry("signbit.out").mps_route == "shared" and after.family("signbit").is_migrated
    assert migrate_family(edit.text, "signbit").changes == ()


@pytest.mark.parametrize("op, why", [("gelu", "gelu_out_cpu but CUDA uses gelu_out_cuda"), ("add", "no CPU or CUDA")])
def test_migrate_refuses_without_a_shareable_kernel(op: str, why: str) -> None:
    with pytest.raises(MpsgenError) as err:
        migrate_family(SAMPLE, op, path="nf.yaml")
    rendered = err.value.render()
    assert why in rendered and "--shared-kernel" in rendered
    line = lines_of(SAMPLE)[err.value.line - 1]
    assert line == f"    MPS: {op}_out_mps" and rendered.startswith(f"nf.yaml:{err.value.line}: ")


def test_migrate_with_named_shared_kernel() -> None:
    edit = migrate_family(SAMPLE, "gelu", shared_kernel="gelu_out_cpu")
    # gelu_out_cpu is on a CPU-only line: MPS joins that key.
    assert changed_lines(SAMPLE, edit.text) == (
        ["    CPU: gelu_out_cpu", "    MPS: gelu_out_mps"],
        ["    CPU, MPS: gelu_out_cpu"],
    )
    add = migrate_family(SAMPLE, "add", shared_kernel={"add.out": "add_out"})
    assert changed_lines(SAMPLE, add.text) == (["    MPS: add_out_mps"], ["    MPS: add_out"])
    assert migrate_family(add.text, "add", shared_kernel={"add.out": "add_out"}).changes == ()


def test_migrate_removes_leftover_line_when_already_shared() -> None:
    text = SAMPLE.replace("    CPU, CUDA, MPS: hypot_out\n", "    CPU, CUDA, MPS: hypot_out\n    MPS: hypot_out_mps\n")
    idx = index_text(text)
    assert idx.entry("hypot.out").duplicate_mps and idx.entry("hypot.out").mps_route == "legacy"
    edit = migrate_family(text, "hypot")
    assert edit.text == SAMPLE
    assert not index_text(edit.text).entry("hypot.out").duplicate_mps


def test_migrate_refuses_flow_dispatch_with_location() -> None:
    with pytest.raises(MpsgenError) as err:
        migrate_family(SAMPLE, "flowy", path="nf.yaml")
    assert lines_of(SAMPLE)[err.value.line - 1] == "  dispatch: {CPU: flowy_out}"


def test_migrate_noop_for_family_without_mps_and_already_migrated() -> None:
    assert migrate_family(SAMPLE, "heaviside").text is SAMPLE
    assert migrate_family(SAMPLE, "hypot").changes == ()


def test_migrate_crlf_keeps_line_endings() -> None:
    crlf = SAMPLE.replace("\n", "\r\n")
    edit = migrate_family(crlf, "asinh")
    assert edit.text == migrate_family(SAMPLE, "asinh").text.replace("\n", "\r\n")


# -- new-op --------------------------------------------------------------------------------
def test_new_op_adds_mps_to_shared_key() -> None:
    edit = add_mps_to_family(SAMPLE, "heaviside")
    assert changed_lines(SAMPLE, edit.text) == (["    CPU, CUDA: heaviside_out"], ["    CPU, CUDA, MPS: heaviside_out"])
    assert [m.entry for m in edit.moved] == ["heaviside.out"] and edit.shared_kernels == ("heaviside_out",)
    assert add_mps_to_family(edit.text, "heaviside").changes == ()


def test_new_op_separate_lines_inserts_mps_line_in_file_newline() -> None:
    edit = add_mps_to_family(SAMPLE, "special.log_ndtr")
    assert "    CUDA: special_log_ndtr_out\n    MPS: special_log_ndtr_out\n" in edit.text
    assert changed_lines(SAMPLE, edit.text) == ([], ["    MPS: special_log_ndtr_out"])
    crlf = add_mps_to_family(SAMPLE.replace("\n", "\r\n"), "special_log_ndtr")
    assert crlf.text == edit.text.replace("\n", "\r\n")
    assert add_mps_to_family(edit.text, "special_log_ndtr").text == edit.text


def test_new_op_insert_on_last_line_without_newline() -> None:
    text = "- func: foo.out(Tensor self) -> Tensor\n  dispatch:\n    CPU: foo_out\n    CUDA: foo_out"
    edit = add_mps_to_family(text, "foo")
    assert edit.text == text + "\n    MPS: foo_out"


def test_new_op_refuses_when_nothing_to_share() -> None:
    text = "- func: bar(Tensor self) -> Tensor\n  dispatch:\n    CompositeExplicitAutograd: bar\n"
    with pytest.raises(MpsgenError) as err:
        add_mps_to_family(text, "bar", path="nf.yaml")
    assert err.value.line == 1 and "no entry of bar" in err.value.message


def test_index_must_match_text() -> None:
    idx = index_text(SAMPLE)
    assert migrate_family(SAMPLE, "asinh", index=idx).text == migrate_family(SAMPLE, "asinh").text
    with pytest.raises(ValueError):
        migrate_family(SAMPLE + "\n", "asinh", index=idx)

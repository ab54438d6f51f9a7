"""plan/texts.py: the yaml index is remembered per text, so an edited text gets its own index."""

from __future__ import annotations

from mpsgen.plan.texts import yaml_index

YAML = (
    "- func: frac(Tensor self) -> Tensor\n"
    "  structured_delegate: frac.out\n"
    "\n"
    "- func: frac.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
    "  structured: True\n"
    "  dispatch:\n"
    "    CPU, CUDA: frac_out\n"
    "    MPS: frac_out_mps\n"
)


def test_the_same_text_gives_the_same_index_and_an_edit_a_new_one() -> None:
    first = yaml_index(YAML)
    assert yaml_index(YAML) is first
    assert [e.mps_kernel for e in first.entries] == [None, "frac_out_mps"]
    edited = YAML.replace("    CPU, CUDA: frac_out\n    MPS: frac_out_mps\n", "    CPU, CUDA, MPS: frac_out\n")
    again = yaml_index(edited)
    assert again is not first and again.text == edited
    assert [e.mps_kernel for e in again.entries] == [None, "frac_out"]
    assert yaml_index(YAML) is first  # the original text still maps to its own index


def test_each_folder_is_listed_once_per_changeset(tmp_path) -> None:
    from mpsgen.plan.texts import folder_files
    from mpsgen.tree.changeset import Changeset
    from mpsgen.tree.checkout import KERNELS_REL, Checkout

    kernels = tmp_path / KERNELS_REL
    kernels.mkdir(parents=True)
    (kernels / "A.metal").write_text("// a\n")
    checkout = Checkout(tmp_path)
    first = Changeset(checkout)
    assert [p.name for p in folder_files(first, "metal_files")] == ["A.metal"]
    (kernels / "B.metal").write_text("// b\n")
    assert folder_files(first, "metal_files") is folder_files(first, "metal_files")  # one plan, one listing
    assert [p.name for p in folder_files(Changeset(checkout), "metal_files")] == ["A.metal", "B.metal"]


COMMON_MPS = (
    "def mps_ops_modifier(ops):\n"
    "    UNIMPLEMENTED_XFAILLIST = {\n"
    '        "frac": [torch.float16],\n'
    "    }\n"
)


def test_common_mps_tables_are_read_again_when_the_text_changes() -> None:
    # The tables are remembered per text (migrate asks for its dtype facts, then plans its test lists).
    from mpsgen.sources.testlists.commonmps import ListedDtypes, add_unimplemented, listed_dtypes

    assert listed_dtypes(COMMON_MPS, ["frac"]) == ListedDtypes({"float16": "UNIMPLEMENTED_XFAILLIST"}, False)
    edited, _ = add_unimplemented(COMMON_MPS, "trunc", ["int64"])
    assert listed_dtypes(edited, ["trunc"]) == ListedDtypes({"int64": "UNIMPLEMENTED_XFAILLIST"}, False)
    assert listed_dtypes(COMMON_MPS, ["trunc"]) == ListedDtypes({}, False)

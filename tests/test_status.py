"""`mpsgen status`: family states on the sample, broken samples, the real-wheel tree; formats and --op."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mpsgen.lint import inventory as inv_mod
from mpsgen.tree.checkout import YAML_REL, Checkout
from mpsgen.cli import main
from mpsgen.lint.inventory import Inventory
from mpsgen.lint.status import dashboard, family_details

from test_checks import OPS, build_real_tree, edit


def states(root: Path) -> dict[str, str]:
    return {f.name: f.state for f in Inventory(Checkout(root)).family_states()}


def test_sample_states(sample_tree: Path):
    assert states(sample_tree) == {
        "asinh": inv_mod.MPSGRAPH, "atan2": inv_mod.MPSGRAPH, "frac": inv_mod.MPSGRAPH,
        "logical_xor": inv_mod.MPSGRAPH, "signbit": inv_mod.MPSGRAPH,
        "exp": inv_mod.NATIVE, "expm1": inv_mod.NATIVE, "hypot": inv_mod.NATIVE,
        "heaviside": inv_mod.NO_MPS, "special_log_ndtr": inv_mod.NO_MPS,
    }


def test_legacy_name_with_metal_body(sample_tree: Path):
    edit(sample_tree, YAML_REL, "    CPU, CUDA, MPS: hypot_out\n", "    CPU, CUDA: hypot_out\n    MPS: hypot_out_mps\n")
    body = '\nTORCH_IMPL_FUNC(hypot_out_mps)(const Tensor& self, const Tensor& other, const Tensor& output) {\n' \
           '  lib.exec_binary_kernel(*this, "hypot");\n}\n'
    edit(sample_tree, f"{OPS}/BinaryKernel.mm", "\nREGISTER_DISPATCH(copysign_stub", body + "\nREGISTER_DISPATCH(copysign_stub")
    assert states(sample_tree)["hypot"] == inv_mod.METAL_LEGACY


def test_split_state(sample_tree: Path):
    edit(sample_tree, YAML_REL, "    CompositeExplicitAutograd: logical_xor_\n", "    CPU, CUDA, MPS: logical_xor_\n")
    assert states(sample_tree)["logical_xor"] == inv_mod.SPLIT


def test_shared_key_but_stub_registered_by_mpsgraph(sample_tree: Path):
    # anatomy §3.1.5: a shared yaml key whose stub only REGISTER_MPS_UNARY_STUB registers is still MPSGraph.
    edit(sample_tree, f"{OPS}/UnaryKernel.mm", "REGISTER_UNARY_TI_DISPATCH(expm1);\n", "")
    edit(sample_tree, f"{OPS}/UnaryOps.mm", "\n} // namespace at::native", "\nREGISTER_MPS_UNARY_STUB(expm1, exponentMinusOne);\n} // namespace at::native")
    assert states(sample_tree)["expm1"] == inv_mod.MPSGRAPH


def test_a_stub_registered_by_metal_and_by_mpsgraph_code_has_moved(sample_tree: Path):
    # A duplicate registration (check's MPS006) beside the Metal one: status and migrate agree nothing is left.
    edit(sample_tree, f"{OPS}/UnaryOps.mm", "\n} // namespace at::native", "\nREGISTER_MPS_UNARY_STUB(expm1, exponentMinusOne);\n} // namespace at::native")
    row = next(f for f in Inventory(Checkout(sample_tree)).family_states() if f.name == "expm1")
    assert row.state == inv_mod.NATIVE
    assert f"also registered by MPSGraph code at {OPS}/UnaryOps.mm:" in row.why
    frontier = {f["family"]: f["frontier"] for f in json.loads(run(sample_tree, "--format", "json").output)["families"]}
    assert frontier.get("expm1", "") != "candidate"


def test_totals_count_every_listed_family(sample_tree: Path):
    board = dashboard(Inventory(Checkout(sample_tree)))
    totals = board.totals()
    assert totals[inv_mod.MPSGRAPH] == 5 and totals[inv_mod.NATIVE] == 3 and totals[inv_mod.NO_MPS] == 2
    assert sum(totals.values()) == len(board.families) == 10
    # arcsinh has no dispatch at all: composite-only, counted but not listed.
    assert board.composite_only == 1 and "arcsinh" not in {f.name for f in board.families}


def test_op_details_point_at_each_piece(sample_tree: Path):
    d = family_details(Inventory(Checkout(sample_tree)), "torch.hypot")
    assert d.family == "hypot" and d.state == inv_mod.NATIVE
    assert [e.name for e in d.entries] == ["hypot.out", "hypot", "hypot_"]
    shared = d.shared("hypot_out")
    assert shared.stub == "hypot_stub" and shared.defined_at.startswith("aten/src/ATen/native/BinaryOps.cpp:")
    (reg,) = shared.registrations
    assert reg.at == f"{OPS}/BinaryKernel.mm:{_line(sample_tree, f'{OPS}/BinaryKernel.mm', 'REGISTER_DISPATCH(hypot_stub')}"
    assert reg.function == "hypot_mps_kernel" and reg.backend == "metal"
    (metal,) = reg.metal_kernels
    assert metal.kernel == "hypot" and metal.registered_at.startswith("aten/src/ATen/native/mps/kernels/BinaryKernel.metal:")
    assert d.frontier is None  # nothing left to migrate


def test_op_details_legacy(sample_tree: Path):
    d = family_details(Inventory(Checkout(sample_tree)), "asinh_")
    (impl,) = d.legacy("asinh_out_mps")
    assert impl.form == "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC" and impl.backend == "mpsgraph"
    assert impl.at == f"{OPS}/UnaryOps.mm:{_line(sample_tree, f'{OPS}/UnaryOps.mm', '(asinh_out_mps, asinh)')}"
    routes = {e.name: (e.route, e.delegates_to) for e in d.entries}
    assert routes["asinh.out"] == ("legacy", None) and routes["asinh_"] == ("none", "asinh.out")


def _line(root: Path, rel: str, needle: str) -> int:
    return next(k for k, ln in enumerate((root / rel).read_text().splitlines(), 1) if needle in ln)


def run(root: Path, *args: str):
    return CliRunner().invoke(main, ["-C", str(root), "status", *args])


def test_cli_table_markdown_json(sample_tree: Path):
    t = run(sample_tree)
    assert t.exit_code == 0
    rows = {ln.split()[0]: ln for ln in t.output.splitlines()[1:11]}
    assert "MPSGraph" in rows["atan2"] and "native Metal" in rows["exp"] and "no MPS kernel" in rows["heaviside"]
    assert "totals: native Metal 3, MPSGraph 5, no MPS kernel 2 (10 families)" in t.output
    m = run(sample_tree, "--format", "markdown")
    assert "| `atan2` | MPSGraph |" in m.output and "| native Metal | 3 |" in m.output
    j = json.loads(run(sample_tree, "--format", "json").output)
    assert j["totals"][inv_mod.NATIVE] == 3
    assert {f["family"]: f["state"] for f in j["families"]}["heaviside"] == inv_mod.NO_MPS


def test_cli_op_text_and_unknown_op(sample_tree: Path):
    r = run(sample_tree, "--op", "atan2")
    assert r.exit_code == 0 and r.output.startswith("atan2: MPSGraph")
    assert f"TORCH_IMPL_FUNC at {OPS}/BinaryOps.mm:" in r.output
    bad = run(sample_tree, "--op", "atan3")
    assert bad.exit_code == 2 and "no op family named 'atan3'" in bad.output and "atan2" in bad.output


@pytest.fixture()
def real_tree(sample_tree: Path, real_yaml_path: Path, real_testing_dir: Path) -> Path:
    return build_real_tree(sample_tree, real_yaml_path, real_testing_dir)


def test_real_tree_states(real_tree: Path):
    s = states(real_tree)
    assert s["asinh"] == inv_mod.MPSGRAPH  # asinh.out -> asinh_out_mps, MPSGraph in the sample's UnaryOps.mm
    # CPU, CUDA, MPS: atan2_out in 2.13, but the sample's .mm files register no atan2_stub (half done, MPS005)
    assert s["atan2"] == inv_mod.UNREGISTERED
    assert s["exp"] == inv_mod.NATIVE  # shared, and the sample's UnaryKernel.mm registers exp_stub
    assert s["heaviside"] == inv_mod.NO_MPS
    assert s["pow"] == inv_mod.SPLIT
    assert s["sgn"] == inv_mod.UNKNOWN  # sgn_out_mps is not among the sample's sources
    assert len(s) > 600


def test_real_tree_cli_summarises(real_tree: Path):
    r = run(real_tree)
    assert r.exit_code == 0
    last = r.output.splitlines()[-2:]
    assert last[0].startswith("totals: native Metal ") and "families)" in last[0]
    assert last[1].startswith("not listed: ") and "composite-only" in last[1]
    d = json.loads(run(real_tree, "--op", "atan2", "--format", "json").output)
    assert d["shared_kernels"]["atan2_out"]["stub"] == "atan2_stub"
    assert d["shared_kernels"]["atan2_out"]["registrations"] == []


def test_frontier_lists_candidates_apart_with_counts(sample_tree: Path):
    # atan2.out: CPU and CUDA now use different kernels, so MPS has nothing to share: not a candidate.
    edit(sample_tree, YAML_REL, "    CPU, CUDA: atan2_out\n", "    CPU: atan2_out\n    CUDA: atan2_out_cuda\n")
    out = run(sample_tree).output.splitlines()
    assert out[0].split() == ["family", "state", "frontier", "why"]
    rows = [ln.split()[:3] for ln in out[1:6]]
    assert rows == [["asinh", "MPSGraph", "candidate"], ["frac", "MPSGraph", "candidate"],
                    ["logical_xor", "MPSGraph", "candidate"], ["signbit", "MPSGraph", "candidate"],
                    ["atan2", "MPSGraph", "not"]]
    assert "atan2.out: CPU uses atan2_out but CUDA uses atan2_out_cuda" in out[5]
    assert "signbit_out (aten/src/ATen/native/UnaryOps.cpp:" in out[4] and "signbit_stub(TensorIteratorBase&...)" in out[4]
    assert ("frontier: 4 MPSGraph families are migration candidates (pointwise, fill, indexing, random and reduction "
            "kernels: `mpsgen migrate NAME`), 1 are not (no shared kernel reaching a DispatchStub mpsgen writes kernels "
            "for); 2 families with no MPS kernel are pointwise "
            "new-op candidates (`mpsgen new-op NAME`)") in out
    j = json.loads(run(sample_tree, "--format", "json").output)
    assert j["frontier"] == {"candidate": 4, "not a candidate": 1, "new-op candidate": 2, "stub unregistered": 0}
    frontier = {f["family"]: f["frontier"] for f in j["families"]}
    assert frontier["atan2"] == "not a candidate"
    # no MPS key, CPU and CUDA share a kernel calling a TensorIterator stub: `mpsgen new-op` can write it
    assert frontier["heaviside"] == frontier["special_log_ndtr"] == "new-op candidate"
    heaviside = next(f for f in j["families"] if f["family"] == "heaviside")
    assert "heaviside_stub(TensorIteratorBase&...)" in heaviside["frontier_why"]


def test_op_says_why_it_is_or_is_not_a_candidate(sample_tree: Path):
    r = run(sample_tree, "--op", "atan2")
    assert "frontier: candidate" in r.output
    assert "atan2.out (atan2_out_mps): candidate: atan2_out (aten/src/ATen/native/BinaryOps.cpp:" in r.output
    d = json.loads(run(sample_tree, "--op", "atan2", "--format", "json").output)
    (o,) = d["frontier"]["overloads"]
    assert (o["shared_kernel"], o["stubs"], o["stub_type"], o["candidate"]) == (
        "atan2_out", ["atan2_stub"], "void(*)(TensorIteratorBase&)", True)
    assert "frontier" not in json.loads(run(sample_tree, "--op", "hypot", "--format", "json").output)


def test_a_new_op_candidate_must_be_marked_pointwise(sample_tree: Path):
    """A family with no MPS key whose kernel builds a TensorIterator but whose entry the yaml does not mark
    pointwise (take, put_, glu_jvp: their iterators run over indices or slices) is no new-op candidate."""
    assert json.loads(run(sample_tree, "--op", "heaviside", "--format", "json").output)["frontier"]["state"] == \
        "new-op candidate"
    edit(sample_tree, YAML_REL, "  structured_inherits: TensorIteratorBase\n  device_check: NoCheck   # TensorIterator\n"
                                "  dispatch:\n    CPU, CUDA: heaviside_out\n  tags: pointwise\n",
         "  device_check: NoCheck   # TensorIterator\n  dispatch:\n    CPU, CUDA: heaviside_out\n")
    # and its kernel builds a TensorIterator itself (as take_out does over its indices)
    edit(sample_tree, "aten/src/ATen/native/BinaryOps.cpp", "  heaviside_stub(device_type(), *this);\n",
         "  auto iter = TensorIteratorConfig().add_output(out).add_const_input(self).build();\n"
         "  heaviside_stub(device_type(), *this);\n")
    j = json.loads(run(sample_tree, "--format", "json").output)
    assert j["frontier"]["new-op candidate"] == 1
    assert {f["family"]: f["frontier"] for f in j["families"]}["heaviside"] is None
    out = run(sample_tree, "--op", "heaviside").output
    assert "frontier: not a new-op candidate\n" in out
    assert ("heaviside.out: not a candidate: heaviside_out (aten/src/ATen/native/BinaryOps.cpp:" in out
            and "calls heaviside_stub, but the entry is neither TensorIterator-structured nor tagged pointwise" in out)

"""The per-entry ruamel check migrate runs on the entries it edited (PyTorch's NATIVEFUNCTIONS lint settings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.sources.native_yaml.roundtrip import check_entry
from mpsgen.sources.native_yaml.names import index_text

ENTRY = """\
- func: atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  structured_inherits: TensorIteratorBase
  dispatch:
    CPU, CUDA, MPS: atan2_out
  tags: pointwise
"""


def test_a_well_formed_entry_passes_and_names_its_mps_kernel() -> None:
    check_entry(ENTRY, 1, 6, path="nf.yaml", mps_kernel="atan2_out")


def test_an_mps_route_to_another_kernel_is_refused_with_the_entry_line() -> None:
    text = "# header\n" + ENTRY
    with pytest.raises(MpsgenError) as info:
        check_entry(text, 2, 7, path="nf.yaml", mps_kernel="atan2_out_mps")
    assert info.value.line == 2 and "dispatches MPS to 'atan2_out', not 'atan2_out_mps'" in info.value.message


def test_a_line_ruamel_would_rewrite_is_refused() -> None:
    # Double spaces after a key are legal YAML, but ruamel's dump writes one: PyTorch's lint would fail.
    text = ENTRY.replace("CPU, CUDA, MPS: atan2_out", "CPU, CUDA, MPS:  atan2_out")
    with pytest.raises(MpsgenError, match="would not round-trip through ruamel.yaml"):
        check_entry(text, 1, 6, path="nf.yaml")


def test_broken_yaml_is_refused_not_a_traceback() -> None:
    text = ENTRY.replace("  dispatch:\n", "  dispatch: [\n")
    with pytest.raises(MpsgenError, match="not valid YAML"):
        check_entry(text, 1, 6, path="nf.yaml")


def test_real_entries_round_trip_alone(real_yaml_path: Path) -> None:
    text = real_yaml_path.read_text(encoding="utf-8")
    index = index_text(text, "native_functions.yaml")
    entries = [e for fam in ("atan2", "frac", "logit", "signbit", "pow", "heaviside") for e in index.family(fam).entries]
    assert len(entries) >= 15
    for e in entries:
        check_entry(text, e.line, e.end_line, path="native_functions.yaml")

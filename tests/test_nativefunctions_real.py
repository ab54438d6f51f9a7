"""nativefunctions on the real native_functions.yaml from the torch 2.13.0 wheel.

The expensive checks (ruamel round trip ~3.5 s, torchgen parse ~1 s) run once, on a file
with all seven families migrated; each family's own diff is checked separately.
"""

from __future__ import annotations

import collections
import io
from pathlib import Path

import pytest

from mpsgen.sources.native_yaml.names import index_text, migrate_family

# family -> (removed lines, added lines) expected from the migration edit
EXPECTED = {
    "asinh": (["    CPU, CUDA: asinh_out", "    MPS: asinh_out_mps"], ["    CPU, CUDA, MPS: asinh_out"]),
    "acosh": (["    CPU, CUDA: acosh_out", "    MPS: acosh_out_mps"], ["    CPU, CUDA, MPS: acosh_out"]),
    "atanh": (["    CPU, CUDA: atanh_out", "    MPS: atanh_out_mps"], ["    CPU, CUDA, MPS: atanh_out"]),
    "frac": (["    CPU, CUDA: frac_out", "    MPS: frac_out_mps"], ["    CPU, CUDA, MPS: frac_out"]),
    "sign": (["    CPU, CUDA: sign_out", "    MPS: sign_out_mps"], ["    CPU, CUDA, MPS: sign_out"]),
    "logit": (
        ["    CPU, CUDA, MTIA: logit", "    CPU, CUDA: logit_out", "    MPS: logit_mps", "    MPS: logit_out_mps"],
        ["    CPU, CUDA, MPS: logit_out", "    CPU, CUDA, MPS, MTIA: logit"],
    ),
    "logical_xor": (
        ["    CPU, CUDA, MTIA: logical_xor_out", "    MPS: logical_xor_out_mps"],
        ["    CPU, CUDA, MPS, MTIA: logical_xor_out"],
    ),
}
# entry -> kernel MPS must dispatch to after the edit
EXPECTED_MPS = {
    "asinh.out": "asinh_out",
    "acosh.out": "acosh_out",
    "atanh.out": "atanh_out",
    "frac.out": "frac_out",
    "sign.out": "sign_out",
    "logit": "logit",
    "logit.out": "logit_out",
    "logical_xor.out": "logical_xor_out",
}


def diff_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    a, b = collections.Counter(before.split("\n")), collections.Counter(after.split("\n"))
    return sorted((a - b).elements()), sorted((b - a).elements())


@pytest.fixture(scope="module")
def real_text(real_yaml_path: Path) -> str:
    return real_yaml_path.read_bytes().decode("utf-8")


@pytest.fixture(scope="module")
def all_migrated(real_text: str) -> str:
    text = real_text
    for family in EXPECTED:
        text = migrate_family(text, family).text
    return text


def test_real_index_counts(real_text: str) -> None:
    idx = index_text(real_text)
    assert len(idx.entries) == 2584
    routes = collections.Counter(e.mps_route for e in idx.entries)
    # anatomy §7: 249 + 44 MPS-only lines, 240 sharing a key with CPU/CUDA
    assert routes["legacy"] == 293 and routes["shared"] == 240
    assert not any(e.duplicate_mps for e in idx.entries)
    assert not any(e.odd_lines for e in idx.entries)
    assert idx.entry("signbit.out").shared_kernel().kernel == "signbit_out"
    assert idx.family("atan2").is_migrated
    assert idx.family("special.log_ndtr").name == "special_log_ndtr"
    assert len(idx.families()) < len(idx.entries)


@pytest.mark.parametrize("family", sorted(EXPECTED))
def test_real_migration_changes_only_intended_lines(real_text: str, family: str) -> None:
    edit = migrate_family(real_text, family)
    removed, added = diff_lines(real_text, edit.text)
    assert (removed, added) == tuple(sorted(x) for x in EXPECTED[family])
    assert len(edit.text.split("\n")) == len(real_text.split("\n")) - len(removed) + len(added)
    # every changed line is reported where it was
    original = real_text.split("\n")
    for change in edit.changes:
        assert change.old is None or original[change.line - 1] == change.old
    again = migrate_family(edit.text, family)
    assert again.text == edit.text and again.changes == ()


def test_real_signbit_points_at_shared_kernel(real_text: str) -> None:
    edit = migrate_family(real_text, "signbit")
    assert diff_lines(real_text, edit.text) == (["    MPS: signbit_out_mps"], ["    MPS: signbit_out"])


def test_real_add_refuses(real_text: str) -> None:
    from mpsgen.errors import MpsgenError

    with pytest.raises(MpsgenError) as err:
        migrate_family(real_text, "add")
    assert "add.out" in err.value.message and real_text.split("\n")[err.value.line - 1] == "    MPS: add_out_mps"


def test_real_new_op_heaviside(real_text: str) -> None:
    from mpsgen.sources.native_yaml.names import add_mps_to_family

    edit = add_mps_to_family(real_text, "heaviside")
    removed, added = diff_lines(real_text, edit.text)
    assert len(removed) == 1 and len(added) == 1 and added[0].endswith(", MPS: heaviside_out")


def test_real_edit_roundtrips_through_ruamel(all_migrated: str, real_text: str) -> None:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 1000
    yaml.boolean_representation = ["False", "True"]
    data = yaml.load(all_migrated)
    out = io.StringIO()
    yaml.dump(data, out)
    assert out.getvalue() == all_migrated
    # An independent duplicate check: no entry names MPS twice across its dispatch keys.
    for item in data:
        dispatch = item.get("dispatch") or {}
        tokens = [k.strip() for key in dispatch for k in key.split(",")]
        assert tokens.count("MPS") <= 1, item["func"]
    by_func = {item["func"].split("(")[0]: item for item in data}
    assert dict(by_func["logit"]["dispatch"]) == {"CPU, CUDA, MPS, MTIA": "logit"}


def test_real_edit_parses_with_torchgen(all_migrated: str, real_yaml_path: Path, tmp_path: Path) -> None:
    from torchgen.gen import parse_native_yaml
    from torchgen.model import DispatchKey, OperatorName

    edited = tmp_path / "native_functions.yaml"  # fresh path: torchgen caches by path
    edited.write_bytes(all_migrated.encode("utf-8"))
    parsed = parse_native_yaml(str(edited), str(real_yaml_path.parent / "tags.yaml"))
    mps = parsed.backend_indices[DispatchKey.MPS].index
    cpu = parsed.backend_indices[DispatchKey.CPU].index
    for name, kernel in EXPECTED_MPS.items():
        op = OperatorName.parse(name)
        assert mps[op].kernel == kernel, name
        assert cpu[op].kernel == kernel, name
    # an untouched family keeps its legacy kernel
    assert mps[OperatorName.parse("signbit.out")].kernel == "signbit_out_mps"

"""new-op heaviside's planners on the real wheel files: byte-exact, minimal, and torchgen agrees."""

from __future__ import annotations

import difflib
from pathlib import Path

from mpsgen.sources.native_yaml import names as nf
from mpsgen.sources import testlists

FLOAT_DTYPES = ("float32", "float16", "bfloat16")


def changed_lines(old: str, new: str) -> list[str]:
    return [line for line in difflib.unified_diff(old.splitlines(True), new.splitlines(True), n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_real_yaml_gets_mps_on_heaviside_out_only(real_yaml_path: Path, tmp_path: Path) -> None:
    text = real_yaml_path.read_bytes().decode("utf-8")
    edit = nf.add_mps_to_family(text, "heaviside", path=str(real_yaml_path))
    assert [m.entry for m in edit.moved] == ["heaviside.out"]
    assert edit.shared_kernels == ("heaviside_out",)
    assert changed_lines(text, edit.text) == ["-    CPU, CUDA: heaviside_out\n", "+    CPU, CUDA, MPS: heaviside_out\n"]
    # Everything else byte for byte: same length apart from the inserted ", MPS".
    assert len(edit.text) == len(text) + len(", MPS")
    assert edit.text.replace("CPU, CUDA, MPS: heaviside_out", "CPU, CUDA: heaviside_out") == text
    # Idempotent on its own output.
    assert nf.add_mps_to_family(edit.text, "heaviside", path=str(real_yaml_path)).text == edit.text

    # torchgen (the code generator PyTorch itself uses) maps MPS for heaviside.out to heaviside_out.
    from torchgen.gen import parse_native_yaml
    from torchgen.model import DispatchKey, OperatorName

    edited = tmp_path / "native_functions.yaml"
    edited.write_text(edit.text, encoding="utf-8")
    tags = real_yaml_path.parent / "tags.yaml"
    parsed = parse_native_yaml(str(edited), str(tags), skip_native_fns_gen=True)
    mps = parsed.backend_indices[DispatchKey.MPS]
    kernel = mps.get_kernel(next(f for f in parsed.native_functions
                                 if f.func.name == OperatorName.parse("heaviside.out")))
    assert kernel is not None and kernel.kernel == "heaviside_out"
    original = parse_native_yaml(str(real_yaml_path), str(tags), skip_native_fns_gen=True)
    assert OperatorName.parse("heaviside.out") not in original.backend_indices[DispatchKey.MPS].index
    # Nothing else gained or lost an MPS kernel.
    before = {str(k): v.kernel for k, v in original.backend_indices[DispatchKey.MPS].index.items()}
    after = {str(k): v.kernel for k, v in mps.index.items()}
    assert {k: v for k, v in after.items() if k not in before} == {"heaviside.out": "heaviside_out"}
    assert all(after[k] == v for k, v in before.items())


def test_real_common_mps_narrows_heaviside_to_the_dtypes_without_a_kernel(real_common_mps_path: Path) -> None:
    text = real_common_mps_path.read_bytes().decode("utf-8")
    new, changes = testlists.plan_common_mps(text, ["heaviside"], supported_dtypes=FLOAT_DTYPES,
                                             complex_action="refuse-if-listed", path="common_mps.py")
    assert len(changes) == 1 and 'narrowed "heaviside" in UNIMPLEMENTED_XFAILLIST' in changes[0].what
    lines = changed_lines(text, new)
    assert lines[0] == '-            "heaviside": None,\n'
    assert lines[1:] == ['+            "heaviside": [\n'] + [
        f"+                torch.{d},\n" for d in ("uint8", "int8", "int16", "int32", "int64", "bool")
    ] + ["+            ],\n"]
    # Only that entry moved: removing the new lines and restoring the old one gives the file back.
    start = new.index('            "heaviside": [\n')
    end = new.index("            ],\n", start) + len("            ],\n")
    assert new[:start] + '            "heaviside": None,\n' + new[end:] == text
    # Idempotent.
    again, more = testlists.plan_common_mps(new, ["heaviside"], supported_dtypes=FLOAT_DTYPES,
                                            complex_action="refuse-if-listed", path="common_mps.py")
    assert again == new and not more


def test_real_heaviside_loses_every_mps_not_implemented_xfail(real_testing_dir: Path) -> None:
    # The 2.13 OpInfo has five `DecorateInfo(unittest.expectedFailure, 'TestCommon', ..., device_type='mps')`
    # under a "not currently implemented for the MPS device" comment: new-op's kernel makes them pass.
    from mpsgen.sources.testlists import plan_test_lists

    cmi = (real_testing_dir / "common_methods_invocations.py").read_text(encoding="utf-8")
    common_mps = (real_testing_dir / "common_mps.py").read_text(encoding="utf-8")
    plan = plan_test_lists("heaviside", common_mps_text=common_mps, cmi_text=cmi, definitions={}, tests=None,
                           supported_dtypes=["float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                                             "uint8", "bool"])
    new = plan.texts["common_methods_invocations.py"]
    start = cmi.index("    BinaryUfuncInfo('heaviside',")
    end = cmi.index("    BinaryUfuncInfo('lcm',")
    removed = [line for line in cmi[start:end].splitlines() if line not in new[start:].splitlines()[:60]]
    assert len(removed) == 6 and "not currently implemented for the MPS device" in removed[0]
    assert all("device_type='mps'" in line for line in removed[1:])
    kept = new[start:new.index("    BinaryUfuncInfo('lcm',")]
    assert "'TestBinaryUfuncsDevice',\n                                     'test_type_promotion')" in kept
    assert "'TestMeta', 'test_binary_ufuncs_mixed_dtype'" in kept and "device_type='mps'" not in kept
    assert new[:start] == cmi[:start] and new[new.index("    BinaryUfuncInfo('lcm',"):] == cmi[end:]

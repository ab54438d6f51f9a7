"""migrate into the early-2025 TEMPLATE_HOST_NAME layout (PyTorch 2.6-2.7 UnaryKernel.metal): a
template kernel per op that applies its functor, instantiated by `template [[host_name(...)]]`
declarations in the file's own macros (tests/data/metal/UnaryKernel_template_host_name.metal), and on
the 2.7-shaped tree of tests/tree27.py: sigmoid, expm1 and log1p as upstream migrated them in mid-2025,
and the refusals 2.7 forces (bool results from complex inputs, bodies needing c10::metal::hypot)."""

from __future__ import annotations

import difflib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable, NamedTuple

import pytest
from cli_support import emulated_compile_errors, mpsgen, tracked_bytes
from tree27 import GRAPH, HOST, YAML, commit_tree27, lay_tree27

DATA = Path(__file__).parent / "data" / "metal"
METAL = "aten/src/ATen/native/mps/kernels/UnaryKernel.metal"


def _commit(tree: Path) -> None:
    subprocess.run(["git", "add", "-A"], cwd=tree, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "2.7 layout"], cwd=tree, check=True, capture_output=True)


def test_frac_gets_its_own_instantiation_macro_at_the_end(tree: Path) -> None:
    # frac registers float types only, not INSTANTIATE_UNARY_KERNELS2's list (every integer -> float):
    # like 2.7's sinc, it gets a kernel and macro of its own after the file's last instantiation.
    (tree / METAL).write_text((DATA / "UnaryKernel_template_host_name.metal").read_text())
    _commit(tree)
    before = (tree / METAL).read_text()
    errors_before = emulated_compile_errors(tree / METAL, tree)
    result = mpsgen("-C", str(tree), "migrate", "frac", "--no-build", "--no-test")
    assert result.returncode == 0, result.stdout + result.stderr
    after = (tree / METAL).read_text()
    assert after.startswith(before)  # appended: every line that was there is unchanged
    added = after[len(before):]
    assert "struct frac_functor {" in added
    assert "kernel void frac_kernel(" in added
    assert "output[index] = static_cast<T0>(frac_functor()(input[index]));" in added
    assert '#define INSTANTIATE_FRAC_KERNEL(DTYPE0, DTYPE1)' in added
    assert 'template [[host_name("frac_" #DTYPE0 "_" #DTYPE1)]] kernel void frac_kernel(' in added
    calls = [ln for ln in added.splitlines() if ln.startswith("INSTANTIATE_FRAC_KERNEL(")]
    assert calls == ["INSTANTIATE_FRAC_KERNEL(bfloat, bfloat);", "INSTANTIATE_FRAC_KERNEL(half, half);",
                     "INSTANTIATE_FRAC_KERNEL(float, float);"]
    assert "#if __METAL_VERSION__ >= 310\nINSTANTIATE_FRAC_KERNEL(bfloat, bfloat);\n#endif" in added
    assert "REGISTER_UNARY_OP" not in added  # not defined in that layout
    assert emulated_compile_errors(tree / METAL, tree) == errors_before  # the fixture's own erf aside: no new error
    again = mpsgen("-C", str(tree), "migrate", "frac", "--no-build", "--no-test")
    assert (tree / METAL).read_text() == after, again.stdout + again.stderr


# -- the 2.7 tree (tests/tree27.py): sigmoid, expm1 and log1p as upstream migrated them in mid-2025 ------

KERNELS2 = "INSTANTIATE_UNARY_KERNELS2"
VEC2 = "INSTANTIATE_UNARY_KERNELS_VEC2"
# The 2.7 instance lists of the fixture: what every migration must leave as it is.
KERNELS2_CALLS = ["INSTANTIATE_UNARY_KERNELS2(bfloat, bfloat);", "INSTANTIATE_UNARY_KERNELS2(half, half);",
                  "INSTANTIATE_UNARY_KERNELS2(float, float);", "INSTANTIATE_UNARY_KERNELS2(float, bool);",
                  "INSTANTIATE_UNARY_KERNELS2(float, uchar);", "INSTANTIATE_UNARY_KERNELS2(float, char);",
                  "INSTANTIATE_UNARY_KERNELS2(float, short);", "INSTANTIATE_UNARY_KERNELS2(float, int);",
                  "INSTANTIATE_UNARY_KERNELS2(float, long);"]
VEC2_CALLS = ["INSTANTIATE_UNARY_KERNELS_VEC2(short, short);", "INSTANTIATE_UNARY_KERNELS_VEC2(float, float);"]
# The PRs that moved each op from MPSGraph to a Metal kernel upstream (mid-2025).
UPSTREAM = {"sigmoid": 155080, "expm1": 155611, "log1p": 154936}


@pytest.fixture()
def tree27(tree: Path) -> Path:
    """The sample laid over with 2.7's shapes (tests/data/tree27), committed."""
    lay_tree27(tree)
    commit_tree27(tree)
    return tree


def _migrate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return mpsgen("-C", str(root), "migrate", *args, "--no-build", "--no-test")


# The four tests of each upstream op below assert different things about one and the same command on the
# same fresh 2.7 tree: `migrate OP` runs once per op (a copy of the pristine 2.7 tree each), and each test
# reads that run (the rerun test copies the migrated tree before writing).


class FirstMigration(NamedTuple):
    root: Path  # the 2.7 tree after `migrate OP` (shared: a test that writes copies it)
    before: dict[str, str]  # METAL, HOST, GRAPH and YAML before the run
    result: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def pristine27(pristine_sample: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 2.7 tree as the tree27 fixture lays it, once per module (never written to)."""
    root = tmp_path_factory.mktemp("pristine27") / "pytorch"
    shutil.copytree(pristine_sample, root, symlinks=True)
    lay_tree27(root)
    commit_tree27(root)
    return root


@pytest.fixture(scope="module")
def first_migration(pristine27: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], FirstMigration]:
    runs: dict[str, FirstMigration] = {}

    def first(op: str) -> FirstMigration:
        if op not in runs:
            root = tmp_path_factory.mktemp(f"migrated27-{op}") / "pytorch"
            shutil.copytree(pristine27, root, symlinks=True)
            before = {rel: (root / rel).read_text() for rel in (METAL, HOST, GRAPH, YAML)}
            runs[op] = FirstMigration(root, before, _migrate(root, op))
        return runs[op]

    return first


def _macro_span(lines: list[str], name: str) -> tuple[int, int]:
    """[start, end) of the `#define NAME(` macro: the define line through its first line without a backslash."""
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"#define {name}("))
    end = start
    while lines[end].rstrip("\n").endswith("\\"):
        end += 1
    return start, end + 1


def _entries(macro: list[str]) -> list[str]:
    """The macro's `template [[host_name(...)]] ...;` entries, each as one whitespace-collapsed string."""
    body = " ".join(ln.rstrip("\n").rstrip("\\") for ln in macro[1:])
    return [" ".join(e.split()) + ";" for e in body.split(";") if e.strip()]


def _names(entries: list[str]) -> list[str]:
    """host_name prefixes in order: "exp_", "sigmoid_complex_", ..."""
    return [re.search(r'host_name\("(\w+)" #DTYPE0', e).group(1) for e in entries]


def _calls(text: str, macro: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith(f"{macro}(")]


def _functor(text: str, op: str) -> str:
    start = text.index(f"struct {op}_functor {{")
    return text[start:text.index("\n};\n", start) + 4]


def _c10_defines(root: Path, name: str) -> bool:
    """The checkout's c10/metal headers define NAME (a function, variable template or alias), comments aside."""
    code = "\n".join(re.sub(r"//.*", "", h.read_text()) for h in sorted((root / "c10/metal").glob("*.h")))
    return re.search(rf"\b{name}\s*(\(|=|<)", code) is not None


def _mps_kernels(yaml_text: str, tags: Path) -> dict[str, str]:
    """torchgen's MPS index of a native_functions.yaml text: {"sigmoid.out": "sigmoid_out_mps", ...}."""
    import tempfile

    from torchgen.gen import parse_native_yaml
    from torchgen.model import DispatchKey

    # parse_native_yaml caches by path: parse every text from a file of its own.
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "native_functions.yaml"
        path.write_text(yaml_text)
        parsed = parse_native_yaml(str(path), str(tags), skip_native_fns_gen=True)
    return {str(k): v.kernel for k, v in parsed.backend_indices[DispatchKey.MPS].index.items()}


def _assert_upstream_metal_shape(before: str, after: str, op: str, root: Path) -> None:
    """UnaryKernel.metal after `mpsgen migrate OP` has the shape of upstream's own migration, in 2.7's layout."""
    old, new = before.splitlines(True), after.splitlines(True)

    # (a) registrations: in KERNELS2 alphabetically, in VEC2 too; each macro still aligned as one block.
    for macro, suffix in ((KERNELS2, "_"), (VEC2, "_complex_")):
        (o0, o1), (n0, n1) = _macro_span(old, macro), _macro_span(new, macro)
        old_entries, new_entries = _entries(old[o0:o1]), _entries(new[n0:n1])
        added = [e for e in new_entries if e not in old_entries]
        assert len(added) == 1, added
        assert [e for e in new_entries if e not in added] == old_entries  # the others, in their order
        kernel = f"{op}_kernel(" if suffix == "_" else f"{op}_complex_kernel<DTYPE0>("
        assert added[0].startswith(f'template [[host_name("{op}{suffix}" #DTYPE0 "_" #DTYPE1)]] kernel void '
                                   f"{kernel} device "), added[0]
        names = _names(new_entries)
        assert names == sorted(names), names  # the fixture's lists are sorted: the new one goes in its place
        widths = {len(ln.rstrip("\n")) for ln in new[n0:n1 - 1]}
        assert all(ln.rstrip("\n").endswith(" \\") for ln in new[n0:n1 - 1]) and len(widths) == 1, widths
    assert after.count(f"struct {op}_functor {{") == 1
    assert f"output[index] = static_cast<T0>({op}_functor()(input[index]));" in after
    assert f"kernel void {op}_complex_kernel(" in after

    # (b) the instantiation lists are the file's own, unchanged (bfloat still behind its guard).
    assert _calls(after, KERNELS2) == _calls(before, KERNELS2) == KERNELS2_CALLS
    assert _calls(after, VEC2) == _calls(before, VEC2) == VEC2_CALLS
    assert f"#if __METAL_VERSION__ >= 310\n{KERNELS2}(bfloat, bfloat);\n#endif\n" in after

    # (d) 2.7's utils.h has no is_complex_v and friends: Metal's own traits, and only c10::metal names it has.
    functor = _functor(after, op)
    for missing in ("is_complex_v", "is_scalar_floating_point_v", "is_scalar_integral_v", "result_of"):
        assert missing not in after, missing
    assert "is_same_v<T, float2> || is_same_v<T, half2>" in functor
    for name in set(re.findall(r"c10::metal::(\w+)", functor)):
        assert _c10_defines(root, name), f"{op}_functor calls c10::metal::{name}, which the tree lacks"
    # 2.7 has no expm1f.h: expm1's body must not need it (the catalog's Kahan form instead).
    assert "expm1f.h" not in after.replace("has no expm1f.h", "") and "c10::metal::expm1f" not in after

    # (g) outside the inserted block and the two macros, byte for byte the same file.
    k0, _ = _macro_span(new, KERNELS2)
    start = next(i for i, ln in enumerate(new) if ln.startswith(f"struct {op}_functor {{"))
    assert new[:start] == old[:start] and start <= k0  # the kernels go just before the first macro
    block = "".join(new[start:k0])
    assert re.findall(r"^(?:struct|kernel void) (\w+)", block, re.M) == [
        f"{op}_functor", f"{op}_kernel", f"{op}_complex_kernel"], block
    kept = new[:start] + new[k0:]
    (ko0, ko1), (vo0, vo1) = _macro_span(old, KERNELS2), _macro_span(old, VEC2)
    (kn0, kn1), (vn0, vn1) = _macro_span(kept, KERNELS2), _macro_span(kept, VEC2)
    assert old[:ko0] == kept[:kn0] and old[ko1:vo0] == kept[kn1:vn0] and old[vo1:] == kept[vn1:]
    changed = [ln for ln in difflib.unified_diff(old, kept, n=0) if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    assert changed and all(ln[1:].rstrip("\n").endswith("\\") or ln[1:].startswith("      uint ") for ln in changed)


@pytest.mark.xdist_group("first_migration27")
@pytest.mark.parametrize("op", sorted(UPSTREAM))
def test_2_7_metal_matches_the_upstream_migration(pristine27: Path, first_migration, op: str) -> None:
    """sigmoid (pytorch/pytorch#155080), expm1 (#155611) and log1p (#154936) into 2.7's UnaryKernel.metal:
    a functor + template kernel + complex kernel, one host_name entry in INSTANTIATE_UNARY_KERNELS2 (in
    alphabetical position) and one in INSTANTIATE_UNARY_KERNELS_VEC2 (their OpInfos declare complex),
    the instance lists untouched, no 2.8 trait, no new compile error, and nothing else in the file changed
    but the macros' backslash alignment."""
    errors_before = emulated_compile_errors(pristine27 / METAL, pristine27)
    assert errors_before == []  # the fixture compiles cleanly, so a broken include cannot hide new errors
    tree27, before, result = first_migration(op)
    assert before[METAL] == (pristine27 / METAL).read_text()
    path = tree27 / METAL
    before = before[METAL]
    assert result.returncode == 0, result.stdout + result.stderr
    after = path.read_text()
    _assert_upstream_metal_shape(before, after, op, tree27)

    # (e) it compiles under mpsgen's Metal emulation, instances included, with no new error.
    assert emulated_compile_errors(path, tree27) == errors_before


@pytest.mark.xdist_group("first_migration27")
@pytest.mark.parametrize("op", sorted(UPSTREAM))
def test_2_7_host_yaml_and_mpsgraph_match_the_upstream_migration(first_migration, op: str,
                                                                  real_yaml_path: Path) -> None:
    """The rest of pytorch/pytorch#155080 (sigmoid), #155611 (expm1) and #154936 (log1p) in 2.7's form:
    a static function calling lib.exec_unary_kernel plus REGISTER_DISPATCH(<op>_stub, ...) at the end of
    UnaryKernel.mm, `CPU, CUDA, MPS: <op>_out` in the yaml, and the TORCH_IMPL_FUNC(<op>_out_mps) gone."""
    tags = real_yaml_path.parent / "tags.yaml"
    tree27, before, result = first_migration(op)
    host_before, graph_before, yaml_before = before[HOST], before[GRAPH], before[YAML]
    kernels_before = _mps_kernels(yaml_before, tags)
    assert kernels_before[f"{op}.out"] == f"{op}_out_mps"
    assert f"TORCH_IMPL_FUNC({op}_out_mps)" in graph_before
    assert result.returncode == 0, result.stdout + result.stderr

    host = (tree27 / HOST).read_text()
    assert "REGISTER_UNARY_TI_DISPATCH(" not in host  # 2.7 has no such macro
    found = re.search(r"\nstatic void (\w+)\(TensorIteratorBase& iter\) \{\n"
                      rf'  lib\.exec_unary_kernel\(iter, "{op}"\);\n\}}\n', host)
    assert found, host
    register = f"REGISTER_DISPATCH({op}_stub, {found.group(1)});\n"
    assert host.count(register) == 1
    assert host.index(found.group(0)) < host.index("REGISTER_DISPATCH(") < host.index(register)
    assert host.endswith(register + "} // namespace at::native\n")
    diff = list(difflib.unified_diff(host_before.splitlines(True), host.splitlines(True), n=0))
    assert not [ln for ln in diff if ln.startswith("-") and not ln.startswith("---")], diff  # only additions

    kernels = _mps_kernels((tree27 / YAML).read_text(), tags)
    assert kernels[f"{op}.out"] == f"{op}_out"
    assert f"    CPU, CUDA, MPS: {op}_out\n" in (tree27 / YAML).read_text()
    assert {k: v for k, v in kernels.items() if k != f"{op}.out"} == {
        k: v for k, v in kernels_before.items() if k != f"{op}.out"}

    graph = (tree27 / GRAPH).read_text()
    assert f"TORCH_IMPL_FUNC({op}_out_mps)" not in graph and f'"{op}_out_mps"' not in graph
    for other in sorted(set(UPSTREAM) - {op}):
        assert f"TORCH_IMPL_FUNC({other}_out_mps)" in graph  # the neighbours stay on MPSGraph
    assert "MPSGraphTensor* log1p(MPSGraph* mpsGraph" in graph  # the shared helper acosh/others may use


@pytest.mark.xdist_group("first_migration27")
@pytest.mark.parametrize("op", sorted(UPSTREAM))
def test_2_7_second_migrate_changes_nothing(first_migration, op: str, tmp_path: Path) -> None:
    """Migrating sigmoid/expm1/log1p again on the 2.7 tree is a no-op (upstream PRs #155080, #155611, #154936
    were one-shot: a rerun must not add a second host_name entry or REGISTER_DISPATCH)."""
    migrated, _, first = first_migration(op)
    assert first.returncode == 0, first.stdout + first.stderr
    tree27 = tmp_path / "pytorch"  # the rerun on a copy of the migrated tree: the other tests read that one
    shutil.copytree(migrated, tree27, symlinks=True)
    files = tracked_bytes(tree27)
    again = _migrate(tree27, op)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "nothing to do" in again.stdout, again.stdout
    assert tracked_bytes(tree27) == files


@pytest.mark.xdist_group("first_migration27")
@pytest.mark.parametrize("op", sorted(UPSTREAM))
def test_2_7_numeric_check_ran_and_agreed(first_migration, op: str) -> None:
    """migrate runs the numeric check (`mpsgen try`: the functor compiled with g++ against the 2.7 headers,
    compared with torch on CPU) before writing: floats, int->float and complex64 all agree (as upstream's
    #155080 / #155611 / #154936 test_mps runs did)."""
    result = first_migration(op).result
    assert result.returncode == 0, result.stdout + result.stderr
    found = re.search(rf"^numeric check: (\d+) dtype\(s\) agree with torch\.{op}\b", result.stdout, re.M)
    assert found, result.stdout
    assert int(found.group(1)) >= 10  # float32/16, bfloat16, six integers and bool -> float, complex64


def test_2_7_try_sigmoid_reports_agreement(tree27: Path) -> None:
    """`mpsgen try sigmoid` on the 2.7 tree (pytorch/pytorch#155080's op): every dtype agrees with
    torch.sigmoid, complex64 included, and nothing is written."""
    files = tracked_bytes(tree27)
    result = mpsgen("-C", str(tree27), "try", "sigmoid", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["reference"] == "torch.sigmoid"
    by_dtype = {d["dtype"]: d for d in report["dtypes"]}
    assert {"float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
            "complex64"} <= set(by_dtype)
    assert all(d["ok"] and d["mismatches"] == 0 and d["values"] > 0 for d in report["dtypes"]), report
    assert by_dtype["int32"]["out_dtype"] == "float32"
    text = mpsgen("-C", str(tree27), "try", "sigmoid")
    assert text.returncode == 0 and "all dtypes agree" in text.stdout, text.stdout + text.stderr
    assert tracked_bytes(tree27) == files


def test_2_7_three_migrations_keep_both_macros_sorted_and_compiling(tree27: Path) -> None:
    """The three upstream PRs (#155080 sigmoid, #155611 expm1, #154936 log1p) in one run: every entry lands
    in alphabetical position in both macros, one static function and REGISTER_DISPATCH each, and the file
    still compiles with no new error."""
    path = tree27 / METAL
    errors_before = emulated_compile_errors(path, tree27)
    result = _migrate(tree27, "sigmoid", "expm1", "log1p")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = path.read_text().splitlines(True)
    k0, k1 = _macro_span(lines, KERNELS2)
    v0, v1 = _macro_span(lines, VEC2)
    assert _names(_entries(lines[k0:k1])) == ["exp_", "expm1_", "log1p_", "sigmoid_", "sqrt_", "tanh_"]
    assert _names(_entries(lines[v0:v1])) == ["exp_complex_", "expm1_complex_", "log1p_complex_",
                                              "sigmoid_complex_", "sqrt_complex_"]
    text = "".join(lines)
    assert _calls(text, KERNELS2) == KERNELS2_CALLS and _calls(text, VEC2) == VEC2_CALLS
    assert emulated_compile_errors(path, tree27) == errors_before
    host = (tree27 / HOST).read_text()
    for op in UPSTREAM:
        assert host.count(f'lib.exec_unary_kernel(iter, "{op}");') == 1
        assert host.count(f"REGISTER_DISPATCH({op}_stub, ") == 1


def _refusal(root: Path, op: str) -> str:
    files = tracked_bytes(root)
    result = _migrate(root, op)
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mpsgen: error: "), result.stderr
    assert "Traceback" not in result.stderr and "applied" not in result.stdout
    assert tracked_bytes(root) == files
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True)
    assert status.stdout == ""
    return lines[0]


def test_2_7_complex_to_bool_gets_a_complex_kernel_writing_bool(tree27: Path) -> None:
    """logical_not returns bool for complex inputs too; 2.7's exec_unary_kernel looks those up as
    logical_not_complex_float_float, a name without the output type: its complex kernel writes bool."""
    path = tree27 / METAL
    errors_before = emulated_compile_errors(path, tree27)
    result = _migrate(tree27, "logical_not")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"complex64 +served by MPSGraph +-> +registered T->bool", result.stdout), result.stdout
    assert re.search(r"numeric check: \d+ dtype\(s\) agree with torch\.logical_not", result.stdout), result.stdout
    text = path.read_text()
    kernel = text[text.index("kernel void logical_not_complex_kernel("):]
    assert kernel.startswith("kernel void logical_not_complex_kernel(\n    device bool* output [[buffer(0)]],\n"
                             "    constant vec2type_t<T0>* input [[buffer(1)]],")
    assert "  output[index] = logical_not_functor()(float2(input[index]));" in kernel
    assert 'host_name("logical_not_complex_" #DTYPE "_" #DTYPE)' in text
    assert "INSTANTIATE_LOGICAL_NOT_COMPLEX_KERNEL(float);" in text
    vec2 = text[text.index("#define INSTANTIATE_UNARY_KERNELS_VEC2"):]
    assert "logical_not" not in vec2[:vec2.index(";\n")]  # VEC2's entries write complex
    assert emulated_compile_errors(path, tree27) == errors_before


def test_2_7_logical_not_without_complex_gets_a_macro_of_its_own(tree27: Path) -> None:
    """Without complex: logical_not's bool outputs are not INSTANTIATE_UNARY_KERNELS2's (float, X) list, so
    it gets kernels and a macro of its own after the file's last instantiation (like 2.7's sinc)."""
    path = tree27 / METAL
    before = path.read_text()
    errors_before = emulated_compile_errors(path, tree27)
    result = _migrate(tree27, "logical_not", "--drop-dtypes", "complex64")
    assert result.returncode == 0, result.stdout + result.stderr
    after = path.read_text()
    assert after.startswith(before)
    added = after[len(before):]
    assert "#define INSTANTIATE_LOGICAL_NOT_KERNEL(DTYPE0, DTYPE1)" in added
    calls = _calls(added, "INSTANTIATE_LOGICAL_NOT_KERNEL")
    assert calls and all(c.startswith("INSTANTIATE_LOGICAL_NOT_KERNEL(bool, ") for c in calls), calls
    assert "INSTANTIATE_LOGICAL_NOT_KERNEL(bool, float);" in calls and "complex" not in added
    assert emulated_compile_errors(path, tree27) == errors_before


def test_2_7_acosh_carries_its_own_hypot(tree27: Path) -> None:
    """acosh's complex branch calls c10::metal::hypot, which 2.7's c10/metal headers lack: the functor
    carries a hypot_ of its own, the body calls it, and the numeric check runs it (complex64 included)."""
    assert not _c10_defines(tree27, "hypot")
    result = _migrate(tree27, "acosh")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"numeric check: \d+ dtype\(s\) agree with torch\.acosh", result.stdout), result.stdout
    # and 2.7's log1p is less exact than the CPU's: a stand-in for it too
    assert ("c10/metal has no hypot, nor a log1p as exact as the CPU's: acosh_functor carries its own "
            "(hypot_, log1p_)") in result.stdout
    metal = (tree27 / METAL).read_text()
    functor = metal[metal.index("struct acosh_functor {"):metal.index("kernel void acosh_kernel(")]
    assert "  // this checkout's c10/metal has no hypot\n  inline float hypot_(float a, float b) {" in functor
    assert "hypot_(" in functor[functor.index("operator()"):]  # the body calls the stand-in
    assert "c10::metal::hypot" not in metal


def test_2_7_refuses_a_c10_function_without_a_stand_in(tree27: Path) -> None:
    """A body calling a c10::metal function 2.7 lacks and mpsgen has no stand-in for (i0) is refused,
    naming it, with the --expr/--drop-dtypes hint; nothing is written."""
    files = tracked_bytes(tree27)
    result = _migrate(tree27, "acosh", "--complex-expr", "T(c10::metal::i0(float(x.x)), 0.0f)")
    assert result.returncode == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("mpsgen: error: c10/metal: the body of acosh calls c10::metal::i0"), line
    assert "--expr" in line and "--drop-dtypes" in line
    assert tracked_bytes(tree27) == files


def test_2_7_a_comment_naming_is_complex_v_is_not_a_definition(tree27: Path) -> None:
    utils = tree27 / "c10/metal/utils.h"
    # A comment naming the trait (and c10::metal::hypot) defines neither.
    utils.write_text(utils.read_text() + "// TODO: port is_complex_v = ... and hypot from 2.8\n")
    commit_tree27(tree27)
    result = _migrate(tree27, "sigmoid")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "is_complex_v" not in (tree27 / METAL).read_text()


def test_2_7_drop_complex_applies_to_catalog_dtypes_without_an_opinfo(tree27: Path) -> None:
    # With sigmoid's OpInfo gone its registrations come from the catalog ([float, int2float, complex]);
    # --drop-dtypes complex64 must drop that complex branch too: no complex kernel, no VEC2 entry.
    from tree27 import CMI

    cmi = tree27 / CMI
    text = cmi.read_text()
    start = text.index("    UnaryUfuncInfo('sigmoid',")
    end = text.index("assert_autodiffed=True),\n", start) + len("assert_autodiffed=True),\n")
    cmi.write_text(text[:start] + text[end:])
    commit_tree27(tree27)
    result = _migrate(tree27, "sigmoid", "--drop-dtypes", "complex64")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"complex64 +unknown \(no OpInfo\) +-> +not registered", result.stdout), result.stdout
    metal = (tree27 / METAL).read_text()
    assert 'host_name("sigmoid_" #DTYPE0 "_" #DTYPE1)' in metal
    assert "sigmoid_complex" not in metal and "float2" not in metal[metal.index("struct sigmoid_functor"):
                                                                   metal.index("kernel void sigmoid_kernel")]

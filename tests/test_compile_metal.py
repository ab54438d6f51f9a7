"""The .metal half of the no-Mac compile check: a whole kernels/*.metal file under the Metal emulation,
and `mpsgen check --compile FILE` reporting only what the file's HEAD version does not have."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_support import mpsgen

from mpsgen.compiler.change import affected_files, removed_kernels
from mpsgen.compiler.diagnostic import ERROR, Diagnostic, new_diagnostics
from mpsgen.compiler.metal import compile_metal

BINARY = "aten/src/ATen/native/mps/kernels/BinaryKernel.metal"
UNARY = "aten/src/ATen/native/mps/kernels/UnaryKernel.metal"


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_pristine_sample_kernels_compile_clean(sample_tree: Path) -> None:
    for rel in (BINARY, UNARY):
        assert compile_metal(sample_tree, rel, (sample_tree / rel).read_text()) == []


def test_misspelled_function_in_a_functor_is_placed_at_its_line(sample_tree: Path) -> None:
    text = (sample_tree / BINARY).read_text().replace("precise::sqrt(", "precise::sqrtt(", 1)
    found = compile_metal(sample_tree, BINARY, text)
    assert [(d.line, d.severity) for d in found] == [(_line_of(text, "precise::sqrtt("), ERROR)]
    assert "sqrtt" in found[0].message and found[0].path == BINARY


def test_misspelled_dtype_is_placed_at_the_registration_line(sample_tree: Path) -> None:
    text = (sample_tree / BINARY).read_text() + "REGISTER_BINARY_OP(hypot, flaot, flaot);\n"
    found = compile_metal(sample_tree, BINARY, text)
    assert found and {d.line for d in found} == {len(text.splitlines())}
    assert any("flaot" in d.message for d in found)


def test_duplicated_registration_is_an_error_at_the_second_line(sample_tree: Path) -> None:
    text = (sample_tree / BINARY).read_text().replace("REGISTER_FLOAT_BINARY_OP(hypot);",
                                                       "REGISTER_FLOAT_BINARY_OP(hypot);\nREGISTER_FLOAT_BINARY_OP(hypot);")
    found = compile_metal(sample_tree, BINARY, text)
    second = _line_of(text, "REGISTER_FLOAT_BINARY_OP(hypot);") + 1
    assert {d.line for d in found} == {second}
    # the c10/metal macros define functions (redefinition); 2.7's template kernels instantiate them
    assert all(("redefinition of" in d.message or "duplicate explicit instantiation" in d.message)
               and "hypot" in d.message for d in found)


def test_an_error_inside_a_header_is_placed_in_the_file(sample_tree: Path) -> None:
    """A header the change edits (the overlay) breaks: the error is said at the file's include, the
    header's place leading the message."""
    header = "c10/metal/utils.h"
    broken = (sample_tree / header).read_text() + "\nint broken_in_header = undeclared_name;\n"
    found = compile_metal(sample_tree, UNARY, (sample_tree / UNARY).read_text(), overlay={header: broken})
    assert found, "the overlay's header was not compiled"
    assert all(d.path == UNARY for d in found)
    assert any(d.message.startswith(f"{header}:") and "undeclared_name" in d.message for d in found)


def test_the_cache_is_keyed_by_content_not_by_place(sample_tree: Path, tmp_path: Path, monkeypatch) -> None:
    """Another checkout with the same file and headers (a clone, a test's copy) takes the cached result; a
    header rewritten under the same size and modification time does not."""
    import os
    import shutil

    from mpsgen.compiler import metal

    cache = tmp_path / "cache"
    text = (sample_tree / BINARY).read_text()
    assert compile_metal(sample_tree, BINARY, text, cache_dir=cache) == []
    copy = tmp_path / "copy"
    shutil.copytree(sample_tree, copy)
    runs: list[object] = []
    real_run = subprocess.run
    monkeypatch.setattr(metal.subprocess, "run", lambda *a, **k: runs.append(a) or real_run(*a, **k))
    assert compile_metal(copy, BINARY, text, cache_dir=cache) == [] and runs == []
    header = copy / "c10/metal/utils.h"
    st = header.stat()
    misspelt = header.read_text().replace("bool is_complex_v =", "bool is_cmplex_vv =")  # the same size
    header.write_text(misspelt)
    os.utime(header, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert header.stat().st_size == st.st_size
    found = compile_metal(copy, BINARY, text, cache_dir=cache)
    assert len(runs) == 1 and any("is_complex_v" in d.message for d in found), found


def test_new_diagnostics_are_messages_head_lacks() -> None:
    a = Diagnostic("f.metal", 3, 1, ERROR, "x")
    moved = a._replace(line=9)
    other = Diagnostic("f.metal", 4, 1, ERROR, "y")
    assert new_diagnostics([moved], [a]) == []  # moved by an edit above it: not new
    assert new_diagnostics([a, moved], [a]) == []  # a copy of HEAD's error (a sibling copied): not the change's
    assert new_diagnostics([a, other], [a]) == [other]


def test_an_error_in_an_edited_header_that_moved_with_an_insertion_above_it_is_not_new() -> None:
    """A header error is shown at the .mm's #include, its message led by the header's own line, which an
    insertion in the header above it moves (OperationUtils.h gaining a host API form)."""
    head = Diagnostic("op.mm", 3, 1, ERROR, "aten/src/ATen/native/mps/OperationUtils.h:254: use of undeclared "
                                              "identifier 'dispatch_sync_with_rethrow'")
    moved = head._replace(message=head.message.replace(":254:", ":911:"))
    other = head._replace(message="aten/src/ATen/native/mps/OperationUtils.h:916: no matching member function "
                                  "for call to 'beginProfileKernel'")
    assert new_diagnostics([moved, other], [head]) == [other]


def test_a_removed_yaml_kernel_brings_in_the_mm_that_names_it(sample_tree: Path) -> None:
    yaml = "aten/src/ATen/native/native_functions.yaml"
    old = "- func: f.out(Tensor self) -> Tensor\n  dispatch:\n    CPU, CUDA: f_out\n    MPS: f_out_mps\n"
    new = "- func: f.out(Tensor self) -> Tensor\n  dispatch:\n    CPU, CUDA, MPS: f_out\n"
    assert removed_kernels(old, new) == ["f_out_mps"]
    mm = sample_tree / "aten/src/ATen/native/mps/operations/UnaryOps.mm"
    mm.write_text(mm.read_text() + "\nvoid g() { at::native::f_out_mps(); }\n")
    texts = {mm.relative_to(sample_tree).as_posix(): mm.read_text()}
    assert affected_files(sample_tree, {yaml: new}, {yaml: old}, texts.get) == [
        "aten/src/ATen/native/mps/operations/UnaryOps.mm"]


def test_check_compile_reports_what_head_lacks(tree: Path) -> None:
    """As pre-commit runs it: the pristine file exits 0; a planted break exits 1 with file:line."""
    clean = mpsgen("check", "--compile", BINARY, cwd=tree)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "MPS030" not in clean.stdout
    path = tree / BINARY
    text = path.read_text().replace("precise::sqrt(", "precise::sqrtt(", 1)
    path.write_text(text)
    broken = mpsgen("check", "--compile", BINARY, cwd=tree)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert f"{BINARY}:{_line_of(text, 'precise::sqrtt(')}:" in broken.stdout
    assert "MPS030" in broken.stdout and "sqrtt" in broken.stdout
    # Committed, the break is HEAD's own: no longer new.
    subprocess.run(["git", "commit", "-qam", "break"], cwd=tree, check=True)
    assert "MPS030" not in mpsgen("check", "--compile", BINARY, cwd=tree).stdout

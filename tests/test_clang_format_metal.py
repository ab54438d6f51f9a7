"""Every line mpsgen adds to a .metal, .mm or .h file is laid out by the pinned clang-format (the wheel, a
runtime dependency) with the checkout's own .clang-format, as PyTorch's lintrunner lays out mps/**; a
checkout without one gets PyTorch's settings (bundled); no line that was there changes.

The tree: the scalar-ops tree; threshold's functor line is 95 columns as rendered, and its host kernel's
`fmt::format("ThresholdParams_{}", …)` call 123.
"""

from __future__ import annotations

import difflib
import subprocess
from pathlib import Path

from scalar_ops_tree import NATIVE, migrate, read
from mpsgen.generate.clang_format import BUNDLED_STYLE, format_lines
from mpsgen.tree.formatter import clang_format_executable as executable

METAL = f"{NATIVE}/mps/kernels/BinaryKernel.metal"
HOST = f"{NATIVE}/mps/operations/BinaryKernel.mm"
HEADER = f"{NATIVE}/mps/kernels/BinaryKernel.h"
# PyTorch's settings at 70 columns in every language: lines laid out by it cannot pass for the bundled style's.
NARROW = "\n".join(line for line in BUNDLED_STYLE.read_text().split("---", 2)[1].splitlines()
                   if not line.startswith("ColumnLimit")) + "\nColumnLimit: 70\n"


def _commit(root: Path, message: str) -> None:
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=root, check=True)


def _added(root: Path, rel: str) -> list[str]:
    diff = subprocess.run(["git", "diff", "-U0", "--", rel], cwd=root, capture_output=True, text=True,
                          check=True).stdout
    return [ln[1:] for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]


def _whole_file_formatted(root: Path, rel: str, style: str) -> list[str]:
    exe = executable()
    assert exe, "the clang-format wheel is a runtime dependency"
    return subprocess.run([exe, style, f"--assume-filename={root / rel}"], input=read(root, rel),
                          capture_output=True, text=True, check=True).stdout.splitlines()


def _only_inserted(before: str, after: str) -> bool:
    ops = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False).get_opcodes()
    return {tag for tag, *_ in ops} <= {"equal", "insert"}


def test_the_pinned_wheel_is_what_runs():
    exe = executable()
    assert exe and "clang_format" in exe  # the wheel's binary, not whatever is on PATH
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
    assert "version 19.1.4" in version  # PyTorch's lintrunner pin (pyproject pins the same)


def test_every_written_line_follows_the_checkouts_own_clang_format(scalar_tree: Path):
    (scalar_tree / ".clang-format").write_text(NARROW)
    _commit(scalar_tree, "style")
    before = read(scalar_tree, METAL)
    result = migrate(scalar_tree, "threshold", "--no-try")
    assert result.returncode == 0, result.stderr
    assert "clang-format" not in result.stdout  # no note: nothing was left as rendered
    assert _only_inserted(before, read(scalar_tree, METAL))  # no line that was there changed
    for rel in (METAL, HOST, HEADER):
        added = _added(scalar_tree, rel) if rel != HEADER else read(scalar_tree, rel).splitlines()
        assert added, rel
        assert max(len(ln) for ln in added) <= 70, rel
        formatted = set(_whole_file_formatted(scalar_tree, rel, "--style=file"))
        assert [ln for ln in added if ln not in formatted] == [], rel
    assert "    return static_cast<T>(\n        c10::metal::opmath_t<T>(a) <= threshold\n" in read(scalar_tree, METAL)


def test_without_a_clang_format_file_pytorchs_settings_apply(scalar_tree: Path):
    assert not (scalar_tree / ".clang-format").exists()
    result = migrate(scalar_tree, "threshold", "--no-try")
    assert result.returncode == 0, result.stderr
    metal = read(scalar_tree, METAL)
    # 95 columns as rendered: broken after the open bracket at 80, as PyTorch's .clang-format does.
    assert ("    return static_cast<T>(\n"
            "        c10::metal::opmath_t<T>(a) <= threshold ? static_cast<T>(value) : b);\n") in metal
    assert max(len(ln) for ln in _added(scalar_tree, METAL)) <= 80
    host = _added(scalar_tree, HOST)
    assert max(len(ln) for ln in host) <= 120  # the ObjC section's limit for .mm files
    style = f"--style=file:{BUNDLED_STYLE}"
    for rel in (METAL, HOST):
        formatted = set(_whole_file_formatted(scalar_tree, rel, style))
        assert [ln for ln in _added(scalar_tree, rel) if ln not in formatted] == [], rel


def test_the_bundled_style_is_read_by_clang_format_as_two_languages(tmp_path: Path):
    """The defaults section carries no Language (so the ObjC section inherits it): a .mm line of 100
    columns stays, a .metal one is broken."""
    long_call = "void f() { g(aaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbb, cccccccccccccccccccccc, ddddddddd); }\n"
    outputs = {}
    for suffix in (".mm", ".metal"):
        text, note = format_lines("", long_call, tmp_path / f"x{suffix}", tmp_path)
        assert note == ""
        outputs[suffix] = text
    assert max(len(ln) for ln in outputs[".metal"].splitlines()) <= 80
    assert "g(aaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbb, cccccccccccccccccccccc, ddddddddd);" in outputs[".mm"]


def test_only_the_written_lines_are_formatted_and_crlf_is_kept(tmp_path: Path):
    before = "int  keep_me ( int a );\r\n"
    after = before + "int   added  ( int b );\r\n"
    text, note = format_lines(before, after, tmp_path / "k.metal", tmp_path)
    assert note == ""
    assert text == "int  keep_me ( int a );\r\nint added(int b);\r\n"


def test_without_the_wheel_a_note_says_so(tmp_path: Path, monkeypatch):
    import mpsgen.generate.clang_format as cf

    monkeypatch.setattr(cf, "clang_format_executable", lambda: None)
    text, note = cf.format_lines("", "int   x;\n", tmp_path / "k.metal", tmp_path)
    assert text == "int   x;\n"
    assert "clang-format wheel is not installed" in note


def test_a_run_that_would_move_existing_lines_is_left_and_the_others_are_still_formatted(tmp_path: Path):
    """An include added out of order would make clang-format sort the block (moving a line that was
    there): that run stays as written, the file's other added runs are laid out all the same."""
    before = "#include <c.h>\n#include <d.h>\n\nint   keep;\n"
    after = "#include <c.h>\n#include <b.h>\n#include <d.h>\n\nint   keep;\nint   added;\n"
    text, note = format_lines(before, after, tmp_path / "k.metal", tmp_path)
    assert text == "#include <c.h>\n#include <b.h>\n#include <d.h>\n\nint   keep;\nint added;\n"
    assert "would change other lines" in note and "1 of 2" in note


def test_a_namespace_a_deletion_empties_is_joined_as_lintrunner_would(tmp_path: Path):
    """Removing the last legacy function of a .mm (2.7's PointwiseOps.mm after addcmul and addcdiv) leaves
    `namespace mps {`, blank lines and its closing line: the lines around the gap are laid out too."""
    before = "namespace mps {\n\nvoid legacy();\n\n} // namespace mps\n\nint  keep ;\n"
    after = "namespace mps {\n\n\n} // namespace mps\n\nint  keep ;\n"
    text, note = format_lines(before, after, tmp_path / "k.mm", tmp_path)
    assert note == ""
    assert text == "namespace mps {} // namespace mps\n\nint  keep ;\n"


def test_a_deletion_among_lines_that_were_never_clang_format_clean_leaves_them(tmp_path: Path):
    """2.7's UnaryOps.h, which lintrunner does not format, losing its stale clamp_stub declaration: the
    neighbours keep their `void(*)` as the file has it."""
    keep = "DECLARE_DISPATCH(void(*)(TensorIteratorBase&), polygamma_stub)\n"
    before = keep + "DECLARE_DISPATCH(void(*)(TensorIteratorBase&, const Scalar& a), clamp_stub)\n" + keep
    text, note = format_lines(before, keep + keep, tmp_path / "UnaryOps.h", tmp_path)
    assert (text, note) == (keep + keep, "")


def test_an_entry_added_to_a_macro_lays_out_the_whole_macro(tmp_path: Path):
    """clang-format reads a #define as one line: an entry too long for the macro's backslash column
    re-wraps its unchanged last line too, which counts as written (2.7's INSTANTIATE_UNARY_KERNELS_VEC2)."""
    entry = ('  template [[host_name("{0}_complex_" #D0 "_" #D1)]] kernel void {0}_complex_kernel<D0>(device float2* o, '
             'constant float2* i);{1}\n')
    head = "#define INSTANTIATE_VEC2(D0, D1) \\\n"
    before = head + entry.format("exp", " \\") + entry.format("tanh", "")
    after = head + entry.format("exp", " \\") + entry.format("tanh", " \\") + entry.format("reciprocal", "")
    text, note = format_lines(before, after, tmp_path / "k.metal", tmp_path)
    assert note == ""
    whole = subprocess.run([executable(), f"--style=file:{BUNDLED_STYLE}", "--assume-filename=k.metal"], input=after,
                           capture_output=True, text=True, check=True).stdout
    assert text == whole and "reciprocal_complex_kernel" in text

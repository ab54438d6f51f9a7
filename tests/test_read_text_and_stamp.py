"""checkout.read_text_and_stamp: the one place a plan reads a file (text, stamp, and the refusals)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mpsgen.errors import MpsgenError
from mpsgen.tree.checkout import RACY_NS, read_text_and_stamp


def _aged(path: Path) -> Path:
    old = time.time_ns() - 10 * RACY_NS
    os.utime(path, ns=(old, old))
    return path


def test_text_and_stamp_of_an_old_file(tmp_path: Path) -> None:
    body = "x" * 300_000 + "\n// é\r\n"  # more than one buffer's worth, non-ASCII, CRLF kept
    p = tmp_path / "a.mm"
    p.write_bytes(body.encode("utf-8"))
    _aged(p)
    text, stamp = read_text_and_stamp(p)
    st = p.stat()
    assert text == body
    assert stamp == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def test_a_file_written_just_now_has_no_stamp(tmp_path: Path) -> None:
    p = tmp_path / "a.mm"
    p.write_text("int x;\n")
    assert read_text_and_stamp(p) == ("int x;\n", None)


def test_an_empty_file(tmp_path: Path) -> None:
    p = tmp_path / "empty.metal"
    p.write_bytes(b"")
    assert read_text_and_stamp(_aged(p))[0] == ""


def test_a_file_longer_than_its_stat_said_is_read_to_its_end(tmp_path: Path, monkeypatch) -> None:
    from mpsgen.tree import checkout as checkout_module

    p = tmp_path / "grown.mm"
    p.write_bytes(b"0123456789" * 5)
    fstat = os.fstat
    monkeypatch.setattr(checkout_module.os, "fstat", lambda fd: os.stat_result((*fstat(fd)[:6], 3, *fstat(fd)[7:])))
    assert checkout_module.read_text_and_bytes(p) == ("0123456789" * 5, b"0123456789" * 5)


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "missing.mm", "file not found"),
    (lambda d: d, "expected a file, found a folder"),
])
def test_refusals_name_the_file(tmp_path: Path, make, message: str) -> None:
    with pytest.raises(MpsgenError) as info:
        read_text_and_stamp(make(tmp_path), "shown/name.mm")
    assert info.value.message == message and info.value.path == "shown/name.mm"


def test_bad_utf8_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.mm"
    p.write_bytes(b"ok\nok\n\xff\n")
    with pytest.raises(MpsgenError) as info:
        read_text_and_stamp(p)
    assert info.value.line == 3 and "0xff" in info.value.message


def test_a_checkout_reads_a_file_once_whatever_its_spelling(tmp_path: Path, monkeypatch) -> None:
    from mpsgen.tree import checkout as checkout_module
    from mpsgen.tree.checkout import YAML_REL, Checkout

    (tmp_path / YAML_REL).parent.mkdir(parents=True)
    (tmp_path / YAML_REL).write_text("- func: a\n")
    (tmp_path / "x.mm").write_text("one")
    reads: list[str | Path] = []
    real = checkout_module.read_text_and_bytes
    monkeypatch.setattr(checkout_module, "read_text_and_bytes", lambda p, shown=None: reads.append(p) or real(p, shown))
    c = Checkout.locate(tmp_path)
    spellings = ["x.mm", Path("x.mm"), tmp_path / "x.mm", str(tmp_path / "x.mm"), f"{tmp_path}//x.mm", "./x.mm",
                 f"{tmp_path}/./x.mm"]
    assert [c.read_text(s) for s in spellings] == ["one"] * len(spellings)
    assert reads == [str(tmp_path / "x.mm")]  # read by the absolute path str(Path) writes
    (tmp_path / "x.mm").write_text("two")
    c.forget("./x.mm")  # any spelling forgets every spelling
    (tmp_path / "sub").mkdir()
    with pytest.raises(MpsgenError, match="expected a file") as err:
        c.read_text(tmp_path / "sub")
    assert err.value.path == "sub"  # named by its checkout path
    assert [c.read_text(s) for s in spellings] == ["two"] * len(spellings) and reads.count(str(tmp_path / "x.mm")) == 2


def test_a_checkout_gives_the_bytes_a_text_was_decoded_from(tmp_path: Path) -> None:
    from mpsgen.tree.checkout import YAML_REL, Checkout

    (tmp_path / YAML_REL).parent.mkdir(parents=True)
    (tmp_path / YAML_REL).write_text("- func: a\n")
    data = "// π ≈ 3.14\r\nint x;\n".encode()
    (tmp_path / "x.cpp").write_bytes(data)
    c = Checkout.locate(tmp_path)
    assert c.utf8("x.cpp") == data and c.utf8(tmp_path / "x.cpp") is c.utf8("./x.cpp")
    assert c.read_text("x.cpp").encode() == data
    (tmp_path / "x.cpp").write_bytes(b"int y;\n")
    c.forget("x.cpp")
    assert c.utf8("x.cpp") == b"int y;\n" and c.read_text("x.cpp") == "int y;\n"


def test_a_listing_with_its_checkout_paths_is_the_globbed_one(tmp_path: Path) -> None:
    from mpsgen.tree.checkout import LISTINGS, NATIVE_REL, OPINFO_DEFS_REL, YAML_REL, Checkout

    native = tmp_path / NATIVE_REL
    for rel in (YAML_REL, f"{NATIVE_REL}/b.cpp", f"{NATIVE_REL}/a.cpp", f"{NATIVE_REL}/.hidden.cpp", f"{NATIVE_REL}/x.h",
                f"{NATIVE_REL}/mps/A.mm", f"{NATIVE_REL}/mps/operations/B.mm", f"{NATIVE_REL}/mps/operations/z.cpp",
                f"{NATIVE_REL}/mps/Z.cpp", f"{OPINFO_DEFS_REL}/__init__.py", f"{OPINFO_DEFS_REL}/linalg.py",
                "elsewhere/real.cpp"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    (native / "dir.cpp").mkdir()  # a folder named like a file: globbed too
    (native / "link.cpp").symlink_to(tmp_path / "elsewhere/real.cpp")  # its checkout path is its target's
    (native / "twin.cpp").symlink_to(native / "a.cpp")
    (native / "broken.cpp").symlink_to(tmp_path / "missing.cpp")
    (tmp_path / "aten/src/ATen/native/mps/kernels").mkdir()  # empty; c10/metal missing
    c = Checkout.locate(tmp_path)
    for name in LISTINGS:
        assert list(c.listed(name).items()) == list({c.rel(p): p for p in c.listing(name)}.items()), name
    listed = c.listed("native_sources")
    assert list(listed) == [f"{NATIVE_REL}/{n}" for n in (".hidden.cpp", "a.cpp", "b.cpp")] + [
        "missing.cpp", f"{NATIVE_REL}/dir.cpp", "elsewhere/real.cpp"]
    assert listed[f"{NATIVE_REL}/a.cpp"] == native / "twin.cpp"  # the link sorted last names the file


@given(st.lists(st.sampled_from(["/", "//", ".", "..", "a", "b.mm", "é", " "]), max_size=8).map("".join))
@example("/a/b.mm")
def test_a_path_taken_as_its_own_key_is_the_one_str_of_its_path_writes(spelled: str) -> None:
    from mpsgen.tree.checkout import _is_plain_absolute

    if _is_plain_absolute(spelled):
        assert str(Path(spelled)) == spelled

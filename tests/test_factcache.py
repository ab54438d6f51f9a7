"""The fact store kept between runs (tree/factcache.py) and the shared-kernel answers built on it
(lint/shared_kernels.py): a fact is re-used only for the very text it was computed from."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner

from mpsgen.cli import main
from mpsgen.lint import shared_kernels
from mpsgen.tree import factcache
from mpsgen.tree.factcache import FactCache

OLD_NS = 1_600_000_000 * 10**9  # 2020: long past the racy window


def write_old(path: Path, text: str, mtime_ns: int = OLD_NS) -> None:
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))


class Counter:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


def upper(text: str) -> str:
    return text.upper()


def fact(store: Path, path: Path, compute) -> str:
    """One run: open the store, ask for one fact, save."""
    cache = FactCache(store)
    value = cache.per_file("upper", path, path.name, lambda p: p.read_text(), compute)
    cache.save()
    return value


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "facts"


def test_an_unchanged_file_is_not_read_again(tmp_path: Path, store: Path):
    src = tmp_path / "a.mm"
    write_old(src, "abc")
    compute = Counter(upper)
    assert fact(store, src, compute) == "ABC"
    assert fact(store, src, compute) == "ABC"
    assert compute.calls == 1


def test_a_changed_file_is_indexed_again(tmp_path: Path, store: Path):
    src = tmp_path / "a.mm"
    write_old(src, "abc")
    compute = Counter(upper)
    fact(store, src, compute)
    write_old(src, "abcd", OLD_NS + 1)
    assert fact(store, src, compute) == "ABCD"
    assert compute.calls == 2


def test_a_racy_file_rewritten_with_the_same_stamp_is_caught_by_its_digest(tmp_path: Path, store: Path):
    # Written "now": within the clock granularity a same-size rewrite can keep size and mtime.
    src = tmp_path / "a.mm"
    src.write_text("abc")
    st = os.stat(src)
    compute = Counter(upper)
    assert fact(store, src, compute) == "ABC"
    src.write_text("xyz")
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert fact(store, src, compute) == "XYZ"
    assert fact(store, src, compute) == "XYZ"
    assert compute.calls == 2


def test_facts_of_other_mpsgen_code_are_not_reused(tmp_path: Path, store: Path, monkeypatch):
    src = tmp_path / "a.mm"
    write_old(src, "abc")
    compute = Counter(upper)
    fact(store, src, compute)
    monkeypatch.setattr(factcache, "code_fingerprint", lambda: "another mpsgen")
    fact(store, src, compute)
    assert compute.calls == 2


def test_a_corrupt_or_unwritable_store_only_costs_time(tmp_path: Path):
    src = tmp_path / "a.mm"
    write_old(src, "abc")
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "upper.pickle").write_bytes(b"not a pickle")
    compute = Counter(upper)
    assert fact(corrupt, src, compute) == "ABC" and fact(corrupt, src, compute) == "ABC"
    assert compute.calls == 1  # the corrupt shelf was replaced by a good one
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert fact(blocked / "facts", src, upper) == "ABC"  # its folder cannot be made
    assert not (tmp_path / "file").read_text()


def test_a_fact_over_several_files_is_recomputed_when_any_of_them_changes(tmp_path: Path, store: Path):
    files = {name: tmp_path / name for name in ("a.h", "b.h")}
    for p in files.values():
        write_old(p, p.name)
    compute = Counter(lambda texts: "+".join(texts.values()))

    def run() -> str:
        cache = FactCache(store)
        value = cache.over_files("joined", files, lambda p: p.read_text(), compute)
        cache.save()
        return value

    assert run() == "a.h+b.h" and run() == "a.h+b.h" and compute.calls == 1
    write_old(files["b.h"], "B", OLD_NS + 5)
    assert run() == "a.h+B" and compute.calls == 2


# -- shared kernels --------------------------------------------------------------------------

UNARY_CPP = """\
namespace at::native {
TORCH_IMPL_FUNC(sin_out) (const Tensor& self, const Tensor& result) {
  sin_stub(device_type(), *this);
}
} // namespace at::native
"""
OTHER_CPP = "namespace at::native {\nvoid helper() {}\n}\n"


def kernels_run(root: Path, store: Path, finder: Counter, kernel: str = "sin_out"):
    paths = {p.name: p for p in sorted(root.glob("*.cpp"))}
    cache = FactCache(store)
    sk = shared_kernels.SharedKernels(paths, lambda p: p.read_text(), cache)
    impl = sk.impl(kernel)
    sk.save()
    cache.save()
    return impl


@pytest.fixture()
def finder(monkeypatch) -> Counter:
    counter = Counter(shared_kernels.find_shared_impl)
    monkeypatch.setattr(shared_kernels, "find_shared_impl", counter)
    return counter


def test_a_shared_kernel_answer_survives_an_unrelated_edit(tmp_path: Path, store: Path, finder: Counter):
    write_old(tmp_path / "UnaryOps.cpp", UNARY_CPP)
    write_old(tmp_path / "Other.cpp", OTHER_CPP)
    first = kernels_run(tmp_path, store, finder)
    assert first is not None and first.stub_names == ("sin_stub",) and first.path == "UnaryOps.cpp"
    calls = finder.calls
    write_old(tmp_path / "Other.cpp", OTHER_CPP + "void other() {}\n", OLD_NS + 7)
    assert kernels_run(tmp_path, store, finder) == first
    assert finder.calls == calls  # the changed file does not name sin_out: the answer stands


def test_an_edit_to_the_defining_file_is_seen(tmp_path: Path, store: Path, finder: Counter):
    write_old(tmp_path / "UnaryOps.cpp", UNARY_CPP)
    kernels_run(tmp_path, store, finder)
    write_old(tmp_path / "UnaryOps.cpp", UNARY_CPP.replace("sin_stub", "sine_stub"), OLD_NS + 7)
    assert kernels_run(tmp_path, store, finder).stub_names == ("sine_stub",)


def test_a_new_file_that_defines_a_missing_kernel_is_seen(tmp_path: Path, store: Path, finder: Counter):
    write_old(tmp_path / "UnaryOps.cpp", UNARY_CPP)
    assert kernels_run(tmp_path, store, finder, "cos_out") is None
    write_old(tmp_path / "Trig.cpp", UNARY_CPP.replace("sin", "cos"))
    found = kernels_run(tmp_path, store, finder, "cos_out")
    assert found is not None and found.path == "Trig.cpp" and found.stub_names == ("cos_stub",)


def test_deleting_the_defining_file_is_seen(tmp_path: Path, store: Path, finder: Counter):
    write_old(tmp_path / "UnaryOps.cpp", UNARY_CPP)
    write_old(tmp_path / "Other.cpp", OTHER_CPP)
    assert kernels_run(tmp_path, store, finder) is not None
    (tmp_path / "UnaryOps.cpp").unlink()
    assert kernels_run(tmp_path, store, finder) is None


# -- through the command line ------------------------------------------------------------------


def test_check_sees_an_edit_made_between_two_cached_runs(sample_tree: Path, tmp_path: Path, monkeypatch):
    """The second run re-uses the first one's facts; an edit in between (same size, same second)
    must still be found."""
    monkeypatch.setenv("MPSGEN_CACHE_DIR", str(tmp_path / "cache"))
    runner = CliRunner()

    def check() -> list[dict]:
        result = runner.invoke(main, ["-C", str(sample_tree), "check", "--format", "json"])
        return json.loads(result.output)["findings"]

    assert check() == []
    assert {p.stem for p in (tmp_path / "cache" / "facts").rglob("*.pickle")} >= {"definitions", "yaml", "shared-kernels"}
    mm = sample_tree / "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
    text = mm.read_text()
    assert text.count("REGISTER_DISPATCH(hypot_stub") == 1
    mm.write_text(text.replace("REGISTER_DISPATCH(hypot_stub", "REGISTER_DISPATCH(hypoz_stub"))
    codes = {f["code"] for f in check()}
    assert "MPS005" in codes  # hypot's shared kernel calls hypot_stub, registered nowhere now
    assert check() != [] and {f["code"] for f in check()} == codes
    assert runner.invoke(main, ["-C", str(sample_tree), "check", "--no-cache", "--format", "json"]).output \
        == runner.invoke(main, ["-C", str(sample_tree), "check", "--format", "json"]).output


def test_facts_of_deleted_files_leave_the_store(tmp_path: Path):
    import pickle

    root = tmp_path / "checkout"
    root.mkdir()
    for name in ("a.mm", "b.mm"):
        write_old(root / name, name)
    store = tmp_path / "facts"

    def run(names):
        cache = FactCache(store, str(root))
        for name in names:
            cache.per_file("upper", root / name, name, lambda p: p.read_text(), upper)
        cache.save()

    run(["a.mm", "b.mm"])
    (root / "a.mm").unlink()
    write_old(root / "b.mm", "bb", OLD_NS + 3)
    run(["b.mm"])
    _, kept = pickle.loads((store / "upper.pickle").read_bytes())
    assert set(kept) == {"b.mm"} and kept["b.mm"][2] == "BB"


def test_which_files_name_an_identifier_follows_edits(tmp_path: Path, store: Path):
    """MPS003 takes a kernel named in native/*.cpp as defined by a macro mpsgen does not expand."""
    write_old(tmp_path / "UnaryOps.cpp", UNARY_CPP + "// old_kernel_out was removed\n")

    def names(name: str) -> bool:
        paths = {p.name: p for p in sorted(tmp_path.glob("*.cpp"))}
        cache = FactCache(store)
        sk = shared_kernels.SharedKernels(paths, lambda p: p.read_text(), cache)
        found = name in sk
        sk.save()
        cache.save()
        return found

    assert not names("old_kernel_out")  # only in a comment
    write_old(tmp_path / "Gen.cpp", "MAKE_KERNEL(old_kernel_out)\n")
    assert names("old_kernel_out")
    write_old(tmp_path / "Gen.cpp", "MAKE_KERNEL(new_kernel_out)\n", OLD_NS + 9)
    assert not names("old_kernel_out") and names("new_kernel_out")


def test_a_racy_fact_checked_after_the_clock_tick_needs_no_checksum_again(tmp_path: Path, store: Path, monkeypatch):
    import pickle

    src = tmp_path / "a.mm"
    src.write_text("abc")
    compute = Counter(upper)
    fact(store, src, compute)
    assert pickle.loads((store / "upper.pickle").read_bytes())[1]["a.mm"][1] is not None  # a checksum kept
    monkeypatch.setattr(factcache, "is_racy", lambda stamp: False)  # two seconds later
    assert fact(store, src, compute) == "ABC" and compute.calls == 1
    assert pickle.loads((store / "upper.pickle").read_bytes())[1]["a.mm"][1] is None


# -- the store's pickler -------------------------------------------------------------------------


class _Plain(NamedTuple):
    name: str
    line: int = 1


class _Custom(NamedTuple):
    name: str

    def __getstate__(self):  # a record with its own pickling is left to pickle's default
        return None


class _Sub(_Plain):  # a subclass (it has a __dict__): pickle's default
    pass


def test_the_stores_pickler_loads_records_exactly_as_the_default_one(tmp_path: Path):
    import pickle

    sub = _Sub("c", 3)
    sub.extra = 1
    data = {"a": (_Plain("a"), _Plain("b", 2), [_Plain("a")] * 2, frozenset({_Plain("x")})), "c": _Custom("c"),
            "s": sub, "t": (1, "x", None, True, 2.5, b"b")}
    path = tmp_path / "shelf.pickle"
    factcache._write_atomically(path, data)
    loaded = pickle.loads(path.read_bytes())
    assert loaded == pickle.loads(pickle.dumps(data)) == data
    assert [type(v) for v in loaded["a"][:2]] == [_Plain, _Plain] and type(loaded["c"]) is _Custom
    assert type(loaded["s"]) is _Sub and loaded["s"].extra == 1
    assert loaded["a"][2][0] is loaded["a"][2][1]  # shared records stay shared
    assert factcache._is_plain_namedtuple(_Plain)
    assert not any(map(factcache._is_plain_namedtuple, (_Custom, _Sub, tuple)))


def test_the_code_fingerprint_lists_the_modules_as_a_sorted_os_walk_does(tmp_path: Path):
    for rel in ("b.py", "a.py", "notes.txt", "sub/z.py", "sub/deeper/y.py", "sub/__pycache__/z.cpython-311.pyc",
                "__pycache__/a.py", "a_sub/x.py", "sub2/w.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    (tmp_path / "linked").symlink_to(tmp_path / "sub2", target_is_directory=True)  # os.walk does not follow it
    expected = []
    for folder, dirs, files in os.walk(tmp_path):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                expected.append(f"{os.path.relpath(os.path.join(folder, name), tmp_path)}:{st.st_size}:{st.st_mtime_ns}")
    found: list[str] = []
    factcache._module_stamps(str(tmp_path), "", found)
    assert found == expected and len(found) == 6


def test_a_file_is_stamped_once_a_run_whatever_its_facts(tmp_path: Path, store: Path, monkeypatch):
    src = tmp_path / "a.mm"
    write_old(src, "abc")
    stamps = Counter(factcache.stamp_of)
    monkeypatch.setattr(factcache, "stamp_of", stamps)
    cache = FactCache(store)
    read = lambda p: p.read_text()  # noqa: E731
    assert cache.per_file("upper", src, "a.mm", read, upper) == "ABC"
    assert cache.per_file("lower", src, "a.mm", read, str.lower) == "abc"
    assert cache.over_files("joined", {"a.mm": src}, read, lambda texts: "".join(texts.values())) == "abc"
    assert stamps.calls == 1
    cache.save()
    write_old(src, "xyz", OLD_NS + 10**9)  # the next run stamps it again, and sees the change
    assert fact(store, src, upper) == "XYZ"

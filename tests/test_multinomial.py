"""multinomial, the random kind's refusal (tests/data/multinomial: a 2.7-shaped Distributions.cpp whose shared
multinomial_out calls multinomial_with_replacement_stub itself and at::_assert_async on its other path, the
yaml entries with _assert_async dispatched for CPU and CUDA only, an MPSGraph Distributions.mm): `migrate`
refuses with the stub's call and the op MPS lacks, writing nothing; `status` says why it is no candidate."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_support import mpsgen, tracked_bytes

from mpsgen.sources.native.direct_sampler import direct_sampler
from mpsgen.sources.native.stubs import index_stub_declarations

DATA = Path(__file__).parent / "data" / "multinomial"
NATIVE = "aten/src/ATen/native"
CPP = f"{NATIVE}/Distributions.cpp"
YAML = f"{NATIVE}/native_functions.yaml"
FAST = ("--no-build", "--no-test", "--no-try", "--no-compile")


def _commit(root: Path, message: str) -> None:
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message], cwd=root, check=True)


def _lay(root: Path) -> Path:
    (root / CPP).write_text((DATA / "Distributions.cpp").read_text())
    header = root / NATIVE / "UnaryOps.h"
    stub = (DATA / "stub.h.txt").read_text()
    header.write_text(header.read_text().replace("\n} // namespace at::native", f"{stub}\n}} // namespace at::native"))
    (root / NATIVE / "mps/operations/Distributions.mm").write_text((DATA / "Distributions.mm").read_text())
    entries = (DATA / "native_functions.yaml").read_text().split("\n", 1)[1]  # without its header comment
    (root / YAML).write_text((root / YAML).read_text() + entries)
    _commit(root, "multinomial")
    return root


def test_multinomial_is_refused_with_its_stub_call_and_the_op_mps_lacks(tree: Path) -> None:
    root = _lay(tree)
    before = tracked_bytes(root)
    r = mpsgen("migrate", "multinomial", *FAST, cwd=root)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert (f"{CPP}:25: multinomial_out ({CPP}:9) draws through multinomial_with_replacement_stub itself, with no "
            "distribution template: mpsgen has no Metal sampler for it") in r.stderr
    # the overload the call's two arguments name, at its yaml line
    assert (f"it also calls at::_assert_async (line 18), which {YAML}:") in r.stderr
    line = (root / YAML).read_text().splitlines().index("- func: _assert_async.msg(Tensor self, str assert_msg) -> ()")
    assert f"{YAML}:{line + 1} dispatches to CPU, CUDA only, so the shared multinomial_out would fail on MPS" \
        in r.stderr
    assert ("(hint: register multinomial_with_replacement_stub by hand and give _assert_async.msg an MPS kernel, "
            "or leave the family's MPS dispatch as it is)") in r.stderr
    assert tracked_bytes(root) == before


def test_with_assert_async_on_mps_only_the_sampler_is_missing(tree: Path) -> None:
    root = _lay(tree)
    yaml = (root / YAML).read_text().replace("    CUDA: _assert_async_msg_cuda\n",
                                             "    CUDA: _assert_async_msg_cuda\n    MPS: _assert_async_msg_mps\n")
    (root / YAML).write_text(yaml)
    _commit(root, "assert on MPS")
    r = mpsgen("migrate", "multinomial", *FAST, cwd=root)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "mpsgen has no Metal sampler for it (while planning" in r.stderr and "_assert_async" not in r.stderr
    assert ("(hint: register multinomial_with_replacement_stub by hand, or leave the family's MPS dispatch as it "
            "is)") in r.stderr


def test_status_says_why_multinomial_is_no_candidate(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("-C", str(root), "status", "--op", "multinomial")
    assert r.returncode == 0, r.stderr
    assert (f"multinomial.out (multinomial_out_mps): not a candidate: multinomial_out ({CPP}:9) draws through "
            "multinomial_with_replacement_stub itself: mpsgen has no Metal sampler for it") in r.stdout


def test_the_reader_wants_a_stub_taking_a_generator() -> None:
    text = (DATA / "Distributions.cpp").read_text()
    declared = index_stub_declarations({f"{NATIVE}/UnaryOps.h": (DATA / "stub.h.txt").read_text()})
    found = direct_sampler(lambda _: {CPP: text}, "multinomial_out", declared.get)
    assert found is not None and (found.stub, found.line, found.kernel_line) == ("multinomial_with_replacement_stub",
                                                                                25, 9)
    assert ("_assert_async", 18, 2) in found.at_calls and ("div_out", 20, 3) in found.at_calls
    assert direct_sampler(lambda _: {CPP: text}, "multinomial", declared.get) is None  # it calls multinomial_out
    no_generator = index_stub_declarations({f"{NATIVE}/UnaryOps.h": (DATA / "stub.h.txt").read_text().replace(
        ", std::optional<Generator>", "")})
    assert direct_sampler(lambda _: {CPP: text}, "multinomial_out", no_generator.get) is None

"""verify/ (build, tests, processes) against a real ninja and a real unittest file; config.py on small config files."""

from __future__ import annotations

import io
import os
import signal
import textwrap
import threading
import time
from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.tree.config import ENV_BUILD_CMD, Config, default_build_cmds, load_config, split_commands
from mpsgen.verify import mps_tests
from mpsgen.verify.build import needs_reconfigure, parse_compiler_errors, run_build
from mpsgen.verify.mps_tests import run_tests
from mpsgen.verify.processes import Interrupted
from mpsgen.verify.unittest_log import GRAD_TEST, MATCH_TEST, Counts, parse_unittest_output

EDITED_MM = "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
NINJA = ("ninja", "-C", "build", "torch_cpu")


def make_tree(tmp_path: Path, build_ninja: str) -> Path:
    root = tmp_path / "pytorch"
    (root / "build").mkdir(parents=True)
    (root / "aten/src/ATen/native/mps/operations").mkdir(parents=True)
    (root / EDITED_MM).write_text("// host\n")
    (root / "aten/src/ATen/native/Other.cpp").write_text("// other\n")
    (root / "build" / "build.ninja").write_text(textwrap.dedent(build_ninja))
    return root


GOOD_NINJA = """\
    rule cc
      command = echo compiling $out && touch $out
      description = CC $out
    build a.o: cc
    build b.o: cc
    build c.o: cc
    build torch_cpu: phony a.o b.o c.o
    rule inst
      command = echo installed > installed.txt
    build install: inst | torch_cpu
"""

BAD_NINJA = """\
    rule cc
      command = touch $out
      description = CC $out
    rule broken
      command = echo "../aten/src/ATen/native/Other.cpp:3:1: error: unrelated failure" && echo "../aten/src/ATen/native/mps/operations/BinaryKernel.mm:12:5: error: use of undeclared identifier 'atan2_kernel'" && echo "In file included from x.h:1:" && exit 1
      description = CXX $out
    build a.o: cc
    build bad.o: broken
    build torch_cpu: phony a.o bad.o
"""


# -- build ----------------------------------------------------------------------------------


def test_build_success_plain_lines_and_log(tmp_path: Path):
    root = make_tree(tmp_path, GOOD_NINJA)
    out = io.StringIO()
    result = run_build(root, default_build_cmds("build"), out=out, is_tty=False)
    assert result.ok and result.returncode == 0 and result.errors == ()
    text = out.getvalue()
    for n in (1, 2, 3):
        assert f"[{n}/" in text
    assert "\r" not in text
    assert (root / "build/installed.txt").read_text() == "installed\n"  # the install step ran after torch_cpu
    log = result.log_path.read_text()
    assert result.log_path == root / "build" / "mpsgen-build.log"
    assert "$ ninja -C build torch_cpu" in log and "$ ninja -C build install" in log and "compiling a.o" in log


def test_build_progress_bar_on_a_terminal(tmp_path: Path):
    root = make_tree(tmp_path, GOOD_NINJA)
    out = io.StringIO()
    result = run_build(root, [NINJA], out=out, is_tty=True)
    assert result.ok
    text = out.getvalue()
    assert "\r[####################] 3/3 CC" in text  # the last update is a full bar
    assert "compiling" not in text  # chatter stays in the log
    assert "compiling a.o" in result.log_path.read_text()


def test_build_failure_surfaces_errors_in_edited_files_first(tmp_path: Path):
    root = make_tree(tmp_path, BAD_NINJA)
    out = io.StringIO()
    result = run_build(root, [NINJA, ("ninja", "-C", "build", "install")], edited_files=[EDITED_MM],
                       out=out, is_tty=True)
    assert not result.ok and result.returncode != 0
    assert result.failed_command == NINJA  # stopped at the first failing command
    assert [str(e) for e in result.edited_errors] == [
        f"{EDITED_MM}:12:5: error: use of undeclared identifier 'atan2_kernel'"
    ]
    assert [e.path for e in result.errors] == [EDITED_MM, "aten/src/ATen/native/Other.cpp"]
    summary = result.summary()
    assert "errors in the files mpsgen edited:" in summary and "atan2_kernel" in summary
    assert "unrelated failure" not in summary
    assert "FAILED:" in out.getvalue()  # ninja's failure line is shown even on a terminal
    assert "$ ninja -C build install" not in result.log_path.read_text()


def test_build_failure_without_edited_errors_shows_the_others(tmp_path: Path):
    root = make_tree(tmp_path, BAD_NINJA)
    result = run_build(root, [NINJA], edited_files=["aten/src/ATen/native/mps/kernels/X.metal"],
                       out=io.StringIO(), is_tty=False)
    assert result.edited_errors == ()
    assert "no error points into the files mpsgen edited" in result.summary()
    assert "unrelated failure" in result.summary()


def test_missing_build_dir_is_a_clear_error(tmp_path: Path):
    with pytest.raises(MpsgenError) as info:
        run_build(tmp_path, [NINJA], out=io.StringIO())
    assert "build folder not found" in info.value.render() and "--no-build" in info.value.render()


def test_missing_executable_is_a_clear_error(tmp_path: Path):
    root = make_tree(tmp_path, GOOD_NINJA)
    with pytest.raises(MpsgenError) as info:
        run_build(root, [("no-such-ninja-xyz", "-C", "build")], out=io.StringIO())
    assert "`no-such-ninja-xyz` not found on PATH" in info.value.render()
    assert "--no-build" in info.value.hint
    assert not (root / "build" / "mpsgen-build.log").exists()  # nothing ran


def _gone_or_zombie(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_ctrl_c_kills_the_process_group(tmp_path: Path):
    root = make_tree(tmp_path, """\
        rule slow
          command = echo $$$$ > slow.pid && sleep 60
          description = SLOW $out
        build torch_cpu: slow
    """)
    pid_file = root / "build" / "slow.pid"
    main = threading.main_thread().ident

    def interrupt_when_started() -> None:
        for _ in range(500):
            if pid_file.exists() and pid_file.read_text().strip():
                break
            time.sleep(0.02)
        signal.pthread_kill(main, signal.SIGINT)

    t = threading.Thread(target=interrupt_when_started)
    t.start()
    with pytest.raises(Interrupted) as info:
        run_build(root, [NINJA], out=io.StringIO(), is_tty=False)
    t.join()
    assert info.value.phase == "build" and info.value.command == NINJA
    assert "child processes were stopped" in info.value.describe()
    pid = int(pid_file.read_text())
    for _ in range(250):  # the killed shell may linger briefly as a zombie of init
        if _gone_or_zombie(pid):
            break
        time.sleep(0.02)
    assert _gone_or_zombie(pid)
    assert "interrupted" in (root / "build" / "mpsgen-build.log").read_text()


def test_ctrl_c_while_the_child_is_starting_still_stops_it(tmp_path: Path, monkeypatch):
    """A Ctrl-C arriving inside Popen (the child has started, Popen has not returned: under load, the
    window in which `migrate`'s build was interrupted to click's bare "Aborted!") still stops the child
    and says so."""
    import subprocess

    from mpsgen.verify import processes

    started: list[subprocess.Popen] = []
    real_popen = subprocess.Popen

    def popen_then_ctrl_c(*args, **kwargs):
        proc = real_popen(*args, **kwargs)
        if not started:  # the build's child; not kill_group's `ps`
            started.append(proc)
            os.kill(os.getpid(), signal.SIGINT)
        return proc

    monkeypatch.setattr(processes.subprocess, "Popen", popen_then_ctrl_c)
    log = io.StringIO()
    with pytest.raises(Interrupted) as info:
        processes.stream(["sleep", "60"], tmp_path, log, lambda line: None, "build", tmp_path / "build.log")
    assert info.value.phase == "build"
    assert started[0].poll() is not None  # stopped and reaped
    assert f"interrupted; process group {started[0].pid} stopped" in log.getvalue()


def test_needs_reconfigure_reads_the_glob(tmp_path: Path):
    cm = tmp_path / "aten/src/ATen/CMakeLists.txt"
    cm.parent.mkdir(parents=True)
    cm.write_text('if(USE_MPS)\n  file(GLOB_RECURSE native_mps_metal "native/mps/*.metal")\nendif()\n')
    assert needs_reconfigure(tmp_path, ["aten/src/ATen/native/mps/kernels/New.metal"])
    assert not needs_reconfigure(tmp_path, [])
    assert not needs_reconfigure(tmp_path, ["aten/src/ATen/native/native_functions.yaml"])
    cm.write_text('file(GLOB_RECURSE native_mps_metal CONFIGURE_DEPENDS "native/mps/*.metal")\n'
                  'file(GLOB native_mps_mm CONFIGURE_DEPENDS "native/mps/*.mm")\n')
    assert not needs_reconfigure(tmp_path, ["x/New.metal", "x/New.mm"])
    cm.write_text('file(GLOB native_mps_mm "native/mps/*.mm" "native/mps/operations/*.mm")\n')
    assert needs_reconfigure(tmp_path, ["x/New.mm"])
    cm.unlink()
    assert not needs_reconfigure(tmp_path, ["x/New.metal"])


def test_build_reruns_cmake_first_when_a_file_was_added(tmp_path: Path, monkeypatch):
    root = make_tree(tmp_path, GOOD_NINJA)
    cm = root / "aten/src/ATen/CMakeLists.txt"
    cm.write_text('file(GLOB_RECURSE native_mps_metal "native/mps/*.metal")\n')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "cmake"
    fake.write_text('#!/bin/sh\necho "cmake $* in $(pwd)" > reconfigured.txt\necho "-- Configuring done"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    result = run_build(root, [NINJA], added_files=["aten/src/ATen/native/mps/kernels/New.metal"],
                       out=io.StringIO(), is_tty=False)
    assert result.ok
    assert result.commands[0] == ("cmake", ".")
    assert (root / "build/reconfigured.txt").read_text().strip() == f"cmake . in {root / 'build'}"
    log = result.log_path.read_text()
    assert log.index("$ cmake .") < log.index("$ ninja -C build torch_cpu")


def test_parse_compiler_errors_metal_and_absolute_paths(tmp_path: Path):
    root = tmp_path / "pt"
    (root / "build").mkdir(parents=True)
    lines = [
        f"{root}/aten/src/ATen/native/mps/kernels/BinaryKernel.metal:40:10: error: no member named 'atan3'",
        "/usr/include/x.h:1:2: fatal error: 'y.h' file not found",
        "warning: ignored",
        "../aten/src/ATen/native/mps/kernels/BinaryKernel.metal:40:10: error: no member named 'atan3'",  # duplicate
        "ld: error: undefined symbol",
    ]
    errors = parse_compiler_errors(lines, root, root / "build",
                                   edited_files=["aten/src/ATen/native/mps/kernels/BinaryKernel.metal"])
    assert [str(e) for e in errors] == [
        "aten/src/ATen/native/mps/kernels/BinaryKernel.metal:40:10: error: no member named 'atan3'",
        "/usr/include/x.h:1:2: error: 'y.h' file not found",
    ]


# -- tests ----------------------------------------------------------------------------------

FAKE_TEST_MPS = '''\
import sys
import unittest


class TestConsistencyMPS(unittest.TestCase):
    def test_output_match_atan2_mps_float32(self):
        pass

    def test_output_match_atan2_mps_float16(self):
        self.assertEqual(1.0, 1.5, "atan2 mismatch on float16")

    def test_output_match_atan2_mps_int32(self):
        """Integer inputs."""
        raise RuntimeError("MPS kernel atan2_dense_float_int not found")

    def test_output_match_atan2_mps_bool(self):
        self.skipTest("bool is not supported")

    @unittest.expectedFailure
    def test_output_match_atan2_mps_complex64(self):
        raise AssertionError("complex not supported")

    @unittest.expectedFailure
    def test_output_match_atan2_mps_bfloat16(self):
        print("noise from the test", file=sys.stderr)

    def test_output_grad_match_atan2_mps_float32(self):
        pass

    def test_output_match_atan2_variant_mps_float32(self):
        pass

    def test_output_match_hypot_mps_float32(self):
        raise AssertionError("must not run: -k selects atan2 only")


if __name__ == "__main__":
    unittest.main()
'''


@pytest.fixture()
def fake_checkout(tmp_path: Path) -> Path:
    root = tmp_path / "pytorch"
    (root / "test").mkdir(parents=True)
    (root / "test" / "test_mps.py").write_text(FAKE_TEST_MPS)
    (root / "build").mkdir()
    return root


def test_run_tests_parses_every_outcome_per_dtype(fake_checkout: Path):
    out = io.StringIO()
    result = run_tests(fake_checkout, ["atan2"], grad=True, out=out, is_tty=False)
    assert result.command[1:] == ("test/test_mps.py", "-v", "-k", f"{MATCH_TEST}_atan2", "-k", f"{GRAD_TEST}_atan2")
    assert result.returncode == 1 and not result.ok
    assert result.ran == 8 and len(result.outcomes) == 8  # hypot not selected; the variant is
    by = result.counts_by_dtype(MATCH_TEST)
    assert by["float32"] == Counts(passed=2)  # atan2 and atan2_variant
    assert by["float16"] == Counts(failed=1)
    assert by["int32"] == Counts(error=1)
    assert by["bool"] == Counts(skipped=1)
    assert by["complex64"] == Counts(xfail=1)
    assert by["bfloat16"] == Counts(xpass=1)
    assert result.counts_by_dtype(GRAD_TEST) == {"float32": Counts(passed=1)}
    assert result.totals == Counts(passed=3, failed=1, error=1, skipped=1, xfail=1, xpass=1)
    (xpass,) = result.unexpected_successes
    assert (xpass.op, xpass.dtype, xpass.test_class) == ("atan2", "bfloat16", "TestConsistencyMPS")
    details = {o.dtype: o.detail for o in result.failures}
    assert details == {"float16": "AssertionError: 1.0 != 1.5 : atan2 mismatch on float16",
                       "int32": "RuntimeError: MPS kernel atan2_dense_float_int not found"}
    skipped = [o for o in result.outcomes if o.status == "skipped"]
    assert skipped[0].detail == "bool is not supported"
    summary = result.summary()
    assert "UNEXPECTED SUCCESS: test_output_match_atan2_mps_bfloat16" in summary
    assert "the bfloat16 xfail for atan2 can be removed" in summary
    assert "test_output_match_atan2_mps_float32" in out.getvalue()  # plain lines streamed
    assert "atan2 mismatch" in result.log_path.read_text()
    assert result.log_path == fake_checkout / "build" / "mpsgen-test.log"


def test_run_tests_all_passing_is_ok(fake_checkout: Path):
    out = io.StringIO()
    result = run_tests(fake_checkout, ["atan2_variant"], out=out, is_tty=True)
    assert result.ok
    assert "\r[1] test_output_match_atan2_variant_mps_float32" in out.getvalue()
    assert result.totals == Counts(passed=1)


def test_run_tests_no_match_is_not_ok(fake_checkout: Path):
    result = run_tests(fake_checkout, ["no_such_op"], out=io.StringIO(), is_tty=False)
    assert not result.ok and result.totals.total == 0
    assert "no test matched" in result.summary()


def test_run_tests_dotted_names_and_missing_file(tmp_path: Path):
    assert mps_tests.k_patterns(["special.zeta"], grad=False) == ["test_output_match_special_zeta"]
    with pytest.raises(MpsgenError, match="file not found"):
        run_tests(tmp_path, ["atan2"], out=io.StringIO())


def test_parse_older_unittest_form_and_interleaved_output():
    lines = [
        "test_output_match_add_cpu_float32 (__main__.TestConsistencyCPU) ... ok",
        "test_output_match_add_mps_float8_e4m3fn (__main__.TestConsistencyMPS) ... skipped 'fp8 needs macOS 26'",
        "test_output_grad_match_add_mps_float16 (__main__.TestConsistencyMPS.test_output_grad_match_add_mps_float16)"
        " ... some warning printed by the test",
        "expected failure",
        "test_other (__main__.TestFoo.test_other) ... ok",
        "----------------------------------------------------------------------",
        "Ran 4 tests in 0.5s",
    ]
    outcomes, ran = parse_unittest_output(lines)
    assert ran == 4
    assert [(o.test_class, o.kind, o.op, o.dtype, o.status) for o in outcomes] == [
        ("TestConsistencyCPU", MATCH_TEST, "add", "float32", "passed"),
        ("TestConsistencyMPS", MATCH_TEST, "add", "float8_e4m3fn", "skipped"),
        ("TestConsistencyMPS", GRAD_TEST, "add", "float16", "xfail"),
        ("TestFoo", "", "", "", "passed"),
    ]
    assert outcomes[1].detail == "fp8 needs macOS 26"


# -- config ---------------------------------------------------------------------------------


def test_config_defaults(tmp_path: Path):
    cfg = load_config(tmp_path, env={})
    assert cfg == Config()
    assert cfg.build_cmds == (("ninja", "-C", "build", "torch_cpu"), ("ninja", "-C", "build", "install"))
    assert cfg.build_cmd_source == "default" and cfg.test_cmd is None


def test_config_from_mpsgen_toml(tmp_path: Path):
    (tmp_path / "mpsgen.toml").write_text(
        '[tool.mpsgen]\nbuild_dir = "build-mps"\nbuild_cmd = ["ninja -C build-mps torch_cpu", ["make", "install"]]\n'
        'test_cmd = "python3 -X dev test/test_mps.py"\n'
    )
    cfg = load_config(tmp_path, env={})
    assert cfg.build_dir == "build-mps"
    assert cfg.build_cmds == (("ninja", "-C", "build-mps", "torch_cpu"), ("make", "install"))
    assert cfg.test_cmd == ("python3", "-X", "dev", "test/test_mps.py")
    assert cfg.build_cmd_source == "mpsgen.toml"


def test_config_build_dir_changes_the_default_commands(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "torch"\n\n[tool.mpsgen]\nbuild_dir = "out"\n')
    cfg = load_config(tmp_path, env={})
    assert cfg.build_cmds == (("ninja", "-C", "out", "torch_cpu"), ("ninja", "-C", "out", "install"))


def test_config_pyproject_without_table_is_ignored(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "torch"\n[tool.black]\nline-length = 88\n')
    assert load_config(tmp_path, env={}) == Config()


def test_env_overrides_file_and_cli_overrides_env(tmp_path: Path):
    (tmp_path / "mpsgen.toml").write_text('[tool.mpsgen]\nbuild_cmd = "make"\n')
    env = {ENV_BUILD_CMD: "ninja -C build torch_cpu && ninja -C build install"}
    cfg = load_config(tmp_path, env=env)
    assert cfg.build_cmds == default_build_cmds() and cfg.build_cmd_source == ENV_BUILD_CMD
    cfg = load_config(tmp_path, env=env, cli_build_cmds=["cmake --build build --target 'torch cpu'"])
    assert cfg.build_cmds == (("cmake", "--build", "build", "--target", "torch cpu"),)
    assert cfg.build_cmd_source == "--build-cmd"


def test_malformed_toml_names_file_and_line(tmp_path: Path):
    (tmp_path / "mpsgen.toml").write_text('[tool.mpsgen]\nbuild_dir = "build"\nbuild_cmd = [\n')
    with pytest.raises(MpsgenError) as info:
        load_config(tmp_path, env={})
    err = info.value
    assert err.path == "mpsgen.toml" and err.line == 3 and err.message.startswith("not valid TOML")
    assert "(at end" not in err.render()
    (tmp_path / "mpsgen.toml").write_text('[tool.mpsgen]\nbuild_dir = "build"\nbuild_cmd "x"\n\n')
    with pytest.raises(MpsgenError) as info:
        load_config(tmp_path, env={})
    assert info.value.line == 3 and "(at line" not in info.value.render()
    assert info.value.render().startswith("mpsgen.toml:3: not valid TOML: ")


def test_unknown_key_and_wrong_type_name_their_line(tmp_path: Path):
    (tmp_path / "mpsgen.toml").write_text('[tool.mpsgen]\nbuild_dir = "b"\nbuild_cmds = "make"\n')
    with pytest.raises(MpsgenError) as info:
        load_config(tmp_path, env={})
    assert (info.value.line, info.value.message) == (3, "unknown key 'build_cmds' in [tool.mpsgen]")
    (tmp_path / "mpsgen.toml").write_text('[tool.mpsgen]\n\nbuild_cmd = 3\n')
    with pytest.raises(MpsgenError) as info:
        load_config(tmp_path, env={})
    assert info.value.line == 3 and "build_cmd must be" in info.value.message


def test_split_commands_refuses_shell_syntax():
    assert split_commands("a b && c", source="x") == (("a", "b"), ("c",))
    with pytest.raises(MpsgenError, match="shell operator '|'"):
        split_commands("ninja | tee log", source="--build-cmd")
    with pytest.raises(MpsgenError, match="empty"):
        split_commands("  ", source="--build-cmd")
    with pytest.raises(MpsgenError, match="cannot split"):
        split_commands("ninja 'unclosed", source="--build-cmd")


def test_ctrl_c_during_the_tests_stops_them(tmp_path: Path):
    root = tmp_path / "pytorch"
    (root / "test").mkdir(parents=True)
    pid_file = tmp_path / "test.pid"
    (root / "test" / "test_mps.py").write_text(textwrap.dedent(f'''\
        import os, time, unittest
        class TestConsistencyMPS(unittest.TestCase):
            def test_output_match_atan2_mps_float32(self):
                open({str(pid_file)!r}, "w").write(str(os.getpid()))
                time.sleep(60)
        unittest.main()
    '''))
    main = threading.main_thread().ident

    def interrupt_when_started() -> None:
        for _ in range(500):
            if pid_file.exists() and pid_file.read_text().strip():
                break
            time.sleep(0.02)
        signal.pthread_kill(main, signal.SIGINT)

    t = threading.Thread(target=interrupt_when_started)
    t.start()
    with pytest.raises(Interrupted) as info:
        run_tests(root, ["atan2"], out=io.StringIO(), is_tty=False, log_path=tmp_path / "t.log")
    t.join()
    assert info.value.phase == "tests" and info.value.log_path == tmp_path / "t.log"
    assert _gone_or_zombie(int(pid_file.read_text()))
    assert "interrupted" in (tmp_path / "t.log").read_text()

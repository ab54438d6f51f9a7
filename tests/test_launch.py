"""The two-output helper's launch calls follow the checkout's headers (sources/host/launch.py): the
profiler's arity, and dispatch_sync where no header declares dispatch_sync_with_rethrow."""

from __future__ import annotations

from mpsgen.sources.host.launch import PROFILER_REL, STREAM_REL, UTILS_REL, Launch, read_launch

PROFILER_213 = ("class MPSProfiler {\n public:\n  uint64_t beginProfileKernel(\n      const void* handle,\n"
                "      const std::string& kernelName,\n      const TensorList& tensors);\n"
                "  void endProfileKernel(const void* handle, SyncType syncType = SyncType::NONE);\n};\n")
PROFILER_NEWER = PROFILER_213.replace("const TensorList& tensors);", "const TensorList& tensors,\n"
                                      "      MPSStream* stream);").replace(
    "void endProfileKernel(const void* handle, SyncType syncType = SyncType::NONE);",
    "void endProfileKernel(const void* handle, MPSStream* stream);")
RETHROW = "void dispatch_sync_with_rethrow(dispatch_queue_t queue, void (^block)());\n"
CALLS_RETHROW = "inline void f() {\n  dispatch_sync_with_rethrow(serialQueue_, ^() {});\n}\n"


def test_213_headers_take_no_stream_and_declare_rethrow_in_the_stream_header():
    assert read_launch({PROFILER_REL: PROFILER_213, STREAM_REL: RETHROW, UTILS_REL: CALLS_RETHROW}) == Launch(
        "dispatch_sync_with_rethrow", False, False)


def test_newer_profiler_takes_the_stream():
    assert read_launch({PROFILER_REL: PROFILER_NEWER, STREAM_REL: "", UTILS_REL: RETHROW}) == Launch(
        "dispatch_sync_with_rethrow", True, True)


def test_headers_that_only_call_rethrow_get_plain_dispatch_sync():
    # The 2026-shaped tree: 2.13's OperationUtils.h calls it, 2.7's MPSStream.h does not declare it.
    launch = read_launch({PROFILER_REL: PROFILER_213, STREAM_REL: "class MPSStream {};\n", UTILS_REL: CALLS_RETHROW})
    assert launch.dispatch == "dispatch_sync"


def test_a_declaration_in_a_comment_does_not_count():
    launch = read_launch({PROFILER_REL: PROFILER_213, STREAM_REL: "// " + RETHROW, UTILS_REL: None})
    assert launch.dispatch == "dispatch_sync"


def test_a_trimmed_checkout_gets_the_2_7_spelling():
    assert read_launch({}) == Launch("dispatch_sync_with_rethrow", False, False)


def test_a_sibling_passing_the_stream_is_respelled_for_a_profiler_without_that_overload():
    from mpsgen.sources.host.launch import respelled

    sibling = ("  getMPSProfiler().beginProfileKernel(\n      pso, kernel_name, {input, other1, other2}, mpsStream);\n"
               "  mtl_dispatch1DJob(computeEncoder, pso, numel);\n"
               "  getMPSProfiler().endProfileKernel(pso, mpsStream);\n"
               "  getMPSProfiler().beginProfileKernel(pso, name, {input});  // 3 arguments, as declared\n")
    assert respelled(sibling, Launch()) == (
        "  getMPSProfiler().beginProfileKernel(\n      pso, kernel_name, {input, other1, other2});\n"
        "  mtl_dispatch1DJob(computeEncoder, pso, numel);\n"
        "  getMPSProfiler().endProfileKernel(pso);\n"
        "  getMPSProfiler().beginProfileKernel(pso, name, {input});  // 3 arguments, as declared\n")
    assert respelled(sibling, Launch(begin_takes_stream=True, end_takes_stream=True)) == sibling

"""Static helpers and macros used only by a deleted MPSGraph implementation go with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpsgen.errors import MpsgenError
from mpsgen.sources.host.deadcode import referenced_names, remove_unused_helpers
from mpsgen.sources.host.mm import find_implementations, remove_implementation

MID_2026 = (Path(__file__).parent / "data" / "deadcode" / "UnaryOps_mid2026.mm").read_text()
PATH = "operations/UnaryOps.mm"


def remove_kernel(text: str, name: str) -> tuple[str, set[str]]:
    used: set[str] = set()
    for impl in find_implementations({PATH: text}, name):
        lines = text.splitlines(True)
        used |= referenced_names("".join(lines[impl.line - 1 : impl.end_line]))
        text = remove_implementation(text, impl)
    return text, used


def test_logit_helper_and_its_macro_go_when_both_logit_kernels_are_deleted() -> None:
    text, used = remove_kernel(MID_2026, "logit_out_mps")
    text, removed, left = remove_unused_helpers(text, PATH, used)
    assert removed == left == [] and "static void logit_mps_impl(" in text  # logit_mps still calls it

    text, used = remove_kernel(text, "logit_mps")
    text, removed, left = remove_unused_helpers(text, PATH, used)
    assert [what for _, what in removed] == ["static logit_mps_impl", "#define LOGIT_KEY"] and left == []
    assert "logit" not in text.replace("logit_native.h", "")
    # oneLike is still used by expm1_out_mps: it stays, byte for byte.
    start = MID_2026.index("static MPSGraphTensor* oneLike(")
    helper = MID_2026[start : MID_2026.index("}\n", start) + 2]
    assert helper in text and "TORCH_IMPL_FUNC(expm1_out_mps)" in text and "TORCH_IMPL_FUNC(sgn_out_mps)" in text
    # Only whole definitions were removed: every other line is unchanged and in order.
    kept = iter(MID_2026.splitlines(True))
    assert all(any(line == k for k in kept) for line in text.splitlines(True))
    assert "\n\n\n" not in text


def test_nothing_is_removed_when_the_deleted_code_used_no_local_helper() -> None:
    text, used = remove_kernel(MID_2026, "sgn_out_mps")
    assert remove_unused_helpers(text, PATH, used) == (text, [], [])


def test_a_shared_helper_goes_with_its_last_user_whatever_its_name() -> None:
    # Issue 12 changed this: oneLike, shared by expm1 and logit, used to be reported and left.
    text, used = remove_kernel(MID_2026, "expm1_out_mps")
    text, removed, left = remove_unused_helpers(text, PATH, used)
    assert removed == left == [] and "static MPSGraphTensor* oneLike(" in text  # logit_mps_impl still uses it
    text, used2 = remove_kernel(text, "logit_out_mps")
    text, used3 = remove_kernel(text, "logit_mps")
    text, removed, left = remove_unused_helpers(text, PATH, used | used2 | used3)
    # A chain: logit_mps_impl goes first, then what only it used (oneLike, LOGIT_KEY).
    assert sorted(what for _, what in removed) == ["#define LOGIT_KEY", "static logit_mps_impl", "static oneLike"]
    assert left == [] and "oneLike" not in text and "LOGIT_KEY" not in text
    assert "TORCH_IMPL_FUNC(sgn_out_mps)" in text and "} // namespace at::native" in text


# -- small texts ----------------------------------------------------------------------------------

SMALL = """#include <ATen/native/mps/OperationUtils.h>

namespace at::native {
#define SHARED_KEY(x) (x + 1)
#define ONLY_KEY(x) (x + 2)
#define ONLY_SCALE 3

static int leaf(int x) {
  return x * ONLY_SCALE;
}

static int middle(int x) {
  return leaf(x) + ONLY_KEY(x);
}

static int shared(int x) {
  return x - 1;
}

int exported(int x) {
  return x + 2;
}

namespace {
int hidden(int x) {
  return x * 5;
}
} // namespace

TORCH_IMPL_FUNC(foo_out_mps)(const Tensor& self, const Tensor& output) {
  int a = middle(1) + shared(2) + exported(3) + hidden(4) + SHARED_KEY(5);
}

TORCH_IMPL_FUNC(bar_out_mps)(const Tensor& self, const Tensor& output) {
  int b = shared(6) + SHARED_KEY(7);
}

} // namespace at::native
"""
SMALL_PATH = "operations/Small.mm"


def delete_foo(text: str) -> tuple[str, list[str], list[str]]:
    impl = next(i for i in find_implementations({SMALL_PATH: text}, "foo_out_mps"))
    used = referenced_names("".join(text.splitlines(True)[impl.line - 1 : impl.end_line]))
    text = remove_implementation(text, impl, allow_unknown=True)
    text, removed, left = remove_unused_helpers(text, SMALL_PATH, used)
    return text, [w for _, w in removed], [w for _, w in left]


def test_helpers_only_the_deleted_code_used_go_to_a_fixed_point() -> None:
    text, removed, left = delete_foo(SMALL)
    # middle went, then leaf and ONLY_KEY (used only by middle), then ONLY_SCALE (used only by leaf);
    # hidden is in an anonymous namespace, so file-local too.
    assert sorted(removed) == ["#define ONLY_KEY", "#define ONLY_SCALE", "anonymous-namespace hidden",
                               "static leaf", "static middle"]
    assert [w for w in removed if "middle" in w or "leaf" in w][0] == "static middle"  # the chain, in order
    assert left == []
    for gone in ("leaf", "middle", "ONLY_KEY", "ONLY_SCALE", "foo_out_mps"):
        assert gone not in text


def test_helpers_still_used_or_visible_elsewhere_stay() -> None:
    text, removed, _ = delete_foo(SMALL)
    # shared and SHARED_KEY: bar still uses them.  exported: not static (another file may call it).
    assert "static int shared(int x) {\n  return x - 1;\n}\n" in text
    assert "#define SHARED_KEY(x) (x + 1)\n" in text
    assert "int exported(int x) {\n  return x + 2;\n}\n" in text
    # hidden: in an anonymous namespace, so file-local, and now unused: it goes.
    assert "anonymous-namespace hidden" in removed and "int hidden(" not in text
    # Only whole definitions went: the kept lines are the original ones, in order, no blank run.
    kept = iter(SMALL.splitlines(True))
    assert all(any(line == k for k in kept) for line in text.splitlines(True))
    assert "\n\n\n" not in text


def test_a_name_a_macro_could_paste_is_kept_and_reported() -> None:
    # The sample's BinaryOps.mm: CREATE_*_FUNC calls mps::binaryOp##other_type, i.e. binaryOpTensor.
    text = SMALL.replace("#define ONLY_SCALE 3\n", "#define ONLY_SCALE 3\n#define CALL(kind) mid##kind\n")
    text = text.replace("static int middle(", "static int midx(").replace("middle(1)", "midx(1)")
    text, removed, left = delete_foo(text)
    assert left == ["static midx"] and "static int midx(" in text
    assert "static leaf" not in removed and "#define ONLY_KEY" not in removed  # midx still uses them


def test_an_object_like_macro_above_an_include_stays() -> None:
    # It may configure the header (TORCH_ASSERT_ONLY_METHOD_OPERATORS-style).
    text = "#define ONLY_SCALE 3\n" + SMALL.replace("#define ONLY_SCALE 3\n", "")
    text, removed, _ = delete_foo(text)
    assert "#define ONLY_SCALE" not in removed and text.startswith("#define ONLY_SCALE 3\n")


# -- on the sample checkout, through the planner --------------------------------------------------


def test_on_the_sample_a_macros_last_use_takes_it_along_and_a_pasted_helper_stays(sample_tree: Path) -> None:
    from mpsgen.model import KernelOptions
    from mpsgen.plan.kernelplan import plan_kernel_command
    from mpsgen.tree.checkout import Checkout

    mm = "aten/src/ATen/native/mps/operations/UnaryOps.mm"
    plan = plan_kernel_command("migrate", Checkout(sample_tree), KernelOptions(op="asinh", drop_complex=True))
    assert f"{mm}:90: #define CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC (used only by asinh_out_mps)" in plan.removed
    after = plan.changeset.current(mm)
    assert "CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC" not in after
    assert "static void unary_op(" in after  # frac_out_mps still calls it

    # BinaryOps.mm: logical_xor's CREATE_* macro calls mps::binaryOp##other_type, i.e. binaryOpTensor.
    plan = plan_kernel_command("migrate", Checkout(sample_tree), KernelOptions(op="atan2"))
    bin_mm = "aten/src/ATen/native/mps/operations/BinaryOps.mm"
    assert "static void binaryOpTensor(" in plan.changeset.current(bin_mm)
    assert [n for n in plan.notes if "binaryOpTensor" in n] == [
        f"{bin_mm}:29: static binaryOpTensor is not named any more, but a macro's `##` could build its name: left in place"
    ]
    assert not [r for r in plan.removed if "used only by" in r]


# -- section comments of deleted code (sources/host/deadcode.drop_orphaned_comments) ----------------------

SECTIONS = """}

// -------------------------------------------------
// Hardtanh backward

// Hardtanh backward

Tensor& hardswish_out_mps(const Tensor& self, Tensor& output) {
"""


def test_a_section_comment_over_deleted_code_goes_with_its_rule():
    from mpsgen.sources.host.deadcode import drop_orphaned_comments

    out = drop_orphaned_comments(SECTIONS, 5, {"hardtanh_backward_out_mps"})
    assert out == "}\n\nTensor& hardswish_out_mps(const Tensor& self, Tensor& output) {\n"


def test_a_comment_stays_while_code_it_names_follows_or_when_it_names_something_else():
    from mpsgen.sources.host.deadcode import drop_orphaned_comments

    still = "}\n\n// Hardtanh backward\n\n// Hardtanh backward\nTensor& hardtanh_backward_out_mps(\n"
    assert drop_orphaned_comments(still, 4, {"hardtanh_backward_mps"}) == still
    other = "}\n\n// Hardtanh\n\nTensor& hardswish_out_mps(\n"  # the forward op's section: not the deleted code's
    assert drop_orphaned_comments(other, 4, {"hardtanh_backward_out_mps"}) == other
    far = "// Hardtanh backward\nint x;\n\n\nTensor& hardswish_out_mps(\n"  # not in the run around the deletion
    assert drop_orphaned_comments(far, 4, {"hardtanh_backward_out_mps"}) == far


# -- what a scope held only for deleted code (2.7's PointwiseOps.mm, cut) -----------------------------------

POINTWISE = """#include <ATen/native/mps/OperationUtils.h>
namespace at::native {
// scope the MPS's internal methods to not expose them to at::native
namespace mps {

static void addc_out_mps(const Tensor& self, const Tensor& output) {
  MPSGraph* mpsGraph = nil;
}

} // namespace mps

// APIs exposed to at::native scope
TORCH_IMPL_FUNC(addcmul_out_mps)(const Tensor& self, const Tensor& output) {
  mps::addc_out_mps(self, output);
}

TORCH_IMPL_FUNC(addcdiv_out_mps)(const Tensor& self, const Tensor& output) {
  mps::addc_out_mps(self, output);
}
} // namespace at::native
"""


def test_a_section_header_goes_with_the_last_thing_it_headed():
    from mpsgen.sources.host.deadcode import drop_orphaned_comments, first_changed_line

    one, _ = remove_kernel(POINTWISE, "addcmul_out_mps")  # at line 13: addcdiv_out_mps is still under the header
    assert first_changed_line(POINTWISE, one) == 13 and drop_orphaned_comments(one, 13, {"addcmul_out_mps"}) == one
    both, _ = remove_kernel(one, "addcdiv_out_mps")  # nothing under the header now (nor the blank line after it)
    assert both.endswith("} // namespace mps\n\n// APIs exposed to at::native scope\n} // namespace at::native\n")
    assert first_changed_line(one, both) == 13
    out = drop_orphaned_comments(both, 13, {"addcdiv_out_mps"})
    assert out == both.replace("// APIs exposed to at::native scope\n", "")
    remark = "int f() {\n  return 1;\n}\n// the end of f's section\n\n} // namespace x\n"  # right under code: f's
    assert drop_orphaned_comments(remark, 5, {"g"}) == remark


def test_a_namespace_the_change_emptied_goes_with_its_comment_but_not_the_files_own():
    from mpsgen.sources.host.deadcode import drop_emptied_namespaces, drop_orphaned_comments, holds_no_code

    one, used = remove_kernel(POINTWISE, "addcmul_out_mps")
    both, used2 = remove_kernel(one, "addcdiv_out_mps")
    text, removed, _ = remove_unused_helpers(drop_orphaned_comments(both, 13, set()), PATH, used | used2)
    assert removed == [(6, "static addc_out_mps")]
    assert "// scope the MPS's internal methods to not expose them to at::native\nnamespace mps {\n\n}" in text
    out = drop_emptied_namespaces(POINTWISE, text, PATH)
    assert out == "#include <ATen/native/mps/OperationUtils.h>\nnamespace at::native {\n\n} // namespace at::native\n"
    assert holds_no_code(out, PATH) and not holds_no_code(text.replace("namespace mps {", "int x;\nnamespace mps {"), PATH)
    assert drop_emptied_namespaces(POINTWISE, out, PATH) == out  # the file's own namespace stays
    # a namespace that was empty before is not the change's to remove
    empty_before = POINTWISE.replace("namespace mps {\n", "namespace other {\n}\nnamespace mps {\n")
    assert "namespace other {\n}\n" in drop_emptied_namespaces(empty_before, text.replace(
        "namespace mps {\n", "namespace other {\n}\nnamespace mps {\n"), PATH)


BESPOKE_METAL = """namespace at::native {
namespace mps {
static MetalShaderLibrary lib(R"METAL(kernel void bitwise_not(device int* out) {{}})METAL");

static void _bitwise_not_out_mps(const Tensor& self, const Tensor& output) {
  auto cplState = lib.getPipelineStateForFunc("bitwise_not");
  mtl_setArgs(encoder, output, self);
}

static void shift_out_mps(const Tensor& self, const Tensor& output) {
  auto cplState = lib.getPipelineStateForFunc("lshift");
}
} // namespace mps

TORCH_IMPL_FUNC(bitwise_not_out_mps)(const Tensor& self, const Tensor& output) {
  mps::_bitwise_not_out_mps(self, output);
}

void lshift_kernel_mps(TensorIteratorBase& iter) {
  mps::shift_out_mps(iter.input(0), iter.output(0));
}
} // namespace at::native
"""


def test_a_static_helper_running_metal_goes_with_its_last_user_and_the_shared_library_stays() -> None:
    """2.7's BitwiseOps.mm: once bitwise_not_out_mps is deleted, its bespoke Metal helper is dead code too
    (a -Wunused-function warning if left), while the shader library lshift still uses stays."""
    impl = find_implementations({PATH: BESPOKE_METAL}, "bitwise_not_out_mps")[0]
    assert impl.backend == "metal"
    lines = BESPOKE_METAL.splitlines(True)
    used = referenced_names("".join(lines[impl.line - 1 : impl.end_line]))
    text = remove_implementation(BESPOKE_METAL, impl, allow_metal=True)
    text, removed, left = remove_unused_helpers(text, PATH, used)
    assert [what for _, what in removed] == ["static _bitwise_not_out_mps"] and left == []
    assert "static MetalShaderLibrary lib(" in text and "static void shift_out_mps(" in text
    assert "bitwise_not_out_mps" not in text


def test_metal_code_is_still_refused_unless_the_caller_replaces_it() -> None:
    impl = find_implementations({PATH: BESPOKE_METAL}, "bitwise_not_out_mps")[0]
    with pytest.raises(MpsgenError, match="bitwise_not_out_mps already runs Metal"):
        remove_implementation(BESPOKE_METAL, impl)


RETIRE = Path(__file__).parent / "data" / "retire"


def test_a_retired_bespoke_kernel_leaves_its_macro_closed_and_its_helper_goes() -> None:
    """2.7's Gamma.metal shape: half_of's instances are the macro's last, so twice's become its end
    (no dangling backslash); halve, named only by half_of, goes; twice and every call stay."""
    from mpsgen.sources.metal.retire import retire_kernel

    text = (RETIRE / "Special.metal").read_text()
    new, removed = retire_kernel(text, "kernels/Special.metal", "half_of")
    assert "half_of" not in new and "halve" not in new and "// half of the input" not in new
    assert '  template [[host_name("twice_" #DTYPE0 "_" #DTYPE1)]] kernel void twice(     \\\n' in new
    assert "      uint id [[thread_position_in_grid]]);\n\n#if __METAL_VERSION__ >= 310\n" in new
    assert "kernel void twice(" in new and new.count("INSTANTIATE_SPECIAL_KERNELS(") == 4
    assert [what for _, what in removed] == [
        "half_of's instances in INSTANTIATE_SPECIAL_KERNELS (no host runs half_of any more)",
        "template kernel half_of (no host runs it any more)", "halve (used only by the retired kernels)"]
    assert retire_kernel(new, "kernels/Special.metal", "half_of") == (new, [])  # idempotent
    assert new == text.replace(text[text.index("float halve"):text.index("template <typename T0")], "").replace(
        text[text.index("// half of"):text.index("#define")], "").replace(
        text[text.index("      uint id [[thread_position_in_grid]]);                                   \\\n  template "
                        '[[host_name("half_of'):text.index("\n\n#if")], "      uint id [[thread_position_in_grid]]);")


def test_a_macro_left_without_instances_goes_with_its_calls_and_their_empty_if() -> None:
    from mpsgen.sources.metal.retire import retire_kernel

    new, removed = retire_kernel((RETIRE / "RenormKernel.metal").read_text(), "kernels/RenormKernel.metal", "renorm")
    assert new == "#include <metal_stdlib>\nusing namespace metal;\n"
    assert removed[0] == (14, "#define REGISTER_RENORM_OP and its calls (instances of renorm only, which no host "
                              "runs any more)")

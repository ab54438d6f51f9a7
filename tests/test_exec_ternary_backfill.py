"""The host API a checkout lacks, added by the change (plan/shape.py's backfill column): the ternary
alpha form, derived from its siblings in the same checkout, reused by the next op, never duplicated.

Texts: the torch 2.13 wheel's MetalShaderLibrary.h and c10/metal/indexing.h (real files, read from the
installed wheel), tests/data/host_api/OperationUtils.mm (hand-written in the real file's shape: the
binary alpha path and the ternary kernel the new form is modeled on), and small strings.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import tracked_bytes

from mpsgen.errors import MpsgenError
from mpsgen.backfill.host_api import backfill
from mpsgen.backfill import exec_ternary_host as hx
from mpsgen.backfill import exec_ternary_metal as mx

from scalar_ops_tree import LIBRARY_H, NATIVE
from scalar_ops_tree import migrate as _migrate, read as _read

MM = Path(__file__).resolve().parent / "data" / "host_api" / "OperationUtils.mm"
MM_REL = "aten/src/ATen/native/mps/OperationUtils.mm"
UTILS_H = MM.with_name("OperationUtils.h")
UTILS_H_REL = "aten/src/ATen/native/mps/OperationUtils.h"
HEADER = """class MetalShaderLibrary {
 public:
  void exec_binary_kernel(
      TensorIteratorBase& iter,
      const std::string& name,
      const std::optional<c10::Scalar> alpha = std::nullopt,
      const std::optional<c10::ScalarType> scalar_arg_type = std::nullopt);
  void exec_ternary_kernel(TensorIteratorBase& iter, const std::string& name);
};
"""


def test_declaration_beside_its_sibling_with_the_binary_alpha_parameters():
    out = hx.add_declaration(HEADER, "h")
    new = ("  void exec_ternary_kernel(TensorIteratorBase& iter, const std::string& name, "
           "const std::optional<c10::Scalar> alpha, const std::optional<c10::ScalarType> scalar_arg_type = std::nullopt);\n")
    sibling = "  void exec_ternary_kernel(TensorIteratorBase& iter, const std::string& name);\n"
    assert out == HEADER.replace(sibling, sibling + new)  # alpha has no default: no ambiguity with (iter, name)
    assert hx.add_declaration(out, "h") == out and hx.has_ternary_alpha(out)


def test_declaration_refused_without_a_sibling():
    no_binary_alpha = HEADER.replace("      const std::optional<c10::Scalar> alpha = std::nullopt,\n", "")
    with pytest.raises(MpsgenError, match="no declaration of exec_ternary_kernel.*exec_binary_kernel"):
        hx.add_declaration(no_binary_alpha.replace("scalar_arg_type", "t"), "h")


def test_definition_is_the_sibling_with_the_binary_alpha_path():
    text = MM.read_text()
    out = hx.add_definition(text, MM_REL)
    end = text.index("} // namespace at::native::mps")
    assert out.startswith(text[:end]) and out.endswith(text[end:])  # the siblings stay byte-exact
    new = out[end:-len(text) + end]
    assert new.endswith("}\n\n") and new.startswith("void MetalShaderLibrary::exec_ternary_kernel(TensorIteratorBase& iter, const std::string& "
                          "name, std::optional<c10::Scalar> alpha, std::optional<c10::ScalarType> scalar_arg_type) {")
    assert "      exec_ternary_kernel(sub_iter, name, alpha, scalar_arg_type);\n" in new
    # exec_binary_kernel's own statements, then the kernel name ending in the alpha's type
    assert ("  const auto alpha_type = scalar_arg_type.has_value() ? scalar_arg_type.value() : (cast_needed ? "
            "out.scalar_type() : iter.common_dtype());\n"
            '  const auto alpha_suffix = alpha.has_value() ? fmt::format("_{}", scalarToMetalTypeString(alpha_type)) : "";\n'
            "  const auto kernel_name = cast_needed\n"
            '      ? fmt::format("{}_{}_cast_{}{}", name, suffix, scalarToMetalTypeString(out), alpha_suffix)\n'
            '      : fmt::format("{}_{}_{}_{}{}", name, suffix, scalarToMetalTypeString(out), '
            "scalarToMetalTypeString(input), alpha_suffix);\n") in new
    # alpha right after the four tensors; what followed them one slot up
    assert ("      bind_iter_tensors(computeEncoder, iter);\n"
            "      mtl_setArgs<4>(computeEncoder, getMPSScalar(*alpha, alpha_type));\n") in new
    assert "mtl_setArgs<5>(computeEncoder, iter.shape(), iter.strides(0), iter.ndim());" in new
    assert hx.add_definition(out, MM_REL) == out  # there already: reused


def test_definition_reads_alpha_only_when_there_is_one_and_leaves_the_siblings_todos():
    """exec_binary_kernel binds `*alpha` only `if (alpha)`; the new form's later slots are fixed, so an
    empty alpha runs the sibling (the kernels without the alpha suffix) before anything reads it."""
    text = MM.read_text()
    new = hx.add_definition(text, MM_REL)[text.index("} // namespace at::native::mps") :]
    guard = "  if (!alpha.has_value()) {\n    exec_ternary_kernel(iter, name);\n    return;\n  }\n\n"
    assert new.index(guard) < new.index("getMPSScalar(*alpha, alpha_type)")
    assert new.startswith("void MetalShaderLibrary::exec_ternary_kernel(") and new.count(guard) == 1
    # the sibling's notes are its own: the TODO with its continuation line, and the trailing FIXME
    assert "TODO" not in new and "FIXME" not in new and "continued on a second line" not in new
    assert '  const auto suffix = iter.is_contiguous() ? "dense" : "strided";\n' in new
    assert '  TORCH_CHECK(iter.output().scalar_type() != at::kDouble, "float64 is not supported on MPS");\n' in new
    assert text.count("TODO") == 1 and "// TODO: a note" in hx.add_definition(text, MM_REL)  # the sibling keeps it


def test_todo_comments_go_with_their_continuation_lines_only():
    from mpsgen.sources.host.text import without_todo_comments

    code = ('void f() {\n  // Why this is so.\n  // TODO: a note\n  // its second line\n\n  // kept\n'
            '  g("// TODO in a string");  // FIXME trailing\n}\n')
    assert without_todo_comments(code) == ('void f() {\n  // Why this is so.\n\n  // kept\n'
                                           '  g("// TODO in a string");\n}\n')


def test_definition_refused_without_its_sibling():
    text = MM.read_text()
    no_ternary = text[: text.index("void MetalShaderLibrary::exec_ternary_kernel")] + "}\n"
    with pytest.raises(MpsgenError, match="no one definition of MetalShaderLibrary::exec_ternary_kernel"):
        hx.add_definition(no_ternary, MM_REL)
    no_alpha_path = text.replace("getMPSScalar(*alpha, alpha_type)", "alpha_value(alpha)")
    with pytest.raises(MpsgenError, match="alpha path"):
        hx.add_definition(no_alpha_path, MM_REL)


def test_metal_forms_from_the_ternary_siblings(wheel_include: Path):
    text = (wheel_include / "c10/metal/indexing.h").read_text()
    out = mx.add_ternary_alpha(text, "c10/metal/indexing.h")
    assert out.startswith(text[: text.index("} // namespace metal")].rstrip("\n"))
    added = out[len(text[: text.index("} // namespace metal")]) - 1 :]
    for kind in ("strided", "strided_cast", "dense", "dense_cast"):
        assert f"kernel void ternary_alpha_{kind}(" in added
        assert f"c10::metal::ternary_alpha_{kind}<DTYPEI, DTYPEA, NAME##_functor, OMT>(" in added.replace(
            "::c10:: \\\n      metal::", "::c10::metal::").replace(":: \\\n      c10::", "::c10::")
    assert "    constant T2& alpha [[buffer(4)]],\n    constant uint3& sizes [[buffer(5)]],\n" in added
    assert "out[tid] = static_cast<res_t>(f(a, b, c, alpha));" in added
    assert "#define REGISTER_OPMATH_TERNARY_ALPHA_OP(NAME, DTYPEI, DTYPEA, DTYPEO) \\\n" \
           "  REGISTER_TERNARY_ALPHA_OP_(NAME, DTYPEI, DTYPEA, DTYPEO, ::c10::metal::opmath_t<DTYPEI>)" in added
    assert '[[host_name(#NAME "_dense_" #DTYPEO "_" #DTYPEI "_" #DTYPEA)]]' in added
    assert mx.add_ternary_alpha(out, "x") == out


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_added_macros_compile_for_a_functor(wheel_include: Path, tmp_path: Path):
    """The added kernels and macros instantiate for a float and an opmath half registration, through
    mpsgen's Metal emulation, as `mpsgen try` compiles them."""
    from mpsgen.emulate.compile import EMULATION_INCLUDE, FLAGS

    metal = tmp_path / "c10/metal"
    shutil.copytree(wheel_include / "c10/metal", metal)
    (metal / "indexing.h").write_text(mx.add_ternary_alpha((metal / "indexing.h").read_text(), "x"))
    (tmp_path / "t.cpp").write_text(
        "#include <c10/metal/indexing.h>\nusing namespace metal;\n"
        "struct fma3_functor { template <typename T, typename T2> inline T operator()(T a, T b, T c, T2 v) "
        "{ return static_cast<T>(a + v * b * c); } };\n"
        "REGISTER_TERNARY_ALPHA_OP(fma3, float, float, float);\n"
        "REGISTER_OPMATH_TERNARY_ALPHA_OP(fma3, half, float, half);\n")
    flags = [f for f in FLAGS if f not in ("-shared", "-fPIC")]
    done = subprocess.run(["g++", *flags, "-fsyntax-only", "-I", str(EMULATION_INCLUDE), "-include", "metal_stdlib",
                           "-I", str(tmp_path), str(tmp_path / "t.cpp")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[:2000]


def test_metal_refused_without_a_sibling():
    with pytest.raises(MpsgenError, match="to model REGISTER_TERNARY_ALPHA_OP on"):
        mx.add_ternary_alpha("#define REGISTER_BINARY_OP(NAME, DTYPEI, DTYPEO) x\n", "c10/metal/indexing.h")


def test_backfill_reuses_what_is_there(wheel_include: Path):
    texts = {LIBRARY_H: (wheel_include / "ATen/native/mps/MetalShaderLibrary.h").read_text(), MM_REL: MM.read_text(),
             "c10/metal/indexing.h": (wheel_include / "c10/metal/indexing.h").read_text()}
    first = backfill("ternary_alpha", texts.get)
    assert sorted(first.texts) == sorted(texts) and len(first.added) == 3
    second = backfill("ternary_alpha", {**texts, **first.texts}.get)
    assert second.texts == {} and second.added == ()
    with pytest.raises(MpsgenError, match="defines MetalShaderLibrary::exec_ternary_kernel"):
        backfill("ternary_alpha", {k: v for k, v in texts.items() if k != MM_REL}.get)


def test_params_form_is_the_ternary_sibling_with_the_binary_template_params_path(wheel_include: Path):
    sibling = hx.ternary_definition(MM.read_text(), MM_REL)
    text = UTILS_H.read_text()
    out = hx.add_params_definition(text, UTILS_H_REL, sibling, MM_REL)
    end = text.index("} // namespace at::native::mps")
    new = out[end : len(out) - len(text) + end]
    assert out.startswith(text[:end]) and out.endswith(text[end:])
    assert new.startswith("template <typename T>\nvoid MetalShaderLibrary::exec_ternary_kernel_with_params("
                          "TensorIteratorBase& iter, const std::string& name, T params, const std::string& "
                          "params_type_name) {\n  using namespace mps;\n")
    assert "      exec_ternary_kernel_with_params(sub_iter, name, params, params_type_name);\n" in new
    assert '? fmt::format("{}_{}_cast_{}_{}", name, suffix, scalarToMetalTypeString(out), params_type_name)' in new
    assert ("      bind_iter_tensors(computeEncoder, iter);\n      mtl_setArgs<4>(computeEncoder, params);\n"
            "      if (!iter.is_contiguous()) {\n        mtl_setArgs<5>(") in new
    assert hx.add_params_definition(out, UTILS_H_REL, sibling, MM_REL) == out
    header = (wheel_include / "ATen/native/mps/MetalShaderLibrary.h").read_text()
    declared = hx.add_params_declaration(header, LIBRARY_H)
    assert declared.count("void exec_ternary_kernel_with_params(") == 1
    assert hx.add_params_declaration(declared, LIBRARY_H) == declared


def test_params_form_reuses_the_metal_the_alpha_form_added(wheel_include: Path):
    texts = {LIBRARY_H: (wheel_include / "ATen/native/mps/MetalShaderLibrary.h").read_text(), MM_REL: MM.read_text(),
             UTILS_H_REL: UTILS_H.read_text(), "c10/metal/indexing.h": (wheel_include / "c10/metal/indexing.h").read_text()}
    alpha = backfill("ternary_alpha", texts.get)
    params = backfill("ternary_params", {**texts, **alpha.texts}.get)
    assert sorted(params.texts) == [LIBRARY_H, UTILS_H_REL]  # indexing.h: the alpha form's kernels and macros serve
    assert [a.split(":")[0] for a in params.added] == [LIBRARY_H, UTILS_H_REL]


# -- through the command, on a tree with the real headers and no ternary alpha form ---------------------


def lay_api_tree(scalar_tree: Path, wheel_include: Path) -> Path:
    """A scalar-ops tree given the wheel's c10/metal and the hand-written OperationUtils.mm, committed."""
    shutil.rmtree(scalar_tree / "c10/metal")
    shutil.copytree(wheel_include / "c10/metal", scalar_tree / "c10/metal")
    shutil.copyfile(MM, scalar_tree / MM_REL)
    subprocess.run(["git", "add", "-A"], cwd=scalar_tree, check=True)
    subprocess.run(["git", "commit", "-qm", "real c10/metal, OperationUtils.mm"], cwd=scalar_tree, check=True)
    return scalar_tree


@pytest.fixture()
def api_tree(scalar_tree: Path, wheel_include: Path) -> Path:
    return lay_api_tree(scalar_tree, wheel_include)


def _counts(root: Path) -> tuple[int, int, int]:
    """Declarations and definitions of exec_ternary_kernel with an alpha, #defines of the macro."""
    declared = hx.find_callables(_read(root, LIBRARY_H), hx.TERNARY, qualified=False)
    defined = hx.find_callables(_read(root, MM_REL), hx.TERNARY, qualified=True)
    return (sum(len(c.params) > 2 for c in declared), sum(len(c.params) > 2 for c in defined),
            _read(root, "c10/metal/indexing.h").count("#define REGISTER_TERNARY_ALPHA_OP("))


def test_addcmul_adds_the_api_and_addcdiv_reuses_it(api_tree: Path):
    r = _migrate(api_tree, "addcmul", "addcdiv")
    assert r.returncode == 0, r.stderr + r.stdout
    assert "agree with torch.ops.aten.addcmul" in r.stdout and "agree with torch.ops.aten.addcdiv" in r.stdout
    addcmul, addcdiv = r.stdout.split("mpsgen migrate addcdiv:")
    assert f"  api       {LIBRARY_H}: exec_ternary_kernel(iter, name, alpha, scalar_arg_type) declared" in addcmul
    assert "  api       c10/metal/indexing.h: ternary_alpha_" in addcmul and "  api  " not in addcdiv
    assert _counts(api_tree) == (1, 1, 1)
    metal = _read(api_tree, f"{NATIVE}/mps/kernels/BinaryKernel.metal")
    assert "REGISTER_TERNARY_ALPHA_OP(addcmul, half, float, half);" in metal
    assert "REGISTER_TERNARY_ALPHA_OP(addcdiv, half, float, half);" in metal


def test_a_later_run_reuses_the_added_api(api_tree: Path):
    assert _migrate(api_tree, "addcmul", "--no-try").returncode == 0
    after_first = _counts(api_tree)
    r = _migrate(api_tree, "addcdiv", "--no-try")
    assert r.returncode == 0, r.stderr
    assert "  api  " not in r.stdout and _counts(api_tree) == after_first == (1, 1, 1)


def test_no_sibling_to_model_on_is_one_line_and_writes_nothing(scalar_tree: Path):
    before = tracked_bytes(scalar_tree)  # the sample has no OperationUtils.mm
    r = _migrate(scalar_tree, "addcmul")
    assert r.returncode == 2
    assert r.stderr.startswith(f"mpsgen: error: {LIBRARY_H}:1: no file among {MM_REL}, ") and \
           "defines MetalShaderLibrary::exec_ternary_kernel(iter, name), the sibling to model on" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and tracked_bytes(scalar_tree) == before


def test_the_numeric_check_compiles_the_planned_headers(tmp_path: Path):
    """emulate/overlay: the checkout's c10/metal with the planned texts in place, the rest linked."""
    from mpsgen.emulate.overlay import include_root

    root = tmp_path / "tree"
    (root / "c10/metal").mkdir(parents=True)
    (root / "c10/metal/indexing.h").write_text("// as checked out\n")
    (root / "c10/metal/utils.h").write_text("// utils\n")
    (root / "aten").mkdir()
    cache = tmp_path / "cache"
    assert include_root(root, {}, cache) == root  # nothing planned: the checkout itself
    planned = {"c10/metal/indexing.h": "// with REGISTER_TERNARY_ALPHA_OP\n"}
    overlay = include_root(root, planned, cache)
    assert (overlay / "c10/metal/indexing.h").read_text() == "// with REGISTER_TERNARY_ALPHA_OP\n"
    assert (overlay / "c10/metal/utils.h").read_text() == "// utils\n" and (overlay / "aten").resolve() == root / "aten"
    assert (root / "c10/metal/indexing.h").read_text() == "// as checked out\n"  # the checkout is never written
    assert include_root(root, planned, cache) == overlay  # made once per content

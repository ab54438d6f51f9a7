"""The checkout's Capabilities: each fact read from the tree's texts on first use, the plan's from its
changeset (read again only after an edit to a text they rest on), lint's from the disk."""

from __future__ import annotations

from pathlib import Path

from mpsgen.plan.texts import capabilities
from mpsgen.tree.capabilities import of_checkout
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import YAML_REL, Checkout

UTILS_27 = "// is_complex_v = only named in a comment\ntemplate <typename T> constexpr bool is_scalar_v = true;\n"
UTILS_28 = "template <typename T>\nconstexpr constant bool is_complex_v = false;\n"
INDEXING = """#define REGISTER_UNARY_OP(NAME, DTYPE0, DTYPE1) \\
  template [[host_name(#NAME "_" #DTYPE0)]] kernel void unary_dense<NAME##_functor>()
kernel void binary_strided_cast(constant uint4& types, constant uint& ndim) {}
"""
LIBRARY = "void exec_unary_kernel(TensorIteratorBase& iter, const std::string& name, int64_t alpha, ScalarType t);\n"
BINARY_MM = "static void binary_mps_impl(TensorIteratorBase& iter, const std::string func_name) {}\n"
BINARY_METAL = ("#include <c10/metal/indexing.h>\n"
                "#define REGISTER_BINARY_INDEXING_OP(NAME, DTYPE) \\\n  kernel void NAME##_##DTYPE()\n")
OPS = "aten/src/ATen/native/mps"


def _tree(root: Path) -> Path:
    files = {
        YAML_REL: "",
        "c10/metal/utils.h": UTILS_27,
        "c10/metal/indexing.h": INDEXING,
        f"{OPS}/MetalShaderLibrary.h": LIBRARY,
        f"{OPS}/operations/BinaryKernel.mm": BINARY_MM,
        f"{OPS}/kernels/BinaryKernel.metal": BINARY_METAL,
        "test/test_mps.py": "def mps_ops_modifier(ops):\n    return ops\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_2_7_tree_reads_as_one_record(tmp_path: Path) -> None:
    caps = of_checkout(Checkout(_tree(tmp_path)))
    assert caps.c10_traits is False  # utils.h only names is_complex_v in a comment
    assert caps.c10_macros is not None and "REGISTER_UNARY_OP" in caps.c10_macros
    api = caps.host_api
    assert api.functions == {"exec_unary_kernel": 4} and api.binary_mps_impl and api.cast_inputs == {2}
    found = caps.metal_layout(f"{OPS}/kernels/BinaryKernel.metal")
    assert (found.layout, found.line) == ("BINARY_INDEXING", 2)
    assert caps.test_lists_rel == "test/test_mps.py"
    assert caps.math_mode.mode == "safe" and caps.math_mode.path == ""  # no build settings: safe, said so
    assert caps.own_clang_format is False
    (tmp_path / ".clang-format").write_text("BasedOnStyle: LLVM\n")
    assert of_checkout(Checkout(tmp_path)).own_clang_format is True


def test_a_fact_not_asked_is_not_read(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / f"{OPS}/OperationUtils.mm").write_bytes(b"\xff not UTF-8")  # reading it strictly would refuse
    caps = of_checkout(Checkout(root))
    assert caps.test_lists_rel == "test/test_mps.py"
    assert set(caps.seen) == {"test/test_mps.py"}


def test_a_plan_reads_them_again_only_after_an_edit_they_rest_on(tmp_path: Path) -> None:
    cs = Changeset(Checkout(_tree(tmp_path)))
    first = capabilities(cs)
    assert first.c10_traits is False and capabilities(cs) is first
    cs.set_text(f"{OPS}/operations/UnaryKernel.mm", "// a file the record never read\n", "test")
    assert capabilities(cs) is first
    cs.set_text("c10/metal/utils.h", UTILS_28, "test")  # the change defines the traits
    again = capabilities(cs)
    assert again is not first and again.c10_traits is True
    assert first.c10_traits is False  # a record keeps what it read

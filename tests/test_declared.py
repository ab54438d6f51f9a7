"""scan/declared.py: the names a header edit declares when it only inserts or removes declarations,
and None for every other edit (the compile check then compiles every file including the header)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpsgen.compiler.change import affected
from mpsgen.scan.declared import changed_declarations

# A host header in the shape of MetalShaderLibrary.h / OperationUtils.h (written for this test).
HEADER = """#pragma once
#include <string>

namespace at::native::mps {

class ShaderLib {
 public:
  void exec_unary(TensorIteratorBase& iter, const std::string& name);

 protected:
  int cached_ = 0;
};

inline int frob_count(int n) {
  int total = 0;
  return total + n;
}

DECLARE_DISPATCH(void (*)(TensorIteratorBase&, const Scalar& a), clamp_stub)

} // namespace at::native::mps
"""


def insert_after(text: str, anchor: str, lines: str) -> str:
    at = text.index(anchor) + len(anchor)
    return text[:at] + lines + text[at:]


def test_a_member_template_and_its_out_of_class_definition_declare_their_name() -> None:
    member = "  template <typename T, typename U>\n  void exec_ternary_with_params(\n      TensorIteratorBase& iter,\n      T params);\n"
    new = insert_after(HEADER, "const std::string& name);\n", member)
    definition = ("\ntemplate <typename T, typename U>\nvoid ShaderLib::exec_ternary_with_params(TensorIteratorBase& iter,"
                  " T params) {\n  auto input = iter.input(0);\n  (void)input;\n}\n")
    newer = insert_after(new, "  return total + n;\n}\n", definition)
    assert changed_declarations(HEADER, new) == {"exec_ternary_with_params"}
    assert changed_declarations(HEADER, newer) == {"exec_ternary_with_params"}  # not ShaderLib, iter, input, T, U


def test_an_overload_of_a_name_the_header_had_reaches_every_includer() -> None:
    # a file may call exec_unary through a macro or a template without naming it: the new overload can
    # make that call ambiguous
    overload = "  void exec_unary(TensorIteratorBase& iter, const std::string& name, int n);\n"
    assert changed_declarations(HEADER, insert_after(HEADER, "const std::string& name);\n", overload)) is None


def test_a_params_struct_declares_its_name_not_its_members() -> None:
    params = "\ntemplate <typename T>\nstruct EluParams {\n  T alpha;\n  T scale;\n};\n"
    assert changed_declarations(HEADER, insert_after(HEADER, "} // namespace at::native::mps\n", params)) == \
        {"EluParams"}
    enums = "\nenum FrobKind { kFrobA, kFrobB };\nenum class FrobMode { Fast };\n"
    assert changed_declarations(HEADER, insert_after(HEADER, "} // namespace at::native::mps\n", enums)) == \
        {"FrobKind", "kFrobA", "kFrobB", "FrobMode"}  # an unscoped enum's enumerators are the scope's names
    # a new file: every line inserted, #pragma once included
    assert changed_declarations("", "#pragma once\n" + params) == {"EluParams"}


def test_removed_declarations_count_and_a_macro_declares_its_one_word_arguments() -> None:
    without = HEADER.replace("DECLARE_DISPATCH(void (*)(TensorIteratorBase&, const Scalar& a), clamp_stub)\n", "")
    assert changed_declarations(HEADER, without) == {"clamp_stub"}
    macro = "#define REGISTER_FROB_OP(NAME) \\\n  template kernel void frob<NAME##_functor>(uint);\n"
    assert changed_declarations(HEADER, HEADER + macro) == {"REGISTER_FROB_OP"}
    pointer = "extern void (*frob_hook)(int);\n"
    assert "frob_hook" in changed_declarations(HEADER, insert_after(HEADER, "namespace at::native::mps {\n", pointer))


@pytest.mark.parametrize("edit", [
    lambda h: h.replace("int cached_ = 0;", "int cached_ = 1;"),  # a line changed in place
    lambda h: insert_after(h, "  int total = 0;\n", "  total += 1;\n"),  # a line inside a body
    lambda h: insert_after(h, "#include <string>\n", "#include <vector>\n"),  # a directive
    lambda h: insert_after(h, "namespace at::native::mps {\n", "using namespace c10;\n"),
    lambda h: insert_after(h, "namespace at::native::mps {\n", "bool operator==(Frob a, Frob b);\n"),
    lambda h: insert_after(h, "#include <string>\n", "#undef FROB\n"),
    lambda h: insert_after(h, "  void exec_unary(", "\n  int extra,"),  # inside a parenthesis
    lambda h: insert_after(h, "  return total + n;\n}\n", "}\nnamespace other {\n"),  # what follows moves
])
def test_any_other_edit_reaches_every_includer(edit) -> None:  # type: ignore[no-untyped-def]
    assert changed_declarations(HEADER, edit(HEADER)) is None


def test_only_includers_naming_what_the_edit_declares_are_compiled(tmp_path: Path) -> None:
    ops = tmp_path / "aten/src/ATen/native/mps/operations"
    ops.mkdir(parents=True)
    header = "aten/src/ATen/native/mps/ShaderLib.h"
    include = "#include <ATen/native/mps/ShaderLib.h>\n"
    texts = {f"aten/src/ATen/native/mps/operations/{name}.mm": include + body for name, body in (
        ("Activation", "void f() { lib.exec_unary(iter, \"relu\"); }\n"),
        ("Frob", "void g() { lib.exec_ternary_with_params_v2(iter, \"x\", p); }\n"),  # the name inside a word
        ("Other", "// exec_ternary... named nowhere\n"))}
    texts["aten/src/ATen/native/mps/operations/Plain.mm"] = "void h();\n"  # does not include it
    for rel, text in texts.items():
        (tmp_path / rel).write_text(text)
    member = "  void exec_ternary_with_params(TensorIteratorBase& iter);\n"
    new = insert_after(HEADER, "const std::string& name);\n", member)
    found = affected(tmp_path, {header: new}, {header: HEADER}, texts.get)
    assert [Path(rel).name for rel in found.files] == ["Frob.mm"]
    assert [Path(rel).name for rel in found.unreached] == ["Activation.mm", "Other.mm"]
    # an edit that does more: every includer
    changed = HEADER.replace("int cached_ = 0;", "long cached_ = 0;")
    everyone = affected(tmp_path, {header: changed}, {header: HEADER}, texts.get)
    assert [Path(rel).name for rel in everyone.files] == ["Activation.mm", "Frob.mm", "Other.mm"]
    assert everyone.unreached == []


def test_a_header_edit_reaches_the_files_including_it_through_another_header(tmp_path: Path) -> None:
    mps = tmp_path / "aten/src/ATen/native/mps"
    (mps / "operations").mkdir(parents=True)
    (mps / "Utils.h").write_text("#pragma once\n#include <ATen/native/mps/ShaderLib.h>\n")
    texts = {"aten/src/ATen/native/mps/Utils.h": (mps / "Utils.h").read_text()}
    for name, body in (("Binary", "void f() { lib.exec_ternary_with_params(iter); }\n"), ("Unary", "void g();\n")):
        rel = f"aten/src/ATen/native/mps/operations/{name}.mm"
        texts[rel] = "#include <ATen/native/mps/Utils.h>\n" + body
        (tmp_path / rel).write_text(texts[rel])
    header = "aten/src/ATen/native/mps/ShaderLib.h"
    member = "  void exec_ternary_with_params(TensorIteratorBase& iter);\n"
    found = affected(tmp_path, {header: insert_after(HEADER, "const std::string& name);\n", member)},
                     {header: HEADER}, texts.get)
    assert [Path(rel).name for rel in found.files] == ["Binary.mm"]  # through Utils.h
    assert [Path(rel).name for rel in found.unreached] == ["Unary.mm"]
    assert found.headers == {"ShaderLib.h", "Utils.h"}

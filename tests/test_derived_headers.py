"""The ATen headers of a yaml that only names fewer kernels, derived from the checkout's set: what
torchgen would write for it, without running torchgen once per family."""

from __future__ import annotations

from pathlib import Path

from mpsgen.compiler.derived_headers import removed_kernels_only, without_kernels

YAML = """- func: atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU, CUDA: atan2_out
    MPS: atan2_out_mps

- func: eye.out(int n, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU, Meta: eye_out_cpu
    MPS: eye_out_mps
"""

NATIVE_ATAN2 = """namespace at {
namespace native {
struct TORCH_API structured_atan2_out : public at::meta::structured_atan2 {
void impl(const at::Tensor & self, const at::Tensor & other, const at::Tensor & out);
};
struct TORCH_API structured_atan2_out_mps : public at::meta::structured_atan2 {
void impl(const at::Tensor & self, const at::Tensor & other, const at::Tensor & out);
};
} // namespace native
} // namespace at
"""

NATIVE_EYE = """namespace at {
namespace native {
TORCH_API at::Tensor & eye_out_cpu(int64_t n, at::Tensor & out);
TORCH_API at::Tensor & eye_out_mps(int64_t n, at::Tensor & out);
} // namespace native
} // namespace at
"""


def test_a_yaml_that_only_drops_kernel_names_is_derivable() -> None:
    migrated = YAML.replace("    CPU, CUDA: atan2_out\n    MPS: atan2_out_mps\n", "    CPU, CUDA, MPS: atan2_out\n")
    assert removed_kernels_only(YAML, migrated) == ["atan2_out_mps"]
    assert removed_kernels_only(YAML, YAML) == []


def test_any_other_yaml_edit_needs_torchgen() -> None:
    renamed = YAML.replace("MPS: eye_out_mps", "MPS: eye_out_mps_new")  # a kernel torchgen never declared
    assert removed_kernels_only(YAML, renamed) is None
    signature = YAML.replace("eye.out(int n,", "eye.out(SymInt n,")
    assert removed_kernels_only(YAML, signature) is None


def test_the_declarations_of_removed_kernels_leave_their_headers(tmp_path: Path) -> None:
    ops = tmp_path / "ATen" / "ops"
    ops.mkdir(parents=True)
    (ops / "atan2_native.h").write_text(NATIVE_ATAN2)
    (ops / "eye_native.h").write_text(NATIVE_EYE)
    (ops / "abs_native.h").write_text("TORCH_API at::Tensor abs(const at::Tensor & self);\n")
    derived = without_kernels(tmp_path, ["atan2_out_mps", "eye_out_mps"])
    assert set(derived) == {str(ops / "atan2_native.h"), str(ops / "eye_native.h")}
    atan2 = derived[str(ops / "atan2_native.h")]
    assert "structured_atan2_out_mps" not in atan2 and "struct TORCH_API structured_atan2_out :" in atan2
    assert atan2.count("void impl(") == 1 and atan2.endswith("} // namespace at\n")
    eye = derived[str(ops / "eye_native.h")]
    assert "eye_out_mps" not in eye and "TORCH_API at::Tensor & eye_out_cpu(int64_t n, at::Tensor & out);" in eye
    assert without_kernels(tmp_path, []) == {}

"""migrate refuses to route an op to a shared kernel that also calls a stub MPS does not run
(plan/stub_coverage.py): sgn_out calls sgn_stub or sign_stub by input dtype."""

from __future__ import annotations

from pathlib import Path

from cli_support import mpsgen, tracked_bytes

BINARY_OPS_CPP = "aten/src/ATen/native/BinaryOps.cpp"
BINARY_KERNEL_MM = "aten/src/ATen/native/mps/operations/BinaryKernel.mm"
MIGRATE = ("migrate", "atan2", "--stub", "atan2_stub", "--no-build", "--no-test", "--no-try", "--allow-dirty")


def replace(root: Path, rel: str, old: str, new: str) -> None:
    text = (root / rel).read_text()
    assert text.count(old) == 1, old
    (root / rel).write_text(text.replace(old, new))


def test_a_second_stub_without_an_mps_kernel_is_refused_until_it_has_one(tree: Path) -> None:
    replace(tree, BINARY_OPS_CPP, "  atan2_stub(device_type(), *this);\n",
            "  if (isFloatingType(self.scalar_type())) {\n    atan2_stub(device_type(), *this);\n"
            "  } else {\n    huber_stub(device_type(), *this);\n  }\n")
    line = (tree / BINARY_OPS_CPP).read_text().splitlines().index(
        "TORCH_IMPL_FUNC(atan2_out) (const Tensor& self, const Tensor& other, const Tensor& result) {") + 1
    before = tracked_bytes(tree)

    refused = mpsgen("-C", str(tree), *MIGRATE)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert f"{BINARY_OPS_CPP}:{line}: atan2_out also calls huber_stub, which no operations/*.mm registers for MPS" \
        in refused.stderr
    assert "(hint: migrate the op that owns huber_stub first (e.g. `mpsgen migrate huber`)" in refused.stderr
    assert tracked_bytes(tree) == before

    replace(tree, BINARY_KERNEL_MM, "REGISTER_DISPATCH(copysign_stub, &copysign_mps_kernel);\n",
            "REGISTER_DISPATCH(copysign_stub, &copysign_mps_kernel);\nREGISTER_DISPATCH(huber_stub, &copysign_mps_kernel);\n")
    done = mpsgen("-C", str(tree), *MIGRATE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CPU, CUDA, MPS: atan2_out" in (tree / "aten/src/ATen/native/native_functions.yaml").read_text()

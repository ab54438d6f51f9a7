"""The random kind (a distribution stub): `migrate uniform_ normal_` on the sample laid with 2.7-shaped
files (tests/data/random: Distributions.cpp's functor structs, Distributions.mm's MPSGraph code, the yaml
entries, the stubs' declarations, a c10/metal/random.h written in 2.7's shape, its round's slip included),
the reader that finds the stub through the template's functor, the refusal of a stub with no sampler,
status, and the numeric check (the Philox round bit for bit against torch's; in distribution against torch
CPU's uniform_/normal_, reproducible, in range) catching wrong kernels and 2.7's round."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_support import mpsgen, tracked_bytes

from mpsgen.backfill.philox_round import corrected_round
from mpsgen.sources.native.distribution import distribution_reach

DATA = Path(__file__).parent / "data" / "random"
NATIVE = "aten/src/ATen/native"
MM = f"{NATIVE}/mps/operations/Distributions.mm"
METAL = f"{NATIVE}/mps/kernels/Distributions.metal"
YAML = f"{NATIVE}/native_functions.yaml"
RANDOM_H = "c10/metal/random.h"
FAST = ("--no-build", "--no-test", "--no-try", "--no-compile")


def _lay(root: Path) -> Path:
    (root / NATIVE / "Distributions.cpp").write_text((DATA / "Distributions.cpp").read_text())
    header = root / NATIVE / "UnaryOps.h"
    stubs = (DATA / "distribution_stubs.h.txt").read_text()
    header.write_text(header.read_text().replace("\n} // namespace at::native", f"{stubs}\n}} // namespace at::native"))
    (root / MM).write_text((DATA / "Distributions.mm").read_text())
    (root / RANDOM_H).write_text((DATA / "random.h").read_text())
    entries = (DATA / "native_functions.yaml").read_text().split("\n", 1)[1]  # without its header comment
    (root / YAML).write_text((root / YAML).read_text() + entries)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "random"], cwd=root, check=True)
    return root


def test_uniform_moves_to_uniform_stubs_metal_kernels(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("migrate", "uniform_", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    yaml = (root / YAML).read_text()
    assert "    CPU, CUDA, MPS: uniform_\n    Meta: uniform_meta_\n" in yaml and "uniform_mps_" not in yaml
    assert "    MPS: normal_mps_\n" in yaml  # the other distribution is left alone
    # 2.7's round corrected in the same change: the high halves, as Philox (and later checkouts) XOR them
    assert "return uint4(rc1.x ^ ctr.y ^ key.x, rc1.y, rc0.x ^ ctr.w ^ key.y, rc0.y);" in (root / RANDOM_H).read_text()
    assert f"{RANDOM_H}: philox4::single_round XORs each product's high half" in r.stdout
    assert ("uniform_ (aten/src/ATen/native/Distributions.cpp:25) -> templates::uniform_impl_<UniformStub> -> "
            "UniformStub (aten/src/ATen/native/Distributions.cpp:19) -> uniform_stub") in r.stdout

    mm = (root / MM).read_text()
    assert "uniform_mps_(" not in mm and "Tensor& normal_mps_(" in mm
    assert "static Tensor& random_mps_impl(" in mm  # normal_mps_ still runs it
    assert ("static void uniform_mps_kernel(TensorIteratorBase& iter, const double from, const double to, "
            "std::optional<Generator> gen) {") in mm.replace("\n                               ", " ")
    assert "REGISTER_DISPATCH(uniform_stub, &uniform_mps_kernel);" in mm
    # seeded as the MPSGraph code is: the generator's lock, one Philox step, its fresh words
    assert "std::lock_guard<std::mutex> lock(mps_gen->mutex_);\n    // as the MPSGraph" in mm
    assert mm.count("mps_gen->update_philox_counters();") == 2
    assert "#include <ATen/native/UnaryOps.h>" in mm and "#include <ATen/native/mps/Distributions_metallib.h>" in mm
    assert "mtl_setBytes(computeEncoder, params, 2);" in mm

    metal = (root / METAL).read_text()
    assert "#include <c10/metal/random.h>" in metal
    assert "c10::metal::philox4::rand(state.x, state.y + index).x" in metal
    assert "kernel void uniform_dense(" in metal and "kernel void uniform_strided(" in metal
    for t in ("float", "half", "bfloat"):
        assert f"REGISTER_UNIFORM_OP({t});" in metal, t
    assert "test lists left alone: uniform's samples match the CPU's in distribution only" in r.stdout

    before = tracked_bytes(root)
    again = mpsgen("migrate", "uniform_", *FAST, cwd=root)
    assert again.returncode == 0, again.stderr
    assert "uniform is already on a native Metal kernel" in again.stdout
    assert tracked_bytes(root) == before and (root / METAL).read_text() == metal


def test_normal_joins_uniform_in_distributions_metal(tree: Path) -> None:
    root = _lay(tree)
    assert mpsgen("migrate", "uniform_", *FAST, cwd=root).returncode == 0
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "uniform"], cwd=root, check=True)
    r = mpsgen("migrate", "normal_", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "    CPU, CUDA, MPS: normal_\n" in (root / YAML).read_text()
    metal = (root / METAL).read_text()
    assert metal.count("#include <c10/metal/random.h>") == 1  # appended to the uniform sampler's file
    assert "c10::metal::randn(state.x, state.y + index)" in metal and "REGISTER_NORMAL_OP(half);" in metal
    mm = (root / MM).read_text()
    # normal_stub hands the output itself (a TensorBase), not an iterator; one library declaration
    assert "static void normal_mps_kernel(const TensorBase& tensor," in mm and "const TensorBase& self = tensor;" in mm
    assert "REGISTER_DISPATCH(normal_stub, &normal_mps_kernel);" in mm and mm.count("getBundledLibrary") == 1
    assert "normal_mps_(" not in mm and "static Tensor& random_mps_impl(" in mm  # bernoulli_mps_ still runs it


def test_bernoulli_and_random_plan_a_sampler_per_stub(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("migrate", "bernoulli_", "random_", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (root / YAML).read_text().count("    CPU, CUDA, MPS: bernoulli_\n") == 2
    mm = (root / MM).read_text()
    assert "bernoulli_mps_(" not in mm
    for stub in ("bernoulli_tensor_stub", "bernoulli_scalar_stub"):
        assert f"REGISTER_DISPATCH({stub}, &{stub.removesuffix('_stub')}_mps_kernel);" in mm, stub
    # p per element as the CPU kernel reads it: broadcast to the output, in float; bound after the params
    assert ("static_cast<const Tensor&>(p_).to(self.device(), kFloat).expand(self.sizes()).contiguous();" in mm
            and "mtl_setBuffer(computeEncoder, probs, 3);" in mm and "mtl_setArgs<4>(" in mm)
    assert mm.count("const bool dense = self.is_contiguous();") == 1  # p's order is the logical one
    metal = (root / METAL).read_text()
    for t in ("float", "half", "long", "int", "short", "char", "uchar", "bool", "bfloat"):
        assert f"REGISTER_BERNOULLI_SCALAR_OP({t});" in metal and f"REGISTER_BERNOULLI_TENSOR_OP({t});" in metal, t
    assert "device const float* probs [[buffer(3)]]," in metal
    # random_: its three C++ overloads read, a sampler for each of their stubs
    assert (root / YAML).read_text().count("    CPU, CUDA, MPS: random_\n") == 3
    mm = (root / MM).read_text()
    assert "random_mps_(" not in mm  # its three C++ overloads
    for stub, fn in (("random_stub", "random"), ("random_from_to_stub", "random_from_to"),
                     ("random_full_64_bits_range_stub", "random_full_64")):
        assert f"REGISTER_DISPATCH({stub}, &{fn}_mps_kernel);" in mm, stub
    # (range, base) reach the kernels as 64-bit integers; the full range refuses what the CPU kernel refuses
    assert "const std::array<int64_t, 2> params = {static_cast<int64_t>(range), static_cast<int64_t>(base)};" in mm
    assert "TORCH_CHECK_TYPE(dtype == kLong || dtype == kFloat || dtype == kBFloat16," in mm
    metal = (root / METAL).read_text()
    assert "constant long2& params [[buffer(2)]]," in metal and "REGISTER_RANDOM_FROM_TO_OP(bool);" in metal
    assert "REGISTER_RANDOM_FULL_64_OP(long);" in metal and "REGISTER_RANDOM_FULL_64_OP(short);" not in metal


def test_a_yaml_sharing_already_puts_the_kernels_beside_the_dead_mpsgraph_code(tree: Path) -> None:
    # the 2026-shaped tree: the dispatch shares uniform_ while Distributions.mm still defines uniform_mps_
    root = _lay(tree)
    yaml = (root / YAML).read_text().replace("    CPU, CUDA: uniform_\n    MPS: uniform_mps_\n", "    CPU, CUDA, MPS: uniform_\n")
    (root / YAML).write_text(yaml)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "shared"], cwd=root, check=True)
    r = mpsgen("migrate", "uniform_", *FAST, cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{MM}: uniform_mps_ named by no yaml line (MPSGraph code the dispatch left): left in place" in r.stdout
    mm = (root / MM).read_text()
    assert "REGISTER_DISPATCH(uniform_stub, &uniform_mps_kernel);" in mm and "Tensor& uniform_mps_(" in mm
    assert (root / YAML).read_text() == yaml


def test_a_distribution_stub_with_no_sampler_is_refused_with_its_place(tree: Path) -> None:
    root = _lay(tree)
    text = (root / NATIVE / "Distributions.cpp").read_text().replace("normal_stub(self", "cauchy_stub(self")
    (root / NATIVE / "Distributions.cpp").write_text(text)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "cauchy"], cwd=root, check=True)
    before = tracked_bytes(root)
    r = mpsgen("migrate", "normal_", *FAST, cwd=root)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"{NATIVE}/Distributions.cpp:34:" in r.stderr and "cauchy_stub draws normal_'s output" in r.stderr
    assert "mpsgen has no Metal sampler for it" in r.stderr
    assert tracked_bytes(root) == before


def test_reach_goes_through_the_templates_functor_and_needs_one_stub() -> None:
    text = (DATA / "Distributions.cpp").read_text()
    sources = {f"{NATIVE}/Distributions.cpp": text}
    reach = distribution_reach(lambda _: sources, "uniform_")
    assert reach is not None and (reach.stub, reach.template, reach.functor) == ("uniform_stub", "uniform_impl_",
                                                                                 "UniformStub")
    two = {f"{NATIVE}/Distributions.cpp": text.replace("    uniform_stub(iter.device_type(), iter, from, to, gen);",
                                                       "    uniform_stub(iter.device_type(), iter, from, to, gen);\n"
                                                       "    normal_stub(iter.device_type(), iter, from, to, gen);")}
    both = distribution_reach(lambda _: two, "uniform_")  # BernoulliStub's shape: one stub per overload
    assert both is not None and both.stubs == ("uniform_stub", "normal_stub")
    # random_'s shape: C++ overloads of one kernel handing their templates different functors
    overloads = {f"{NATIVE}/Distributions.cpp": text.replace("} // namespace at::native", (
        "Tensor& uniform_(Tensor& self, double to, std::optional<Generator> gen) {\n"
        "  return at::native::templates::normal_impl_<NormalStub, Generator>(self, 0, to, std::move(gen));\n}\n\n"
        "} // namespace at::native"))}
    reach = distribution_reach(lambda _: overloads, "uniform_")
    assert reach is not None and reach.stubs == ("uniform_stub", "normal_stub")
    # the template's result must be what the kernel returns
    on_the_way = {f"{NATIVE}/Distributions.cpp": text.replace(
        "  return at::native::templates::uniform_impl_<UniformStub, Generator>(self, from, to, std::move(gen));",
        "  at::native::templates::uniform_impl_<UniformStub, Generator>(self, from, to, std::move(gen));\n"
        "  return self.mul_(2);")}
    assert distribution_reach(lambda _: on_the_way, "uniform_") is None


def test_a_family_drawing_through_several_stubs_is_refused(tree: Path) -> None:
    root = _lay(tree)
    text = (root / NATIVE / "Distributions.cpp").read_text().replace(
        "    uniform_stub(iter.device_type(), iter, from, to, gen);\n  }\n",
        "    uniform_stub(iter.device_type(), iter, from, to, gen);\n  }\n"
        "  void operator()(Tensor& self, double median, double sigma, std::optional<Generator> gen) {\n"
        "    cauchy_stub(self.device().type(), self, median, sigma, gen);\n  }\n")
    (root / NATIVE / "Distributions.cpp").write_text(text)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two"], cwd=root, check=True)
    before = tracked_bytes(root)
    r = mpsgen("migrate", "uniform_", *FAST, cwd=root)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"{NATIVE}/Distributions.cpp:21: uniform_ draws through 2 stubs (uniform_stub, cauchy_stub;" in r.stderr
    assert "mpsgen has no Metal sampler for cauchy_stub" in r.stderr
    assert tracked_bytes(root) == before


def test_status_lists_uniform_as_a_candidate_of_the_random_kind(tree: Path) -> None:
    root = _lay(tree)
    r = mpsgen("-C", str(root), "status")
    assert r.returncode == 0, r.stderr
    rows = {line.split()[0]: line for line in r.stdout.splitlines() if line.strip()}
    assert " candidate " in rows["uniform"] and "uniform_stub: a distribution stub (the random kind)" in rows["uniform"]
    assert " candidate " in rows["normal"] and "normal_stub: a distribution stub (the random kind)" in rows["normal"]


_MUTANTS = {
    "right": None,
    "normal": None,
    "bernoulli_tensor": None,
    "p too low": ("< prob);", "< 0.8f * prob);"),
    "random_from_to": None,
    "one past `to`": ("bits % range)", "bits % (range + 1))"),
    "no clamp at `to`": ("return value == static_cast<T>(params.y) ? static_cast<T>(params.x) : value;",
                         "return value;"),
    "half the range": ("params.x + u * (params.y - params.x)", "params.x + 0.5f * u * (params.y - params.x)"),
    "one draw for all": ("state.y + index).x", "state.y).x"),
    "2.7's round": ("", ""),
}


_KERNELS = ("normal", "exponential", "bernoulli_scalar", "bernoulli_tensor", "random", "random_from_to",
            "random_full_64")


@pytest.mark.parametrize("mutant", list(_MUTANTS))
def test_random_check_agrees_and_catches_wrong_kernels(mutant: str, tmp_path: Path) -> None:
    from mpsgen.emulate.random_check import Sampler, check_random
    from mpsgen.generate.templating import render_template

    name = {"p too low": "bernoulli_tensor", "one past `to`": "random_from_to"}.get(
        mutant, mutant if mutant in _KERNELS else "uniform")
    every = ("float", "half", "bfloat", "long", "int", "short", "char", "uchar", "bool")
    metal = render_template("random_kernel.metal.j2", None, name=name, stub=f"{name}_stub", header=True,
                            macro=f"REGISTER_{name.upper()}_OP", with_p=name == "bernoulli_tensor",
                            ptype="long2" if name.startswith("random") else "float2",
                            types=("float", "long") if name == "random_full_64" else every
                            if name.startswith(("bernoulli", "random")) else every[:3], guarded=())
    change = _MUTANTS[mutant]
    if change is not None:
        assert change[0] in metal
        metal = metal.replace(*change)
    (tmp_path / "c10" / "metal").mkdir(parents=True)  # the include root: the fixture's random.h
    header = (DATA / "random.h").read_text()
    (tmp_path / RANDOM_H).write_text(header if mutant == "2.7's round" else corrected_round(header) or "")
    result = check_random(Sampler(name, f"{name.split('_')[0]}_"), metal, tmp_path)
    assert [r.dtype for r in result.rows] == (["float32", "bfloat16", "int64"] if name == "random_full_64" else
                                              ["float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                                               "uint8", "bool"][:9 if name.startswith(("bernoulli", "random")) else 3])
    if change is None:
        assert result.ok, result.rows
        shown = {"uniform": "never `to`", "normal": "finite", "exponential": "in [0, inf)"}.get(name, "in range" if name.startswith("random") else "exact at p = 0")
        test = "chi-square" if name.startswith(("bernoulli", "random")) else "KS"
        assert test in result.reference and shown in result.reference
        return
    assert not result.ok
    seen = {m.inputs[-1] for r in result.rows for m in r.first_mismatches}
    expect = {"no clamp at `to`": "range", "half the range": "mean", "one draw for all": "variance",
              "2.7's round": "Philox4_32", "p too low": "mean", "one past `to`": "range"}[mutant]
    assert expect in seen, seen

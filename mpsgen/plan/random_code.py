"""The kernel-code phase of the random kind (a distribution stub; plan/random_route.py), as one frozen
`RandomCode`.

Written: the kernels in kernels/<Stem>.metal beside the host's .mm as upstream pairs them
(Distributions.mm -> Distributions.metal), created when the checkout has none (`<name>_dense_<T>` over a
dense output's storage, `<name>_strided_<T>` through its sizes and strides; each element drawn from
c10/metal/random.h's Philox at its logical index); the host kernel in the .mm that held the MPSGraph
code, seeding from the MPS generator as that code did, with the library declaration and the stub's header.
"""

from __future__ import annotations

from pathlib import Path

from mpsgen.errors import MpsgenError
from mpsgen.model import KernelOptions
from mpsgen.plan.dtypes import Row
from mpsgen.plan.nullary_code import metal_stem
from mpsgen.plan.random_record import BFLOAT, HOST_ONLY, RandomCode, metal_types, torch_dtypes
from mpsgen.plan.random_route import Sampler
from mpsgen.plan.kind_host import bfloat_guarded, dead_code_notes, host_file
from mpsgen.plan.routing import Routing
from mpsgen.plan.texts import Draft, capabilities
from mpsgen.scan.includes import includes_header
from mpsgen.sources.host import mm as host
from mpsgen.sources.host.library import runs_a_shader_library, with_library
from mpsgen.backfill.philox_round import corrected_round
from mpsgen.sources.native import stubs
from mpsgen.tree.changeset import Changeset
from mpsgen.tree.checkout import KERNELS_REL, Checkout

RANDOM_HEADER = "c10/metal/random.h"


def plan_random_code(routing: Routing, checkout: Checkout, cs: Changeset, opts: KernelOptions) -> RandomCode:
    """The kernels, the host kernels and their registrations for *routing*'s distribution stubs (nothing set
    in *cs*): one sampler each (bernoulli: bernoulli_scalar_stub's and bernoulli_tensor_stub's)."""
    from mpsgen.plan.kernel_code import registered_metal_kernel

    route, stub = routing.random, routing.stub
    assert route is not None and stub is not None
    first = route.samplers[0]
    kept = registered_metal_kernel(stub, cs, checkout)
    if kept:
        return RandomCode(kept=kept, op=first.op)
    if not cs.exists(RANDOM_HEADER):
        raise MpsgenError(f"{RANDOM_HEADER} not found: the {first.name} kernels draw from its Philox",
                          path=RANDOM_HEADER, hint=f"register {stub.name} by hand")
    mm_rel, dead = host_file(routing, checkout, cs, first.op.rstrip("_"))
    metal_rel = f"{KERNELS_REL}/{metal_stem(mm_rel)}.metal"
    draft = Draft(cs)
    library = f"{Path(metal_rel).stem}_metallib.h"  # another sampler's host declared it already
    if runs_a_shader_library(draft.current(mm_rel)) and library not in draft.current(mm_rel):
        raise MpsgenError(f"{Path(mm_rel).name} already runs a shader library: the {first.name} kernels would need "
                          "a file of that library", path=mm_rel, hint=f"register {stub.name} by hand")
    added: list[str] = []
    hosts: list[str] = []
    registers: list[str] = []
    for sampler in route.samplers:
        host_text, register_line = _place(sampler, draft, metal_rel, mm_rel, library, cs, checkout, opts, added)
        hosts.append(host_text)
        registers.append(register_line)
    corrected = corrected_round(draft.current(RANDOM_HEADER))  # 2.7's round swaps the products' halves
    if corrected is not None:
        draft.set_text(RANDOM_HEADER, corrected, "Philox round: each product's high half XORed, as Philox-4x32")
        added.append(f"{RANDOM_HEADER}: philox4::single_round XORs each product's high half into the next "
                     "counter word (2.7 took the low one; later checkouts have the correction)")
    before = (f"MPSGraph ({', '.join(routing.legacy_kernels)})" if routing.legacy_kernels
              else f"no MPS kernel ({stub.name} unregistered)")
    rows = tuple(Row(dtype, before, f"registered ({metal})", bool(routing.legacy_kernels), True)
                 for dtype, metal in _rows(route.samplers).items())
    names = "/".join(f"{s.name}_dense_<T>/{s.name}_strided_<T>" for s in route.samplers)
    notes = (f"the host seeds {names} from the MPS generator as the MPSGraph code did (its lock, "
             "update_philox_counters: one Philox step per launch); each element is drawn at its "
             f"logical index from {RANDOM_HEADER}'s philox4",
             *dead_code_notes(mm_rel, dead))
    return RandomCode(kernel=first.name, op=first.op, metal_path=metal_rel, mm_path=mm_rel,
                      metal_text=draft.current(metal_rel), host_code="\n\n".join(hosts),
                      register_line="\n".join(registers), rows=rows, edits=draft.edits, added=tuple(added), notes=notes,
                      samplers=tuple((s.name, s.op) for s in route.samplers))


def _place(sampler: Sampler, draft: Draft, metal_rel: str, mm_rel: str, library: str, cs: Changeset,
           checkout: Checkout, opts: KernelOptions, added: list[str]) -> tuple[str, str]:
    """*sampler*'s kernels into the .metal (created, or appended to the random kind's file) and its host
    kernel and registration into the .mm, in *draft*; (host code, registration line)."""
    from mpsgen.generate.host_code import host_kernel_name, render_register_dispatch
    from mpsgen.generate.templating import render_template

    stub, name = sampler.stub, sampler.name
    guarded = bfloat_guarded(cs, checkout)
    types = metal_types(name)
    existing = draft.current(metal_rel) if draft.exists(metal_rel) else None
    if existing is not None and not _holds_random_kernels(existing):
        raise MpsgenError(f"{Path(metal_rel).name} exists and holds no kernels of the random kind", path=metal_rel,
                          hint=f"register {stub.name} by hand")
    with_p = name == "bernoulli_tensor"  # bernoulli_tensor_stub's p: a tensor read per element
    integer = name.startswith("random")  # random_from_to_stub's range and base: 64-bit integers
    section = render_template("random_kernel.metal.j2", opts.templates_dir, name=name, stub=stub.name,
                              macro=f"REGISTER_{name.upper()}_OP", header=existing is None, with_p=with_p,
                              ptype="long2" if integer else "float2",
                              types=types if guarded else (*types, BFLOAT),
                              guarded=(BFLOAT,) if guarded else ()) + "\n"
    metal_text = section if existing is None else existing + "\n" + section.lstrip("\n")  # another sampler's file
    draft.set_text(metal_rel, metal_text, f"{name}_dense/{name}_strided kernels of {stub.name}")
    added.append(f"{metal_rel}: {name}_dense_<T>, {name}_strided_<T> ({len(types) + 1} dtypes)")
    fn = host_kernel_name(name)
    params = stubs.host_params(stub, sampler.params)
    first = params.split(",", 1)[0].split()[-1]  # the iterator, or the output itself (normal_stub's TensorBase)
    output = f"{first}.tensor(0)" if stub.iterator_type else first
    host_text = render_template("random_host.mm.j2", opts.templates_dir, fn=fn, params=params, output=output,
                                op=sampler.op, name=name, values=() if with_p else sampler.params[:-1],
                                probs=sampler.params[0] if with_p else "", gen=sampler.params[-1], integer=integer,
                                only=HOST_ONLY.get(name, ()),
                                dispatch=capabilities(cs).launch.dispatch)
    mm_text = draft.current(mm_rel)
    semicolon, ampersand = host.register_dispatch_style(mm_text)
    register_line = render_register_dispatch(stub.name, fn, semicolon, ampersand, opts.templates_dir)
    new_mm = host.add_host_kernel(mm_text, host_text, register_line, path=mm_rel)
    new_mm = host.ensure_include(new_mm, stub.header, path=mm_rel)
    if not includes_header(new_mm, "ATen/TensorIterator.h", "ATen/native/TensorIterator.h"):
        new_mm = host.ensure_include(new_mm, "ATen/TensorIterator.h", path=mm_rel)
    declares = library not in new_mm
    if declares:
        new_mm = with_library(new_mm, render_template("shader_library.mm.j2", opts.templates_dir,
                                                      stem=Path(metal_rel).stem), mm_rel)
    draft.set_text(mm_rel, new_mm, f"host kernel for {stub.name}")
    added.append(f"{mm_rel}: {fn} + REGISTER_DISPATCH({stub.name}, …)"
                 + (f", the {Path(metal_rel).stem} library" if declares else ""))
    return host_text, register_line




def _rows(samplers: tuple[Sampler, ...]) -> dict[str, str]:
    """torch dtype -> Metal type, every dtype some sampler of the family serves."""
    rows: dict[str, str] = {}
    for s in samplers:
        rows.update(torch_dtypes(s.name))
    return rows


def _holds_random_kernels(text: str) -> bool:
    """Whether a .metal is the random kind's (another sampler's kernels, from c10/metal/random.h)."""
    return f"#include <{RANDOM_HEADER}>" in text and "_strided_\" #T)]]" in text


"""Shared frozen types: where a fact was found, what kernel to generate, and the options a command
runs with.

Options are built once by the CLI and passed down typed; no ``dict[str, Any]`` crosses a module
boundary (modelled on torchgen's model.py, whose parsed objects each carry a ``Location``).
Types that two stages share live here, so that neither stage imports the other for them
(render.py and metal.py both use `KernelSpec` and `MetalStyle`).
"""

from __future__ import annotations

from typing import Literal, get_args

from mpsgen.records import NamedTuple

Command = Literal["migrate", "new-op"]

# One command line, run without a shell (build and test commands).
Argv = tuple[str, ...]

# The fixed vocabularies of a kernel; the tuples are the Literal's values, for validation and messages.
Arity = Literal["unary", "binary", "unary_alpha", "binary_alpha", "ternary", "ternary_alpha", "unary_params",
                "binary_params", "ternary_params"]
DtypeToken = Literal["float", "int2float", "integer", "complex"]
ResultKind = Literal["same", "float", "bool", "complex", "int32"]  # complex: T -> vec2type_t<T> (polar); int32: T -> int
# What a kernel computes: an elementwise function of its inputs (a functor, its arity above), or, with no
# input, its output filled with a scalar (fill_stub: plan/nullary_route.py, plan/nullary_code.py).
# indexing: index_fill_stub (plan/indexing_route.py); random: a distribution stub (plan/random_route.py);
# reduction: a TensorIterator reduction of a reduce stub (plan/reduction_route.py)
KernelKind = Literal["pointwise", "nullary", "indexing", "random", "reduction"]
# How a kernels/*.metal file registers its kernels (sources/metal/layout reads it, the checkout's
# Capabilities keep it per file), which also says how a kernel is written there: early 2025's template
# kernel per op with `template [[host_name(...)]]` instances (unary), 2.7 BinaryKernel.metal's own
# REGISTER_BINARY_INDEXING_OP (binary, ternary), else functors and REGISTER_* lines.
MetalLayout = Literal["TEMPLATE_HOST_NAME", "BINARY_INDEXING", "FUNCTOR_LOCAL_MACROS", "FUNCTOR_REGISTER",
                      "FUNCTOR_REGISTER_WITH_TEMPLATES", "UNKNOWN"]
# What an operations/*.mm implementation runs, and how it is defined.
Backend = Literal["mpsgraph", "metal", "unknown"]
ImplForm = Literal["TORCH_IMPL_FUNC", "function", "macro"]
ARITIES: tuple[Arity, ...] = get_args(Arity)
DTYPE_TOKENS: tuple[DtypeToken, ...] = get_args(DtypeToken)
RESULTS: tuple[ResultKind, ...] = get_args(ResultKind)

# Input variables each arity's expression is written in (its scalars are optional).
_INPUTS = {"unary": ("x",), "binary": ("a", "b"), "ternary": ("a", "b", "c")}
VARIABLES = {arity: _INPUTS[arity.split("_")[0]] for arity in ARITIES}


class Location(NamedTuple):
    """A file (as shown to the user, relative to the checkout), a 1-based line and optionally a column."""

    file: str
    line: int
    col: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.col is None else f"{self.file}:{self.line}:{self.col}"


class KernelOptions(NamedTuple):
    """What to plan: the op and how its kernel is generated (shared by migrate and new-op)."""

    op: str
    expr: str | None = None
    int_expr: str | None = None
    complex_expr: str | None = None
    dtypes: str | None = None
    stub_override: str | None = None
    templates_dir: str | None = None
    shared_kernel: str | None = None
    drop_complex: bool = False
    drop_dtypes: str | None = None  # torch dtypes MPS served that the new kernel deliberately leaves out


class RunOptions(NamedTuple):
    """What to do with a plan: show it, apply it, build, test, commit."""

    fmt: str = "text"
    print_only: bool = False
    dry_run: bool = False
    no_build: bool = False
    no_test: bool = False
    grad_tests: bool = False
    build_cmds: tuple[str, ...] = ()
    allow_dirty: bool = False
    branch: str | None = None
    commit: bool = False
    no_try: bool = False  # skip the numeric check (mpsgen try) before writing
    no_compile: bool = False  # skip the compile check (compiler/) before writing


class KernelSpec(NamedTuple):
    """What to generate for one Metal kernel (the functor prefix is ``name``)."""

    name: str
    arity: Arity
    expr: str
    int_expr: str | None = None
    complex_expr: str | None = None
    bool_expr: str | None = None
    dtypes: tuple[DtypeToken, ...] = ("float",)
    opmath: bool = False
    result: ResultKind = "same"  # "float": integral inputs return float; "bool": comparisons
    includes: tuple[str, ...] = ()  # c10/metal headers the body needs, e.g. "c10/metal/expm1f.h"
    note: str = ""
    skip: tuple[str, ...] = ()  # Metal types of the chosen families left unregistered (--drop-dtypes)
    # The scalars the functor takes after its tensors (alpha forms: one; params forms: the struct's
    # fields), and the type they reach the kernel in: "scalar" (the input's type, as the CPU kernel's
    # `.to<scalar_t>()`) or "opmath" (float for every floating input, as CPU's opmath does for half).
    scalars: tuple[str, ...] = ()
    param_type: str = "scalar"
    param_defaults: tuple[str, ...] = ()  # per scalar: what an absent std::optional stands for (catalog)
    layout: MetalLayout = "FUNCTOR_REGISTER"  # the target .metal's (plan/era: the checkout's Capabilities)
    # Upstream's kernel of two outputs (frexp on the 2026 tree: plan/two_output_ops): expr names the
    # function the kernels apply, lifted out as the "functor"; the numeric check compares both outputs
    # (emulate/two_output_check).  In the spec, so `try`'s cached subjects carry it.
    two_outputs: bool = False
    # c10::metal helpers the checkout lacks, which the functor carries itself (backfill/c10_shims.py)
    shims: tuple[str, ...] = ()
    # inputs the op takes as bool in a kernel whose inputs differ in dtype (where's condition): the
    # functor gets them as T (0 or 1), torch as bool (templates/catalog.yaml bool_inputs)
    bool_inputs: tuple[int, ...] = ()
    # inputs the body does not read (catalog `unused`): their parameters go unnamed, for -Wunused-parameter
    unused: tuple[str, ...] = ()

    @property
    def is_unary_family(self) -> bool:
        return self.arity.startswith("unary")

    @property
    def template_kernel(self) -> bool:
        """Written as 2.6-2.7's template kernel with host_name instances (a unary kernel in that layout)."""
        return self.layout == "TEMPLATE_HOST_NAME" and self.is_unary_family

    @property
    def binary_indexing(self) -> bool:
        """Registered by 2.7 BinaryKernel.metal's REGISTER_BINARY_INDEXING_OP (a kernel of two or three inputs)."""
        return self.layout == "BINARY_INDEXING" and not self.is_unary_family

    @property
    def inputs(self) -> int:
        return {"unary": 1, "binary": 2, "ternary": 3}[self.arity.split("_")[0]]

    @property
    def has_params(self) -> bool:
        return self.arity.endswith("_params")

    @property
    def has_alpha(self) -> bool:
        return self.arity.endswith("_alpha")

    @property
    def params_struct(self) -> str:
        """The params struct's name: threshold -> ThresholdParams, hardtanh_backward -> HardtanhBackwardParams."""
        return "".join(w[:1].upper() + w[1:] for w in self.name.split("_") if w) + "Params"


class MetalStyle(NamedTuple):
    """How a .metal file writes registrations (read from the file by sources/metal/edit.py, used by
    generate/render.py to write new ones the same way)."""

    path: str
    local_macros: frozenset[str]
    binary_op_args: int
    binary_op_args_line: int | None
    has_unary_kernels2: bool
    has_unary_vec2: bool
    semicolon: bool
    # The file also registers `REGISTER_BINARY_CASTOUT_OP` twins of its bool-result kernels (2026:
    # REGISTER_COMPARISON_OP), so an `out=` of another dtype finds `<name>_strided_castout_bool_<T>`.
    castout: bool = False

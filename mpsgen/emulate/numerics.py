"""check_kernel: compile a functor, run it on every registered dtype, compare with torch.

The compiled functor runs in a child process (isolate.py): a body that traps on the host (integer
division by zero, a bad pointer) makes its dtype's row a crash naming the signal and the first
inputs that trap, and the other dtypes are still compared.

The whole result is cached next to the build (keyed by the build's hash, the torch version and
the input set), so a re-run needs neither the compiler nor torch's import.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from mpsgen.errors import MpsgenError
from mpsgen.model import VARIABLES, KernelSpec
from . import cannot_take
from . import compile as cc
from . import inputs as inp
from .compare import DtypeResult, TryResult, compare, crashed
from .reference import NoReference
from mpsgen.scan.lines import plain_lines

if TYPE_CHECKING:
    from mpsgen.plan.binding import Binding

    from .isolate import KernelRunner
    from .reference import Reference

RESULT_VERSION = "9"  # bump when inputs, tolerances or rules change


def expressions_of(spec: KernelSpec, flags: dict[str, str] | None = None) -> dict[str, str]:
    """flag name -> expression text, for mapping compiler errors (catalog bodies are named as such)."""
    names = flags or {}
    out = {names.get("expr", "--expr"): spec.expr}
    for key, flag in (("int_expr", "--int-expr"), ("complex_expr", "--complex-expr"), ("bool_expr", "bool_expr")):
        text = getattr(spec, key)
        if text:
            out[names.get(key, flag)] = text
    # Longest first: a body that contains another is matched by the more specific one.
    return dict(sorted(out.items(), key=lambda kv: -len(kv[1])))


def check_kernel(spec: KernelSpec, functor: str, *, op: str, include_root: str | Path,
                 flags: dict[str, str] | None = None, binding: Binding | None = None) -> TryResult:
    """Compile *functor* (the text migrate/new-op write) and compare every registration with torch."""
    from .reference import import_torch, torch_version

    if torch_version() is None:
        import_torch()  # raises the one-line "pip install torch" error
    pending = cc.start_build(spec, functor, include_root, expressions=expressions_of(spec, flags))
    from . import bound

    tag = bound.digest(binding) if bound.needed(spec, binding) and binding is not None else ""
    tag += ".exact" if exact_body(spec) else ""
    key_file = cc.cache_dir() / f"{pending.build.key}.{op}{tag}.{torch_version()}.{RESULT_VERSION}.json"
    if pending.build.cached and key_file.is_file():
        try:
            return TryResult.from_json(json.loads(key_file.read_text(encoding="utf-8")), cached=True)
        except (ValueError, KeyError, TypeError):
            pass  # a damaged cache entry: recompute
    from .isolate import KernelRunner  # here: a cached result needs no child

    with KernelRunner() as runner:
        runner.start()  # the child's Python start-up, too, while the compiler runs
        try:
            import_torch()  # while the compiler runs (both take a second or two)
        except MpsgenError:
            pending.wait()  # report a compile error first; then the missing torch
            raise
        runner.library = pending.wait().library
        result = _run(spec, op, runner, include_root, binding)
    tmp = key_file.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(result.to_json()), encoding="utf-8")
    os.replace(tmp, key_file)
    return result


def _run(spec: KernelSpec, op: str, runner: KernelRunner, include_root: str | Path,
         binding: Binding | None = None) -> TryResult:
    from . import reference as ref
    from .isolate import Call, KernelCrash

    def run(reg: cc.Registration, args: list[Any], alpha: Any, out_dtype: Any) -> Any:
        n = args[0].numel()
        out_size = ref.import_torch().empty(0, dtype=out_dtype).element_size()
        call = Call(reg.symbol, n, tuple(ref.raw(a) for a in args), ref.raw(alpha) if alpha is not None else None,
                    n * out_size)
        try:
            return ref.from_raw(runner.run(call), args[0].shape, reg.out_type)
        except KernelCrash as crash:
            if crash.signal != "timeout":  # replaying a body that never returns would wait again
                crash.element = runner.first_crash(call, args[0].element_size(), out_size)
            raise

    return compare_all(spec, op, run, backend=emulated_backend(include_root), binding=binding)


def emulated_backend(include_root: str | Path) -> str:
    """What ran the kernel: the host compiler, and the math mode the checkout's Metal compiles with
    (where read), which decides what an unqualified math function is."""
    mode = cc.math_mode_of(include_root)
    return f"emulated Metal ({Path(cc.find_compiler()[0]).name}, {mode.mode} math: {mode.where})"


def compare_all(spec: KernelSpec, op: str, run: Callable[..., Any], *, backend: str,
                binding: Binding | None = None) -> TryResult:
    """Every registration of *spec*: inputs, torch's result, *run*'s result, compared.

    *run(registration, input tensors, alpha tensor or None, output dtype)* returns a CPU tensor, or
    raises KernelCrash (its .element the index of the first input that crashes, when known).
    *binding* (plan/binding.py) says how the op's arguments reach the kernel when they are not
    simply its inputs then its scalar (threshold: self twice, threshold and value in a struct)."""
    from . import bound
    from . import reference as ref
    from .isolate import KernelCrash

    torch = ref.import_torch()
    by = binding if bound.needed(spec, binding) else None  # the op's arguments, when the check goes through them
    fn = bound.reference(by) if by is not None else ref.resolve(op)
    rows: list[DtypeResult] = []
    untakeable = cpu_cannot_take(op)
    exact = exact_body(spec)
    if exact:
        backend += ", bit for bit"

    for reg in cc.registrations(spec):
        spread = bound.spread(by) if by is not None else None  # kernel input k -> generated column
        nargs = len(set(spread)) if spread else None
        data = inp.make_inputs(reg.in_type, spec.arity, reg.alpha_type, nargs=nargs)
        data, untaken_note = cannot_take.without_rows(untakeable, data, reg.in_type, VARIABLES[spec.arity])
        if by is not None and spec.scalars:
            data = data._replace(alphas=bound.scalar_cases(by, spec, reg.in_type))
        note = ""
        columns = _bool_columns(spec, [ref.tensor(col, reg.in_type) for col in data.columns], spread)
        args = [columns[j] for j in spread] if spread else columns
        alphas = data.alphas or (None,)
        refused = ""
        if by is not None and spec.scalars:  # asked as the kernel gets them (pow: -2.0 is -2 for int64, which torch refuses)
            alphas, refused = bound.accepted(fn, args, _in_alpha_type(alphas, reg))
        try:
            expected, note = _expected(fn, _as_bool(spec, args), alphas, reg)
        except RuntimeError as err:
            if "ZeroDivisionError" not in str(err) or len(args) < 2:
                raise _refusal(fn.name, ref.TORCH_DTYPES[reg.in_type], err) from None
            # Integer division by zero raises in torch (and traps on the host); Metal returns
            # some value.  Compare the rest.
            data = _without_zero_divisors(data, reg.in_type)
            columns = _bool_columns(spec, [ref.tensor(col, reg.in_type) for col in data.columns], spread)
            args = [columns[j] for j in spread] if spread else columns
            expected, note = _expected(fn, _as_bool(spec, args), alphas, reg)
            note = "; ".join(filter(None, ("integer division by zero not compared", note)))
        except (TypeError, NotImplementedError, ValueError) as err:
            raise _refusal(fn.name, ref.TORCH_DTYPES[reg.in_type], err) from None
        out_dtype = getattr(torch, ref.TORCH_DTYPES[reg.out_type])
        rows_in: list[tuple[object, ...]] = []
        exp_all: list[object] = []
        got_all: list[object] = []
        shown = list(zip(*(ref.as_python(t) for t in columns)))
        try:
            for a, e in zip(alphas, expected):
                alpha_t = bound.scalar_tensor(a, reg, spec) if a is not None else None
                got = run(reg, args, alpha_t, out_dtype)
                rows_in += [r + bound.flat(a) for r in shown] if a is not None else shown
                exp_all += ref.as_python(e)
                got_all += ref.as_python(got)
        except KernelCrash as crash:
            where = crash.element
            culprit = () if where is None else shown[where] + (bound.flat(a) if a is not None else ())
            rows.append(crashed(ref.TORCH_DTYPES[reg.in_type], ref.TORCH_DTYPES[reg.out_type],
                                len(shown) * len(alphas), crash.signal, crash.meaning, culprit, note))
            continue
        note = "; ".join(filter(None, (note, untaken_note)))
        if reg.in_type == "half2":
            note = (note + "; " if note else "") + "reference computed in complex64, rounded to complex32"
        note = "; ".join(filter(None, (note, refused)))
        def scalar_path(i: int, reg: cc.Registration = reg, args: list[Any] = args) -> object:
            row, k = i % len(shown), i // len(shown)
            one = [t[row:row + 1].clone() for t in _as_bool(spec, args)]  # (a tied input stays tied)
            value, _ = _expected(fn, one, (alphas[k],), reg)
            return ref.as_python(value[0])[0]

        rows.append(compare(ref.TORCH_DTYPES[reg.in_type], ref.TORCH_DTYPES[reg.out_type], rows_in, exp_all,
                            got_all, note, signed_zero=spec.arity == "unary", second_opinion=scalar_path,
                            exact=exact))
    return TryResult(op, fn.name, backend, tuple(rows))


def exact_body(spec: KernelSpec) -> bool:
    """The catalog marks *spec*'s body exact (frexp's outputs): compared bit for bit."""
    from mpsgen.generate.catalog import load_catalog

    return bool((load_catalog().get(spec.name) or {}).get("exact", False))


def cpu_cannot_take(op: str) -> tuple[cannot_take.Rule, ...]:
    """The catalog's rules for the inputs *op*'s CPU reference cannot take (whichever body the kernel runs)."""
    from mpsgen.generate.catalog import load_catalog

    entry = load_catalog().get(op) or {}
    return tuple(cannot_take.Rule(r["where"], r["note"], tuple(r.get("dtypes", ())))
                 for r in entry.get("cpu_cannot_take", ()))


def _expected(fn: Reference, args: list[Any], alphas: tuple[Any, ...], reg: cc.Registration) -> tuple[list[Any], str]:
    """torch's results for each alpha, and a note when the reference ran in a wider dtype.

    The alpha scalar is rounded to its registered dtype first: the kernel receives it so.
    torch has no CPU kernel of some ops for some dtypes (logaddexp on int64, fmod on bool,
    special.log_ndtr on float16) while MPS registers them.  Those dtypes are compared with torch on
    the same values widened to float32 (half, bfloat, int2float) or uint8 (bool), the result
    rounded to the kernel's output dtype."""
    from . import reference as ref

    torch = ref.import_torch()
    rounded = _in_alpha_type(alphas, reg)
    try:
        return [ref.expected(fn, args, a, reg.out_type) for a in rounded], ""
    except RuntimeError as err:
        # neg refuses bool in its meta function (a bool never reaches the stub): compared as uint8 too
        refused_bool = reg.in_type == "bool" and "bool tensor is not supported" in str(err)
        if "not implemented for" not in str(err) and not refused_bool:
            raise
        if reg.in_type in ("half", "bfloat"):
            wide = "float32"  # as test_mps.py does for ops without a reduced-precision CPU kernel
        elif reg.out_type == "float" and (reg.in_type in inp.INT_RANGES or reg.in_type == "bool"):
            wide = "float32"
        elif reg.in_type == "bool":
            wide = "uint8"
        else:
            raise
        widened = [a.to(getattr(torch, wide)) for a in args]
        note = (f"{fn.name} refuses bool" if refused_bool else f"{fn.name} has no {ref.TORCH_DTYPES[reg.in_type]} CPU kernel"
                ) + f": reference on the values as {wide}"
        return [ref.expected(fn, widened, a, reg.out_type) for a in rounded], note


def _in_alpha_type(alphas: tuple[Any, ...], reg: cc.Registration) -> tuple[Any, ...]:
    """Each alpha scalar rounded to its registered dtype, as the kernel receives it.  A params struct's
    values go to torch as given (the CPU kernel converts them itself)."""
    from . import reference as ref

    return tuple(ref.tensor((a,), str(reg.alpha_type)).item() if a is not None and not isinstance(a, tuple) else a
                 for a in alphas)


def _bool_columns(spec: KernelSpec, columns: list[Any], spread: list[int] | None) -> list[Any]:
    """The columns of the op's bool inputs (where's condition) as the GPU's cast kernels hand them to
    the functor: 0 or 1 in the kernel's type T."""
    if not spec.bool_inputs:
        return columns
    bools = {spread[k] if spread else k for k in spec.bool_inputs}
    return [(c != 0).to(c.dtype) if j in bools else c for j, c in enumerate(columns)]


def _as_bool(spec: KernelSpec, args: list[Any]) -> list[Any]:
    """The kernel's inputs as torch takes them: its bool inputs as bool tensors."""
    return [a != 0 if k in spec.bool_inputs else a for k, a in enumerate(args)]


def _refusal(name: str, dtype: str, err: BaseException) -> MpsgenError:
    first = plain_lines(str(err).strip())[0] if str(err).strip() else type(err).__name__
    return NoReference(f"cannot call the reference {name} on {dtype} tensors: {first}",
                       hint="mpsgen try compares elementwise ops whose torch function takes the kernel's inputs "
                       "(and alpha) only")


def _without_zero_divisors(data: inp.Inputs, metal: str) -> inp.Inputs:
    lo = inp.INT_RANGES.get(metal, (0, 0))[0]
    a, b = data.columns[0], data.columns[1]
    keep = [bool(y) and not (x == lo and y == -1) for x, y in zip(a, b)]
    return inp.drop_rows(data, keep)

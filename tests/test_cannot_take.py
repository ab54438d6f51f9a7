"""emulate/cannot_take.py + the catalog's cpu_cannot_take: the inputs an op's CPU reference cannot take
are left out of the numeric check by the catalog's rules, with no op name in emulate/."""

from __future__ import annotations

import re

import pytest

from mpsgen.emulate.cannot_take import Rule, without_rows
from mpsgen.emulate.row_conditions import parse
from mpsgen.emulate.numerics import cpu_cannot_take
from mpsgen.emulate.inputs import Inputs
from mpsgen.errors import MpsgenError
from mpsgen.generate.catalog import load_catalog

NAN, INF = float("nan"), float("inf")
DEGREES = (Rule("b > 1000", "big n"), Rule("isnan(a) and b >= 2", "NaN x"))


def test_rows_a_rule_matches_are_dropped_and_counted_per_rule() -> None:
    data = Inputs(((0.5, NAN, NAN, 2.0, NAN), (3, 2, 1, 1e18, INF)), alphas=(0.25,))
    kept, note = without_rows(DEGREES, data, "float", ("a", "b"))
    # row 3 and 4 have a huge n, rows 1 and 4 a NaN x with n >= 2: row 4 counts for both rules, dropped once
    assert kept.columns == ((0.5, NAN), (3, 1)) or [list(map(repr, c)) for c in kept.columns] == [
        ["0.5", "nan"], ["3", "1"]]
    assert kept.alphas == (0.25,)
    assert note == "2 big n; 2 NaN x"


def test_nothing_matched_leaves_the_inputs_and_says_nothing() -> None:
    data = Inputs(((1.0, 2.0), (3, 4)))
    assert without_rows(DEGREES, data, "float", ("a", "b")) == (data, "")


def test_a_rule_applies_only_to_its_dtypes_and_to_one_column_per_input() -> None:
    lowest = (Rule("a == lowest", "lowest a", ("int32",)),)
    data = Inputs(((-(2**31), 5), (1, 1)))
    assert without_rows(lowest, data, "int", ("a", "b"))[1] == "1 lowest a"
    assert without_rows(lowest, data, "short", ("a", "b")) == (data, "")
    assert without_rows(lowest, Inputs(((-(2**31), 5),)), "int", ("a", "b")) == (Inputs(((-(2**31), 5),)), "")


def test_int64_values_compare_exactly() -> None:
    """One above the lowest int64 rounds to it as a float: the comparison must not go through float."""
    data = Inputs(((-(2**63), -(2**63) + 1), (0, 0)))
    kept, note = without_rows((Rule("a == lowest", "lowest a"),), data, "long", ("a", "b"))
    assert kept.columns == ((-(2**63) + 1,), (0,)) and note == "1 lowest a"


def test_a_comparison_with_a_bool_or_complex_value_is_false() -> None:
    data = Inputs(((True, (1.0, 2.0), 3), (0, 0, 0)))
    kept, note = without_rows((Rule("a > 0", "positive"), Rule("not a < 5", "big")), data, "float", ("a", "b"))
    assert note == "1 positive; 2 big"  # `not` of a false comparison holds: True and the pair are "not < 5"


def test_the_catalog_keeps_lcms_trapping_inputs_out() -> None:
    """lcm's rule, from the catalog: a / calc_gcd(a, b) traps where the gcd of the lowest a wraps to -1."""
    pytest.importorskip("torch")
    rules = cpu_cannot_take("lcm")
    lo = -(2**31)
    data = Inputs(((lo, lo, lo, lo, 7), (3, 5, 0, 2**31 - 1, -1)))
    import torch

    gcds = torch.gcd(torch.tensor(data.columns[0], dtype=torch.int32), torch.tensor(data.columns[1], dtype=torch.int32))
    traps = [a == lo and g == -1 for a, g in zip(data.columns[0], gcds.tolist())]
    assert any(traps) and not all(traps)  # the fixture holds both kinds
    kept, note = without_rows(rules, data, "int", ("a", "b"))
    assert len(kept.columns[0]) == traps.count(False)
    assert note == f"{traps.count(True)} input(s) where the CPU's a / gcd(a, b) traps not compared"
    assert without_rows(rules, data, "short", ("a", "b")) == (data, "")  # int16 promotes to int: no trap


def test_every_polynomial_entry_caps_its_degree_and_no_other_entry_is_touched() -> None:
    catalog = load_catalog()
    ruled = {op for op, entry in catalog.items() if entry.get("cpu_cannot_take")}
    assert ruled == {"lcm"} | {op for op in catalog if "_polynomial_" in op}
    assert [r.where for r in cpu_cannot_take("special_hermite_polynomial_he")] == ["b > 1000", "isnan(a) and b >= 2"]
    assert cpu_cannot_take("atan2") == () and cpu_cannot_take("not_an_op") == ()


@pytest.mark.parametrize("where, message", [
    ("c > 1", "unknown name 'c'"),
    ("pow(a, 2) > 1", "only isnan(), gcd() may be called"),
    ("isnan(a, b)", "only isnan(), gcd() may be called"),
    ("0 < a < 3", "one comparison"),
    ("a + 1 > 2", "BinOp is not part of the language"),
    ("a == 'x'", "'x' is not a number"),
    ("a >", "not an expression"),
])
def test_the_language_refuses_what_it_lacks(where: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse(where, ("a", "b"))


@pytest.mark.parametrize("rule, message", [
    ("{where: x > 1, note: n}", "unknown name 'x'"),
    ("{where: a > 1}", "cpu_cannot_take must be a list of"),
    ("{where: a > 1, note: n, dtypes: [int33]}", "unknown dtypes: int33"),
    ("{where: a > 1, note: n, because: y}", "cpu_cannot_take must be a list of"),
])
def test_a_bad_rule_in_a_catalog_is_one_error_naming_the_file(tmp_path, rule: str, message: str) -> None:
    bad = tmp_path / "catalog.yaml"
    bad.write_text(f"op:\n  arity: binary\n  expr: a + b\n  cpu_cannot_take: [{rule}]\n")
    with pytest.raises(MpsgenError, match=message) as err:
        load_catalog(str(bad))
    assert str(bad) in err.value.render() and "\n" not in err.value.render()

"""mpsgen.records.NamedTuple makes the class typing.NamedTuple makes, without compiling its annotations."""

from __future__ import annotations

import pickle
import typing

import pytest

from mpsgen import records


def _body(base: type) -> type:
    class Point(base):
        """A point."""

        x: int
        y: tuple[str, ...] | None = None
        label: str = "p"

        @property
        def norm(self) -> int:
            return abs(self.x)

        def moved(self, dx: int) -> Point:
            return self._replace(x=self.x + dx)

    return Point


TypingPoint = _body(typing.NamedTuple)
RecordPoint = _body(records.NamedTuple)


def test_the_same_class_as_typing_makes() -> None:
    for name in ("_fields", "_field_defaults", "__doc__", "__module__", "__qualname__", "__name__", "__slots__"):
        assert getattr(RecordPoint, name) == getattr(TypingPoint, name), name
    assert RecordPoint.__bases__ == TypingPoint.__bases__ == (tuple,)
    assert RecordPoint.__annotations__ == {"x": "int", "y": "tuple[str, ...] | None", "label": "str"}
    assert list(RecordPoint.__annotations__) == list(TypingPoint.__annotations__)
    p, q = RecordPoint(-2), TypingPoint(-2)
    assert tuple(p) == tuple(q) == (-2, None, "p") and repr(p) == repr(q)
    assert p.norm == q.norm == 2 and tuple(p.moved(3)) == tuple(q.moved(3)) == (1, None, "p")
    assert type(p.moved(3)) is RecordPoint and p._asdict() == q._asdict()
    # __orig_bases__: (typing.NamedTuple,), set by class creation because typing's is a function with __mro_entries__
    assert set(vars(RecordPoint)) == set(vars(TypingPoint)) - {"__orig_bases__"}


Pickled = _body(records.NamedTuple)
Pickled.__qualname__ = "Pickled"  # found again by its module's attribute, as a module-level record is


def test_records_pickle_as_named_tuples() -> None:
    p = Pickled(1, ("a",))
    assert pickle.loads(pickle.dumps(p)) == p and type(pickle.loads(pickle.dumps(p))) is Pickled


def test_what_typing_refuses_is_refused() -> None:
    for base in (typing.NamedTuple, records.NamedTuple):
        with pytest.raises(TypeError, match="Non-default namedtuple field b cannot follow default field a"):
            class Bad(base):  # type: ignore[misc, valid-type]
                a: int = 1
                b: int
        with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _replace"):
            class Worse(base):  # type: ignore[misc, valid-type]
                a: int

                def _replace(self) -> None: ...
    with pytest.raises(TypeError, match="can only inherit"):
        class Mixed(records.NamedTuple, int):  # type: ignore[misc]
            a: int

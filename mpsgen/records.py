"""NamedTuple for mpsgen's record classes: typing.NamedTuple as mypy reads it, made cheaper at run time.

typing.NamedTuple checks each field's annotation when a class is made, and under `from __future__ import
annotations` every annotation is a string it compiles into a ForwardRef: ~0.7 M instructions a class,
~40 M of every `check` (which makes ~60 record classes), for objects nothing reads.  The class made here
is the one typing makes in every other respect (typing.NamedTupleMeta, Python 3.11): collections.namedtuple
of the body's annotated fields and defaults, the body's methods, properties and docstring set on it, and
__annotations__ the body's (strings, as written).  tests/test_records.py compares the two.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    # What a body may not set, and what is not copied from it (typing._prohibited, typing._special).
    _PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                             "_make", "_replace", "_asdict", "_source"})
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _RecordMeta(type):
        def __new__(cls, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> type:
            if bases != (NamedTuple,):
                raise TypeError("can only inherit from a NamedTuple type")
            types = ns.get("__annotations__", {})
            default_names = []
            for field in types:
                if field in ns:
                    default_names.append(field)
                elif default_names:
                    raise TypeError(f"Non-default namedtuple field {field} cannot follow default field"
                                    f"{'s' if len(default_names) > 1 else ''} {', '.join(default_names)}")
            record = collections.namedtuple(typename, list(types), defaults=[ns[n] for n in default_names],
                                            module=ns["__module__"])
            record.__annotations__ = record.__new__.__annotations__ = dict(types)
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in record._fields:
                    setattr(record, key, value)
            return record

    NamedTuple = type.__new__(_RecordMeta, "NamedTuple", (), {"__module__": __name__})

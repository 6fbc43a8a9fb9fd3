"""Building frozen pydantic records from values this reader has already checked.

`Deal`'s own validator re-derives every card as a pydantic object (tens of microseconds per deal),
and a file can hold tens of thousands of games. Each reader checks cards, contracts and tricks
itself with plain strings and tuples, then builds the models with `instance`, which does what
`model_construct` does for a complete set of fields at a third of its cost. The test suite
re-validates every record built this way from the corpus (`model_validate(model_dump())`).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
_new = object.__new__
_set = object.__setattr__
_FIELD_SETS: dict[type[BaseModel], set[str]] = {}


def instance(cls: type[M], fields: dict[str, Any]) -> M:
    """An instance of `cls` with exactly `fields` (all of them, in declaration order), unvalidated."""
    obj = _new(cls)
    _set(obj, "__dict__", fields)
    # One set per class is shared: frozen models never change it, and model_copy copies it first.
    names = _FIELD_SETS.get(cls)
    if names is None or len(names) != len(fields):
        names = _FIELD_SETS[cls] = set(fields)
    _set(obj, "__pydantic_fields_set__", names)
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj

"""Records of named fields, made without ``dataclasses``' code generation.

A dataclass writes and compiles its methods' code when its class is made:
about 3 M instructions a class, after 37 M for importing ``dataclasses``
with ``inspect``, ``ast`` and ``dis``.  The classes a plain run makes at
start-up (the options, the settings, the records, the run's state) are
these instead, so a run pays for what it uses (docs/design.md, start-up).

A subclass names its fields in ``_FIELDS`` (in order, also its
``__slots__``), takes them in ``__init__`` as a dataclass would, and ends
its ``__init__`` with ``self._assign(locals())``; checks follow it.

- ``Fields``: equality, ``repr``, ``_replace`` (``dataclasses.replace``),
  ``_asdict`` and pickling (through ``__init__``, so a record read back is
  checked again); its fields may be set.
- ``Frozen``: the same, with fields that cannot be set, and a hash.

``_OUTPUT`` names the fields that change only how a result is written, not
what is counted (BLEU's ``--bleu-orders``): a stats record leaves them out.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class Fields:
    """A record of named fields (``_FIELDS``): equal when of one class with
    equal fields."""

    __slots__: tuple[str, ...] = ()
    _FIELDS: tuple[str, ...] = ()
    _OUTPUT: frozenset[str] = frozenset()

    def _fields(self) -> Iterator[str]:
        return iter(self._FIELDS)

    def _assign(self, values: Mapping[str, Any]) -> None:
        set_field = object.__setattr__
        for name in self._FIELDS:
            set_field(self, name, values[name])

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def _asdict(self) -> dict[str, Any]:
        """The fields by name (``dataclasses.asdict``'s, not recursive)."""
        return {name: getattr(self, name) for name in self._FIELDS}

    def _replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` (``dataclasses.replace``'s, as a
        ``NamedTuple``'s ``_replace`` is spelled), checked as a new one is."""
        unknown = set(changes) - set(self._FIELDS)
        if unknown:
            raise TypeError(f"{self.__class__.__qualname__} has no field {sorted(unknown)[0]!r}")
        return self.__class__(**{**self._asdict(), **changes})

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (self.__class__, self._asdict()))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined, no-any-return]

    __hash__ = None  # type: ignore[assignment]  # (as a dataclass that may change)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"{self.__class__.__qualname__}({shown})"


class Frozen(Fields):
    """A record whose fields cannot be set once made, with a hash."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:
        return hash(self._values())


def field_names(cls: type[Fields], output: bool = True) -> tuple[str, ...]:
    """The fields of a record class, in order; without those that change
    only the output where ``output`` is false."""
    return tuple(name for name in cls._FIELDS if output or name not in cls._OUTPUT)


def _rebuilt(cls: type[Fields], values: Mapping[str, Any]) -> Fields:
    return cls(**values)

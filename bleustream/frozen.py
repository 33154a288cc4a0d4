"""Records of named fields, declared as dataclasses are, made without their
code generation.

A dataclass writes and compiles its methods' code when its class is made:
about 3 M instructions a class, after 37 M for importing ``dataclasses``
with ``inspect``, ``ast`` and ``dis``.  The classes a plain run makes at
start-up (the options, the settings, the records, the run's state) are
these instead, so a run pays for what it uses (docs/design.md, start-up).

A record class declares its fields as a dataclass does, by annotations in
order, each with its default or none; ``Factory(make)`` is a default made
anew for each record (``field(default_factory=make)``).  ``__post_init__``
checks a record once its fields are set.  ``_OUTPUT`` names the fields
that change only how a result is written, not what is counted (BLEU's
``--bleu-orders``): a stats record leaves them out (``field_names``).

- ``Fields``: equality, ``repr``, ``_replace`` (``dataclasses.replace``,
  checked again), ``_asdict`` and pickling (through ``__init__``, so a
  record read back is checked again); its fields may be set.
- ``Frozen``: the same, with fields that cannot be set, and a hash.

A class made by the thousand (a sentence's result, a running total) writes
its own ``__init__``, assigning each field, and is declared all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def _own_annotations(cls: type) -> Mapping[str, Any]:
    """The annotations a class's own body declares (not its bases'), as
    written (``inspect.get_annotations`` would load ``inspect``)."""
    own = cls.__dict__.get("__annotations__")  # noqa: RUF063
    if own is None and "__annotate__" in cls.__dict__:  # Python 3.14: made when asked
        own = cls.__annotations__
    return own or {}


class Factory:
    """A field's default made anew for each record (``make()``)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


class Fields:
    """A record of the fields its class declares (``_FIELDS``, in order):
    equal when of one class with equal fields."""

    _FIELDS: tuple[str, ...] = ()
    _DEFAULTS: Mapping[str, Any] = {}
    _OUTPUT: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = [
            name
            for name, kind in _own_annotations(cls).items()
            if not str(kind).startswith("ClassVar") and not name.startswith("_")
        ]
        cls._FIELDS = (*cls._FIELDS, *(name for name in own if name not in cls._FIELDS))
        defaults = {name: cls.__dict__[name] for name in own if name in cls.__dict__}
        cls._DEFAULTS = {**cls._DEFAULTS, **defaults}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields, defaults = self._FIELDS, self._DEFAULTS
        if len(args) > len(fields):
            raise TypeError(f"{self._name()} takes {len(fields)} fields, not {len(args)}")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in fields:
                raise TypeError(f"{self._name()} has no field {name!r}")
            if name in values:
                raise TypeError(f"{self._name()} got field {name!r} twice")
            values[name] = value
        if len(values) < len(fields):
            for name in fields:
                if name in values:
                    continue
                if name not in defaults:
                    raise TypeError(f"{self._name()} needs field {name!r}")
                default = defaults[name]
                values[name] = default.make() if isinstance(default, Factory) else default
        self.__dict__.update(values)
        self.__post_init__()

    def __post_init__(self) -> None:
        """Checks the fields once they are set (nothing, unless a class says)."""

    def _name(self) -> str:
        return self.__class__.__qualname__

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def _asdict(self) -> dict[str, Any]:
        """The fields by name (``dataclasses.asdict``'s, not recursive)."""
        return {name: getattr(self, name) for name in self._FIELDS}

    def _replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` (``dataclasses.replace``'s, as a
        ``NamedTuple``'s ``_replace`` is spelled), checked as a new one is."""
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
        return f"{self._name()}({shown})"


class Frozen(Fields):
    """A record whose fields cannot be set once made, with a hash."""

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

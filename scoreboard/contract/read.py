"""The tolerant reader: a served message decoded into the declared records, a field it does not know ignored.

The records (``scoreboard.contract.records``) refuse a field they do not declare: right for what this daemon
builds and for the committed schemas, wrong for a client, which docs/mqtt.md ("The contract") tells to ignore a
field it does not know (a later release may add one under the same ``contract``). So each record gets a reader
type, made from its declaration here, never written twice: a subclass with the same fields, defaults and checks,
its nested records read tolerantly too, only ``forbid_unknown_fields`` off. A read record is an instance of the
declared one (``isinstance(read_state(served), State)``).

A message that does not fit (a wrong type, a missing field, a value out of bounds) raises ``Unreadable``, whose
words name the field.

>>> from scoreboard.contract.records import Action
>>> served = {"ok": True, "why": "ignored", "new_in_a_later_release": 1}
>>> read(Action, served)
Action(ok=True, why='ignored')
>>> read(Action, {"ok": "yes"})
Traceback (most recent call last):
...
scoreboard.contract.read.Unreadable: a served Action does not fit contract 1: Expected `bool`, got `str` - at `$.ok`
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Annotated, Any, TypeVar, Union, cast

import msgspec
from msgspec import UnsetType

from scoreboard.contract.records import CONTRACT, Answer, Record, Refusal, State

R = TypeVar("R", bound=Record)
T = TypeVar("T")


class Unreadable(ValueError):
    """A served message that does not fit the records this release declares; its words name the field."""


def read(record: type[R], served: Any) -> R:
    """``served`` (a JSON object as decoded: dicts, lists, numbers) as ``record``, a field it does not declare
    ignored; ``Unreadable`` naming the field when one does not fit."""
    kind: type[R] = reader(record)
    try:
        return msgspec.convert(served, kind)
    except msgspec.ValidationError as error:
        raise Unreadable(f"a served {record.__name__} does not fit contract {CONTRACT}: {error}") from None


def read_state(served: Any) -> State:
    """A served state, read tolerantly (``read``)."""
    return read(State, served)


def read_answer(served: Any) -> Answer | Refusal:
    """A request's answer, read tolerantly (``read``): an ``Answer`` (``ok`` true, the state it led to, with what
    the command adds: ``names``, ``stats``, ``results``...) or a ``Refusal`` (its ``code`` and words).

    >>> read_answer({"id": 7, "ok": False, "error": "not now", "words": "ne sada", "code": "not_now"}).code
    'not_now'
    >>> read_answer({"id": 7, "ok": True, "state": {"type": "state"}})
    Traceback (most recent call last):
    ...
    scoreboard.contract.read.Unreadable: a served Answer does not fit contract 1: Object missing required field ...
    """
    taken = isinstance(served, dict) and served.get("ok") is True
    return read(Answer, served) if taken else read(Refusal, served)


def contract_of(served: Any) -> int:
    """The contract a served state says it follows, read alone (0: it says none, a table older than the contract):
    what a client tells a later release's state by when the rest does not fit.

    >>> contract_of({"contract": 2, "score": "2-1"}), contract_of({"score": [2, 1]}), contract_of([])
    (2, 0, 0)
    """
    try:
        number: int = msgspec.convert(served, _CONTRACT).contract
    except msgspec.ValidationError:
        return 0
    return number


def given(value: T | UnsetType) -> T | None:
    """A field served only under some rule options (the APA score sheet, the shot clock), None where it is not.

    >>> from scoreboard.contract.records import Action
    >>> given(read(Action, {"ok": True}).why), given(read(Action, {"ok": False, "why": "not now"}).why)
    (None, 'not now')
    """
    return None if isinstance(value, UnsetType) else value


@functools.cache
def reader(record: type[R]) -> type[R]:
    """``record``'s reader type: the same fields, its nested records read tolerantly, unknown fields ignored."""
    config = record.__struct_config__
    fields = [(info.name, _tolerant(info.type), _default(info)) for info in msgspec.structs.fields(record)]
    made = msgspec.defstruct(record.__name__, fields, bases=(record,), module=__name__, frozen=True, kw_only=True,
                             tag_field=config.tag_field, tag=config.tag, forbid_unknown_fields=False)
    return cast(type[R], made)


def _default(info: msgspec.structs.FieldInfo) -> Any:
    """A field's name in the JSON and its default, as declared."""
    if info.default_factory is not msgspec.NODEFAULT:
        return msgspec.field(name=info.encode_name, default_factory=info.default_factory)
    if info.default is not msgspec.NODEFAULT:
        return msgspec.field(name=info.encode_name, default=info.default)
    return msgspec.field(name=info.encode_name)


def _tolerant(hint: Any) -> Any:
    """A field's type with each record in it (however nested: optional, in a list, a dict) read tolerantly."""
    if isinstance(hint, type) and issubclass(hint, Record):
        return reader(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Annotated:
        return Annotated[(_tolerant(args[0]), *hint.__metadata__)]
    if origin in (Union, types.UnionType):
        return Union[tuple(map(_tolerant, args))]
    if origin in (list, dict) and args:
        return origin[tuple(map(_tolerant, args))]
    return hint


#: ``State.contract`` alone, as declared (its checks too), 0 where a state has none.
_CONTRACT: Any = msgspec.defstruct("Contract", [(info.name, info.type, 0) for info in msgspec.structs.fields(State)
                                                if info.name == "contract"], module=__name__, frozen=True)

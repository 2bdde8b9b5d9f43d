"""A request's answer as the referee gives it to every way in (the service, the calls): a module of its own so
that what the referee's parts answer with needs no referee."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeGuard

from scoreboard.contract.records import CODES, Code


def is_code(code: str) -> TypeGuard[Code]:
    """Whether ``code`` is a refusal's kind docs/mqtt.md lists (``CODES``): the calls pass on the code a call was
    refused with before, kept as a string.

    >>> is_code("not_now"), is_code("nope")
    (True, False)
    """
    return code in CODES


class StaleReply(RuntimeError):
    """A reply's state read after the referee moved on: it would be a later state than the one answered."""


class Reply:
    """The answer to one request: ``state`` when ok, ``error`` when not; ``changed`` asks for a broadcast.

    ``state`` may be given as a function that builds it, called when it is first read: trying every tap on the
    fold (the served actions) is most of a state's cost, and a sensor's input on a daemon nobody watches, or a
    test's input whose answer it never reads, needs none of it. The function must refuse (``StaleReply``) once
    the referee has taken another request.
    """

    __slots__ = ("ok", "_state", "error", "changed", "wrong_pin", "words", "code")

    def __init__(self, ok: bool, state: dict[str, Any] | Callable[[], dict[str, Any]] | None = None,
                 error: str | None = None, changed: bool = False, wrong_pin: bool = False,
                 words: str | None = None, code: Code | None = None) -> None:
        self.ok = ok
        self._state = state
        self.error = error
        self.changed = changed
        self.wrong_pin = wrong_pin
        """A PIN was given and it was wrong: the service counts it against the table (every connection's)."""
        self.words = words
        """The error in the players' language, where the rules gave it as a message (``error`` stays English)."""
        self.code = code
        """A refusal's kind (``CODES``, docs/mqtt.md "Refusals"): what a client branches on, never the words."""

    @property
    def state(self) -> dict[str, Any] | None:
        if callable(self._state):
            self._state = self._state()
        return self._state

    def __repr__(self) -> str:
        return f"Reply(ok={self.ok!r}, error={self.error!r}, code={self.code!r}, changed={self.changed!r})"


__all__ = ["Reply", "StaleReply", "is_code"]

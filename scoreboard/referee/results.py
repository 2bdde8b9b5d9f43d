"""The stored matches' results: what ``devetka export --result`` and ``matches --csv`` print, and what the daemon
serves the touchscreen for the night's list and its QR code, all folded the one way (``scoreboard.core.results``).

>>> import tempfile
>>> from scoreboard.core.inputs import MatchStart
>>> from scoreboard.referee.store import Store
>>> with Store.open(tempfile.mkdtemp() + "/devetka.db", now=lambda: "2026-11-29T20:00:00+00:00") as store:
...     _ = store.start_match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
...     (tonight,) = night(store)["matches"]
>>> tonight["match"], tonight["players"], tonight["racks"], night_start(store)
(1, ['Ana', 'Ben'], 0, '2026-11-29T08:00:00+00:00')
"""

from __future__ import annotations

import base64
from datetime import timedelta, timezone
from typing import Any

import orjson

from scoreboard.core.match import Match
from scoreboard.core.messages import msg
from scoreboard.core.results import compact, result
from scoreboard.referee.store import MatchSummary, Store, StoreError

#: A league night, past midnight too: the matches begun this many hours before now are tonight's.
NIGHT_HOURS = 12


def stored_result(store: Store, summary: MatchSummary) -> dict[str, Any]:
    """One stored match's result with its id: the object ``devetka export --result`` prints."""
    match = Match.resume(store.log(summary.id), store.rules_version(summary.id))
    return dict(result(match, started=summary.started, table=summary.table), match=summary.id)


def chosen(store: Store, match_id: int | None) -> MatchSummary:
    """Match ``match_id`` (the latest when None), which must be stored and fold; else a ``StoreError`` saying why."""
    summary = store.match(match_id)
    if summary is None:
        raise StoreError(msg("the store {path} holds no match yet", path=str(store.path)) if match_id is None
                         else msg("no match {match} in the store", match=match_id))
    if summary.error is not None:
        raise StoreError(msg("match {match} has no result: {error}", match=summary.id, error=summary.error))
    return summary


def result_text(store: Store, match_id: int | None) -> str:
    """``devetka export --result``'s line: match ``match_id``'s result (the latest when None)."""
    return _text(stored_result(store, chosen(store, match_id)))


def result_texts(store: Store, match_id: int) -> dict[str, str]:
    """What the touchscreen's QR code may hold for a match: its ``result`` (``devetka export --result``'s line,
    byte for byte) and its ``compact`` form (the racks totalled), each the JSON text itself."""
    outcome = stored_result(store, chosen(store, match_id))
    return {"result": _text(outcome), "compact": _text(compact(outcome))}


def board_link(url: str, compact_text: str, language: str) -> str:
    """The venue board's page of one match's result (``[venue] url``): the compact result rides in the address
    itself (``result=``, base64url of its UTF-8, unpadded), so the board draws it with no server state, and a phone
    that scans it needs no login to the venue's broker.

    >>> board_link("http://venue.local:9001/", '{"match":1}', "hr")
    'http://venue.local:9001/?lang=hr&result=eyJtYXRjaCI6MX0'
    >>> board_link("http://venue.local:9001/?user=phone", "{}", "en")
    'http://venue.local:9001/?user=phone&lang=en&result=e30'
    """
    encoded = base64.urlsafe_b64encode(compact_text.encode()).decode().rstrip("=")
    return f"{url}{'&' if '?' in url else '?'}lang={language}&result={encoded}"


def event_link(url: str) -> str:
    """The venue board's page of the night's event (``?event``, issue 32), where a phone follows the bracket and
    its player's next match.

    >>> event_link("https://board.bar.hr/"), event_link("http://10.0.0.2:9001/?lang=hr")
    ('https://board.bar.hr/?event', 'http://10.0.0.2:9001/?lang=hr&event')
    """
    return url + ("&event" if "?" in url else "?event")


def night_start(store: Store) -> str:
    """When tonight began: ``NIGHT_HOURS`` before the store's clock says it is now (UTC, ISO 8601)."""
    return (store.now() - timedelta(hours=NIGHT_HOURS)).astimezone(timezone.utc).isoformat()


def night(store: Store) -> dict[str, Any]:
    """Tonight's matches at this table, oldest first, each as its compact result (a match whose log no longer
    folds is listed with its ``error``)."""
    since = night_start(store)
    matches = []
    for summary in store.matches(since):
        if summary.error is not None:
            matches.append({"match": summary.id, "started": summary.started, "players": list(summary.players),
                            "error": summary.error})
        else:
            matches.append(compact(stored_result(store, summary)))
    return {"since": since, "matches": matches}


def _text(outcome: dict[str, Any]) -> str:
    return orjson.dumps(outcome).decode()

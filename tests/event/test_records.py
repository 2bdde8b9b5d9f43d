"""The event log's records (scoreboard/event/core/records.py; docs/events.md, "The event log")."""

import pytest

from scoreboard.event.core.records import (
    Called,
    Corrected,
    Created,
    Draw,
    EventError,
    Moved,
    PutUpRecord,
    Result,
    Started,
    parse,
    to_json,
)


@pytest.mark.parametrize("record", [
    Created({"name": "N", "format": "single", "players": ["A", "B"]}), Draw(("A", "B"), 42), Draw(("A", "B")),
    PutUpRecord(1, "Ana"), Called("W1-1", "t1"), Started("W1-1", "t1"), Moved("W1-1", "t2"),
    Result("W1-1", (7, 5)), Result("W1-1", (7, 5), "a1b2c3", 12, 340), Corrected("W1-1", (7, 4), "typo"),
])
def test_each_record_reads_back_as_written(record):
    assert parse(to_json(record)) == record


@pytest.mark.parametrize(("raw", "said"), [
    ({"type": "shot"}, "unknown record type 'shot'"),
    ({"type": "result", "v": 2, "match": "W1-1", "score": [7, 5]},
     "result record of version 2: this release reads version 1 and before"),
    ({"type": "result", "match": "W1-1", "score": [7, -1]}, "a score is two whole numbers from 0 to 9999"),
    ({"type": "result", "match": "W1-1", "score": [7, 5], "store": "ab"},
     "result record: store and match_id come together, or neither"),
    ({"type": "moved", "match": "W1-1"}, "moved record: table must be a non-empty string"),
    ({"type": "put_up", "team": 2, "player": "Ana"}, "put_up record: team must be 0 or 1"),
    ([], "a record is a JSON object"),
])
def test_a_bad_record_is_refused_by_name(raw, said):
    with pytest.raises(EventError) as error:
        parse(raw)
    assert str(error.value).startswith(said)


def test_unknown_fields_are_ignored():
    assert parse({"type": "moved", "match": "W1-1", "table": "t2", "by": "operator"}) == Moved("W1-1", "t2")

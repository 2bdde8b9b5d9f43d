"""Every state served while a rack is played fits the contract and carries it; the ruling has one shape."""

import tempfile

import msgspec
import orjson
import pytest

from scoreboard.contract import present
from scoreboard.contract.records import CONTRACT, State
from scoreboard.core.output import state_line
from scoreboard.referee.referee import Referee
from scoreboard.referee.service import Service
from tests.served import valid

WPA = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [2, 2], "breaker": 0,
       "rules": {"shot_clock": True}}
APA = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "breaker": 0, "apa_skill": [3, 5],
       "rules": {"profile": "apa9", "shot_clock": True}}
BAR = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [2, 2], "breaker": 0,
       "rules": {"profile": "bar", "break_failure": "option"}}
#: A rack with a bit of everything: a break, a foul, an undo and an undo_shot, a ball to name, a push out
#: refused, a safety, a timeout, a concession of the rack; refused requests among them.
RACK = [{"type": "strike"}, {"type": "pocket", "ball": 3}, {"type": "settle"},
        {"type": "push_out"}, {"type": "strike"}, {"type": "pocket", "ball": 0}, {"type": "settle"},
        {"type": "undo"}, {"type": "settle"}, {"type": "undo_shot"}, {"type": "extension"},
        {"type": "strike"}, {"type": "pocket"}, {"type": "identify", "ball": 1}, {"type": "settle"},
        {"type": "safety"}, {"type": "timeout"}, {"type": "shot_clock", "on": False},
        {"type": "strike"}, {"type": "pocket", "ball": 9}, {"type": "settle"},
        {"cmd": "pin", "pin": "1234"}, {"cmd": "nonsense"}, "not an object", {"type": "concede", "player": 1}]


@pytest.mark.parametrize("start", [WPA, APA, BAR], ids=["wpa", "apa9", "bar"])
def test_every_state_and_answer_served_while_a_rack_is_played_fits_the_contract(tmp_path, start):
    referee = Referee.open(tempfile.mkdtemp(dir=tmp_path) + "/d.db")
    service = Service(referee)
    answers, states, events = [], [], []
    service.watch(states.append)
    service.watch_stored(lambda seq, item, step: events.extend(
        present.served(event) for event in present.events(referee.store.id, referee.match_id, seq, item, step,
                                                          referee.words())))
    for request in [{"cmd": "state"}, {"cmd": "new_match", "match_start": start}, *RACK]:
        service.request(orjson.dumps(request), answers.append, "socket")
    referee.close()
    assert any(not answer["ok"] for answer in answers) and any(answer["ok"] for answer in answers)
    for answer in answers:
        valid("result", orjson.loads(orjson.dumps(answer)))
        if not answer["ok"]:
            valid("refusal", answer)
    assert len(states) > len(RACK) // 2
    for state in states + [answer["state"] for answer in answers if answer["ok"]]:
        assert valid("state", orjson.loads(orjson.dumps(state)))["contract"] == CONTRACT
        valid("actions", state["actions"])
    assert {event["event"] for event in events} == {"input", "verdict"}
    for event in events:
        valid("event", event)
    last = [event for event in events if event["event"] == "verdict"][-1]["verdict"]
    assert valid("ruling", last) == states[-1]["last_verdict"]


def test_the_extra_fields_of_the_rule_options_are_served_only_under_them(tmp_path):
    referee = Referee.open(tempfile.mkdtemp(dir=tmp_path) + "/d.db")
    plain = referee.handle({"cmd": "new_match", "match_start": dict(WPA, rules={})}).state
    apa = referee.handle({"cmd": "new_match", "match_start": APA}).state
    referee.close()
    assert not {"shot_clock", "points", "apa_skill", "behind_head_string", "profile"} & set(plain)
    assert apa["points"] == [0, 0] and apa["race"] is None and apa["shot_clock"]["on"] is True


def test_a_field_the_records_do_not_declare_is_not_served(tmp_path):
    """A branch that serves a new field without declaring it in the records fails at once, naming it."""
    referee = Referee.open(tempfile.mkdtemp(dir=tmp_path) + "/d.db")
    daemon = {name: value for name, value in referee.state().items() if name not in state_line(None)}
    referee.close()
    del daemon["contract"]
    assert present.served(present.state(None, **daemon))["seq"] == 0
    with pytest.raises(msgspec.ValidationError, match="venue_name"):
        present.state(None, **daemon, venue_name="Bar 9")


def test_a_served_record_is_frozen(tmp_path):
    referee = Referee.open(tempfile.mkdtemp(dir=tmp_path) + "/d.db")
    record = referee.record()
    referee.close()
    assert isinstance(record, State) and record.actions.pass_.ok is False
    with pytest.raises(AttributeError):
        record.seq = 5  # type: ignore[misc]

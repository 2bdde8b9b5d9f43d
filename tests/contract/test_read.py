"""The tolerant reader (scoreboard/contract/read.py): the declared records, a field they do not know ignored."""

import tempfile

import msgspec
import orjson
import pytest

from scoreboard.contract import present
from scoreboard.contract.read import Unreadable, given, read, read_answer, read_state, reader
from scoreboard.contract.records import (
    Actions,
    Answer,
    Refusal,
    Ruling,
    Settings,
    ShotClock,
    State,
    Stats,
    VerdictEvent,
)
from scoreboard.referee.referee import Referee
from scoreboard.referee.service import Service
from scoreboard.referee.settings import Overrides, path_beside
from tests.served import valid

START = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [2, 2], "breaker": 0,
         "rules": {"shot_clock": True}}
SHOT = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 3}, {"type": "settle"}]


@pytest.fixture
def served(tmp_path):
    """A state the daemon serves, as a client decodes it off the wire: a shot ruled, the shot clock on."""
    referee = Referee.open(tempfile.mkdtemp(dir=tmp_path) + "/d.db")
    for request in [{"cmd": "new_match", "match_start": START}, *SHOT]:
        assert referee.handle(request).ok
    state = orjson.loads(orjson.dumps(referee.state()))
    referee.close()
    return valid("state", state)


def test_a_served_state_reads_as_the_record_the_daemon_built(served):
    record = read_state(served)
    assert isinstance(record, State) and isinstance(record.actions, Actions)
    assert isinstance(record.last_verdict, Ruling) and isinstance(record.shot_clock, ShotClock)
    assert present.served(record) == served  # nothing lost, nothing added


def test_a_field_not_declared_is_ignored_at_every_depth_while_the_records_still_refuse_it(served):
    later = dict(served, venue_name="Bar 9", shot_clock=dict(served["shot_clock"], colour="red"),
                 last_verdict=dict(served["last_verdict"], replay="x"),
                 actions=dict(served["actions"], foul=dict(served["actions"]["foul"], bad_hit={"ok": True, "n": 1})),
                 health=[{"type": "health", "source": "gpio", "subject": "link", "status": "ok", "since": 5}])
    record = read_state(later)
    assert record.shot_clock == read_state(served).shot_clock and record.actions.foul["bad_hit"].ok
    assert present.served(record) == dict(served, health=[{"type": "health", "source": "gpio", "subject": "link",
                                                           "status": "ok"}])
    with pytest.raises(msgspec.ValidationError, match="venue_name"):
        msgspec.convert(dict(served, venue_name="Bar 9"), State)  # the declared record: the daemon's own
    with pytest.raises(msgspec.ValidationError, match=r"colour.*\$\.shot_clock"):
        msgspec.convert(dict(served, shot_clock=later["shot_clock"]), State)


@pytest.mark.parametrize(("change", "named"), [
    ({"score": [1, "2"]}, "Expected `int`, got `str` - at `$.score[1]`"),
    ({"rack": -1}, "Expected `int` >= 0 - at `$.rack`"),
    ({"shooter": 2}, "Expected `int` <= 1 - at `$.shooter`"),
    ({"last_verdict": {"type": "shot"}}, "Object missing required field `rack` - at `$.last_verdict`"),
    ({"contract": "1"}, "Expected `int`, got `str` - at `$.contract`"),
])
def test_a_state_that_does_not_fit_names_the_field(served, change, named):
    with pytest.raises(Unreadable) as raised:
        read_state(dict(served, **change))
    assert str(raised.value) == f"a served State does not fit contract 1: {named}"


def test_a_missing_field_is_named_and_a_field_left_out_while_unset_is_not_missing(served):
    with pytest.raises(Unreadable, match="missing required field `actions`"):
        read_state({name: value for name, value in served.items() if name != "actions"})
    plain = {name: value for name, value in served.items() if name != "shot_clock"}
    assert read_state(plain).shot_clock is msgspec.UNSET


def test_readers_are_made_once_from_the_declarations_and_nest(served):
    assert reader(State) is reader(State) and issubclass(reader(State), State)
    assert msgspec.structs.fields(reader(State))[0].name == msgspec.structs.fields(State)[0].name
    assert [field.encode_name for field in msgspec.structs.fields(reader(Actions))] == [
        field.encode_name for field in msgspec.structs.fields(Actions)]  # "pass", as served
    answer = read(Answer, {"id": 3, "ok": True, "state": dict(served, extra=1), "took_ms": 2})
    assert isinstance(answer.state, State) and answer.state.rack == served["rack"]
    event = {"event": "verdict", "store": None, "match_id": 1, "seq": 4, "amends": False,
             "verdict": dict(served["last_verdict"], replay="x"), "camera": 2}
    assert read(VerdictEvent, event).verdict.words == served["last_verdict"]["words"]  # a tagged record keeps its tag
    with pytest.raises(Unreadable, match="Invalid value 'input' - at `\\$.event`"):
        read(VerdictEvent, dict(event, event="input"))


def test_the_contract_is_read_alone_when_the_rest_does_not_fit(served):
    from scoreboard.contract.read import contract_of

    assert contract_of(served) == 1 and contract_of(dict(served, contract=2, score="2-1")) == 2
    assert contract_of({name: value for name, value in served.items() if name != "contract"}) == 0  # an older table
    assert contract_of(dict(served, contract="2")) == 0 and contract_of(None) == 0


def test_an_answer_reads_taken_with_what_its_command_adds_or_refused_with_its_code(tmp_path):
    store = tmp_path / "d.db"
    referee = Referee.open(store)
    referee.overrides = Overrides(path_beside(store), {"ui": {"pin": "4711"}})
    heard: list[dict] = []
    service = Service(referee)
    for request in [{"cmd": "new_match", "match_start": START}, *SHOT, {"id": 1, "cmd": "stats"},
                    {"id": 2, "cmd": "settings"}, {"id": 3, "cmd": "settings", "set": {"table.id": "bar2"}}]:
        service.request(orjson.dumps(request), heard.append, "socket")
    stats, settings, refused = (valid("result", orjson.loads(orjson.dumps(answer))) for answer in heard[-3:])
    counted = given(read_answer(stats).state.stats)
    assert isinstance(counted, Stats) and msgspec.to_builtins(counted) == referee.stats()
    shown = given(read_answer(settings).state.settings)
    assert isinstance(shown, Settings) and shown.pin_chosen and shown.effective["table.id"] == "table1"
    assert "ui.pin" not in shown.effective  # a PIN is checked, never shown
    refusal = read_answer(dict(refused, request={"cmd": "settings"}))  # the client's own fields are ignored
    assert isinstance(refusal, Refusal) and refusal.id == 3 and refusal.code == "pin_required" and refusal.words
    referee.close()
    unfit = dict(settings, state=dict(settings["state"], settings=dict(settings["state"]["settings"], effective=[])))
    with pytest.raises(Unreadable, match=r"^a served Answer does not fit .*`\$\.state\.settings\.effective`"):
        read_answer(unfit)
    with pytest.raises(Unreadable, match=r"^a served Refusal does not fit contract 1: .*`\$\.code`"):
        read_answer(dict(refused, code="pin_forgotten"))

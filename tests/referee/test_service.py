"""The request path every way in shares (scoreboard/referee/service.py), with a real referee on a real store."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoreboard.contract.records import CODES
from scoreboard.core.inputs import parse
from scoreboard.referee.referee import COMMANDS, Referee
from scoreboard.referee.service import Service
from tests.disks import fill, small_disk
from tests.fake_clock import FakeClock
from tests.live import ANA_BEN, LEGAL_BREAK, Daemon
from tests.paths import REPO

SCALAR = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | st.text(max_size=8)
JSON = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                      max_size=3), max_leaves=8)
KNOWN = st.sampled_from(["state", "new_match", "rack_mode", "names", "stats", "settings", "pin", "strike", "pocket",
                         "match_start", "undo", "pass"])
REQUEST = st.fixed_dictionaries({}, optional={"id": JSON, "cmd": KNOWN | JSON, "type": KNOWN | JSON, "on": JSON,
                                              "ball": JSON, "match_start": JSON, "set": JSON, "pin": JSON})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=REQUEST, way_in=st.sampled_from(["mqtt", "socket"]))
def test_every_request_gets_one_answer_with_its_id_and_a_refused_one_changes_nothing(request, way_in):
    with tempfile.TemporaryDirectory() as folder:
        referee = Referee.open(Path(folder) / "devetka.db")
        try:
            service = Service(referee)
            assert referee.handle({"cmd": "new_match", "match_start": ANA_BEN}).ok
            before = service.state()
            answers: list[dict] = []
            line = orjson.dumps(request)  # as sent: JSON has no inf or nan (orjson writes null)
            service.request(line, answers.append, way_in)
            assert len(answers) == 1, answers
            answer = answers[0]
            assert answer["id"] == orjson.loads(line).get("id") and isinstance(answer["ok"], bool)
            if not answer["ok"]:
                assert isinstance(answer["error"], str) and answer["error"]
                assert isinstance(answer["words"], str) and answer["words"], answer  # every refusal, said
                assert not answer["error"].startswith("internal error"), answer
                assert answer["code"] in CODES and answer["code"] != "internal_error", answer
                assert service.state() == before
                assert len(referee.store.log(referee.match_id)) == 1
        finally:
            referee.close()


def test_a_refused_input_is_answered_in_english_and_in_the_players_language(tmp_path):
    referee = Referee.open(tmp_path / "devetka.db", language="hr")
    try:
        service = Service(referee)
        assert referee.handle({"cmd": "new_match", "match_start": ANA_BEN}).ok
        answers: list[dict] = []
        service.request(b'{"type": "pass", "id": 7}', answers.append, "socket")
        service.request(b'{"type": "pocket", "ball": 12}', answers.append, "mqtt")
    finally:
        referee.close()
    assert answers[0] == {"id": 7, "ok": False, "error": "pass without a push out to answer (5.6)",
                          "words": "pass, a nema push outa na koji se odgovara (5.6)", "code": "not_now"}
    assert answers[1]["words"] == "pocket: ball mora biti 0-9 ili null, a ne 12"


def test_the_daemon_refuses_in_the_players_language_over_the_local_api_and_the_match_stays_as_it_was(tmp_path):
    """A real ``devetka run`` at a Croatian table: a wrong PIN, a bad setting, an unknown command and a refused
    input are answered with the English ``error`` as before and Croatian ``words``; the state is the same after."""
    daemon = Daemon(tmp_path, config='[ui]\npin = "1234"\n[table]\nlanguage = "hr"\n')
    daemon.start()
    try:
        client = daemon.client()
        assert client.request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
        before = client.request({"cmd": "state"})["state"]
        answers = [client.request(request) for request in (
            {"cmd": "pin", "pin": "9999"},
            {"cmd": "settings", "set": {"shots.settle_after_s": 0}, "pin": "1234"},
            {"cmd": "settings", "set": {"table.language": "de"}, "pin": "9999"},
            {"cmd": "rack_mode", "on": "yes"},
            {"cmd": "shuffle"},
            {"type": "pass"},
        )]
        assert [(a["ok"], a["error"], a["words"], a["code"]) for a in answers] == [
            (False, "wrong PIN", "pogrešan PIN", "pin_wrong"),
            (False, "settings not saved: shots.settle_after_s: expected a number of seconds > 0, got 0",
             "postavke nisu spremljene: shots.settle_after_s: očekuje se broj sekundi > 0, a ne 0", "invalid_input"),
            (False, "settings not saved: wrong PIN", "postavke nisu spremljene: pogrešan PIN", "pin_wrong"),
            (False, "rack_mode needs on: true or false", "rack_mode traži on: true ili false", "invalid_input"),
            (False, f"unknown command 'shuffle' (known: {COMMANDS})",
             f"nepoznata naredba 'shuffle' (poznate: {COMMANDS})", "invalid_input"),
            (False, "pass without a push out to answer (5.6)", "pass, a nema push outa na koji se odgovara (5.6)",
             "not_now"),
        ]
        assert client.request({"cmd": "state"})["state"] == before
        assert client.request({"cmd": "settings"})["state"]["settings"]["effective"]["shots.settle_after_s"] == 3600
        for attempt in range(3):  # five wrong PINs in all: a PIN is refused for a minute
            assert client.request({"cmd": "pin", "pin": f"000{attempt}"})["words"] == "pogrešan PIN"
        locked = client.request({"cmd": "pin", "pin": "1234"})
        assert (locked["ok"], locked["code"]) == (False, "pin_locked")
        assert locked["error"].startswith("too many wrong PINs: a PIN is refused for ")
        assert re.fullmatch(r"previše pogrešnih PIN-ova: PIN se odbija još \d+ s", locked["words"]), locked
        assert client.request({"cmd": "state"})["ok"]  # the refereeing goes on
        client.close()
    finally:
        assert daemon.stop() == 0


def test_every_refusal_code_is_documented_in_the_mqtt_doc():
    doc = (REPO / "docs" / "mqtt.md").read_text()
    table = doc[doc.index("### Refusals: `code`"):doc.index("```json", doc.index("### Refusals: `code`"))]
    assert re.findall(r"^\| `(\w+)` \|", table, re.MULTILINE) == list(CODES)


def test_a_sensors_input_the_full_disk_refuses_is_logged_and_every_watcher_sees_the_store_fault(tmp_path):
    """A refusal that changed the state (the store's health) has no state of its own: the watchers get the state
    now. A sensor's input, the settle timer's and the shot clock's all come this way, with no one to answer."""
    with small_disk(tmp_path) as disk:
        referee = Referee.open(disk / "devetka.db")
        try:
            service = Service(referee)
            seen: list[dict] = []
            service.watch(seen.append)
            assert referee.handle({"cmd": "new_match", "match_start": ANA_BEN}).ok
            fill(disk)
            for raw in LEGAL_BREAK * 50:  # the WAL takes a few inputs in the room it has; then the disk is full
                before = service.state()
                service.report(parse(raw))
                if seen and seen[-1]["health"]:
                    break
            else:
                raise AssertionError("a full disk took 350 inputs")
            assert seen[-1]["type"] == "state" and seen[-1]["health"][0]["status"] == "full"
            assert dict(seen[-1], health=[]) == dict(before, health=[])  # the match as it was
        finally:
            referee.close()


def test_a_settle_the_full_disk_refuses_reaches_every_watcher_and_raises_nothing_into_the_settle_loop(tmp_path):
    """The settle timer's settle comes this way from the daemon's settle loop: an exception here would end the loop's
    task, and no shot would ever settle again."""
    clock = FakeClock()
    with small_disk(tmp_path) as disk:
        referee = Referee.open(disk / "devetka.db", clock=clock, settle_after=4.0)
        try:
            service = Service(referee)
            seen: list[dict] = []
            service.watch(seen.append)
            assert referee.handle({"cmd": "new_match", "match_start": ANA_BEN}).ok
            for raw in LEGAL_BREAK[:-1]:
                assert referee.handle(raw).ok
            fill(disk)
            for _ in range(300):  # the WAL takes a few inputs in the room it has; then the disk is full
                if not referee.handle({"type": "cushion", "ball": 6}).ok:
                    break
            else:
                raise AssertionError("a full disk took 300 inputs")
            before = service.state()
            clock.now += 5.0
            service.settle_if_due()
            assert seen[-1]["type"] == "state" and seen[-1]["health"][0]["status"] == "full"
            assert seen[-1]["shot_in_progress"] and dict(seen[-1], health=[]) == dict(before, health=[])
        finally:
            referee.close()

"""The daemon as wired (scoreboard/daemon/serve.py): a real ``devetka run`` on a table's config, reached with
``devetka tap``, one child process a request, as a bar's staff or a script would; and its settle loop when the
daemon itself is starved: ``devetka run`` stopped outright (SIGSTOP) in mid-shot while a real microcontroller (the
simulator on a pseudo-terminal) goes on."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import threading
import time

import orjson
import pytest

from firmware_bridge.simulator import PtyMcu
from scoreboard.core.inputs import Cushion, Pocket, Strike, to_json
from scoreboard.referee.store import Store
from tests.live import DEVETKA, TIMEOUT, Daemon

#: Issue 26's table: taps only (no sensor section), named "bar7", a PIN, and the venue's shot clock on.
BAR7 = '[table]\nid = "bar7"\n[ui]\npin = "2468"\n[match.rules]\nshot_clock = true\n'


def tap(daemon: Daemon, request: dict) -> dict:
    """One request through ``devetka tap``: its answer, checked against its exit status."""
    done = subprocess.run([DEVETKA, "tap", "--socket", str(daemon.socket), orjson.dumps(request).decode()],
                          capture_output=True, timeout=TIMEOUT)
    answer = orjson.loads(done.stdout)
    assert done.returncode == (0 if answer["ok"] else 1), (done, answer)
    return answer


@pytest.fixture
def bar7(tmp_path):
    daemon = Daemon(tmp_path, config=BAR7)
    daemon.start()
    yield daemon
    daemon.kill()


def stored_start(daemon: Daemon) -> dict:
    with Store.open_readonly(daemon.store) as store:
        return to_json(store.current_match()[1][0])


def test_the_referee_composes_the_match_at_a_taps_only_table_named_bar7(bar7):
    """Issue 26's "Done when", step by step through ``devetka tap``."""
    started = tap(bar7, {"cmd": "new_match", "match_start": {"players": ["Ana", "Ben"], "race": [3, 3],
                                                             "rules": {"three_foul_rule": False}}})
    assert started["ok"], started
    rules = started["state"]["rules"]
    assert (rules["shot_clock"], rules["three_foul_rule"]) == (True, False)  # the venue's clock kept
    start = stored_start(bar7)
    assert start["table"] == "bar7" and start["rules"]["rails_sensed"] is False
    assert start["rules"]["strike_sensed"] is False and start["rules"]["shot_clock"] is True
    assert started["state"]["sensed"] == {"rails_sensed": False, "strike_sensed": False}

    for item in ({"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "miss"}):
        answer = tap(bar7, item)
        assert answer["ok"], (item, answer)
    verdict = answer["state"]["last_verdict"]
    assert verdict["foul"] is False, verdict  # no rail sensors: the rails are not "no rail reached" (5.9)
    assert answer["state"]["shooter"] == 1

    claim = tap(bar7, {"cmd": "new_match", "match_start": {"players": ["Ana", "Ben"],
                                                           "rules": {"rails_sensed": True}}})
    assert (claim["ok"], claim["code"]) == (False, "rule_fixed")
    assert claim["error"] == "match_start: rules.rails_sensed: this table has no rail sensors: leave it out"
    assert claim["words"] == claim["error"]  # the table speaks English
    other = tap(bar7, {"cmd": "new_match", "match_start": {"players": ["Ana", "Ben"], "table": "bar8"}})
    assert (other["ok"], other["code"]) == (False, "wrong_table")
    assert other["error"] == 'match_start: table "bar8" is not this table ("bar7")'

    for attempt in range(8):  # eight wrong PINs, a new connection each
        wrong = tap(bar7, {"cmd": "pin", "pin": f"000{attempt}"})
        assert wrong["ok"] is False and wrong["code"] in ("pin_wrong", "pin_locked"), wrong
    right = tap(bar7, {"cmd": "pin", "pin": "2468"})
    assert (right["ok"], right["code"]) == (False, "pin_locked"), right
    assert right["error"].startswith("too many wrong PINs: a PIN is refused for ")
    settings = tap(bar7, {"cmd": "settings", "set": {"ui.sound": False}, "pin": "2468"})
    assert (settings["ok"], settings["code"]) == (False, "pin_locked")
    applied = tap(bar7, {"type": "foul", "reason": "bad_hit"})  # the refereeing goes on
    assert applied["ok"], applied
    assert applied["state"]["match_id"] == started["state"]["match_id"]
    with Store.open_readonly(bar7.store) as store:
        assert [type(item).TYPE for item in store.current_match()[1]] == [
            "match_start", "strike", "first_contact", "miss", "foul"]

    refused = [claim, other, right, settings, tap(bar7, {"type": "pass"}), tap(bar7, {"cmd": "shuffle"})]
    assert all(isinstance(answer.get("code"), str) for answer in refused), refused

    league = subprocess.run([DEVETKA, "matches", "--store", str(bar7.store), "--csv"], capture_output=True,
                            text=True, timeout=TIMEOUT)
    header, row = league.stdout.splitlines()[:2]
    assert dict(zip(header.split(","), row.split(","), strict=True))["table"] == "bar7"  # the league CSV names it
    result = tap(bar7, {"cmd": "result", "match": started["state"]["match_id"]})["state"]
    assert orjson.loads(result["result"])["table"] == "bar7"  # the QR code's result names it too
    assert orjson.loads(result["compact"])["table"] == "bar7"


def test_a_new_match_names_a_profile_and_gets_its_rules_with_the_venues_clock(bar7):
    """Issue 34 part 1 at the daemon: a label fills in its profile; an option against it is refused, naming both;
    what it leaves open (the clock) stays the venue's."""
    bar = tap(bar7, {"cmd": "new_match", "match_start": {"players": ["Ana", "Ben"], "rules": {"profile": "bar"}}})
    assert bar["ok"], bar
    rules = bar["state"]["rules"]
    assert (rules["profile"], rules["nine_on_break"], rules["push_outs"], rules["shot_clock"]) == (
        "bar", "spotted", False, True)
    apa = tap(bar7, {"cmd": "new_match", "match_start": {
        "players": ["Ana", "Ben"], "apa_skill": [3, 3],
        "rules": {"profile": "apa9", "scoring": "racks", "three_foul_rule": True}}})
    assert (apa["ok"], apa["code"]) == (False, "rule_fixed")
    assert apa["error"] == ('match_start: rules.scoring: profile "apa9" sets it to "apa": leave it out, or pick '
                            'another profile')
    assert stored_start(bar7)["rules"]["profile"] == "bar"  # the refused one stored nothing


#: A venue of an APA league that gives every skill level one timeout a rack, locked to its profile and allowance.
LEAGUE = ('[table]\nid = "apa1"\n[match]\nprofile = "apa9"\nlocked = true\napa_skill = [2, 6]\n'
          '[match.rules]\ntimeouts_skill_1_3 = 1\ntimeouts_skill_4_9 = 1\n')


def test_a_locked_apa_league_fixes_its_own_timeout_allowance(tmp_path):
    """Issue 34 item 4 at the daemon: the timeout allowance is an option APA's profile leaves open, with APA's
    default; a venue that writes its league's and locks it gets it in every match, and a request for APA's own two
    is refused naming the lock; the timeout tap is counted against it."""
    daemon = Daemon(tmp_path, config=LEAGUE)
    daemon.start()
    try:
        asked = tap(daemon, {"cmd": "new_match", "match_start": {"players": ["Ana", "Ben"],
                                                                 "rules": {"timeouts_skill_1_3": 2}}})
        assert (asked["ok"], asked["code"]) == (False, "rule_fixed")
        assert asked["error"] == "match_start: rules.timeouts_skill_1_3: the venue locked it to 1"
        started = tap(daemon, {"cmd": "new_match", "match_start": {"players": ["Ana", "Ben"]}})
        assert started["ok"], started
        assert started["state"]["timeouts_left"] == [1, 1] and started["state"]["profile"] == "apa9"
        assert stored_start(daemon)["rules"]["timeouts_skill_1_3"] == 1
        for item in ({"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 2},
                     {"type": "settle"}, {"type": "timeout"}):
            answer = tap(daemon, item)
            assert answer["ok"], (item, answer)
        assert answer["state"]["timeouts_left"] == [0, 1]
        again = tap(daemon, {"type": "timeout"})
        assert again["ok"] is False
        assert again["error"] == "Ana has taken the 1 timeout of this rack (skill level 2)"
    finally:
        daemon.kill()


SETTLE_S = 0.5


def broadcasts(client) -> queue.Queue:
    states: queue.Queue = queue.Queue()

    def read() -> None:
        try:
            while True:
                states.put(client.broadcast())
        except (OSError, ValueError):
            pass

    threading.Thread(target=read, daemon=True).start()
    return states


def until(states: queue.Queue, mcu: PtyMcu, ready) -> dict:
    """The first state broadcast that is ``ready``, the microcontroller answering the daemon meanwhile."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        assert time.monotonic() < deadline, "the daemon did not get there"
        try:
            state = states.get_nowait()
        except queue.Empty:
            mcu.idle(time.monotonic() + 0.01)
            continue
        if ready(state):
            return state


@pytest.mark.parametrize("strike_sensed", [True, False])
def test_a_daemon_stopped_past_the_settle_deadline_reads_the_ball_that_dropped_in_time_before_it_ends_the_shot(
        tmp_path, strike_sensed):
    """Issue 28: the ball drops 0.2 s after the cushion, inside the quiet period, while the daemon is stopped for
    four settle times; woken past the deadline, its settle timer used to end the shot before the serial source had
    read the pocket (the pocket then amended the shot as a slow ball, or, with no strike sensor, began the next)."""
    link = tmp_path / "mcu"
    daemon = Daemon(tmp_path, settle_after=SETTLE_S, config=f'[sensors.serial]\nport = "{link}"\n')
    with PtyMcu(str(link), boot_id=0x57A4) as mcu:
        daemon.start()
        try:
            assert mcu.wait_for_host(TIMEOUT)
            client = daemon.client()
            start = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0,
                     "options": {"strike_sensed": strike_sensed}}
            assert client.request({"cmd": "new_match", "match_start": start})["ok"]
            states = broadcasts(client)
            if strike_sensed:
                mcu.send(mcu.mcu.play(Strike()))
                until(states, mcu, lambda state: state["seq"] == 1)
            mcu.send(mcu.mcu.play(Cushion(ball=2, rail="head")))
            until(states, mcu, lambda state: state["seq"] == (2 if strike_sensed else 1))
            os.kill(daemon.process.pid, signal.SIGSTOP)
            try:
                mcu.idle(time.monotonic() + 0.2)
                mcu.send(mcu.mcu.play(Pocket(ball=3, pocket="foot_left")))
                mcu.idle(time.monotonic() + 4 * SETTLE_S)
            finally:
                os.kill(daemon.process.pid, signal.SIGCONT)
            last = 4 if strike_sensed else 3  # [strike], cushion, pocket, settle
            over = until(states, mcu, lambda state: state["seq"] >= last and not state["shot_in_progress"])
            client.sock.shutdown(socket.SHUT_RDWR)  # the reading thread ends; then the stream may close
            client.close()
        finally:
            daemon.kill()
    exported = subprocess.run([DEVETKA, "export", "--store", str(daemon.store)], capture_output=True, check=True)
    stored = [orjson.loads(line)["type"] for line in exported.stdout.splitlines()][1:]
    assert stored == ["strike", "cushion", "pocket", "settle"][0 if strike_sensed else 1:]
    assert over["seq"] == last and over["last_verdict"]["shot"] == 1

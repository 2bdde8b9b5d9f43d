"""The screen's settings (scoreboard/referee/settings.py): the ``settings`` command of the real Referee, and
``devetka run`` as a child process starting on them."""

from __future__ import annotations

import json

import pytest

from scoreboard.config.table import ConfigError
from scoreboard.referee.referee import Referee
from scoreboard.referee.settings import Overrides, path_beside
from tests.live import ANA_BEN, LEGAL_BREAK, Daemon

PIN = "4711"
BASE = {"table": {"id": "bar1"}, "shots": {"settle_after_s": 3600.0}, "ui": {"pin": PIN}}


@pytest.fixture
def referee(tmp_path):
    ref = Referee.open(tmp_path / "devetka.db", settle_after=3600.0)
    ref.overrides = Overrides(path_beside(tmp_path / "devetka.db"), BASE)
    yield ref
    ref.close()


def test_settings_are_checked_stored_and_the_settle_time_applies_at_once(referee, tmp_path):
    reply = referee.handle({"cmd": "settings", "pin": PIN, "set": {"table.id": "bar2", "shots.settle_after_s": 2.5,
                                                       "mqtt.host": "broker.lan", "mqtt.port": 1884}})
    assert reply.ok, reply.error
    settings = reply.state["settings"]
    assert settings["overrides"] == {"table.id": "bar2", "shots.settle_after_s": 2.5, "mqtt.host": "broker.lan",
                                     "mqtt.port": 1884}
    assert settings["effective"]["table.id"] == "bar2" and settings["effective"]["mqtt.enabled"] is True
    assert reply.state["restart"] is True and referee.timer.settle_after == 2.5
    assert json.loads((tmp_path / "settings.json").read_text()) == settings["overrides"]
    only_live = referee.handle({"cmd": "settings", "pin": PIN, "set": {"shots.settle_after_s": 5}})
    assert only_live.ok and only_live.state["restart"] is False and referee.timer.settle_after == 5.0
    read = referee.handle({"cmd": "settings"}).state["settings"]
    assert read["effective"]["shots.settle_after_s"] == 5.0 and read["effective"]["mqtt.port"] == 1884


@pytest.mark.parametrize(("change", "named"), [
    ({"table.id": "bar 2"}, "table.id: expected a name of letters"),
    ({"shots.settle_after_s": -1}, "shots.settle_after_s: expected a number of seconds > 0"),
    ({"mqtt.port": 70000}, "mqtt.port: expected a TCP port"),
    ({"sensors.serial.enabled": "yes"}, "sensors.serial.enabled: expected true or false"),
    ({"table.idd": "bar2"}, "table.idd: not a setting the screen may change"),
    ({"ui.pin": "12"}, "ui.pin: expected 4 to 8 digits"),
    ({"store.path": "/tmp/x"}, "store.path: not a setting the screen may change"),
    ("bar2", "set: expected an object of settings"),
])
def test_a_bad_key_or_value_is_refused_by_name_and_nothing_is_written(referee, tmp_path, change, named):
    assert referee.handle({"cmd": "settings", "pin": PIN, "set": {"table.id": "bar3"}}).ok
    before = (tmp_path / "settings.json").read_bytes()
    reply = referee.handle({"cmd": "settings", "pin": PIN, "set": change if isinstance(change, str) else
                            {"shots.settle_after_s": 1.0, **change}})
    assert not reply.ok and named in reply.error and reply.error.startswith("settings not saved")
    assert (tmp_path / "settings.json").read_bytes() == before and referee.timer.settle_after == 3600.0
    assert referee.handle({"cmd": "settings"}).state["settings"]["overrides"] == {"table.id": "bar3"}


def test_a_table_logging_in_to_its_broker_keeps_its_id_on_the_screen_and_is_told_why(tmp_path):
    """install.sh wrote the broker's ACL for this id: under another, every publish would be dropped unsaid."""
    base = dict(BASE, table={"id": "table1"}, mqtt={"host": "127.0.0.1", "username": "devetka", "password": "pw"})
    ref = Referee.open(tmp_path / "devetka.db", settle_after=3600.0)
    ref.overrides = Overrides(path_beside(tmp_path / "devetka.db"), base)
    try:
        refused = ref.handle({"cmd": "settings", "pin": PIN, "set": {"table.id": "bar2", "shots.settle_after_s": 2}})
        assert refused.error == (
            "settings not saved: table.id: not changed here: the broker's ACL lets the login 'devetka' publish only "
            "under devetka/table1/, so under another id every message would be dropped; change [table] id in the "
            "config file and run 'sudo deploy/install.sh' again, which writes the ACL (and a venue bridge) for the "
            "new id")
        assert not (tmp_path / "settings.json").exists() and ref.timer.settle_after == 3600.0
        same = ref.handle({"cmd": "settings", "pin": PIN, "set": {"table.id": "table1", "shots.settle_after_s": 2}})
        assert same.ok and same.state["settings"]["effective"]["table.id"] == "table1"  # the screen sends the id
        off = ref.handle({"cmd": "settings", "pin": PIN, "set": {"table.id": "bar2", "mqtt.enabled": False}})
        assert off.ok and off.state["settings"]["effective"]["table.id"] == "bar2"  # no broker names it
    finally:
        ref.close()


def test_a_referee_without_a_data_directory_says_so(tmp_path):
    ref = Referee.open(tmp_path / "devetka.db")
    try:
        assert "keeps no settings file" in ref.handle({"cmd": "settings"}).error
    finally:
        ref.close()


def _settles_by_itself(daemon: Daemon) -> dict:
    """Break with no settle sent and wait for the daemon's timer to end the shot (the socket's timeout bounds it)."""
    client = daemon.client()
    assert client.request({"cmd": "new_match", "match_start": ANA_BEN})["ok"]
    for item in LEGAL_BREAK[:-1]:
        assert client.request(item)["ok"]
    while True:
        state = client.broadcast()
        if state["last_verdict"] is not None:
            client.close()
            return state


def test_set_then_restart_runs_on_the_settings(tmp_path):
    daemon = Daemon(tmp_path, config=f'[table]\nid = "bar1"\n[ui]\npin = "{PIN}"\n')
    daemon.start()
    try:
        client = daemon.client()
        answer = client.request({"cmd": "settings", "pin": PIN,
                                 "set": {"table.id": "bar2", "shots.settle_after_s": 0.3}})
        assert answer["ok"] and answer["state"]["restart"] is True, answer
        client.close()
        assert "Legal break" in _settles_by_itself(daemon)["last_verdict"]["words"]  # 0.3 s, live
    finally:
        assert daemon.stop() == 0
    assert json.loads(path_beside(daemon.store).read_text()) == {"table.id": "bar2", "shots.settle_after_s": 0.3}
    daemon.store.unlink()
    daemon.start()  # the config file still says 3600 s: only the settings can end this shot
    try:
        client = daemon.client()
        effective = client.request({"cmd": "settings"})["state"]["settings"]["effective"]
        assert effective["table.id"] == "bar2" and effective["shots.settle_after_s"] == 0.3
        client.close()
        assert _settles_by_itself(daemon)["shooter"] == 1
    finally:
        daemon.stop()


def test_a_broken_settings_file_is_named_and_the_config_file_alone_is_used(tmp_path):
    daemon = Daemon(tmp_path, config=f'[table]\nid = "bar1"\n[ui]\npin = "{PIN}"\n')
    path_beside(daemon.store).write_text('{"shots.settle_after_s": 0}')
    daemon.start()
    try:
        client = daemon.client()
        effective = client.request({"cmd": "settings"})["state"]["settings"]["effective"]
        assert effective["shots.settle_after_s"] == 3600.0 and effective["table.id"] == "bar1"
        client.close()
    finally:
        assert daemon.stop() == 0
    assert f"{path_beside(daemon.store)}: shots.settle_after_s: expected a number of seconds > 0" in \
        daemon.stderr.decode() and "starting on the config file alone" in daemon.stderr.decode()


def test_the_settings_are_checked_against_the_config_file_they_override():
    settings = Overrides("/nonexistent/settings.json", {"mqtt": {"host": "a", "password": "secret"}})
    with pytest.raises(ConfigError, match="mqtt.password: a password needs its username"):
        settings.set({"mqtt.port": 1884})
    assert settings.values == {} and not settings.path.parent.exists()


# The daemon is the judge of the PIN (issue 12), whoever sends the change over the socket.


def test_a_change_needs_the_pin_and_a_wrong_one_is_refused(tmp_path):
    daemon = Daemon(tmp_path, config='[ui]\npin = "1234"\n')
    daemon.start()
    try:
        client = daemon.client()
        settle = {"shots.settle_after_s": 3.0}
        missing = client.request({"cmd": "settings", "set": settle})
        assert not missing["ok"] and "needs the PIN" in missing["error"], missing
        wrong = client.request({"cmd": "settings", "set": settle, "pin": "9999"})
        assert not wrong["ok"] and wrong["error"] == "settings not saved: wrong PIN", wrong
        effective = client.request({"cmd": "settings"})["state"]["settings"]["effective"]
        assert effective["shots.settle_after_s"] == 3600.0  # nothing applied
        right = client.request({"cmd": "settings", "set": settle, "pin": "1234"})
        assert right["ok"], right
        assert right["state"]["settings"]["effective"]["shots.settle_after_s"] == 3.0
        assert "ui.pin" not in right["state"]["settings"]["effective"]  # a PIN is checked, never shown
        client.close()
    finally:
        assert daemon.stop() == 0


def test_the_keypad_asks_the_daemon_and_five_wrong_pins_lock_the_pin_of_the_table_not_its_refereeing(tmp_path):
    """Wrong PINs count for the table, over every connection: a new connection is no way round the lockout; while
    it lasts, only a request carrying a PIN is refused."""
    daemon = Daemon(tmp_path, config='[ui]\npin = "1234"\n')
    daemon.start()
    try:
        guesser, table = daemon.client(), daemon.client()
        assert guesser.request({"cmd": "pin", "pin": "1234"})["ok"]
        for attempt in range(5):
            answer = daemon.client().request({"cmd": "pin", "pin": f"000{attempt}"})  # a new connection each
            assert (answer["error"], answer["code"]) == ("wrong PIN", "pin_wrong"), answer
        for client in (guesser, table, daemon.client()):
            locked = client.request({"cmd": "pin", "pin": "1234"})
            assert (locked["ok"], locked["code"]) == (False, "pin_locked"), locked
            assert locked["error"].startswith("too many wrong PINs: a PIN is refused for "), locked
        changed = table.request({"cmd": "settings", "set": {"ui.sound": False}, "pin": "1234"})
        assert changed["code"] == "pin_locked"
        assert table.request({"cmd": "settings"})["ok"]  # reading them carries no PIN
        assert table.request({"cmd": "new_match", "match_start": {"players": ["Ana", "Ben"]}})["ok"]
        assert guesser.request({"type": "strike"})["state"]["seq"] == 1  # the refereeing goes on
        guesser.close()
        table.close()
    finally:
        assert daemon.stop() == 0


def test_with_no_pin_chosen_only_the_change_that_chooses_one_is_taken(tmp_path):
    daemon = Daemon(tmp_path)
    daemon.start()
    try:
        client = daemon.client()
        refused = client.request({"cmd": "settings", "set": {"table.id": "bar2"}})
        assert not refused["ok"] and "no PIN is chosen yet" in refused["error"]
        assert refused["code"] == "pin_not_chosen"
        assert client.request({"cmd": "pin", "pin": "0000"})["code"] == "pin_not_chosen"
        chosen = client.request({"cmd": "settings", "set": {"ui.pin": "2468"}})
        assert chosen["ok"] and chosen["state"]["settings"]["pin_chosen"] is True, chosen
        assert client.request({"cmd": "pin", "pin": "2468"})["ok"]
        again = client.request({"cmd": "settings", "set": {"ui.pin": "1111"}})
        assert (again["ok"], again["code"]) == (False, "pin_required")  # changing it needs the old one
        client.close()
    finally:
        assert daemon.stop() == 0


def test_the_table_s_language_is_a_setting_that_applies_at_once(referee):
    referee.handle({"cmd": "new_match", "match_start": ANA_BEN})
    assert referee.state()["language"] == "en"
    reply = referee.handle({"cmd": "settings", "pin": PIN, "set": {"table.language": "hr"}})
    assert reply.ok and reply.state["restart"] is False and reply.state["language"] == "hr"
    assert reply.state["actions"]["pass"]["why"] == "Nema push outa na koji treba odgovoriti (5.6)."
    refused = referee.handle({"cmd": "settings", "pin": PIN, "set": {"table.language": "de"}})
    assert not refused.ok and "table.language: expected one of en, hr" in refused.error


def test_the_touchscreen_s_sound_is_a_setting_behind_the_pin_served_in_the_state_at_once(referee):
    assert referee.state()["sound"] is True  # [ui] sound: on unless the config or the screen turns it off
    refused = referee.handle({"cmd": "settings", "set": {"ui.sound": False}})
    assert not refused.ok and "needs the PIN" in refused.error and referee.state()["sound"] is True
    reply = referee.handle({"cmd": "settings", "pin": PIN, "set": {"ui.sound": False}})
    assert reply.ok and reply.state["restart"] is False and reply.state["sound"] is False
    assert reply.state["settings"]["effective"]["ui.sound"] is False
    wrong = referee.handle({"cmd": "settings", "pin": PIN, "set": {"ui.sound": "off"}})
    assert not wrong.ok and "ui.sound: expected true or false" in wrong.error and referee.state()["sound"] is False


def test_restart_behind_the_pin_starts_the_daemon_again_on_the_saved_settings(tmp_path):
    """Issue 33, 4: a saved change that needs a restart offers one (the settings screen's Restart button)."""
    import time

    from tests.live import TIMEOUT, Client

    daemon = Daemon(tmp_path, config=f'[table]\nid = "bar1"\n[ui]\npin = "{PIN}"\n')
    daemon.start()
    try:
        client = daemon.client()
        assert client.request({"cmd": "settings", "pin": PIN, "set": {"table.id": "bar2"}})["state"]["restart"]
        bar2 = {"cmd": "new_match", "match_start": dict(ANA_BEN, table="bar2")}
        assert client.request(bar2)["code"] == "wrong_table"  # bar1 until the restart
        for pin, code in (("9999", "pin_wrong"), (None, "pin_wrong")):
            answer = client.request({"cmd": "restart", "pin": pin})
            assert not answer["ok"] and answer["code"] == code and answer["error"] == "restart: wrong PIN"
        pid = daemon.process.pid
        assert client.request({"cmd": "restart", "pin": PIN})["ok"]
        client.close()
        deadline = time.monotonic() + TIMEOUT
        while True:  # the socket goes and comes back: the same process, started again on the settings
            assert daemon.process.poll() is None and time.monotonic() < deadline
            try:
                again = Client(daemon.socket)
                answer = again.request(bar2)
                again.close()
            except (OSError, ValueError):
                answer = {"ok": False}
            if answer["ok"]:
                break
            time.sleep(0.05)  # not up yet, or still the daemon before the restart (bar1)
        assert answer["state"]["match_id"] == 1 and daemon.process.pid == pid
    finally:
        assert daemon.stop() == 0
    assert "restarting, as the touchscreen asked" in daemon.stderr.decode()

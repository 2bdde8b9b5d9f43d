"""The UI's API client (scoreboard/ui/client.py) against a real ``devetka run`` child process."""

from __future__ import annotations

import queue

import pytest

from scoreboard.adapters.local_api.client import ApiClient
from scoreboard.core.messages import from_json, render
from scoreboard.i18n.catalog import catalog
from tests.live import ANA_BEN, TIMEOUT, Daemon


class Heard:
    """What the client's handlers were called with, in order, as ("state"|"answer"|"connected", value)."""

    def __init__(self) -> None:
        self.events: queue.Queue = queue.Queue()

    def next(self, kind: str, where=lambda value: True):
        """The next event of ``kind`` that ``where`` accepts (others of that kind are skipped)."""
        while True:
            try:
                got, value = self.events.get(timeout=TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"no {kind} event heard within {TIMEOUT} s") from None
            if got == kind and where(value):
                return value


@pytest.fixture
def heard_client(daemon):
    heard = Heard()
    client = ApiClient(str(daemon.socket), on_state=lambda s: heard.events.put(("state", s)),
                       on_answer=lambda a: heard.events.put(("answer", a)),
                       on_connected=lambda c: heard.events.put(("connected", c)),
                       deliver=lambda call: call(), retry_s=0.05)
    client.start()
    yield heard, client
    client.stop()


def test_it_hears_the_state_on_connecting_and_after_each_tap(heard_client):
    heard, client = heard_client
    assert heard.next("connected") is True
    assert heard.next("state")["players"] is None
    sent = client.send({"cmd": "new_match", "match_start": ANA_BEN})
    answer = heard.next("answer")
    assert answer["ok"] and answer["id"] == sent["id"] and answer["request"]["cmd"] == "new_match"
    assert heard.next("state")["players"] == ["Ana", "Ben"]


def test_a_refused_tap_comes_back_with_the_error_and_its_request(heard_client):
    heard, client = heard_client
    heard.next("state")
    client.send({"cmd": "new_match", "match_start": ANA_BEN})
    heard.next("answer")
    client.send({"type": "pass"})
    answer = heard.next("answer", lambda a: a["request"] == {"type": "pass"})
    assert not answer["ok"] and answer["error"] == "pass without a push out to answer (5.6)"


def test_it_comes_back_to_the_current_state_when_the_daemon_restarts(heard_client, daemon):
    heard, client = heard_client
    heard.next("state")
    client.send({"cmd": "new_match", "match_start": ANA_BEN})
    client.send({"type": "strike"})
    before = heard.next("state", lambda s: s["seq"] == 1)
    assert daemon.stop() == 0
    assert heard.next("connected") is False and not client.connected
    refused = client.send({"type": "settle"})
    assert not refused["ok"] and refused["error"].startswith("not connected to the referee")
    said = render(from_json(refused["message"]), catalog("hr"))  # the touchscreen says it in its players' language
    assert said == "nema veze sa sucem (devetka run): dodir nije poslan"
    daemon.start()
    assert heard.next("connected") is True
    after = heard.next("state")
    assert (after["match_id"], after["seq"], after["players"]) == (before["match_id"], 1, ["Ana", "Ben"])
    client.send({"type": "settle"})
    assert heard.next("answer")["ok"]


def test_it_keeps_trying_until_a_daemon_comes_up(tmp_path):
    daemon = Daemon(tmp_path)
    heard = Heard()
    client = ApiClient(str(daemon.socket), on_state=lambda s: heard.events.put(("state", s)),
                       on_connected=lambda c: heard.events.put(("connected", c)),
                       deliver=lambda call: call(), retry_s=0.05)
    client.start()
    try:
        assert heard.next("connected") is False
        daemon.start()
        assert heard.next("connected") is True
        assert heard.next("state")["match_id"] is None
    finally:
        client.stop()
        daemon.kill()


def test_an_answer_within_the_wait_is_returned_and_a_later_one_is_heard_as_without_a_wait(heard_client, daemon):
    """The touchscreen waits a moment for a tap's answer so it is drawn in the tap's own frame; an answer that
    comes later (the daemon stopped here) reaches ``on_answer`` as usual, and none is heard twice."""
    import os
    import signal

    heard, client = heard_client
    heard.next("state")
    answer = client.send({"cmd": "new_match", "match_start": ANA_BEN}, wait_s=TIMEOUT)
    assert answer["ok"] and answer["request"]["cmd"] == "new_match" and answer["state"]["players"] == ["Ana", "Ben"]
    os.kill(daemon.process.pid, signal.SIGSTOP)
    try:
        sent = client.send({"cmd": "state"}, wait_s=0.2)
    finally:
        os.kill(daemon.process.pid, signal.SIGCONT)
    assert "ok" not in sent and sent["request"] == {"cmd": "state"}
    late = heard.next("answer")  # the first answer heard: the new match's was returned, not heard
    assert late["id"] == sent["id"] and late["ok"] and late["request"] == {"cmd": "state"}
    assert client.send({"type": "pass"}, wait_s=TIMEOUT)["error"] == "pass without a push out to answer (5.6)"


def test_an_answer_later_than_asks_timeout_is_heard_not_lost(heard_client, daemon):
    """``ask`` gave up (the daemon frozen here): its answer, once it comes, reaches ``on_answer`` like any late one."""
    import os
    import signal

    heard, client = heard_client
    heard.next("state")
    os.kill(daemon.process.pid, signal.SIGSTOP)
    try:
        gave_up = client.ask({"cmd": "state"}, timeout=0.2)
    finally:
        os.kill(daemon.process.pid, signal.SIGCONT)
    assert gave_up["ok"] is False and gave_up["error"] == "the referee did not answer within 0.2 s"
    late = heard.next("answer")
    assert late["id"] == gave_up["id"] and late["ok"] and late["request"] == {"cmd": "state"}
    again = client.ask({"cmd": "state"})
    assert again["ok"] and again["id"] != gave_up["id"]

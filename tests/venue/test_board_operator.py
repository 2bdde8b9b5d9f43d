"""The operator's page (scoreboard/venue/board/operator.js, ``?operator``) in real headless Chromium, with real
clicks and typing: the operator's login typed on the page, every write a request to a real ``devetka director``
over a real Mosquitto whose ACL lets only that login ask, each answered through the director's checks, and the
bracket (``?event``) showing what the operator did."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import orjson
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from scoreboard.director.server import ask
from tests.venue.browser import Browser
from tests.venue.test_board import VENUE_ACL, VenueBroker
from tests.venue.test_board_event import Night

OPERATOR = {"username": "operator", "password": "op-secret-31"}
#: docs/venue.md, "The operator": the operator may ask the director and read; no one else may ask.
OPERATOR_ACL = VENUE_ACL + f"""
user {OPERATOR["username"]}
topic write devetka/director/request/#
topic read devetka/#
"""


class OperatorVenue(VenueBroker):
    def __init__(self) -> None:
        super().__init__()
        self.users = {**self.users, OPERATOR["username"]: OPERATOR["password"]}
        self.acl = OPERATOR_ACL


@pytest.fixture(scope="module")
def browser():
    with Browser() as running:
        yield running


@pytest.fixture
def venue():
    with OperatorVenue() as running:
        yield running


@pytest.fixture
def night(tmp_path, venue, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    running = Night(tmp_path, venue, capsys)
    yield running
    running.close()


def type_into(browser: Browser, selector: str, text: str) -> None:
    """Click the field and type ``text`` into it, as a keyboard does (DevTools Input.insertText)."""
    browser.click(selector)
    browser.wait_for(f"document.activeElement === document.querySelector({json.dumps(selector)})")
    browser.send("Input.insertText", text=text)


def said(browser: Browser, words: str) -> str:
    return browser.wait_for(f"(() => {{ const s = document.querySelector('.op-said'); "
                            f"return s && s.textContent.includes({json.dumps(words)}) && s.textContent; }})()")


def log_in(browser: Browser, night: Night, language: str, password: str = OPERATOR["password"]) -> None:
    browser.viewport(1920, 1080)
    browser.open(f"{night.url}?operator&lang={language}")
    browser.wait_for("document.getElementById('operator')?.dataset.state === 'login'")
    type_into(browser, "input[name=password]", password)
    browser.click("button[name=login]")


def row(browser: Browser, match: str) -> dict:
    return browser.evaluate(f"(() => {{ const r = document.querySelector('tr[data-match=\"{match}\"]');"
                            " return r && {status: r.dataset.status, score: r.dataset.score, text: r.innerText}; })()")


def test_the_operator_creates_an_event_draws_calls_enters_and_corrects_a_result(browser, night, venue, tmp_path):
    log_in(browser, night, "en", password="wrong")
    said(browser, "The venue broker refused the operator's login")
    log_in(browser, night, "en")
    browser.wait_for("document.getElementById('operator').dataset.state === 'ready'")
    # the login is kept by the connection alone: not in the page, the address or the browser's storage
    assert browser.evaluate("[localStorage.length, sessionStorage.length, document.body.innerHTML.includes("
                            f"{json.dumps(OPERATOR['password'])}), location.href.includes('op-secret')]") == [
        0, 0, False, False]
    type_into(browser, "form.op-new input[name=name]", "Thursday 9-ball")
    type_into(browser, "form.op-new textarea[name=players]", "Ana\nBen\nCvita\nDino")
    browser.click("form.op-new input[name=race]")
    browser.send("Input.dispatchKeyEvent", type="keyDown", key="ArrowDown", code="ArrowDown",
                 windowsVirtualKeyCode=40)  # 5 -> 4
    browser.send("Input.dispatchKeyEvent", type="keyUp", key="ArrowDown", code="ArrowDown", windowsVirtualKeyCode=40)
    type_into(browser, "form.op-new input[name=tables]", "t1, t2")
    browser.click("button[name=create]")
    said(browser, "The event is created")
    browser.click("button[name=draw]")
    said(browser, "The players are drawn")
    assert row(browser, "W1-1")["status"] == "ready"
    type_into(browser, 'tr[data-match="W1-1"] input[name=table]', "t2")
    browser.click('tr[data-match="W1-1"] button[name=move]')
    said(browser, "W1-1 is at table t2")
    assert browser.wait_for("(() => { const r = document.querySelector('tr[data-match=\"W1-1\"]');"
                            " return r && r.dataset.status === 'called' && r.innerText; })()")
    type_into(browser, 'tr[data-match="W1-1"] input[name=score]', "4-1")
    browser.click('tr[data-match="W1-1"] button[name=result]')
    said(browser, "W1-1: the result is recorded")
    # a second result without a reason: the director refuses it, and says why
    type_into(browser, 'tr[data-match="W1-1"] input[name=score]', "4-2")
    browser.click('tr[data-match="W1-1"] button[name=result]')
    assert said(browser, "Refused") == "Refused: W1-1 has its result already (4-1): correct it with a reason"
    assert browser.evaluate("document.querySelector('.op-said').dataset.refused") == "true"
    type_into(browser, 'tr[data-match="W1-1"] input[name=reason]', "the last rack was Dino's")
    browser.click('tr[data-match="W1-1"] button[name=result]')
    said(browser, "W1-1: the result is recorded")
    state = ask(night.director.socket, {"cmd": "status"})["state"]
    assert state["name"] == "Thursday 9-ball" and state["order"] == ["Ana", "Ben", "Cvita", "Dino"]
    w11 = next(m for m in state["matches"] if m["match"] == "W1-1")
    assert (w11["score"], w11["race"], w11["table"], w11["corrections"]) == (
        [4, 2], [4, 4], "t2", ["the last rack was Dino's"])
    assert night.export()["W1-1"] == "4-2"
    # the bracket shows the corrected result
    browser.open(f"{night.url}?event=1&lang=en")
    browser.wait_for("document.querySelector('#event [data-match=\"W1-1\"]')?.dataset.score === '4-2'")
    # a refusal in the operator's language
    log_in(browser, night, "hr")
    browser.wait_for("document.getElementById('operator')?.dataset.state === 'ready'")
    browser.wait_for("!!document.querySelector('tr[data-match=\"W1-1\"]')")
    type_into(browser, 'tr[data-match="W1-1"] input[name=score]', "4-0")
    browser.click('tr[data-match="W1-1"] button[name=result]')
    assert said(browser, "Odbijeno") == "Odbijeno: W1-1 već ima rezultat (4:2): ispravite ga uz razlog"
    assert browser.evaluate("document.querySelector('tr[data-match=\"W1-1\"] .op-score').innerText") == "4:2"
    folder = Path(os.environ.get("DEVETKA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    for size, (width, height, mobile) in {"1920x1080": (1920, 1080, False), "390x844": (390, 844, True)}.items():
        browser.screenshot(folder / f"operator-hr-{size}.png", width, height, mobile=mobile)
    log_in(browser, night, "en")
    browser.wait_for("!!document.querySelector('tr[data-match=\"W1-1\"]')")
    for size, (width, height, mobile) in {"1920x1080": (1920, 1080, False), "390x844": (390, 844, True)}.items():
        browser.screenshot(folder / f"operator-en-{size}.png", width, height, mobile=mobile)
    assert browser.exceptions() == []


def test_no_one_but_the_operator_can_ask_the_director(night, venue):
    """The board's anonymous login (and the board user's) may read, not ask: Mosquitto drops their requests."""
    night.new("eight", 'name = "N"\nformat = "single"\nplayers = ["Ana", "Ben"]\nrace = 3\n')
    answers: list[bytes] = []
    for login in (None, ("board", "board-pw"), (OPERATOR["username"], OPERATOR["password"])):
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"guest-{login and login[0]}")
        if login:
            client.username_pw_set(*login)
        client.on_message = lambda c, u, message: answers.append(message.payload)
        client.connect(venue.host, venue.port)
        client.subscribe("devetka/director/answer/#", qos=1)
        client.loop_start()
        client.publish("devetka/director/request/guest", orjson.dumps({"id": "x", "cmd": "draw"}),
                       qos=1).wait_for_publish(5)
        deadline = time.monotonic() + (20 if login and login[0] == OPERATOR["username"] else 1)
        while not answers and time.monotonic() < deadline:
            time.sleep(0.05)
        client.loop_stop()
        client.disconnect()
    # only the operator's request was answered (the same request, so the director was listening all along)
    assert [orjson.loads(answer)["id"] for answer in answers] == ["x"]
    assert ask(night.director.socket, {"cmd": "status"})["state"]["records"] == 2  # created, one draw

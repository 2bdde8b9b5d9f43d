"""The streaming overlay (scoreboard/venue/board/overlay.js, ``?table=ID&overlay=1``) in real headless Chromium: a
real ``devetka run`` table publishing its state to a real Mosquitto that serves the page, and a real ``devetka
director`` on the same broker calling matches to that table through ``devetka event`` commands."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest
from PIL import Image

from scoreboard.contract.records import CONTRACT
from tests.live import ANA_BEN, LEGAL_BREAK
from tests.venue.browser import Browser
from tests.venue.test_board import TABLE_LOGIN, Table, VenueBroker, state_topic
from tests.venue.test_board_event import Night
from tests.watcher import Watcher

EVENT = """\
name = "Stream night"
format = "single"
players = ["Ana", "Ben", "Cvita", "Dino"]
tables = ["bar1"]
race = 5
"""
CALL_TIMEOUT_S = 30.0
MISS = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 1}, {"type": "settle"}]
NINE_ON_A_COMBO = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 9,
                                                                             "pocket": "foot_left"},
                   {"type": "settle"}]
OVERLAY_JS = """(() => { const o = document.getElementById('overlay'); return {hidden: o.hidden, next: o.dataset.next,
  players: o.dataset.players, seq: o.dataset.seq, label: o.querySelector('.ov-label')?.textContent || '',
  scores: [...o.querySelectorAll('.ov-score')].map(e => e.textContent),
  rack: o.querySelector('.ov-rack')?.textContent || '', clock: o.querySelector('.ov-clock')?.textContent || '',
  strip: o.querySelector('.ov-next')?.textContent || ''}; })()"""


@pytest.fixture(scope="module")
def browser():
    with Browser() as running:
        yield running


@pytest.fixture
def venue():
    with VenueBroker() as running:
        yield running


@pytest.fixture
def night(tmp_path, venue, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    running = Night(tmp_path, venue, capsys)
    yield running
    running.close()


@pytest.fixture
def bar1(tmp_path, venue):
    table = Table(tmp_path, venue, "bar1")
    yield table
    table.close()


def overlay(browser: Browser, until: str) -> dict:
    return browser.wait_for(f"(() => {{ const o = {OVERLAY_JS}; return ({until}) && o; }})()")


def called_at(night: Night, match: str) -> str:
    """The table the director has called ``match`` to, as its status serves it (waited for: it calls by itself)."""
    deadline = time.monotonic() + CALL_TIMEOUT_S
    while True:
        row = next(m for m in night.status()["matches"] if m["match"] == match)
        if row["status"] == "called" and row["table"]:
            return str(row["table"])
        assert time.monotonic() < deadline, f"the director did not call {match}: {row}"
        time.sleep(0.05)


def offered_at(table: Table, match: str) -> str:
    """The id of the call of ``match`` once ``table`` offers it (on its screen): before that the call is still on
    its way there, and a match begun meanwhile would have it refused (in_play)."""
    deadline = time.monotonic() + CALL_TIMEOUT_S
    while True:
        call = table.screen.request({"cmd": "state"})["state"]["call"]
        if call is not None and call["status"] == "offered" and call["match"] == match:
            return str(call["id"])
        assert time.monotonic() < deadline, f"{match} is not offered at {table}: {call}"
        time.sleep(0.05)


def test_the_overlay_follows_the_tables_match_and_the_next_one_the_director_calls_there(browser, night, bar1,
                                                                                        tmp_path):
    night.new("stream", EVENT)
    browser.viewport(1920, 1080)
    browser.open(f"{night.url}?table=bar1&overlay=1&lang=en")
    assert overlay(browser, "o.hidden")["players"] == ""  # nothing on the table, nothing called: nothing shown
    night.event("draw")  # W1-1 Ana - Dino, W1-2 Ben - Cvita; the director calls W1-1 to bar1, its free table
    assert called_at(night, "W1-1") == "bar1"
    shown = overlay(browser, "!o.hidden && o.next === 'W1-1'")
    assert shown["strip"] == "Next on this table: Ana - Dino"
    offered_at(bar1, "W1-1")  # the players see the call, and begin the match by hand, with the shot clock on
    bar1.play({"cmd": "new_match", "match_start": dict(ANA_BEN, players=["Ana", "Dino"], race=[1, 1],
                                                       rules={"shot_clock": True})}, *LEGAL_BREAK, *MISS)
    assert bar1.state["shot_clock"]["running"]
    shown = overlay(browser, f"o.seq === '{bar1.state['seq']}' && o.clock !== ''")
    assert shown["players"] == "Ana - Dino" and shown["next"] == "" and shown["strip"] == ""
    assert shown["label"] == "Stream night \u00b7 W1-1" and shown["scores"] == ["0/1", "0/1"]
    assert shown["rack"] == "rack 1" and 0 < int(shown["clock"]) <= 35
    # transparent for OBS: the page paints nothing behind the lower third
    browser.send("Emulation.setDefaultBackgroundColorOverride", color={"r": 0, "g": 0, "b": 0, "a": 0})
    folder = Path(os.environ.get("DEVETKA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    for language in ("hr", "en"):
        browser.viewport(1920, 1080)
        browser.open(f"{night.url}?table=bar1&overlay=1&lang={language}")
        overlay(browser, f"o.seq === '{bar1.state['seq']}' && o.clock !== '' && o.label.endsWith('W1-1')")
        for width, height in ((390, 844), (1920, 1080)):
            path = browser.screenshot(folder / f"overlay-{language}-{width}x{height}.png", width, height)
            x, y = browser.evaluate("(() => { const r = document.querySelector('.lower-third')"
                                    ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
            with Image.open(path) as image:
                rgba = image.convert("RGBA")
                assert rgba.getpixel((10, 10))[3] == 0  # nothing painted behind the lower third
                assert rgba.getpixel((int(x), int(y)))[3] == 255  # the lower third itself
    browser.send("Emulation.setDefaultBackgroundColorOverride")
    bar1.play(*NINE_ON_A_COMBO)  # Ana (at the table again after Dino's miss) wins the match
    shown = overlay(browser, f"o.seq === '{bar1.state['seq']}'")
    assert shown["scores"] == ["1/1", "0/1"] and shown["rack"] == "Ana wins" and shown["clock"] == ""
    night.event("result", "W1-1", "5-2")
    assert called_at(night, "W1-2") == "bar1"  # the director calls the next match there: the overlay says who is next
    shown = overlay(browser, "o.next === 'W1-2'")
    assert shown["strip"] == "Next on this table: Ben - Cvita" and shown["players"] == "Ana - Dino"
    # W1-1's call, left on the screen by the match begun by hand, is withdrawn, and W1-2's offered: Start
    bar1.play({"cmd": "call_start", "call": offered_at(bar1, "W1-2")})
    shown = overlay(browser, "o.players === 'Ben - Cvita'")
    assert shown["label"] == "Stream night \u00b7 W1-2" and shown["next"] == "" and shown["scores"] == ["0/5", "0/5"]
    assert browser.exceptions() == []


def test_a_table_on_a_newer_contract_keeps_its_players_and_score_and_the_middle_says_to_update(browser, venue, bar1,
                                                                                              tmp_path):
    """docs/mqtt.md, "The contract": the overlay of a table serving a higher contract keeps the players and the
    score, and says "newer table software: update this board" in place of the rack and the shot clock; the race,
    the turn and the winner are not drawn. The table's next state of a known contract is drawn whole again."""
    bar1.play({"cmd": "new_match", "match_start": dict(ANA_BEN, rules={"shot_clock": True})}, *LEGAL_BREAK, *MISS)
    browser.viewport(1920, 1080)
    browser.open(f"{venue.board_url}?broker=ws://{venue.host}:{venue.ws_port}/&table=bar1&overlay=1&lang=en")
    shown = overlay(browser, f"o.seq === '{bar1.state['seq']}' && o.clock !== ''")
    assert shown["scores"] == ["0/3", "0/3"] and shown["rack"] == "rack 1"
    assert browser.evaluate("window.devetkaOverlay.contract") == CONTRACT == bar1.state["contract"]
    newer = dict(bar1.state, contract=CONTRACT + 1, seq=bar1.state["seq"] + 1, score=[1, 0], race={"to": 3},
                 shooter="Ben", match_winner="nobody")
    hand = Watcher(venue, **TABLE_LOGIN)
    try:
        hand.publish(state_topic("bar1"), orjson.dumps(newer))
        shown = overlay(browser, f"o.seq === '{newer['seq']}'")
    finally:
        hand.close()
    assert shown["players"] == "Ana - Ben" and shown["scores"] == ["1", "0"]
    assert shown["rack"] == "" and shown["clock"] == "" and not shown["hidden"]
    page = browser.evaluate("""(() => { const o = document.getElementById('overlay');
      return {contract: o.dataset.contract, update: o.querySelector('.ov-update')?.textContent || '',
              marked: o.querySelectorAll('.side.shooting, .side.won, .ov-race').length}; })()""")
    assert page == {"contract": "ahead", "update": "newer table software: update this board", "marked": 0}
    folder = Path(os.environ.get("DEVETKA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    browser.screenshot(folder / "overlay-newer-contract-1920x1080.png", 1920, 1080)
    bar1.play({"type": "strike"}, {"type": "first_contact", "ball": 2})  # its own states again, past the newer seq
    shown = overlay(browser, f"o.seq === '{bar1.state['seq']}'")
    assert shown["scores"] == ["0/3", "0/3"] and shown["rack"] == "rack 1"
    assert browser.evaluate("document.getElementById('overlay').dataset.contract") == "known"
    assert browser.exceptions() == []

"""The night's event on the venue board (scoreboard/venue/board/event.js) in real headless Chromium: the page served
by a real Mosquitto's ``http_dir``, the event run through a real ``devetka director`` publishing to that broker, and
every change made by ``devetka event`` commands over the director's socket (never a hand-written state).

Each check compares the page with what the director says (``devetka event export --json``, ``status --json``):
the board lays the event out and keeps no rule of its own. Screenshots go to ``$DEVETKA_SCREENSHOTS`` when it is set
(``scripts/board-screenshots.sh``), else to the test's tmp_path.
"""

from __future__ import annotations

import os
import shlex
import signal
from pathlib import Path

import orjson
import pytest

from scoreboard.commands.main import main
from scoreboard.director.server import ask
from tests.commands.test_event import EXAMPLES
from tests.director.test_serve import RunningDirector
from tests.venue.browser import Browser
from tests.venue.test_board import TABLE_LOGIN, VenueBroker

CELLS_JS = ("Object.fromEntries([...document.querySelectorAll('#event .match')]"
            ".map(cell => [cell.dataset.match, cell.dataset.score]))")


@pytest.fixture(scope="module")
def browser():
    with Browser() as running:
        yield running


@pytest.fixture
def venue():
    with VenueBroker() as running:
        yield running


class Night:
    """A real director publishing to the venue broker (logged in as a table: the venue ACL lets it write), and
    ``devetka event`` run against it, in the folder the event files are written to."""

    def __init__(self, tmp_path: Path, venue: VenueBroker, capsys: pytest.CaptureFixture, *extra: str) -> None:
        password = tmp_path / "director-password"
        password.write_text(TABLE_LOGIN["password"] + "\n")
        self.folder = tmp_path
        self.capsys = capsys
        self.director = RunningDirector(tmp_path, "--mqtt-host", venue.host, "--mqtt-port", str(venue.port),
                                        "--mqtt-user", TABLE_LOGIN["username"], "--mqtt-password-file",
                                        str(password), *extra).start()
        self.url = venue.board_url

    def event(self, *argv: str) -> str:
        """Run ``devetka event ARGV`` against the director; its output (it must succeed)."""
        code = main(["event", *argv, "--socket", str(self.director.socket)])
        out = self.capsys.readouterr()
        assert code == 0, (argv, out.err)
        return out.out

    def new(self, name: str, toml: str) -> None:
        (self.folder / f"{name}.toml").write_text(toml)
        self.event("new", str(self.folder / f"{name}.toml"))

    def script(self, sh: str) -> list[list[str]]:
        """The worked example's commands, its refused ones left out, as argument lists."""
        return [shlex.split(line, comments=True)[2:] for line in sh.splitlines() if "# refused" not in line]

    def export(self) -> dict[str, str]:
        """The match id -> score cell value the board must show: the export's score joined by "-", "" unplayed."""
        rows = [orjson.loads(line) for line in self.event("export", "--json").splitlines()]
        return {row["match"]: "-".join(map(str, row["score"])) if row["score"] else "" for row in rows}

    def status(self) -> dict:
        return ask(self.director.socket, {"cmd": "status"})["state"]

    def close(self) -> None:
        self.director.stop()


@pytest.fixture
def night(tmp_path, venue, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    running = Night(tmp_path, venue, capsys)
    yield running
    running.close()


def open_view(browser: Browser, night: Night, query: str, width: int = 1920, height: int = 1080,
              mobile: bool = False) -> None:
    browser.viewport(width, height, mobile=mobile)
    browser.open(f"{night.url}?{query}")


def shows(browser: Browser, expected: dict[str, str]) -> dict[str, str]:
    """Wait until the page's match cells are exactly ``expected`` (match id -> data-score)."""
    browser.wait_for(f"JSON.stringify({CELLS_JS}) === {orjson.dumps(expected).decode()!r}")
    return browser.evaluate(CELLS_JS)


def test_the_double_bracket_shows_each_result_as_it_is_entered_and_then_the_winner(browser, night):
    toml, sh, _ = EXAMPLES["double"]
    commands = night.script(sh)
    night.new("double", toml)
    open_view(browser, night, "event&lang=en")
    browser.wait_for("document.querySelector('#event .event-name')?.textContent === 'Sunday double'")
    for argv in commands[1:]:
        night.event(*argv)
        shows(browser, night.export())
        assert browser.evaluate("document.getElementById('event').dataset.winner") == (night.status()["winner"] or "")
    assert browser.evaluate("document.getElementById('event').dataset.winner") == "Ana"
    # each side in its own bracket, each round a column: the reset final is listed once it was needed
    sides = browser.evaluate("Object.fromEntries([...document.querySelectorAll('.bracket')].map(s => [s.dataset.side,"
                             " [...s.querySelectorAll('.round')].map(r => [...r.querySelectorAll('.match')]"
                             ".map(m => m.dataset.match))]))")
    assert sides == {"W": [["W1-1", "W1-2"], ["W2-1"]], "L": [["L1-1"], ["L2-1"]], "GF": [["GF-1"], ["GF-2"]]}
    grand = browser.evaluate("document.querySelector('[data-match=\"GF-2\"]').innerText")
    assert grand.split() == ["GF-2", "Ana", "7", "Dino", "6"]
    assert "Winner: Ana" in browser.evaluate("document.querySelector('.event-head').innerText")
    assert browser.exceptions() == []


def test_a_single_bracket_with_byes_keeps_each_match_level_with_the_two_it_follows(browser, night, tmp_path):
    toml, sh, _ = EXAMPLES["single"]
    night.new("single", toml)
    night.event("draw")
    open_view(browser, night, "event=1&lang=en")
    shows(browser, night.export())
    # five players in a bracket of eight: W1-1, W1-3 and W1-4 are byes, drawn as empty slots
    slots = browser.evaluate("[...document.querySelectorAll('.round')].map(r => [...r.querySelectorAll('.slot')]"
                             ".map(s => s.querySelector('.match')?.dataset.match || 'bye'))")
    assert slots == [["bye", "W1-2", "bye", "bye"], ["W2-1", "W2-2"], ["W3-1"]]
    browser.screenshot(tmp_path / "single.png", 1920, 1080)
    tops = browser.evaluate("Object.fromEntries([...document.querySelectorAll('.match')].map(m => [m.dataset.match,"
                            " m.getBoundingClientRect().top + m.getBoundingClientRect().height / 2]))")
    assert tops["W2-1"] < tops["W1-2"] < tops["W2-2"]
    assert abs(tops["W3-1"] - (tops["W2-1"] + tops["W2-2"]) / 2) < 2
    # a side not known yet says where it comes from (the director's "from")
    final = browser.evaluate("[...document.querySelectorAll('[data-match=\"W3-1\"] .mname')].map(e => e.textContent)")
    assert final == ["winner of W2-1", "winner of W2-2"]


def test_round_robin_groups_are_standings_tables_in_the_directors_order_and_the_playoff_a_bracket(browser, night):
    toml, sh, _ = EXAMPLES["groups"]
    night.new("groups", toml)
    open_view(browser, night, "event&lang=en")
    for argv in night.script(sh)[1:]:
        night.event(*argv)
    shows(browser, night.export())
    rows = browser.evaluate("Object.fromEntries([...document.querySelectorAll('.group')].map(g => [g.dataset.group,"
                            " [...g.querySelectorAll('.standing')].map(r => r.innerText.split('\\t'))]))")
    assert rows == {"A": [["1.", "Ana", "1", "1", "5-3", "+2"], ["2.", "Ema", "1", "1", "4-5", "-1"],
                          ["3.", "Dino", "1", "1", "3-4", "-1"]],
                    "B": [["1.", "Ben", "2", "0", "6-3", "+3"], ["2.", "Cvita", "1", "1", "5-3", "+2"],
                          ["3.", "Fran", "0", "2", "1-6", "-5"]]}
    assert [r["player"] for r in night.status()["groups"]["A"]] == ["Ana", "Ema", "Dino"]
    playoff = browser.evaluate("[...document.querySelectorAll('.bracket[data-side=\"K\"] .match')]"
                               ".map(m => m.dataset.match)")
    assert playoff == ["K1-1", "K1-2", "K2-1"]
    assert browser.evaluate("document.getElementById('event').dataset.winner") == "Ana"


def test_the_apa_night_is_the_two_teams_score_sheet_with_each_split_and_the_running_totals(browser, night):
    toml, sh, _ = EXAMPLES["apa"]
    night.new("apa", toml)
    open_view(browser, night, "event&lang=en")
    for argv in night.script(sh)[1:]:
        night.event(*argv)
    shows(browser, night.export())
    sheet = browser.evaluate("[...document.querySelectorAll('table.apa tr.match')].map(r => ["
                             "...r.querySelectorAll('.mpoints')].map(c => c.textContent).concat("
                             "r.querySelector('.running').textContent))")
    assert sheet == [["15", "5", "15-5"], ["6", "14", "21-19"], ["7", "13", "28-32"], ["20", "0", "48-32"],
                     ["8", "12", "56-44"]]
    totals = browser.evaluate("[...document.querySelectorAll('.team')].map(t => t.innerText.split('\\n'))")
    assert totals == [["Cue Tips", "56"], ["Rails", "44"]]
    assert browser.evaluate("document.getElementById('event').dataset.winner") == "Cue Tips"


EIGHT = """\
name = "Tuesday 8"
format = "single"
players = ["Ana", "Ben", "Cvita", "Dino", "Ema", "Fran", "Goran", "Hana"]
tables = ["t1", "t2", "t3"]
race = 5
"""


def test_up_next_lists_the_called_matches_with_their_tables_then_the_waiting_in_order(browser, night):
    night.new("eight", EIGHT)
    night.event("draw")
    night.event("move", "W1-3", "t1")
    night.event("move", "W1-1", "t2")
    open_view(browser, night, "next&lang=en")
    browser.wait_for("document.querySelectorAll('.next-list .call').length === 2")
    state = {m["match"]: m for m in night.status()["matches"]}
    called = browser.evaluate("[...document.querySelectorAll('.next-list .call')].map(c => c.innerText)")
    assert [line.split("\n") for line in called] == [
        [f"{state['W1-1']['players'][0]} - {state['W1-1']['players'][1]}", "table t2"],
        [f"{state['W1-3']['players'][0]} - {state['W1-3']['players'][1]}", "table t1"]]
    waiting = browser.evaluate("[...document.querySelectorAll('.next-list .wait')].map(c => c.dataset.match)")
    assert waiting == ["W1-2", "W1-4"]
    night.event("move", "W1-3", "t3")  # moved: the call follows
    browser.wait_for("document.querySelector('.call[data-match=\"W1-3\"]')?.dataset.table === 't3'")
    night.event("result", "W1-1", "5-3")  # played: off the list
    browser.wait_for("!document.querySelector('.next-list [data-match=\"W1-1\"]')")
    assert browser.exceptions() == []


def test_the_tv_view_pages_through_more_than_one_screen_by_itself(browser, night):
    names = [f"Player {n}" for n in range(1, 33)]
    night.new("many", f'name = "Big night"\nformat = "single"\nplayers = {orjson.dumps(names).decode()}\nrace = 3\n')
    night.event("draw")
    for n, table in ((1, "t1"), (2, "t2"), (3, "t3")):
        night.event("move", f"W1-{n}", table)
    open_view(browser, night, "next&lang=en&page_s=1")
    browser.wait_for("Number(document.getElementById('event').dataset.pages) > 1")
    pages = int(browser.evaluate("document.getElementById('event').dataset.pages"))
    seen: dict[int, list[str]] = {}
    while len(seen) < pages:
        page = int(browser.wait_for("document.getElementById('event').dataset.page"))
        seen[page] = browser.evaluate("[...document.querySelectorAll('.next-list li')].map(i => i.dataset.match)")
        overflow = browser.evaluate("(() => { const b = document.querySelector('.next-body').getBoundingClientRect();"
                                    " return [...document.querySelectorAll('.next-list li')]"
                                    ".some(i => i.getBoundingClientRect().bottom > b.bottom + 1); })()")
        assert not overflow, f"page {page} runs off the screen"
        browser.wait_for(f"document.getElementById('event').dataset.page !== '{page}'", timeout=10)
    shown = [match for page in sorted(seen) for match in seen[page]]
    assert shown == [f"W1-{n}" for n in range(1, 17)]  # the three called first, then the waiting in order


def test_a_players_phone_shows_the_next_match_its_table_once_called_and_the_results(browser, night):
    night.new("eight", EIGHT)
    night.event("draw")
    open_view(browser, night, "player=Ben&lang=en", 390, 844, mobile=True)
    browser.wait_for("document.getElementById('event').dataset.next === 'W1-3'")
    text = browser.evaluate("document.querySelector('.player-next').innerText")
    assert "against Goran" in text and "waiting for a table (3 in the queue)" in text
    night.event("move", "W1-3", "t2")
    browser.wait_for("document.getElementById('event').dataset.table === 't2'")
    assert "go to table t2" in browser.evaluate("document.querySelector('.player-next').innerText")
    night.event("result", "W1-3", "5-2")
    browser.wait_for("document.getElementById('event').dataset.next === 'W2-2'")
    assert browser.evaluate("[...document.querySelectorAll('.player-results li')].map(li => li.innerText)") == [
        "W1-3\nwon 5-2 against Goran"]
    assert [line for line in browser.evaluate("document.querySelector('.player-next').innerText").split("\n")
            if line][1:4] == [
        "your opponent is not known yet", "winner of W1-4", "W2-2 \u00b7 race to 5"]
    # a phone: nothing wider than the screen
    assert browser.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_director_gone_silent_is_shown_offline_though_its_last_will_never_came(browser, tmp_path, venue, capsys,
                                                                                 monkeypatch):
    """A NATS venue loses the director's last will with the node that held it: the board takes three missed
    heartbeats as offline. Here the director is frozen (SIGSTOP): its connection stays open, no will is sent."""
    monkeypatch.chdir(tmp_path)
    night = Night(tmp_path, venue, capsys, "--heartbeat", "0.5")
    try:
        night.new("eight", EIGHT)
        open_view(browser, night, "event&lang=en")
        browser.wait_for("document.getElementById('event').dataset.event === '1' && window.devetkaEvent.heard")
        assert browser.evaluate("document.querySelector('.event-link')") is None
        night.director.process.send_signal(signal.SIGSTOP)
        try:
            said = browser.wait_for("document.querySelector('.event-link')?.textContent")
            assert said == "the director is offline"
            assert browser.evaluate("window.devetkaEvent.director") == "online"  # no will came: the broker holds it
        finally:
            night.director.process.send_signal(signal.SIGCONT)
        browser.wait_for("document.querySelector('.event-link') === null")
    finally:
        night.close()


def test_the_tiles_page_links_to_the_event_keeping_its_query(browser, night):
    open_view(browser, night, "lang=hr")
    link = browser.evaluate("[document.getElementById('event-link').getAttribute('href'),"
                            " document.getElementById('event-link').textContent]")
    assert link == ["?lang=hr&event", "Večerašnje natjecanje"]
    browser.click("#event-link")
    browser.wait_for("document.getElementById('event')?.dataset.view === 'event'")


# ---- screenshots -------------------------------------------------------------------------------------------
SIZES = {"1920x1080": (1920, 1080, False), "390x844": (390, 844, True)}


def test_screenshots_of_each_view_in_english_and_croatian(browser, night, tmp_path):
    folder = Path(os.environ.get("DEVETKA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    events = {}
    for name in ("double", "groups", "apa"):
        toml, sh, _ = EXAMPLES[name]
        night.new(name, toml)
        events[name] = len(events) + 1
        commands = night.script(sh)[1:]
        for argv in commands[: len(commands) * 2 // 3]:  # two thirds played: results, and matches still to come
            night.event(*argv)
    night.new("eight", EIGHT)
    events["eight"] = 4
    night.event("draw", "--event", "4")
    night.event("result", "W1-1", "5-1", "--event", "4")
    night.event("move", "W1-2", "t1", "--event", "4")
    night.event("move", "W1-3", "t2", "--event", "4")
    views = {"bracket-double": "event=1", "groups": "event=2", "apa": "event=3", "bracket-single": "event=4",
             "next": "next=4", "player-called": "player=Ben&event=4", "player-results": "player=Ana&event=4"}
    for language in ("en", "hr"):
        for view, query in views.items():
            for size, (width, height, mobile) in SIZES.items():
                open_view(browser, night, f"{query}&lang={language}", width, height, mobile)
                browser.wait_for("!!document.querySelector('#event .event-head')")
                path = browser.screenshot(folder / f"event-{view}-{language}-{size}.png", width, height, mobile=mobile)
                assert path.stat().st_size > 10_000
                if (view, language) == ("player-called", "hr"):  # 'vi', as every screen says it (docs/i18n.md)
                    shown = browser.evaluate("document.querySelector('.player-next').innerText").lower()
                    assert "idite za stol t2" in shown, shown
    assert browser.exceptions() == []


def test_the_qr_code_opens_the_event_and_a_name_opens_that_players_page(browser, night, tmp_path):
    import zxingcpp
    from PIL import Image

    night.new("eight", EIGHT)
    night.event("draw")
    for view in ("event", "next"):
        open_view(browser, night, f"{view}&lang=en")
        browser.wait_for("(() => { const i = document.querySelector('.event-qr img'); return i && i.complete; })()")
        width = browser.evaluate("document.querySelector('.event-qr img').getBoundingClientRect().width")
        assert width >= 150  # large enough to scan from a few steps
        # what a phone's reader decodes off the TV (zxing-cpp, from a screenshot): the event's address
        with Image.open(browser.screenshot(tmp_path / f"qr-{view}.png", 1920, 1080)) as image:
            codes = [found.text for found in zxingcpp.read_barcodes(image.convert("L"))
                     if found.format == zxingcpp.BarcodeFormat.QRCode]
        assert codes == [night.url + "?event"]
    # the phone the code opened: a tap on a player's name opens that player's page
    open_view(browser, night, "event&lang=en", 390, 844, mobile=True)
    browser.wait_for("!!document.querySelector('[data-match=\"W1-3\"] a.plink')")
    browser.click('[data-match="W1-3"] a.plink')
    browser.wait_for("document.getElementById('event')?.dataset.player === 'Ben'")
    assert browser.wait_for("document.getElementById('event').dataset.next") == "W1-3"
    assert browser.evaluate("location.search") == "?lang=en&player=Ben&event=1"

"""The venue board (scoreboard/venue/board/) in a real browser: Debian's headless Chromium (tests/venue/browser.py),
the page served by a real Mosquitto's ``http_dir`` on its WebSockets listener, and real ``devetka run`` daemons
publishing to that broker over MQTT (tests/live.py), driven over their local API.

No skips: scripts/setup.sh installs chromium and mosquitto, and a machine without them fails here by name (a
skipped browser test would hide a missing install step). Screenshots go to ``$DEVETKA_SCREENSHOTS`` when it is set
(``scripts/board-screenshots.sh``), else to the test's tmp_path.
"""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import time
from pathlib import Path

import orjson
import pytest

import scoreboard.venue
from scoreboard.contract.records import CONTRACT
from scoreboard.sim.broker import PrivateBroker, free_port
from tests.live import ANA_BEN, LEGAL_BREAK, TIMEOUT, Daemon
from tests.venue.browser import Browser
from tests.watcher import Watcher, retained

BOARD = Path(scoreboard.venue.__file__).resolve().parent / "board"
TABLE_LOGIN = {"username": "table", "password": "table-pw"}
BOARD_LOGIN = {"username": "board", "password": "board-pw"}
#: The venue broker's ACL: the tables write their own topics; the board (anonymous, or logged in as ``board``)
#: only reads. Mosquitto acknowledges a denied publish and drops it.
VENUE_ACL = """\
# anonymous clients: a board on a TV, read only
topic read devetka/#

user table
topic readwrite devetka/#

user board
topic read devetka/#
"""
#: The breaker pockets the 9 on the break (rack won), then fouls the next break: ball in hand for the other.
NINE_ON_THE_BREAK = [{"type": "strike"}, {"type": "first_contact", "ball": 1},
                     {"type": "pocket", "ball": 9, "pocket": "foot_left"}, {"type": "settle"}]
FOUL_BREAK = [{"type": "strike"}, {"type": "first_contact", "ball": 3}, {"type": "settle"}]

class VenueBroker(PrivateBroker):
    """A venue Mosquitto: MQTT over TCP for the tables, and a WebSockets listener whose ``http_dir`` serves the
    board, both on 127.0.0.1, with the users of TABLE_LOGIN and BOARD_LOGIN, anonymous clients, and VENUE_ACL."""

    def __init__(self) -> None:
        super().__init__(users={TABLE_LOGIN["username"]: TABLE_LOGIN["password"],
                                BOARD_LOGIN["username"]: BOARD_LOGIN["password"]}, acl=VENUE_ACL)
        self.ws_port = free_port()

    def new_ports(self) -> None:
        super().new_ports()
        self.ws_port = free_port()

    @property
    def board_url(self) -> str:
        return f"http://{self.host}:{self.ws_port}/index.html"

    def _write_config(self) -> Path:
        passwd = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
        passwords = self.folder / "passwords"
        passwords.write_text("")
        for name, password in self.users.items():
            subprocess.run([passwd, "-b", str(passwords), name, password], check=True, capture_output=True,
                           timeout=TIMEOUT)
        (self.folder / "acl").write_text(self.acl)
        lines = [f"listener {self.port} {self.host}",
                 f"listener {self.ws_port} {self.host}", "protocol websockets", f"http_dir {BOARD}",
                 "allow_anonymous true", f"password_file {passwords}", f"acl_file {self.folder / 'acl'}",
                 "persistence false", "log_dest stderr", "log_type error", "log_type warning", "log_type notice",
                 "log_type information"]
        if os.geteuid() == 0:
            lines.append("user root")
        config = self.folder / "mosquitto.conf"
        config.write_text("\n".join(lines) + "\n")
        return config


class Table:
    """``devetka run`` for table ``id``, publishing to the venue broker as user ``table``, and its screen's client."""

    def __init__(self, tmp_path: Path, venue: VenueBroker, table_id: str, name: str | None = None) -> None:
        folder = tmp_path / table_id
        folder.mkdir()
        self.id = table_id
        called = f"name = {orjson.dumps(name).decode()}\n" if name else ""
        self.daemon = Daemon(folder, config=f'[table]\nid = "{table_id}"\n{called}[mqtt]\nhost = "{venue.host}"\n'
                                            f'port = {venue.port}\nusername = "{TABLE_LOGIN["username"]}"\n'
                                            f'password = "{TABLE_LOGIN["password"]}"\nkeepalive_s = 60\n')
        self.start()

    def start(self) -> None:
        self.daemon.start()
        self.screen = self.daemon.client()
        self.state = self.screen.request({"cmd": "state"})["state"]

    def kill(self) -> None:
        """Kill the daemon (SIGKILL: its broker connection ends without a goodbye, the last will says offline)."""
        self.screen.close()
        self.daemon.kill()

    def play(self, *requests: dict) -> dict:
        for request in requests:
            answer = self.screen.request(request)
            assert answer["ok"], answer
            self.state = answer["state"]
        return self.state

    def close(self) -> None:
        self.screen.close()
        self.daemon.kill()


@pytest.fixture(scope="module")
def browser():
    with Browser() as running:
        yield running


@pytest.fixture
def venue():
    with VenueBroker() as running:
        yield running


@pytest.fixture
def tables(tmp_path, venue):
    """Start tables by id: ``tables("bar1", "bar2")``; all are killed at the end."""
    started: list[Table] = []

    def start(*ids: str) -> list[Table]:
        for table_id in ids:
            started.append(Table(tmp_path, venue, table_id))
        return started[-len(ids):]

    yield start
    for table in started:
        table.close()


TILES_JS = """
Object.fromEntries([...document.querySelectorAll('[data-table]')].map(tile => [tile.dataset.table, {
  match: tile.dataset.match, seq: tile.dataset.seq === '' ? null : Number(tile.dataset.seq),
  online: tile.dataset.online, status: tile.dataset.status, text: tile.innerText,
  names: [...tile.querySelectorAll('.pname')].map(e => e.textContent),
  points: [...tile.querySelectorAll('.points')].map(e => e.textContent),
  race: [...tile.querySelectorAll('.race')].map(e => e.textContent),
  shooting: [...tile.querySelectorAll('.player')].map(e => e.classList.contains('shooting')),
  balls: [...tile.querySelectorAll('.ball')].map(e => Number(e.textContent)),
  words: tile.querySelector('.words').textContent,
  greyed: getComputedStyle(tile.querySelector('.body')).filter !== 'none',
  lastKnown: getComputedStyle(tile.querySelector('.lastknown')).display !== 'none',
}]))
"""


def tiles(browser: Browser) -> dict[str, dict]:
    return browser.evaluate(TILES_JS)


def wait_tile(browser: Browser, table_id: str, condition: str, timeout: float = TIMEOUT) -> dict:
    """Wait until the tile of ``table_id`` satisfies a JS condition on ``tile`` (its element); its fields then."""
    browser.wait_for(f"(() => {{ const tile = document.querySelector('[data-table={orjson.dumps(table_id).decode()}]');"
                     f" return Boolean(tile) && ({condition}); }})()", timeout)
    return tiles(browser)[table_id]


def wait_seq(browser: Browser, table: Table) -> dict:
    seq, match = table.state["seq"], table.state["match_id"]
    return wait_tile(browser, table.id, f"tile.dataset.seq === '{seq}' && tile.dataset.match === '{match}'"
                                        " && tile.dataset.online === 'true'")


def open_board(browser: Browser, venue: VenueBroker, query: str = "") -> None:
    """The page this broker serves, reading this broker's WebSockets listener (``?broker``: the page's default is
    the readers' broker on port 9002 of the box that served it) and ``query``'s parameters."""
    browser.viewport(1920, 1080)
    extra = "&" + query.removeprefix("?") if query else ""
    browser.open(f"{venue.board_url}?broker=ws://{venue.host}:{venue.ws_port}/{extra}")
    browser.wait_for("window.devetkaBoard && window.devetkaBoard.link.up")


def assert_drawn(tile: dict, state: dict) -> None:
    """The tile shows this state: its seq and match, the players, the score against the race, the balls left."""
    assert tile["seq"] == state["seq"] and tile["match"] == str(state["match_id"])
    assert tile["names"] == state["players"]
    assert tile["points"] == [str(points) for points in state["score"]]
    assert tile["race"] == [f"/{race}" for race in state["race"]]
    assert tile["balls"] == state["on_table"]
    assert tile["shooting"] == [state["shooter"] == 0, state["shooter"] == 1]
    assert tile["words"] == (state["last_verdict"]["words"] if state["last_verdict"] else "")
    assert tile["online"] == "true" and tile["status"] == "online" and not tile["greyed"]


def test_the_tiles_follow_play_at_every_input(browser, venue, tables):
    bar1, bar2 = tables("bar1", "bar2")
    open_board(browser, venue)
    wait_tile(browser, "bar2", "tile.dataset.online === 'true'")
    assert set(tiles(browser)) == {"bar1", "bar2"}
    assert "no match" in tiles(browser)["bar1"]["text"]
    bar1.play({"cmd": "new_match", "match_start": ANA_BEN})
    bar2.play({"cmd": "new_match", "match_start": dict(ANA_BEN, players=["Maximilian Oberhofer", "Zoe"],
                                                        race=[5, 4], breaker=1)})
    for item in LEGAL_BREAK:
        bar1.play(item)
        assert_drawn(wait_seq(browser, bar1), bar1.state)
    tile = tiles(browser)["bar1"]
    assert "Legal break" in tile["words"] and "rack 1" in tile["text"]
    bar2.play(*NINE_ON_THE_BREAK)
    tile = wait_seq(browser, bar2)
    assert_drawn(tile, bar2.state)
    assert tile["points"] == ["0", "1"] and "rack 2" in tile["text"]  # Zoe broke and won the rack with the 9
    bar2.play(*FOUL_BREAK)
    tile = wait_seq(browser, bar2)
    assert_drawn(tile, bar2.state)
    assert "BALL IN HAND" in tile["text"]
    assert_drawn(tiles(browser)["bar1"], bar1.state)  # the other table's tile kept its own state
    drawn = browser.evaluate("window.devetkaDrawn.filter(d => d.table === 'bar1').map(d => [d.match ?? 0, d.seq])")
    assert drawn == sorted(drawn) and len(drawn) == len(set(map(tuple, drawn)))  # each once, in order
    assert drawn[-len(LEGAL_BREAK):] == [[1, seq] for seq in range(1, len(LEGAL_BREAK) + 1)]  # waited for each
    assert browser.exceptions() == []


def test_a_tile_shows_the_venues_name_for_its_table_and_the_real_time_played(browser, venue, tmp_path):
    """Issue 29: the tile says what the venue calls the table ([table] name, served as table_name), and a page
    opened seconds into a match shows the time played since its served start, not since the page saw it."""
    table = Table(tmp_path, venue, "bar7", name="Table 7 (TV)")
    try:
        table.play({"cmd": "new_match", "match_start": ANA_BEN}, *LEGAL_BREAK)
        assert table.state["table_name"] == "Table 7 (TV)" and table.state["match_started"]
        time.sleep(3.0)  # the page opens 3 s into the match
        open_board(browser, venue)
        wait_seq(browser, table)
        tile = "document.querySelector('[data-table=\"bar7\"]')"
        assert browser.evaluate(f"{tile}.querySelector('.name').textContent") == "Table 7 (TV)"
        clock = browser.evaluate(f"{tile}.querySelector('.clock').textContent")
        minutes, seconds = clock.split(":")[-2:]
        assert not clock.startswith("\u2265") and int(minutes) * 60 + int(seconds) >= 3, clock
    finally:
        table.close()


def state_topic(table_id: str) -> str:
    return f"devetka/{table_id}/state"


def test_an_older_state_is_never_drawn_and_another_store_replaces_the_shown_one(browser, venue, tables):
    (bar1,) = tables("bar1")
    early = bar1.play({"cmd": "new_match", "match_start": ANA_BEN}, *LEGAL_BREAK[:3])
    bar1.play(*LEGAL_BREAK[3:])
    open_board(browser, venue)
    assert_drawn(wait_seq(browser, bar1), bar1.state)
    hand = Watcher(venue, **TABLE_LOGIN)
    received = "window.devetkaBoard.received.bar1 || 0"

    def publish(state: dict) -> None:
        count = browser.evaluate(received)
        hand.publish(state_topic("bar1"), orjson.dumps(state))  # not retained: the broker keeps the daemon's
        # The page has it, and has drawn it if it is to be drawn (a newer state waits for the next frame, dirty).
        browser.wait_for(f"({received}) > {count} && !window.devetkaBoard.tables.get('bar1').dirty")

    for older in (early, dict(bar1.state, seq=bar1.state["seq"] - 1), dict(bar1.state, match_id=None, seq=99),
                  dict(bar1.state, store="")):  # the same store as today's states, which carry none
        publish(older)
        assert_drawn(tiles(browser)["bar1"], bar1.state)
    # Another store (a table whose store was replaced) is drawn even with a lower (match_id, seq) ...
    other = dict(early, store="store-2", score=[2, 1])
    publish(other)
    assert tiles(browser)["bar1"]["points"] == ["2", "1"]
    assert tiles(browser)["bar1"]["seq"] == early["seq"]
    # ... and then ordered within it.
    publish(dict(other, seq=early["seq"] - 1, score=[0, 0]))
    assert tiles(browser)["bar1"]["points"] == ["2", "1"]
    publish(dict(other, seq=early["seq"] + 1, score=[3, 1]))
    assert tiles(browser)["bar1"]["points"] == ["3", "1"]
    drawn = browser.evaluate("window.devetkaDrawn.filter(d => d.table === 'bar1').map(d => d.seq)")
    assert drawn[-2:] == [early["seq"], early["seq"] + 1]
    hand.close()
    # The rule itself, (store, match_id, seq), on the page's own function: (state, shown) -> drawn?
    cases = [({"seq": 0, "match_id": None}, None, True),
             ({"seq": 0, "match_id": 1}, {"seq": 5, "match_id": None}, True),  # null match_id sorts lowest
             ({"seq": 3, "match_id": 1}, {"seq": 9, "match_id": 2}, False),
             ({"seq": 1, "match_id": 3}, {"seq": 9, "match_id": 2}, True),
             ({"seq": 9, "match_id": 2}, {"seq": 9, "match_id": 2}, False),  # the same state again
             ({"seq": 9, "match_id": 2, "store": ""}, {"seq": 9, "match_id": 2}, False),  # absent is ""
             ({"seq": 1, "match_id": 1, "store": "b"}, {"seq": 9, "match_id": 2, "store": "a"}, True),
             ({"seq": 1, "match_id": 1}, {"seq": 9, "match_id": 2, "store": "a"}, True)]  # a store, then none
    for state, shown, expected in cases:
        assert browser.evaluate(f"window.devetkaBoard.newer({orjson.dumps(state).decode()}, "
                                f"{orjson.dumps(shown).decode()})") is expected, (state, shown)


def assert_not_live(tile: dict, status: str, words: str) -> None:
    assert tile["online"] == "false" and tile["status"] == status
    assert words in tile["text"].lower()
    assert tile["greyed"] and tile["lastKnown"] and "LAST KNOWN SCORE" in tile["text"]


def test_offline_stale_and_back_a_tile_never_shows_an_old_score_as_live(browser, venue, tables, tmp_path):
    bar1, bar2 = tables("bar1", "bar2")
    bar1.play({"cmd": "new_match", "match_start": ANA_BEN}, *NINE_ON_THE_BREAK)
    bar2.play({"cmd": "new_match", "match_start": ANA_BEN})
    open_board(browser, venue, "?user=board&password=board-pw")  # the read-only login
    assert_drawn(wait_seq(browser, bar1), bar1.state)
    wait_seq(browser, bar2)
    # The table's power or daemon gone: its last will says offline.
    bar1.kill()
    tile = wait_tile(browser, "bar1", "tile.dataset.online === 'false'")
    assert_not_live(tile, "offline", "offline since")
    assert tile["points"] == ["1", "0"]  # kept, greyed and labelled, not live
    assert tiles(browser)["bar2"]["status"] == "online"
    bar1.start()  # the same store: back with the same state, live again
    assert_drawn(wait_seq(browser, bar1), bar1.state)
    # The venue broker lost the table's bridge: the bridge's notification says 0.
    hand = Watcher(venue, **TABLE_LOGIN)
    hand.publish("devetka/bar2/bridge", b"0", retain=True)
    assert_not_live(wait_tile(browser, "bar2", "tile.dataset.online === 'false'"), "stale", "table link down")
    hand.publish("devetka/bar2/bridge", b"1", retain=True)
    wait_seq(browser, bar2)
    # A table that said online and then went away while the venue broker was down (it restarts empty).
    hand.publish(state_topic("ghost"), orjson.dumps(dict(bar1.state, players=["Gus", "Ghost"])), retain=True)
    hand.publish("devetka/ghost/availability", b"online", retain=True)
    assert wait_tile(browser, "ghost", "tile.dataset.online === 'true'")["names"] == ["Gus", "Ghost"]
    hand.close()
    # The board's own link to the venue broker: every tile stale while it is down, live again after.
    venue.stop()
    for table_id in ("bar1", "bar2"):
        assert_not_live(wait_tile(browser, table_id, "tile.dataset.online === 'false'"), "stale", "venue link down")
    venue.start()  # empty: the daemons publish their state again on reconnecting, the board reconnects
    bar1.play(*FOUL_BREAK)  # play went on meanwhile
    assert_drawn(wait_seq(browser, bar1), bar1.state)
    assert_drawn(wait_seq(browser, bar2), bar2.state)
    assert_not_live(tiles(browser)["ghost"], "stale", "no word from the table")
    assert browser.exceptions() == []


def test_a_shot_in_progress_with_no_word_for_too_long_reads_stale(browser, venue, tables):
    (bar1,) = tables("bar1")
    bar1.play({"cmd": "new_match", "match_start": ANA_BEN}, {"type": "strike"})  # no settle comes: a hung table
    open_board(browser, venue, "?silence_s=1")
    assert_not_live(wait_tile(browser, "bar1", "tile.innerText.includes('NO WORD SINCE')"), "stale", "no word since")
    bar1.play({"type": "settle"})
    assert_drawn(wait_seq(browser, bar1), bar1.state)


def test_the_browser_cannot_publish(browser, venue, tables):
    (bar1,) = tables("bar1")
    open_board(browser, venue)
    wait_tile(browser, "bar1", "tile.dataset.online === 'true'")
    listener = Watcher(venue, ["devetka/bar1/cmd", "devetka/bar1/state"], **TABLE_LOGIN)
    for login in ("", ", username: 'board', password: 'board-pw'"):
        # A client of the page's own, as a guest's script would make one, and the board's own client: both are
        # acknowledged (MQTT 3.1.1 cannot refuse) and dropped.
        acked = browser.evaluate(f"""new Promise((done, fail) => {{
            const client = mqtt.connect(window.devetkaBoard.url, {{protocolVersion: 4, reconnectPeriod: 0{login}}});
            client.on('error', fail);
            client.on('connect', () => client.publish('devetka/bar1/cmd', '{{"cmd": "new_match"}}', {{qos: 1}},
              error => {{ client.end(); error ? fail(error) : done(true); }}));
        }})""")
        assert acked
        acked = browser.evaluate("""new Promise((done, fail) => window.devetkaBoard.client.publish(
            'devetka/bar1/state', '{"type": "state", "seq": 999}', {qos: 1, retain: true},
            error => error ? fail(error) : done(true)))""")
        assert acked
    # The broker handles one connection's messages in order: the table's own marker, published after the page's
    # were acknowledged, is the first thing the listener hears on cmd.
    listener.publish("devetka/bar1/cmd", b"marker")
    assert listener.next("devetka/bar1/cmd").payload == b"marker"
    assert listener.next("devetka/bar1/state").json == bar1.state  # the retained one, the daemon's
    assert listener.pending("devetka/bar1/state") == 0
    assert retained(venue, state_topic("bar1"), **TABLE_LOGIN).json == bar1.state
    assert bar1.screen.request({"cmd": "state"})["state"] == bar1.state  # no match begun from the browser
    listener.close()


def test_one_table_full_screen(browser, venue, tables):
    bar1, bar2 = tables("bar1", "bar2")
    bar2.play({"cmd": "new_match", "match_start": ANA_BEN}, *LEGAL_BREAK)
    open_board(browser, venue, "?table=bar2")
    assert_drawn(wait_seq(browser, bar2), bar2.state)
    assert list(tiles(browser)) == ["bar2"]
    box = browser.evaluate("(() => { const r = document.querySelector('[data-table]').getBoundingClientRect();"
                           " return [r.width, r.height, innerWidth, innerHeight]; })()")
    assert box[0] >= 0.95 * box[2] and box[1] >= 0.95 * box[3]
    assert browser.evaluate("document.querySelectorAll('button, a, input').length") == 0


# ---- screenshots -------------------------------------------------------------------------------------------
NAMES = ["Maximilian Oberhofer", "Ana", "Ben", "Jovana Radosavljevic", "Luka", "Mia Horvat", "Shane Van Boening",
         "Kelly Fisher", "Efren Reyes", "Siming Chen", "Aleksa Pecelj", "Joshua Filler", "Jayson Shaw", "Pia Filler",
         "Fedor Gorst", "Chezka Centeno", "Ko Pin-Yi", "Allison Fisher", "Mika Immonen", "Eklent Kaci"]
SIZES = {"1920x1080": (1920, 1080, False), "390x844": (390, 844, True)}


def made_up(base: dict, index: int) -> dict:
    """A table's state made from a real daemon's: other players, score, rack, shooter, balls and flags."""
    state = copy.deepcopy(base)
    one, two = NAMES[index % len(NAMES)], NAMES[(index * 7 + 3) % len(NAMES)]
    if one == two:
        two = "Ana"
    race = [5, 5] if index % 3 else [7, 5]
    score = [index % race[0], (index * 3) % race[1]]
    shooter = index % 2
    state.update(players=[one, two], race=race, score=score, rack=sum(score) + 1, breaker=(sum(score)) % 2,
                 shooter=shooter, on_table=[b for b in range(1, 10) if (b * (index + 2)) % 5 != 0 or b == 9],
                 ball_in_hand=index % 4 == 1, warning=index % 7 == 3, awaiting_choice=index % 9 == 5,
                 push_out_allowed=index % 9 == 2, fouls_in_row=[0, 0], match_id=index + 1, seq=10 + index * 3)
    if state["warning"]:
        state["fouls_in_row"][shooter] = 2
    if index % 11 == 6:
        state.update(match_winner=0, score=[race[0], score[1]])
    words = (base["last_verdict"] or {}).get("words", "")
    if state["last_verdict"]:
        state["last_verdict"] = dict(state["last_verdict"],
                                     words=words.replace("Ana", one).replace("Ben", two))
    return state


def publish_tables(hand: Watcher, base: dict, ids: list[str]) -> None:
    for index, table_id in enumerate(ids, start=1):
        hand.publish(state_topic(table_id), orjson.dumps(made_up(base, index)), retain=True)
        # a few tables not live, to show how they look
        availability = b"offline" if index % 10 == 4 else b"online"
        hand.publish(f"devetka/{table_id}/availability", availability, retain=True)
        hand.publish(f"devetka/{table_id}/bridge", b"0" if index % 10 == 8 else b"1", retain=True)


def shoot(browser: Browser, folder: Path, name: str) -> list[Path]:
    saved = []
    for size, (width, height, mobile) in SIZES.items():
        path = browser.screenshot(folder / f"{name}-{size}.png", width, height, mobile=mobile)
        from PIL import Image

        with Image.open(path) as image:
            assert image.size == (width, height)
        if mobile:  # a phone: one column of tiles, each as wide as the screen less its margins
            boxes = browser.evaluate("[...document.querySelectorAll('[data-table]')].map(tile => {"
                                     " const r = tile.getBoundingClientRect(); return [r.left, r.width]; })")
            assert len({left for left, _ in boxes}) == 1 and min(w for _, w in boxes) >= 0.9 * width
        saved.append(path)
    return saved


def names_fit(browser: Browser) -> list[str]:
    """The players' names the tiles had to cut short (an ellipsis)."""
    return browser.evaluate("[...document.querySelectorAll('.pname')].filter(e => e.scrollWidth > e.clientWidth + 1)"
                            ".map(e => e.textContent)")


def smallest(browser: Browser, selector: str) -> float:
    return browser.evaluate(f"Math.min(...[...document.querySelectorAll('{selector}')]"
                            ".map(e => parseFloat(getComputedStyle(e).fontSize)))")


#: The phone's tiles: how many a screen holds, the live tiles whose ruling is not seen, and the largest share of a
#: tile's height left empty below its content.
PHONE_TILES_JS = """(() => {
  const all = [...document.querySelectorAll('[data-table]')];
  const live = all.filter(t => t.dataset.status === 'online');
  const noRuling = live.filter(t => { const w = t.querySelector('.words');
    return !w.textContent || w.getBoundingClientRect().height === 0; }).map(t => t.dataset.table);
  const emptiest = Math.max(...all.map(t => { const r = t.getBoundingClientRect();
    const bottom = Math.max(...[...t.querySelectorAll('.inner > *, .body > *')]
      .filter(e => e.getBoundingClientRect().height > 0).map(e => e.getBoundingClientRect().bottom));
    return (r.bottom - bottom) / r.height; }));
  return {perScreen: innerHeight / all[0].getBoundingClientRect().height, noRuling, emptiest};
})()"""


#: Each ball-in-hand and two-foul-warning flag drawn on a live tile: [kind, table, seen], seen when it has a size,
#: lies inside its tile and is not cut to nothing.
FLAGS_SEEN_JS = """[...document.querySelectorAll('[data-table][data-status="online"] .flag.bih,'
  + '[data-table][data-status="online"] .flag.warning')].map(f => {
    const tile = f.closest('[data-table]').getBoundingClientRect(), box = f.getBoundingClientRect();
    const seen = box.width > 8 && box.height > 4 && box.left >= tile.left && box.right <= tile.right + 0.5
      && box.top >= tile.top && box.bottom <= tile.bottom + 0.5 && f.scrollWidth > 0;
    return [f.classList.contains('bih') ? 'bih' : 'warning', f.closest('[data-table]').dataset.table, seen];
  })"""


def screenshots_folder(tmp_path: Path) -> Path:
    """``DEVETKA_SCREENSHOTS`` (scripts/screenshots.sh names docs/screenshots/), else the test's own folder."""
    folder = Path(os.environ.get("DEVETKA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def on_the_clock(tables):
    """bar1 with a match on the shot clock, Ana's legal break and her miss: Ben's turn is timed."""
    (bar1,) = tables("bar1")
    miss = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 1},
            {"type": "settle"}]
    bar1.play({"cmd": "new_match", "match_start": dict(ANA_BEN, rules={"shot_clock": True})}, *LEGAL_BREAK, *miss)
    return bar1


def test_screenshots_of_the_board_with_1_8_and_50_tables_and_of_one_table(browser, venue, tables, tmp_path):
    folder = screenshots_folder(tmp_path)
    (bar1,) = tables("bar1")
    bar1.play({"cmd": "new_match", "match_start": dict(ANA_BEN, players=["Maximilian Oberhofer", "Ana"], race=[5, 5])},
              *NINE_ON_THE_BREAK, *FOUL_BREAK)
    open_board(browser, venue)
    wait_seq(browser, bar1)
    shoot(browser, folder, "board-1")
    browser.viewport(1920, 1080)
    assert names_fit(browser) == [] and smallest(browser, ".pname") >= 80
    hand = Watcher(venue, **TABLE_LOGIN)
    publish_tables(hand, bar1.state, [f"bar{n}" for n in range(2, 9)])
    browser.wait_for("document.querySelectorAll('[data-table]').length === 8")
    shoot(browser, folder, "board-8")
    browser.viewport(1920, 1080)
    assert names_fit(browser) == [] and smallest(browser, ".pname") >= 36
    publish_tables(hand, bar1.state, [f"bar{n}" for n in range(9, 51)])
    browser.wait_for("document.querySelectorAll('[data-table]').length === 50")
    shoot(browser, folder, "board-50")
    statuses = "[...document.querySelectorAll('[data-table]')].map(t => t.dataset.status).join()"
    shown = browser.evaluate(statuses)
    browser.viewport(1920, 1080)
    assert smallest(browser, ".pname") >= 18 and smallest(browser, ".points") >= 24
    # Issue 29: ball in hand and the two-foul warning stay on a 50-tile board, inside their tile and seen.
    seen = browser.evaluate(FLAGS_SEEN_JS)
    assert {kind for kind, _, _ in seen} == {"bih", "warning"}, seen
    assert [flag for flag in seen if not flag[2]] == [], seen
    # On a phone the tiles are compact: at least four live ones a screen, each with its ruling, and no tile more
    # than an eighth empty below what it shows.
    browser.viewport(390, 844, mobile=True)
    phone = browser.evaluate(PHONE_TILES_JS)
    assert phone["perScreen"] >= 4 and phone["noRuling"] == [] and phone["emptiest"] < 0.125, phone
    hand.close()
    open_board(browser, venue, "?table=bar1")
    wait_seq(browser, bar1)
    shoot(browser, folder, "table-bar1")
    open_board(browser, venue, "?lang=hr")  # the 50 tables in Croatian, each ruling said from its messages
    browser.wait_for(f"{statuses} === {orjson.dumps(shown).decode()}")  # every table's status as it was in English
    shoot(browser, folder, "board-50-hr")
    open_board(browser, venue, "?table=bar1&lang=hr")
    wait_seq(browser, bar1)
    browser.click(".words")
    browser.wait_for("document.querySelector('.why').dataset.rules !== ''")
    shoot(browser, folder, "table-bar1-why-hr")
    assert len(list(folder.glob("*.png"))) >= 12


SHOT_CLOCK_JS = """(() => { const e = document.querySelector('[data-table="bar1"] .shotclock');
  return {text: e.hidden ? '' : e.querySelector('.seconds').textContent, phase: e.dataset.phase || '',
          background: getComputedStyle(e).backgroundColor}; })()"""


def test_the_shot_clock_counts_down_from_the_served_deadline_and_screenshots_at_20_10_5_s(browser, venue, tables,
                                                                                        tmp_path):
    """A real table on the clock: its retained state's deadline is counted down by the page's own clock each
    second; states made from it with the deadline nearer show the warning (amber), the last 5 s (red) and TIME.
    Screenshots at 20 s, 10 s and 5 s of the one-table page."""
    folder = screenshots_folder(tmp_path)
    bar1 = on_the_clock(tables)
    served = bar1.state["shot_clock"]
    assert served["running"] and served["limit"] == 35
    open_board(browser, venue, "?table=bar1")
    wait_seq(browser, bar1)
    shown = browser.wait_for(f"(() => {{ const c = {SHOT_CLOCK_JS}; return c.text !== '' && c; }})()")
    assert 1 <= int(shown["text"]) <= 35 and shown["phase"] in ("", "warn", "late")
    hand = Watcher(venue, **TABLE_LOGIN)
    colours = {}
    for seq, left in enumerate((20, 10, 5), start=1):
        page_now = browser.evaluate("Date.now()")
        deadline = page_now + left * 1000 + 900  # the number shown is `left` from 0.9 s on, for a second
        state = dict(bar1.state, seq=bar1.state["seq"] + seq,
                     shot_clock=dict(served, deadline=deadline, warning_at=deadline - 10_000))
        hand.publish(state_topic("bar1"), orjson.dumps(state))
        clock = browser.wait_for(f"(() => {{ const c = {SHOT_CLOCK_JS}; return c.text === '{left}' && c; }})()")
        colours[left] = (clock["phase"], clock["background"])
        shoot(browser, folder, f"shot-clock-{left}s")
    assert [colours[left][0] for left in (20, 10, 5)] == ["", "warn", "late"]
    assert len({background for _, background in colours.values()}) == 3  # three colours a player can tell apart
    out = dict(bar1.state, seq=bar1.state["seq"] + 4, shot_clock=dict(served, running=False, time_foul_proposed=True))
    hand.publish(state_topic("bar1"), orjson.dumps(out))
    timed_out = browser.wait_for(f"(() => {{ const c = {SHOT_CLOCK_JS}; return c.text === 'TIME' && c; }})()")
    assert timed_out["phase"] == "out"
    hand.close()
def test_the_shot_clock_paused_at_the_table_stands_still_on_the_board_and_runs_again_when_resumed(
        browser, venue, tables, tmp_path):
    """The touchscreen's foul menu opened at a real table on the clock (its clock_pause command): the board shows
    the seconds the daemon serves as left, in teal, labelled paused, and counts down again once the pause ends.
    Screenshot: shot-clock-paused."""
    folder = screenshots_folder(tmp_path)
    bar1 = on_the_clock(tables)
    open_board(browser, venue, "?table=bar1")
    wait_seq(browser, bar1)
    bar1.play({"cmd": "clock_pause", "on": True})
    served = bar1.state["shot_clock"]
    assert served["paused"] is True and served["deadline"] is None
    left = str(-(-served["paused_left"] // 1000))
    wait_seq(browser, bar1)
    paused = browser.wait_for(f"(() => {{ const c = {SHOT_CLOCK_JS}; return c.phase === 'paused' && c; }})()")
    assert paused["text"] == left and paused["background"] == "rgb(0, 137, 123)"
    label = "document.querySelector('[data-table=\"bar1\"] .shotclock small').textContent"
    assert browser.evaluate(label).lower() == "shot clock paused"
    shoot(browser, folder, "shot-clock-paused")
    bar1.play({"cmd": "clock_pause", "on": False})
    wait_seq(browser, bar1)
    running = browser.wait_for(f"(() => {{ const c = {SHOT_CLOCK_JS}; return c.phase !== 'paused' && c; }})()")
    assert running["text"] != "" and browser.evaluate(label).lower() == "shot clock"


def test_the_board_speaks_its_language_whatever_the_table_s_and_shows_why(browser, venue, tables):
    """?lang=hr: the board's words and each ruling in Croatian, said from the served messages of a table that
    speaks English; the one-table view shows the rules a ruling cites in the seed's words when the ruling is
    tapped; ?lang=en says a Croatian table's ruling in English."""
    bar1, bar2 = tables("bar1", "bar2")
    bar1.play({"cmd": "new_match", "match_start": ANA_BEN}, *LEGAL_BREAK)
    bar2.play({"cmd": "new_match", "match_start": dict(ANA_BEN, language="hr")}, *LEGAL_BREAK)
    assert bar1.state["last_verdict"]["words"].startswith("Legal break (5.4) by Ana.")
    assert bar2.state["last_verdict"]["words"].startswith("Ana pravilno razbija (5.4).")
    open_board(browser, venue, "?lang=hr")
    wait_seq(browser, bar2)
    tile = wait_seq(browser, bar1)
    assert tile["words"] == "Ana pravilno razbija (5.4). Na potezu: Ben. Ben smije igrati push out (5.5)."
    assert "1. partija" in tile["text"] and "push out dopušten" in tile["text"].lower()
    assert "NA VEZI" in tile["text"]  # online: connected, not "switched on" (issue 35)
    assert tiles(browser)["bar2"]["words"] == tile["words"]
    assert browser.evaluate("document.documentElement.lang") == "hr"
    open_board(browser, venue, "?lang=en")
    assert wait_seq(browser, bar2)["words"] == "Legal break (5.4) by Ana. Ben to shoot. Ben may push out (5.5)."
    open_board(browser, venue, "?table=bar1&lang=hr")
    wait_seq(browser, bar1)
    assert browser.evaluate("document.querySelector('.why').hidden")
    browser.click(".words")
    browser.wait_for("document.querySelector('.why').dataset.rules === '5.4 5.5'")
    why = [line for line in browser.evaluate("document.querySelector('.why').innerText").splitlines() if line]
    assert why[0] == "5.4 PRAVILAN UDARAC OTVARANJA"
    assert why[1].startswith("Za udarac otvaranja (break, razbijanje) vrijede ista pravila kao i za ostale udarce")
    assert why[2:4] == ["5.5 NASTAVLJANJE IGRE", why[3]] and why[3].startswith("Na udarcu koji slijedi odmah")
    browser.click(".words")
    browser.wait_for("document.querySelector('.why').hidden && document.querySelector('.why').innerText === ''")
    assert browser.exceptions() == []


UPDATE_SEEN_JS = """(() => { const tile = document.querySelector('[data-table="bar1"]');
  const e = tile.querySelector('.update'), r = e.getBoundingClientRect(), t = tile.getBoundingClientRect();
  return {inside: r.width > 0 && r.left >= t.left && r.right <= t.right && r.top >= t.top && r.bottom <= t.bottom,
          whole: e.scrollWidth <= e.clientWidth}; })()"""


def test_a_table_on_a_newer_contract_keeps_its_players_score_and_balls_and_says_to_update_the_board(
        browser, venue, tables, tmp_path):
    """docs/mqtt.md, "The contract": a state of a contract higher than the board's keeps its players, score and
    balls drawn and says "newer table software: update this board"; nothing is drawn from the fields whose meaning
    may have changed (the race, the turn, the flags, the ruling, the rack, the shot clock, the match time). The
    table's next state of a contract the board knows is drawn whole again."""
    folder = screenshots_folder(tmp_path)
    bar1, bar2 = tables("bar1", "bar2")
    foul = [{"type": "strike"}, {"type": "first_contact", "ball": 3}, {"type": "settle"}]  # the 1 is lowest
    for table in (bar1, bar2):
        table.play({"cmd": "new_match", "match_start": dict(ANA_BEN, rules={"shot_clock": True})}, *LEGAL_BREAK,
                   *foul)
    assert bar1.state["contract"] == CONTRACT and bar1.state["shot_clock"]["running"]
    open_board(browser, venue)
    assert browser.evaluate("window.devetkaBoard.contract") == CONTRACT  # the board knows what the tables serve
    wait_seq(browser, bar2)
    known = wait_seq(browser, bar1)
    assert_drawn(known, bar1.state)
    assert "BALL IN HAND" in known["text"] and "rack 1" in known["text"] and known["words"]
    assert browser.evaluate(f"{SHOT_CLOCK_JS}.text") != ""
    assert "NEWER TABLE SOFTWARE" not in known["text"].upper()

    # The same table's state as a later release would serve it: a higher contract, and fields that mean other things.
    newer = dict(bar1.state, contract=CONTRACT + 1, seq=bar1.state["seq"] + 1, score=[1, 0], on_table=[2, 5, 9],
                 shooter="Ben", race={"to": 3}, ball_in_hand="both")
    hand = Watcher(venue, **TABLE_LOGIN)
    try:
        hand.publish(state_topic("bar1"), orjson.dumps(newer))
        tile = wait_tile(browser, "bar1", f"tile.dataset.seq === '{newer['seq']}'")
    finally:
        hand.close()
    assert browser.evaluate("document.querySelector('[data-table=bar1]').dataset.contract") == "ahead"
    assert "NEWER TABLE SOFTWARE: UPDATE THIS BOARD" in tile["text"]
    assert tile["names"] == ["Ana", "Ben"] and tile["points"] == ["1", "0"] and tile["balls"] == [2, 5, 9]
    assert tile["race"] == ["", ""] and tile["shooting"] == [False, False] and tile["words"] == ""
    assert "BALL IN HAND" not in tile["text"] and "rack 1" not in tile["text"]
    assert browser.evaluate(f"{SHOT_CLOCK_JS}.text") == ""
    assert browser.evaluate("document.querySelector('[data-table=bar1] .clock').textContent") == ""
    assert tile["online"] == "true" and not tile["greyed"]  # the table is live: only its state is read differently
    assert_drawn(tiles(browser)["bar2"], bar2.state)
    assert "NEWER TABLE SOFTWARE" not in tiles(browser)["bar2"]["text"].upper()
    shoot(browser, folder, "board-newer-contract")
    hand = Watcher(venue, **TABLE_LOGIN)  # 50 tiles: the words still inside the smallest tile, whole
    publish_tables(hand, bar2.state, [f"bar{n}" for n in range(3, 51)])
    hand.close()
    browser.wait_for("document.querySelectorAll('[data-table]').length === 50")
    browser.viewport(1920, 1080)
    assert browser.evaluate(UPDATE_SEEN_JS) == {"inside": True, "whole": True}
    shoot(browser, folder, "board-50-newer-contract")

    bar1.play({"type": "strike"}, {"type": "first_contact", "ball": 2})  # its own states again, past the newer seq
    again = wait_seq(browser, bar1)
    assert_drawn(again, bar1.state)
    assert "NEWER TABLE SOFTWARE" not in again["text"].upper()
    assert browser.evaluate("document.querySelector('[data-table=bar1]').dataset.contract") == "known"
    assert browser.exceptions() == []

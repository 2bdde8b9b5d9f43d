"""The touchscreen (scoreboard/ui/app.py and kv/) under Xvfb against a real ``devetka run``, driven by touch.

The table's sensors are played by a socket client sending match-log inputs;
the players' taps are real touch events on the real widgets. Each test asserts
what the screen shows.
"""

from __future__ import annotations

import pytest

from tests.test_api import ANA_BEN
from tests.ui.touchscreen import Touchscreen

LEGAL_BREAK = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 2},
               {"type": "cushion", "ball": 3}, {"type": "cushion", "ball": 4}, {"type": "cushion", "ball": 5},
               {"type": "settle"}]
BREAK_POCKETING_3 = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 2},
                     {"type": "pocket", "ball": 3}, {"type": "settle"}]
BAD_HIT = [{"type": "strike"}, {"type": "first_contact", "ball": 5}, {"type": "cushion", "ball": 5},
           {"type": "settle"}]


class Table:
    """The table's sensors: inputs sent to the daemon over the local API, as ``devetka run``'s sources would."""

    def __init__(self, daemon) -> None:
        self.client = daemon.client()

    def play(self, *inputs: dict) -> dict:
        for item in inputs:
            answer = self.client.request(item)
            assert answer["ok"], (item, answer)
        return answer["state"]


@pytest.fixture
def screen(kivy_window, daemon):
    from kivy.app import App

    from scoreboard.ui.app import DevetkaApp

    kivy_window.size = (800, 480)
    app = DevetkaApp(socket_path=str(daemon.socket))
    root = app.build()
    app.root = root
    kivy_window.add_widget(root)
    app.connect()
    touch = Touchscreen(app, kivy_window)
    touch.wait_for(lambda: app.view.connected, "the referee's state")
    yield touch
    app.on_stop()
    kivy_window.remove_widget(root)
    App._running_app = None


@pytest.fixture
def table(daemon):
    t = Table(daemon)
    yield t
    t.client.close()


def started(screen: Touchscreen, table: Table, **changes) -> None:
    table.play({"cmd": "new_match", "match_start": dict(ANA_BEN, **changes)})
    screen.wait_for(lambda: screen.current == "live" and screen.text("status") == "Ana to shoot: BALL IN HAND",
                    "the new match")


def test_with_no_match_the_setup_screen_starts_one_by_touch(screen, table):
    screen.wait_for(lambda: screen.current == "setup", "the setup screen")
    screen.tap_id("name0")
    screen.type("Mia")
    screen.tap_id("name1")
    screen.type("Noa")
    plus = [w for w in screen.widget("race0").children if getattr(w, "text", "") == "+"][0]
    screen.tap(plus)
    screen.tap(plus)
    screen.tap_id("breaker1")
    assert screen.text("breaker1") == "Noa breaks"
    screen.tap_id("start")
    screen.wait_for(lambda: screen.current == "live", "the live scoreboard")
    screen.wait_for(lambda: screen.app.view.players, "the players")
    panel0, panel1 = screen.widget("player0", "live"), screen.widget("player1", "live")
    assert [child.text for child in reversed(panel0.children)] == ["Mia", "0 of 7"]
    assert [child.text for child in reversed(panel1.children)] == ["Noa", "0 of 5"]
    assert screen.text("status") == "Noa to shoot: BALL IN HAND"
    assert screen.balls() == list(range(1, 10))
    state = table.play({"cmd": "state"})
    assert state["players"] == ["Mia", "Noa"] and state["race"] == [7, 5] and state["breaker"] == 1

"""Screens made on first need (scoreboard/ui/screens_on_demand.py): the app builds only the screen it shows, makes
the others one a frame once the first state is shown, and a screen made late shows the state of the moment in
its first frame. Under Xvfb against a real ``devetka run``."""

from __future__ import annotations

from itertools import pairwise

import pytest

from tests.live import ANA_BEN
from tests.ui.conftest import Table
from tests.ui.test_app import BREAK_POCKETING_3, started
from tests.ui.touchscreen import TouchClock, Touchscreen

#: The off-table buttons of the foul menu with the 3 pocketed on the break (0 is the cue ball).
OFF_TABLE_AFTER_THE_3 = [0, 1, 2, 4, 5, 6, 7, 8, 9]


def test_the_app_builds_the_screen_it_shows_and_makes_the_rest_one_a_frame_after_the_first_state(kivy_window,
                                                                                                  daemon, tmp_path):
    """The product's way (``make_ahead``): a player's first tap on the foul menu finds it made, with the state of
    the table on it, though it was made after the app started."""
    from kivy.app import App

    from scoreboard.ui.app import DevetkaApp

    table = Table(daemon)
    table.play({"cmd": "new_match", "match_start": ANA_BEN}, *BREAK_POCKETING_3)
    app = DevetkaApp(socket_path=str(daemon.socket), touch_clock=TouchClock(),
                     last_language=tmp_path / "last-language")
    kivy_window.size = (800, 480)
    root = app.build()
    app.root = root
    kivy_window.add_widget(root)
    made_at_each_frame: list[int] = []

    def every_made() -> bool:
        made_at_each_frame.append(len(app.manager.screens))
        return len(app.manager.screens) == len(app.screen_names)

    screen = Touchscreen(app, kivy_window)
    try:
        assert [made.name for made in app.manager.screens] == ["live"], "more than the screen shown was built"
        screen.frames(3)
        assert len(app.manager.screens) == 1, "screens were made before any state was shown"
        app.connect()
        screen.wait_for(lambda: app.view.players, "the referee's state")
        screen.wait_for(every_made, "every screen made")
        assert sorted(made.name for made in app.manager.screens) == sorted(app.screen_names)
        grown = [after - before for before, after in pairwise(made_at_each_frame)]
        assert set(grown) <= {0, 1}, f"more than one screen made in a frame: {made_at_each_frame}"
        assert screen.current == "live" and app.view.players
        screen.tap_id("fouls")
        assert screen.current == "fouls"
        assert screen.balls("off_table") == OFF_TABLE_AFTER_THE_3
    finally:
        table.client.close()
        app.dispatch("on_stop")
        kivy_window.remove_widget(root)
        App._running_app = None


def test_a_screen_opened_for_the_first_time_shows_the_state_of_the_moment_in_its_first_frame(screen, table):
    """The suite's app makes no screen ahead (``make_ahead=False``): the foul menu, never opened, is made at the
    tap, after the 3 went down; the first frame it is drawn in shows the 3 gone, not the rack of the app's start."""
    started(screen, table)
    table.play(*BREAK_POCKETING_3)
    screen.wait_for(lambda: screen.text("push_out") == "PUSH OUT ALLOWED", "the break's ruling")  # the shot over
    assert screen.balls() == [1, 2, 4, 5, 6, 7, 8, 9]
    manager = screen.app.manager
    assert not manager.made("fouls") and manager.has_screen("fouls")
    first_drawn: list[list[int]] = []

    def flipped(*_args) -> None:
        if manager.current == "fouls" and not first_drawn:
            first_drawn.append(screen.balls("off_table", "fouls"))

    screen.window.bind(on_flip=flipped)
    try:
        screen.tap_id("fouls")
        screen.wait_for(lambda: first_drawn, "a frame with the foul menu")
    finally:
        screen.window.unbind(on_flip=flipped)
    assert first_drawn == [OFF_TABLE_AFTER_THE_3]
    assert manager.made("fouls") and screen.balls("off_table") == OFF_TABLE_AFTER_THE_3


def test_a_screen_asked_for_by_name_is_made_and_an_unknown_name_is_still_refused(screen):
    """``get_screen``, as the tests and the app's answers use it, makes the screen; a name no screen has is
    Kivy's error, as before."""
    from kivy.uix.screenmanager import ScreenManagerException

    manager = screen.app.manager
    assert not manager.made("results")
    assert manager.get_screen("results").name == "results" and manager.made("results")
    assert manager.get_screen("results") is manager.get_screen("results")
    assert not manager.has_screen("lobby")
    with pytest.raises(ScreenManagerException, match="lobby"):
        manager.get_screen("lobby")

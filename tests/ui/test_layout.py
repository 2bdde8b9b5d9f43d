"""The screens' layout (scoreboard/ui/screens/*.kv, kv/): what a player reads from 3 m, measured at 800x480 and
1920x1080 with 20-character names in English and Croatian, and nothing hidden under the message bar.

The cap heights are measured on the widgets of the screens the screenshots are taken of (``cap_height``: an
``H`` rendered at the widget's own font, size and weight, its inked rows counted) and written beside the
screenshots as ``readable-cap-heights-WxH.txt`` (``scripts/screenshots.sh`` writes them into docs/screenshots/).
The goals (issue 33, 7), in pixels at 800x480 and scaled with the window (``app.u``): the shooter's name in the
panel, BALL IN HAND (with the shot clock running too), the scores and the rack summary's score at least 28; the
ruling at least 18, cut short with "…" rather than set smaller, whole on "Why?".
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.live import ANA_BEN
from tests.ui.test_app import BAD_HIT, LEGAL_BREAK, LONG_NAMES, NINE_ON_THE_BREAK, Wall, started
from tests.ui.touchscreen import Touchscreen, cap_height, screenshot_folder

READ_FROM_3_M = 28
"""Cap height in pixels at 800x480: the shooter's name, BALL IN HAND, the scores."""
RULING = 18
"""Cap height in pixels at 800x480: the ruling, however long."""


@pytest.fixture(params=["en", "hr"])
def language(request):
    return request.param


@pytest.fixture
def daemon_config(language):
    """``devetka run`` at a table speaking ``language``, PIN 0000."""
    return f'[ui]\npin = "0000"\n[table]\nlanguage = "{language}"\n'


class Measured:
    """The cap heights measured on one window, by what a player reads; written beside the screenshots."""

    def __init__(self, screen: Touchscreen, language: str) -> None:
        self.screen, self.language = screen, language
        self.heights: dict[str, int] = {}
        self.least: dict[str, float] = {}

    def shot(self, name: str) -> Path:
        """The screen shown as docs/screenshots/[hr/]NAME-WxH.png: nothing on it cut."""
        path = self.screen.screenshot(f"{'hr/' if self.language == 'hr' else ''}{name}")
        assert self.screen.cut() == [], name
        return path

    def read(self, what: str, label, least: int) -> None:
        """``label``'s cap height, to be at least ``least`` px at 800x480 (scaled with the window)."""
        assert self.screen.visible(label), what
        self.record(what, cap_height(label), least)

    def record(self, what: str, height: int, least: int) -> None:
        self.heights[what] = height
        self.least[what] = least * self.screen.app.u

    def too_small(self) -> dict[str, tuple[int, float]]:
        return {what: (height, self.least[what]) for what, height in self.heights.items()
                if height < self.least[what]}

    def write(self) -> None:
        width, height = self.screen.window.size
        folder = screenshot_folder() / ("hr" if self.language == "hr" else "")
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"{what}: {px} px (goal {self.least[what]:g})" for what, px in self.heights.items()]
        (folder / f"readable-cap-heights-{width}x{height}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def inked_rows(png: Path, widget, ink: str, paper: str) -> int:
    """The rows of the screenshot, inside ``widget``, holding a pixel nearer the text's colour ``ink`` than the
    ``paper`` under it: for a line in capitals with no accents (BALL IN HAND, BIJELA U RUCI), its cap height as
    drawn (round letters, C and U, overshoot it by about a pixel a side)."""
    from PIL import Image

    from scoreboard.ui.widgets import hex_rgba

    ink_rgb, paper_rgb = ([round(c * 255) for c in hex_rgba(colour)[:3]] for colour in (ink, paper))
    half = math.dist(ink_rgb, paper_rgb) / 2
    (left, bottom), (right, top) = widget.to_window(widget.x, widget.y), widget.to_window(widget.right, widget.top)
    with Image.open(png) as image:
        box = image.convert("RGB").crop((int(left), image.height - int(top), int(right), image.height - int(bottom)))
        data = box.tobytes()
    pixels = [data[i:i + 3] for i in range(0, len(data), 3)]
    rows = {i // box.width for i, pixel in enumerate(pixels) if math.dist(pixel, ink_rgb) < half}
    return max(rows) - min(rows) + 1 if rows else 0


def shooters_panel(screen: Touchscreen):
    """The ids of the panel of the player to shoot."""
    (index,) = [i for i, side in enumerate(screen.app.view.players) if side.shooting]
    return screen.widget(f"player{index}", "live").ids


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)], ids=["800x480", "1920x1080"])
def test_screenshots_of_what_a_player_reads_from_3_m_measured_with_20_character_names(screen, table, size, language):
    """Issue 33, 7: with 20-character names at 800x480 the panel names were 18 px, BALL IN HAND 23 px with the clock
    running, the ruling 8 px on a reopened shot and 9 px on an APA rack summary."""
    screen.wait_for(lambda: tuple(screen.window.size) == size, f"a {size[0]}x{size[1]} window")
    ana, ben = LONG_NAMES
    measured = Measured(screen, language)

    table.play({"cmd": "new_match", "match_start": dict(ANA_BEN, players=LONG_NAMES)})
    screen.wait_for(lambda: screen.current == "live" and shooters_panel(screen).name.text == ana, "the match")
    table.play(*LEGAL_BREAK, *BAD_HIT, *BAD_HIT, *BAD_HIT, *BAD_HIT)
    screen.wait_for(lambda: screen.text("warning") and screen.app.view.ball_in_hand, "the 5.13 banner, ball in hand")
    shooter = shooters_panel(screen)
    assert shooter.name.text == ben
    measured.shot("readable-two-fouls")
    measured.read("two fouls: the shooter's name", shooter.name, READ_FROM_3_M)
    measured.read("two fouls: BALL IN HAND", screen.widget("status"), READ_FROM_3_M)
    measured.read("two fouls: the 5.13 warning", screen.widget("warning"), READ_FROM_3_M)
    measured.read("two fouls: the shooter's score", shooter.score, READ_FROM_3_M)
    measured.read("two fouls: the other score", screen.widget("player0", "live").ids.score, READ_FROM_3_M)
    measured.read("two fouls: the ruling", screen.widget("ruling"), RULING)
    measured.read("two fouls: the 9's number", screen.ball(9, "balls")._label, READ_FROM_3_M)

    table.play({"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket"}, {"type": "settle"})
    screen.wait_for(lambda: screen.visible(screen.widget("pick", "live")), "the Which ball? button")
    screen.tap_id("undo")
    screen.tap_id("confirm")  # the settle taken back: the shot is open again, waiting for the players
    screen.wait_for(lambda: screen.current == "live" and screen.app.view.reopened_text, "the shot open again")
    ruling = screen.widget("ruling")
    measured.shot("readable-shot-reopened")
    measured.read("shot reopened: the ruling", ruling, RULING)
    assert ruling.text.endswith("…") and ruling.whole == screen.app.view.ruling_text  # no room: cut short
    assert ruling.text[:-1].rstrip(",.;:") in ruling.whole
    screen.tap(ruling)
    screen.wait_for(lambda: screen.current == "why", "Why?")
    assert screen.text("ruling") == ruling.whole
    measured.shot("readable-why-whole-ruling")
    screen.tap_id("back")

    table.play({"cmd": "new_match", "match_start": dict(ANA_BEN, players=LONG_NAMES, rules={"shot_clock": True})},
               *LEGAL_BREAK, *BAD_HIT)
    screen.wait_for(lambda: screen.current == "live" and screen.app.view.ball_in_hand and screen.app.clock_text,
                    "ball in hand with the shot clock running")
    Wall(screen).left(20)
    shooter = shooters_panel(screen)
    assert shooter.name.text == ana
    png = measured.shot("readable-shot-clock")
    measured.read("clock: the shooter's name", shooter.name, READ_FROM_3_M)
    ball_in_hand = screen.widget("status_more")
    measured.read("clock: BALL IN HAND", ball_in_hand, READ_FROM_3_M)
    assert ball_in_hand.text == screen.app.view.status_wrapped.split("\n")[-1]
    drawn = inked_rows(png, ball_in_hand, "#ffd400", "#0b0e12")  # the metric checked against the PNG's pixels
    measured.record("clock: BALL IN HAND, its inked rows in the PNG", drawn, READ_FROM_3_M)
    assert -1 <= drawn - measured.heights["clock: BALL IN HAND"] <= 2, drawn  # C and U overshoot H by 1 px a side
    measured.read("clock: the ruling", screen.widget("ruling"), RULING)

    table.play({"cmd": "new_match", "match_start": dict(ANA_BEN, players=LONG_NAMES, rules={"profile": "apa9"},
                                                        apa_skill=[3, 3])}, *NINE_ON_THE_BREAK)
    screen.wait_for(lambda: screen.current == "summary" and screen.text("stats"), "the APA rack summary")
    measured.shot("readable-apa-rack-summary")
    measured.read("APA rack summary: the score", screen.widget("score"), READ_FROM_3_M)
    measured.read("APA rack summary: the ruling", screen.widget("ruling"), RULING)

    measured.write()
    assert measured.too_small() == {}, measured.heights


@pytest.mark.parametrize("language", ["en"])
def test_the_message_bar_hides_no_button(screen, table):
    """A refusal's bar at the bottom covered the bottom row of buttons until tapped away: now the screen makes room
    for it, and the bottom button takes a finger while it shows."""
    started(screen, table)
    table.play(*LEGAL_BREAK, {"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 3},
               {"type": "cushion", "ball": 2})
    screen.wait_for(lambda: screen.widget("miss").off, "Miss served as not possible now")
    screen.tap_id("miss")
    bar = screen.widget("message")
    screen.wait_for(lambda: screen.app.message and screen.visible(bar), "the reason")
    screen.frames(2)
    shown = screen.app.manager.current_screen.walk(restrict=True)
    buttons = [w for w in shown if hasattr(w, "state") and screen.visible(w)]
    top = bar.to_window(bar.x, bar.top)[1]
    under = [w.text for w in buttons if w.to_window(w.x, w.y)[1] < top - 0.5]
    assert len(buttons) >= 6 and under == [], under
    screen.tap_id("more")  # the bottom button, with the bar still up
    screen.wait_for(lambda: screen.current == "more", "the more screen")

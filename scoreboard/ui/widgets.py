"""The widgets every screen draws with: a pool ball (to tap or not), a QR code, the buttons and labels whose words
always fit, a player's panel, the director's call, and the screen they stand on (``DevetkaScreen``).

Their looks are kv rules (``kv/common.kv``; a player's panel in the live screen's); this module holds what
draws by hand or behaves. Nothing here opens a window, and nothing knows the app: a widget that sends a request
reaches it as the kv files do, through ``App.get_running_app()``.
"""

from __future__ import annotations

import math
from typing import Any

from kivy.app import App
from kivy.graphics import Color, Ellipse, Line, Mesh, Rectangle
from kivy.graphics.texture import Texture
from kivy.properties import BooleanProperty, DictProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from scoreboard.ui.fit_text import FitLabel, FitText
from scoreboard.ui.touch import OnePress
from scoreboard.ui.viewmodel import Player, View


def hex_rgba(colour: str, alpha: float = 1.0) -> tuple[float, float, float, float]:
    """``#rrggbb`` as Kivy's RGBA floats.

    >>> hex_rgba("#ff8000")
    (1.0, 0.5019607843137255, 0.0, 1.0)
    """
    return int(colour[1:3], 16) / 255, int(colour[3:5], 16) / 255, int(colour[5:7], 16) / 255, alpha


class BallView(Widget):
    """A pool ball drawn in its colour (a stripe for 9-15), its number on a white disc, a ring if it is on.

    Its kv rule sizes it by the running app, so without one (a doctest in a process whose tests loaded the kv
    files) it is made without the rules:

    >>> BallView(number=9, colour="#f5c518", striped=True, **{"__no_builder": True}).number
    9
    """

    number = NumericProperty(0)
    colour = StringProperty("#f4f4f0")
    striped = BooleanProperty(False)
    on = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        self._label = Label(bold=True, color=(0, 0, 0, 1), halign="center", valign="middle")
        super().__init__(**kwargs)
        self.add_widget(self._label)
        self.bind(pos=self._draw, size=self._draw, number=self._draw, colour=self._draw, striped=self._draw,
                  on=self._draw)
        self._draw()

    def _draw(self, *_args: Any) -> None:
        diameter = min(self.width, self.height)
        ring = diameter * 0.06
        ball = diameter - 2 * ring
        cx, cy = self.center
        radius = ball / 2
        self.canvas.before.clear()
        with self.canvas.before:
            if self.on:
                Color(*hex_rgba("#ffffff"))
                Line(circle=(cx, cy, radius + ring / 2), width=max(1.5, ring * 0.45))
            if self.striped:
                Color(*hex_rgba("#f4f4f0"))
                Ellipse(pos=(cx - radius, cy - radius), size=(ball, ball))
                Color(*hex_rgba(self.colour))
                _band(cx, cy, radius)
            else:
                Color(*hex_rgba(self.colour))
                Ellipse(pos=(cx - radius, cy - radius), size=(ball, ball))
            Color(*hex_rgba("#9aa0a6"))  # an edge, so the 8 shows on the dark background
            Line(circle=(cx, cy, radius), width=max(1.0, diameter * 0.015))
            if self.number:  # a large disc: the 1 and the 9 are both yellow, the number tells them apart
                disc = ball * 0.74
                Color(*hex_rgba("#ffffff"))
                Ellipse(pos=(cx - disc / 2, cy - disc / 2), size=(disc, disc))
        self._label.text = str(self.number) if self.number else ""
        self._label.font_size = ball * 0.67
        self._label.center = self.center
        self._label.size = (ball, ball)
        self._label.text_size = (ball, ball)


class QrView(Widget):
    """A QR code (``scoreboard.ui.qr``: rows of modules, True dark), a whole number of pixels to a module and
    unsmoothed, so every module is as sharp on the glass as a phone's camera needs; nothing drawn without rows."""

    rows = ObjectProperty(())

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(pos=self._draw, size=self._draw, rows=self._draw)

    def _draw(self, *_args: Any) -> None:
        self.canvas.clear()
        count = len(self.rows)
        pixels = int(min(self.width, self.height) // count) if count else 0
        if not pixels:
            return
        texture = Texture.create(size=(count, count), colorfmt="rgba")
        dark, light = b"\x00\x00\x00\xff", b"\xff\xff\xff\xff"
        texture.blit_buffer(b"".join(dark if module else light for row in reversed(self.rows) for module in row),
                            colorfmt="rgba", bufferfmt="ubyte")  # a texture's first row is the bottom one
        texture.mag_filter = texture.min_filter = "nearest"
        side = count * pixels
        with self.canvas:
            Color(1, 1, 1, 1)
            Rectangle(texture=texture, size=(side, side),
                      pos=(round(self.center_x - side / 2), round(self.center_y - side / 2)))


class FitButton(OnePress, FitText, Button):
    """The screens' button: pressed once per finger (``OnePress``), its words always fitting (``FitText``)."""


class TapLabel(OnePress, ButtonBehavior, FitLabel):
    """Words a finger may tap, drawn as a label: the ruling, whose tap opens "Why?"."""



def _band(cx: float, cy: float, radius: float) -> Mesh:
    """The stripe: the part of the circle between -r/2 and r/2 in height, as a triangle fan."""
    points: list[tuple[float, float]] = []
    for start, end in ((-30, 30), (150, 210)):
        for step in range(13):
            angle = math.radians(start + (end - start) * step / 12)
            points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    vertices: list[float] = [cx, cy, 0, 0]
    for x, y in [*points, points[0]]:
        vertices += [x, y, 0, 0]
    return Mesh(vertices=vertices, indices=list(range(len(vertices) // 4)), mode="triangle_fan")


class BallButton(OnePress, ButtonBehavior, BallView):
    """A ball to tap (the ball picker, a ball off the table); ``request`` is what the tap sends.

    Its kv rule (BallView's) sizes it by the running app, so without one it is made without the rules:

    >>> BallButton(number=3, request={"type": "identify", "ball": 3}, **{"__no_builder": True}).request["ball"]
    3
    """

    request = DictProperty()


class PlayerPanel(BoxLayout):
    """One player's name and racks won; the shooter's panel lights up.

    Its kv rule sizes it by the running app, so without one it is made without the rules (as ``BallView``):

    >>> PlayerPanel(index=1, **{"__no_builder": True}).side.name
    ''
    """

    index = NumericProperty(0)
    side = ObjectProperty(Player("", "", False, 0), rebind=True)


class CallPanel(BoxLayout):
    """The director's call over the screen (kv/root.kv): a touch on it is its own, never the screen's under it."""

    def on_touch_down(self, touch: Any) -> bool:
        if self.opacity and self.collide_point(*touch.pos):
            super().on_touch_down(touch)
            return True
        return False


class DevetkaScreen(Screen):
    """A screen of the app; the ones with widgets made from the state redraw them in ``show``.

    >>> DevetkaScreen(name="more").name
    'more'
    """

    def show(self, current: View) -> None:
        """Redraw what depends on the state (the balls); labels bind to ``app.view`` in the kv files."""


def stand_in_row(row: Widget, button: Widget, shown: bool, index: int) -> None:
    """A button that stands in its row at ``index`` only while it applies, out of it (no gap left) otherwise."""
    if shown and button.parent is None:
        row.add_widget(button, index=index)
    elif not shown and button.parent is not None:
        row.remove_widget(button)


def fill_balls(box: Widget, balls: list[tuple[Any, dict[str, Any] | None]]) -> None:
    """Put these balls in ``box`` (buttons where a request is given), reusing what is there when unchanged."""
    wanted = [(b.number, b.on, request) for b, request in balls]
    if getattr(box, "_shown", None) == wanted:
        return
    box._shown = wanted
    box.clear_widgets()
    for b, request in balls:
        if request is None:
            box.add_widget(BallView(number=b.number, colour=b.colour, striped=b.striped, on=b.on))
        else:
            box.add_widget(BallButton(number=b.number, colour=b.colour, striped=b.striped, on=b.on,
                                      request=request, on_release=lambda w: App.get_running_app().send(w.request)))


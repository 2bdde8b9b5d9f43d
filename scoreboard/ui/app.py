"""The Kivy app of ``devetka ui``: it keeps the latest state's ``View`` and the API client, shows the screen the
state calls for, and sends what a tap asks.

The screens live in ``screens/``, one room each (``NAME.kv``, and ``NAME.py`` where the screen has behaviour of
its own); the widgets they draw with in ``widgets.py`` (text that fits in ``fit_text.py``, the one-press guards in
``touch.py``); the shared looks, the on-screen keyboard and the window's root in ``kv/``. Every handler runs on
Kivy's main thread: the client hands its messages over with ``Clock.schedule_once``.

Importing this module opens no window (no ``kivy.core.window`` import here),
so the doctests run anywhere; ``DevetkaApp.build`` does the rest.

>>> DevetkaApp(socket_path="/tmp/none.sock").screen_names[:3]
('live', 'choice', 'fouls')
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.factory import Factory
from kivy.graphics import Color, Rectangle
from kivy.lang import Builder
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import NoTransition, Screen
from kivy.uix.widget import Widget

from scoreboard.adapters.local_api.client import ApiClient
from scoreboard.contract.read import Unreadable, given, read_answer, read_state
from scoreboard.contract.records import Answer, Refusal, State
from scoreboard.core.messages import from_json, render

# The widget modules and the screens' are imported for the classes the kv rules name (a widget class registers
# with Kivy's Factory as it is defined), not for a name used here.
from scoreboard.ui import fit_text, touch, widgets  # noqa: F401
from scoreboard.ui.client import kivy_deliver
from scoreboard.ui.language import LAST_LANGUAGE_FILE, LastLanguage, tr
from scoreboard.ui.screens import (  # noqa: F401
    abandon,
    choice,
    fouls,
    live,
    picker,
    results,
    settings,
    setup,
    summary,
    why,
)
from scoreboard.ui.screens_on_demand import ScreensOnDemand
from scoreboard.ui.sound import Cues, Speaker
from scoreboard.ui.viewmodel import Button, View, next_screen, stats_text, view
from scoreboard.ui.widgets import hex_rgba

KV_DIR = Path(__file__).with_name("kv")
SCREENS_DIR = Path(__file__).with_name("screens")
#: The design size: the official 7" Pi touchscreen. Everything scales with the window from it.
BASE_SIZE = (800, 480)
MESSAGE_SECONDS = 8.0
#: The buttons that open a screen rather than send a request, and the screen each opens.
SCREEN_OF = {"fouls": "fouls", "pick": "picker", "more": "more", "new_match": "setup", "settings": "settings",
             "undo": "undo", "call_foul": "fouls", "name_ball": "picker", "off_table": "fouls",
             "undo_shot": "take_back", "why": "why"}
#: The screens where a ruling is put right (a foul called, a ball named, an undo): the shot clock stands still
#: while one is open (``clock_pause``; the daemon lapses a pause a screen never ends, docs/rules.md).
CORRECTING = frozenset({"fouls", "picker", "undo", "take_back"})

#: How often the shot clock's face is drawn again from the served deadline.
CLOCK_TICK_S = 0.1
#: A tap waits this long at most for the daemon's answer before the frame that shows it is drawn: a frame
#: drawn at once would show only the button let go, and the answer one frame later (on llvmpipe under load a
#: frame is 40-160 ms). An answer later than this is shown when it comes, as before.
ANSWER_WAIT_S = 0.05


@dataclass(frozen=True)
class Unanswered:
    """A request with no answer of the daemon's to go by: the client's own failure (the referee never answered)
    or an answer that does not fit the contract (its field named); ``words`` in the language shown."""

    words: str


#: A request's answer as the screens take it: taken (the state it led to), refused (its code), or neither.
Heard = Answer | Refusal | Unanswered


def readable(state: dict[str, Any] | None) -> State | None:
    """A served state as the contract's record; None before one is heard and for one that does not fit (the view
    names its field over every screen: ``viewmodel.unreadable``)."""
    try:
        return None if state is None else read_state(state)
    except Unreadable:
        return None


class _NoCutBuffer(logging.Filter):
    """Drops Kivy's CRITICAL "no Cutbuffer provider" (xclip or xsel missing) and its tracebacks."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "valuable Cutbuffer provider" not in record.getMessage()


def load_clipboard_quietly() -> None:
    """Load Kivy's clipboard (every text field needs it) without the CRITICAL it logs at start on a machine
    without xclip or xsel: those give the X cut buffer (middle-click paste), which no one uses on a
    touchscreen; copy and paste go through SDL2 (``KIVY_CLIPBOARD`` in ``devetka ui``'s environment)."""
    from kivy.logger import Logger

    quiet = _NoCutBuffer()
    Logger.addFilter(quiet)
    try:
        import kivy.core.clipboard  # noqa: F401
    finally:
        Logger.removeFilter(quiet)


class DevetkaApp(App):
    """The touchscreen: keeps the latest state's ``View``, switches screens, sends taps through the client.

    >>> app = DevetkaApp(socket_path="/tmp/none.sock")
    >>> app.view.connected, app.u
    (False, 1.0)
    """

    view = ObjectProperty(view(None), rebind=True)
    stats = StringProperty("")
    """The summary's counts, asked of the daemon (``{"cmd": "stats"}``) whenever the summary shown or its state
    changes: always those of the rack or match on the screen."""
    conceding = NumericProperty(0)
    """The player whose Concede button opened the confirm screen."""
    typing_into = ObjectProperty(None, allownone=True)
    """The text field the on-screen keyboard types into (None: the keyboard is hidden)."""
    shift = BooleanProperty(False)
    note = StringProperty("")
    """A word on the live screen from whoever started the app (``devetka ui --note``): the demo's "SIMULATED"."""
    message = StringProperty("")
    """The last refusal or failure, in the daemon's words, until the next tap or a few seconds."""
    view_language = StringProperty("en")
    """The language the screens speak now (``tr.language``): the daemon's, or the setup screen's choice."""
    u = NumericProperty(1.0)
    """One design pixel (of 800x480) in window pixels: every size in the kv files is a multiple of it."""
    clock_text = StringProperty("")
    """The shot clock's face: the seconds left in the turn, "TIME", or "" with no turn timed."""
    clock_phase = StringProperty("")
    """Its colour: "" (plenty of time), "warn" (from the warning, 10 s), "late" (the last 5 s), "out"."""
    screen_names = ("live", "choice", "fouls", "picker", "undo", "take_back", "more", "concede", "setup", "summary",
                    "results", "settings", "why", "abandon")
    title = "Devetka"

    def __init__(self, socket_path: str, config: Any = None, note: str = "", wall: Any = time.time,
                 splash: bool = False, touch_clock: Any = time.time, last_language: Path | None = None,
                 make_ahead: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        from kivy import kivy_home_dir

        self.last_language = LastLanguage(last_language or Path(kivy_home_dir) / LAST_LANGUAGE_FILE)
        """The language the daemon last served, kept in Kivy's home: spoken before it is heard again."""
        self.kept_language = self.last_language.read()
        self.note = note
        self.wall = wall
        """The wall clock the shot clock counts down on (the daemon serves its deadline on the same one)."""
        self.touch_clock = touch_clock
        """The clock touches are stamped on, which the one-press guards measure with (``touch_time``)."""
        self.splash = splash
        """Draw a first frame as soon as the window opens (``devetka ui``; the tests build into a window of theirs)."""
        self.make_ahead = make_ahead
        """Once the first state is shown, make the screens not shown yet, one a frame (``ScreensOnDemand``), so a
        player's first tap on one finds it built. The touchscreen tests turn it off: a screen they open is made
        then, and what they see never depends on how far the making got."""
        self._make_event: Any = None
        from scoreboard.config.table import Config

        self.socket_path = socket_path
        self.table_config = config if config is not None else Config()
        self.state: dict[str, Any] | None = None
        """The latest state as served (the JSON object, decoded): what ``view`` draws; ``served`` is it read."""
        self._served: tuple[dict[str, Any] | None, State | None] = (None, None)
        self.dismissed: set[Any] = set()
        self.client: ApiClient | None = None
        self.manager: ScreensOnDemand | None = None
        self._message_event = None
        self._shown: View | None = None
        self._stats_for: tuple[Any, ...] | None = None
        self._clock_event: Any = None
        self.cues = Cues()
        """Which shot clock tone is due (``scoreboard.ui.sound``): from the served deadline, each once."""
        self.speaker = Speaker()
        """Plays them, where the Pi has a sound device and the daemon's ``[ui] sound`` is on."""
        self.chosen_language: str | None = None
        """The setup screen's language button, while it is shown: the screens speak it before the match does."""
        self.linked = True
        """False once the client says the daemon cannot be reached (until it can again)."""
        self.clock_paused = False
        """This screen stood the shot clock still for the correction screen open (``CORRECTING``)."""
        self.view = self._view(None)

    def build(self) -> Widget:
        from kivy.core.window import Window

        if self.splash:
            self._draw_splash(Window)
        load_clipboard_quietly()

        kv_files = [KV_DIR / "common.kv", *(SCREENS_DIR / f"{name}.kv" for name in self.screen_names),
                    KV_DIR / "keyboard.kv", KV_DIR / "root.kv"]
        for path in map(str, kv_files):
            if path not in Builder.files:  # rules loaded twice would build every widget twice
                Builder.load_file(path)
        root = Factory.DevetkaRoot()
        self.manager = root.ids.manager
        self.manager.transition = NoTransition()
        self.manager.bind(on_made=self._made)
        self.manager.bind(current=lambda *_args: root.screen_changed())
        self.manager.bind(current=lambda *_args: self.type_into(None))
        self.manager.bind(current=lambda *_args: self._pause_while_correcting())
        Window.clearcolor = hex_rgba("#0b0e12")
        Window.bind(size=self._resized)
        self._resized(Window, Window.size)
        self.manager.current = next_screen("live", self.view, self.dismissed)
        self._clock_event = Clock.schedule_interval(self.count_down, CLOCK_TICK_S)
        return root

    def _draw_splash(self, window: Any) -> None:
        """One frame drawn before the first screen is built: the window opens black until the first frame, and
        Kivy's start and that build are slow on a Pi; players see the scoreboard starting instead.

        Drawn with bare instructions: a widget's kv canvas would not be laid out before the event loop runs."""
        from kivy.core.text import Label as CoreLabel

        u = min(window.width / BASE_SIZE[0], window.height / BASE_SIZE[1])
        window.clearcolor = hex_rgba("#0b0e12")
        lines = [("Devetka", 72, "#ffd400"), ("Starting the scoreboard…", 30, "#ffffff")]
        if self.note:
            lines.append((self.note, 30, "#ff9100"))
        textures = []
        for text, size, colour in lines:
            label = CoreLabel(text=text, font_size=size * u, bold=True, color=hex_rgba(colour))
            label.refresh()
            textures.append(label.texture)
        splash = Widget(size=window.size)
        y = (window.height + sum(texture.height for texture in textures)) / 2
        with splash.canvas:
            Color(1, 1, 1, 1)
            for texture in textures:
                y -= texture.height
                Rectangle(texture=texture, size=texture.size, pos=(round((window.width - texture.width) / 2), round(y)))
        window.add_widget(splash)
        window.dispatch("on_draw")
        window.flip()
        window.remove_widget(splash)
        print("devetka ui: window open, starting", file=sys.__stderr__, flush=True)

    def on_start(self) -> None:
        self.connect()

    def connect(self) -> None:
        """Start the API client (its thread reconnects by itself until ``on_stop``)."""
        self.client = ApiClient(self.socket_path, on_state=self.on_state, on_answer=self.on_answer,
                                on_connected=self.on_connected, deliver=kivy_deliver)
        self.client.start()

    def on_stop(self) -> None:
        for event in (self._clock_event, self._message_event, self._make_event):  # nothing of it runs after it
            if event is not None:
                event.cancel()
        tr.forget()
        if self.client is not None:
            self.client.stop()
        if self.manager is not None:
            from kivy.core.window import Window

            Window.unbind(size=self._resized)

    def _resized(self, _window: Any, size: tuple[int, int]) -> None:
        self.u = min(size[0] / BASE_SIZE[0], size[1] / BASE_SIZE[1])

    # What the daemon says.

    @property
    def served(self) -> State | None:
        """The latest state as the contract's record (``readable``), read once per state."""
        state, record = self._served
        if state is not self.state:
            record = readable(self.state)
            self._served = (self.state, record)
        return record

    def spoken(self) -> str:
        """The language to speak: the setup screen's choice, else the daemon's (the match's or the table's), else
        before the daemon is heard the one it last served (``LastLanguage``), else the config's."""
        served = self.served
        return (self.chosen_language or (served.language if served is not None else None) or self.kept_language
                or self.table_config.table.language)

    def _view(self, state: dict[str, Any] | None, connected: bool = True) -> View:
        """The view of ``state`` in the language spoken; the kv files' own words switch with it (``tr``)."""
        language = self.spoken()
        tr.switch(language)
        self.view_language = tr.language
        return view(state, connected=connected, language=language)

    def speak(self, language: str | None) -> None:
        """Speak ``language`` until told otherwise (None: the daemon's again); the screen shown stays."""
        self.chosen_language = language
        self.view = self._shown = self._view(self.state, connected=self.linked)
        for screen in self.manager.screens if self.manager is not None else ():
            screen.show(self.view)

    def heard(self, answer: dict[str, Any]) -> Heard:
        """An answer as the client hands it over, read: the daemon's as the contract's ``Answer`` or ``Refusal``;
        the client's own failure (its ``message``: the referee never answered) or an answer that does not fit,
        ``Unanswered`` with its words in the language shown."""
        try:
            return read_answer(answer)
        except Unreadable as error:
            if "message" in answer and "code" not in answer:  # ApiClient's own: no code, words as messages
                return Unanswered(render(from_json(answer["message"]), tr.catalog))
            return Unanswered(tr._("The referee's answer cannot be shown: {error}").format(error=error))

    @staticmethod
    def words_of(heard: Refusal | Unanswered) -> str:
        """A refusal in the players' language: the daemon's ``words``, else its English ``error``."""
        if isinstance(heard, Refusal):
            return heard.words or heard.error
        return heard.words

    def _took(self, answer: dict[str, Any]) -> None:
        """The state a taken answer led to, as served, is the latest: its broadcast follows, the same state."""
        self.state = answer["state"]

    def on_state(self, state: dict[str, Any]) -> None:
        first = self.state is None
        self.state = state
        served = self.served
        self.last_language.keep(served.language if served is not None else None)
        self._show(self._view(state))
        if first and self.manager is not None:
            self._say_when_drawn()
            if self.make_ahead:
                self._make_event = Clock.schedule_once(self._make_next)

    def _make_next(self, *_args: Any) -> None:
        """Make one screen not made yet, then the next at the next frame: none holds a frame up for long."""
        self._make_event = None
        if self.manager is not None and self.manager.make_next() is not None:
            self._make_event = Clock.schedule_once(self._make_next)

    def _made(self, _manager: Any, screen: Screen) -> None:
        """A screen made late shows the state shown now, before it is drawn: never a stale or an empty face."""
        screen.show(self.view)

    def _say_when_drawn(self) -> None:
        """Say on stderr when the first state is on the glass: the UI is up (what its cold start is timed to)."""
        from kivy.core.window import Window

        def drawn(*_args: Any) -> None:
            Window.unbind(on_flip=drawn)
            served = self.served
            match = served.match_id if served is not None else None
            print(f"devetka ui: showing the referee's state (match {match})", file=sys.__stderr__, flush=True)

        Window.bind(on_flip=drawn)

    def on_connected(self, connected: bool) -> None:
        word = "connected to" if connected else "no referee on"
        print(f"devetka ui: {word} {self.socket_path}", file=sys.__stderr__, flush=True)  # Kivy may wrap stderr
        self.linked = connected
        if not connected:
            self._show(self._view(None, connected=False))
        elif self.state is not None:
            self._show(self._view(self.state))

    def on_answer(self, answer: dict[str, Any]) -> None:
        request: dict[str, Any] = answer.get("request") or {}  # the client's: the request this answers, as sent
        command = request.get("cmd")
        heard, manager = self.heard(answer), self.manager
        if command == "clock_pause":  # the clock's matter: no screen changes, and a refusal is nothing to show
            self.clock_paused = isinstance(heard, Answer) and request.get("on") is True
            if isinstance(heard, Answer):
                self._took(answer)
                self._show(self._view(self.state))
            return
        if manager is None:  # answered before the screens were built: the state's broadcast follows
            return
        if command == "pin":
            manager.get_screen("settings").answered_pin(heard)
            return
        if command in ("settings", "restart") and not isinstance(heard, Answer):
            manager.get_screen("settings").refused(heard)
            return
        if command == "restart":
            self.say(tr._("Restarting devetka…"))
            return
        if command == "results" and manager.current == "setup":
            manager.get_screen("setup").offer_resume(heard)
            return
        if command in ("results", "result"):
            manager.get_screen("results").answered(request, heard)
            return
        if not isinstance(heard, Answer):
            self.say(self.words_of(heard))
            return
        self.say("")
        if request == {"cmd": "names"}:
            manager.get_screen("setup").known = given(heard.state.names) or []
            return
        if request == {"cmd": "stats"}:
            served = self.served
            if served is not None and heard.state.seq == served.seq:  # else a newer state has asked again
                self.stats = stats_text(given(heard.state.stats), heard.state.players,
                                        heard.state.match_winner is not None, tr.language)
            return
        if command == "settings":
            self._took(answer)  # a language changed here is spoken from this answer on
            self._show(self._view(self.state))
            manager.get_screen("settings").saved(heard, request)
            return
        self._took(answer)
        if manager.current not in ("live", "choice", "summary"):
            manager.current = "live"
        self._show(self._view(self.state))

    def _show(self, current: View) -> None:
        before, self.view = self._shown, current
        self._shown = current
        if current.connected:
            self._sound(self.cues.ruled(current.time_foul))
        self.count_down()
        if self.manager is None:
            return
        for screen in list(self.manager.screens):  # those made: one made later is shown the view then
            screen.show(current)
        self.manager.current = next_screen(self.manager.current, current, self.dismissed, before)
        self._ask_stats()

    def count_down(self, *_args: Any) -> None:
        """The shot clock's face from the served deadline and the wall clock: the state never ticks, the screen
        does (a few times a second, so the seconds change on time)."""
        face = self.view.shot_clock
        now_ms = self.wall() * 1000
        text, phase = face.at(now_ms) if face is not None else ("", "")
        text = tr._(text) if text else text  # "TIME" in the players' language; the seconds as they are
        if text != self.clock_text:
            self.clock_text = text
        if phase != self.clock_phase:
            self.clock_phase = phase
        if face is not None and self.view.sound and self.manager is not None:
            self.speaker.ready()  # a timed turn is on: open the sound device now, not at its first tone
        self._sound(self.cues.at(face, now_ms))

    def _sound(self, name: str | None) -> None:
        """Play a shot clock tone the cues call for, if the daemon's sound setting is on."""
        if name is not None and self.view.sound and self.manager is not None:
            self.speaker.play(name)

    def _ask_stats(self) -> None:
        """The summary's counts for the summary and state shown, asked again whenever either changes."""
        if self.manager is None or self.manager.current != "summary" or self.view.summary is None:
            self._stats_for = None
            return
        served = self.served
        shown = (self.view.summary.key, served.seq if served is not None else None)
        if shown != self._stats_for:
            self._stats_for = shown
            self.stats = ""
            self.send({"cmd": "stats"})

    # What a tap does.

    def tap(self, name: str) -> None:
        """A button of the view model: send its request, or open the screen it stands for."""
        button = self.view.buttons.get(name) if self.view is not None else None
        if button is not None and not button.enabled:
            self.say(tr._(button.why) if button.why else tr._("not now"))
            return
        if name in SCREEN_OF:
            self.go(SCREEN_OF[name])
            return
        if name in ("concede0", "concede1"):
            self.conceding = int(name[-1])
            self.go("concede")
            return
        self.tap_request(name)

    def send_foul(self, index: int) -> None:
        self.press(self.view.foul(index))

    def press(self, button: Button) -> None:
        """A button of the view: its request sent, or, if the daemon says it cannot be tapped now, why not."""
        if not button.enabled:
            self.say(tr._(button.why) if button.why else tr._("not now"))
        elif button.request is not None:
            self.send(button.request)

    def confirm_undo(self) -> None:
        self.tap_request("undo")

    def confirm_undo_shot(self) -> None:
        self.tap_request("undo_shot")

    def tap_request(self, name: str) -> None:
        self.press(self.view.buttons[name])

    def send(self, request: dict[str, Any]) -> None:
        """Send a tap's request; its answer, usually back within a few ms, is shown before the next frame."""
        if self.client is None:
            self.say(tr._("not connected to the referee (devetka run)"))
            return
        sent = self.client.send(request, wait_s=ANSWER_WAIT_S)
        if "ok" in sent:  # the answer, or why the request could not be sent
            self.on_answer(sent)

    def _pause_while_correcting(self) -> None:
        """The shot clock stands still while a correction screen is open, and runs again once it closes: asked
        only while a turn is timed and running, so the daemon has nothing to refuse."""
        correcting = self.manager is not None and self.manager.current in CORRECTING
        face = self.view.shot_clock
        if correcting and not self.clock_paused and face is not None and face.deadline_ms is not None \
                and not face.proposed:
            self.send({"cmd": "clock_pause", "on": True})
        elif not correcting and self.clock_paused:
            self.clock_paused = False
            self.send({"cmd": "clock_pause", "on": False})

    def go(self, name: str) -> None:
        """Open a screen; ``live`` means whichever screen the state calls for."""
        assert self.manager is not None, "a tap before the screens were built"
        self.say("")
        if name == "live":
            self.manager.current = next_screen("live", self.view, self.dismissed)
        else:
            self.manager.current = name
        self._ask_stats()

    # The on-screen keyboard (kv/keyboard.kv): a touchscreen-only table has no other.

    def type_into(self, field: Any, focused: bool = True) -> None:
        """Show the keyboard for a field that took focus; hide it when the field lets go (or ``None``)."""
        if field is not None and focused:
            self.typing_into = field
        elif field is None or field is self.typing_into:
            if self.typing_into is not None and self.typing_into.focus:
                self.typing_into.focus = False
            self.typing_into = None

    def key(self, key: str) -> None:
        """A key of the on-screen keyboard: a letter (upper case after Shift), Shift, Delete, Space or Done."""
        field = self.typing_into
        if field is None:
            return
        if key == "Shift":
            self.shift = not self.shift
        elif key == "Done":
            self.type_into(None)
        elif key == "Delete":
            if field.selection_text:
                field.delete_selection()
            else:
                field.do_backspace()
        else:
            if field.selection_text:
                field.delete_selection()
            field.insert_text(" " if key == "Space" else key.upper() if self.shift else key)
            self.shift = False

    def leaving(self, request: dict[str, Any]) -> None:
        """A new match or another resumed: sent at once, unless the match on the table is not over; then the
        players are asked first, the match named by its score (``screens/abandon.kv``)."""
        if self.view.abandon_text:
            assert self.manager is not None, "a tap before the screens were built"
            self.manager.get_screen("abandon").waiting = request
            self.go("abandon")
        else:
            self.send(request)

    def say(self, text: str) -> None:
        """Show a refusal or failure for a few seconds (an empty text clears it)."""
        self.message = text
        if self._message_event is not None:
            self._message_event.cancel()
            self._message_event = None
        if text:
            self._message_event = Clock.schedule_once(lambda _dt: self.say(""), MESSAGE_SECONDS)


def run(socket_path: str, config: Any = None, size: tuple[int, int] | None = None, fullscreen: bool = False,
        note: str = "") -> int:
    """Open the window and run the app until it is closed; returns the exit status.

    Kivy's environment (``command.KIVY_ENV``) must be set before this module is imported.
    """
    from kivy.config import Config as KivyConfig

    if size is not None:
        KivyConfig.set("graphics", "width", str(size[0]))
        KivyConfig.set("graphics", "height", str(size[1]))
    if fullscreen:
        KivyConfig.set("graphics", "fullscreen", "auto")
    KivyConfig.set("kivy", "exit_on_escape", "0")
    DevetkaApp(socket_path=socket_path, config=config, note=note, splash=True).run()
    return 0

"""``devetka demo``: a simulated table plays a match through the real daemon, its sensors and its API.

Nothing is short-cut: ``SimulatedTable`` decides what happens at the table, and
the ``Conductor`` reports each input the way a real table would. The
microcontroller's sensors (pockets, cushions) are frames written by the
``firmware_bridge`` simulator on a pseudo-terminal, read by the daemon's serial
source; the cue-strike sensor is a gpiozero mock pin pulsed high, read by the
daemon's GPIO source; the camera's ``first_contact`` and the players' taps go
over the local API, as the touchscreen sends them. Nobody sends ``settle``: the
daemon's settle timer ends each shot when the table has been quiet, its time
compressed by ``--speed`` like everything else.

The conductor waits for each input to be applied before it sends the next one,
and checks after each that the daemon serves the state the simulated table's
own fold reached: a demo that ends with exit status 0 refereed the match the
simulation played.

The simulated table runs on the same machine as the daemon, so a starved
machine starves it too: a real table's ball hits the cushion on time, the
simulated one's only when its thread runs again. Were the daemon's settle timer
to go by the clock alone, it would end a shot whose next input was due inside
the quiet period but not yet sent (at ``--speed 10`` the quiet period is 0.4 s:
one stall of the table's thread that long is enough). So the table tells the
daemon how far its time has come (``TableWord``, a way in that says how far it
has been heard): once every input it sent is applied, it promises nothing
before its next input is due, and the settle timer counts quiet only up to
there. The daemon's own clock, and its check, stay as they are.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import orjson

from scoreboard.adapters.local_api.client import ApiClient
from scoreboard.core.inputs import (
    Cushion,
    Input,
    InputError,
    MatchStart,
    Pocket,
    RuleOptions,
    Settle,
    Strike,
    Undo,
    players_of,
    to_json,
)
from scoreboard.core.match import Match
from scoreboard.core.output import state_line
from scoreboard.i18n.environment import _, ngettext, said
from scoreboard.sensing.interface import Emit, Heard
from scoreboard.sim.children import end
from scoreboard.sim.table import Sensors, SimulatedTable

STRIKE_PIN = 17
STRIKE_PULSE = 0.005  # seconds the strike line is held high: above the glitch filter's min_pulse_ms
STRIKE_SPACING = 0.3  # seconds between strikes at least: the strike line's lockout is 250 ms
SETTLE_FLOOR = 0.3  # the settle timer is never compressed below this: a shot's inputs must arrive inside it
APPLY_TIMEOUT = 10.0  # seconds the daemon may take to apply one input before the demo gives up
SCREEN_TIMEOUT = 30.0  # seconds the touchscreen may take to come up (Kivy's cold start is 1-3 s)
#: Seconds a rack's or the match's summary stays on the touchscreen before the simulated players rack and break
#: (or the demo closes the window), whatever --speed: a person reads it (a title, the score, four counts and the
#: ruling, some 40 words) at a person's pace.
SUMMARY_S = 10.0


class DemoFailed(Exception):
    """The daemon did not referee what the simulated table played; the message says where."""


@dataclass(frozen=True)
class DemoOptions:
    """What ``devetka demo`` was asked for."""

    racks: int | None = None
    seed: int = 1
    speed: float = 1.0
    table: str = "demo"
    store: str | None = None
    race: tuple[int, int] = (3, 3)
    players: tuple[str, str] = ("Ana", "Ben")
    broker: tuple[str, int] | None = None
    """The MQTT broker the daemon publishes to; None: no MQTT."""
    hold: bool = False
    """Once played, keep the table's daemon serving until SIGINT or SIGTERM (``devetka venue-demo``'s tables)."""
    summary_s: float = 0.0
    """Seconds a won rack's summary stays before the next rack is played (``SUMMARY_S`` with a touchscreen)."""

    @property
    def settle_after(self) -> float:
        """The daemon's settle time: the usual 4 s, compressed by ``speed`` down to ``SETTLE_FLOOR``."""
        return max(4.0 / self.speed, SETTLE_FLOOR)


def demo_table(options: DemoOptions) -> SimulatedTable:
    """The simulated table of the demo: strike and rail sensors, a camera, pocket sensors that name most balls."""
    return SimulatedTable(seed=options.seed, players=options.players, race=options.race,
                          rules=RuleOptions(rails_sensed=True, strike_sensed=True),
                          sensors=Sensors(ball_ids=0.8, camera=True))


# --- the terminal view ----------------------------------------------------------------------------------


class TerminalView:
    """The match as lines of text, from the states the daemon serves: what ``--headless`` prints.

    ``show(state)`` returns the lines that state adds (often none: a state with
    no new ruling adds nothing).

    >>> view = TerminalView()
    >>> state = {"players": ["Ana", "Ben"], "race": [3, 3], "score": [0, 0], "rack": 1, "match_winner": None,
    ...          "on_table": [2, 3, 4, 5, 6, 7, 8, 9], "shooter": 0, "rack_mode": False, "warning": False,
    ...          "last_verdict": {"rack": 1, "shot": 1, "words": "Legal break (5.4) by Ana: the 1 down."}}
    >>> print("\\n".join(view.show(state)))
    rack 1 shot 1    Ana 0 : 0 Ben   (race to 3)   left: 2 3 4 5 6 7 8 9
        Legal break (5.4) by Ana: the 1 down.
    >>> view.show(state)
    []
    """

    def __init__(self) -> None:
        self._verdict: tuple | None = None
        self._rack_mode = False
        self._winner: int | None = None
        self._links_down: frozenset[str] = frozenset()

    def show(self, state: dict[str, Any]) -> list[str]:
        lines: list[str] = []
        players = state.get("players")
        if not players:
            return lines
        verdict = state.get("last_verdict")
        key = None if verdict is None else (verdict.get("rack"), verdict.get("shot"), verdict.get("words"))
        if key is not None and key != self._verdict:
            if self._verdict is not None and key[:2] == self._verdict[:2]:
                self._verdict = key
                lines.append(f"    ruling changed: {verdict['words']}")
                return lines + self._after(state)
            self._verdict = key
            lines.append(f"rack {verdict['rack']} shot {verdict['shot']:<3}  {self.score(state)}   "
                         f"left: {' '.join(str(ball) for ball in state['on_table']) or '-'}")
            lines.append(f"    {verdict['words']}")
        return lines + self._after(state)

    def _after(self, state: dict[str, Any]) -> list[str]:
        """Racking begun, a sensor link down or back (what the touchscreen's sensors button shows in red), the
        match won: said once each."""
        lines = []
        players = state["players"]
        down = frozenset(f"{report.get('source')}: {report.get('detail', report.get('status'))}"
                         for report in state.get("health") or ()
                         if report.get("subject") == "link" and report.get("status") in ("offline", "fault"))
        lines.extend(f"    (sensor link down: {link})" for link in sorted(down - self._links_down))
        if self._links_down and not down:
            lines.append("    (sensor link back)")
        self._links_down = down
        if state.get("rack_mode") and not self._rack_mode:
            lines.append("    (racking: the pocket sensors are off until the next strike)")
        self._rack_mode = bool(state.get("rack_mode"))
        winner = state.get("match_winner")
        if winner is not None and winner != self._winner:
            score = state["score"]
            # The score in the players' order, as the ruling's words give it: never "0-3" there and "3-0" here.
            lines.append(f"{players[winner]} wins the match {score[0]}-{score[1]}.")
        self._winner = winner
        return lines

    @staticmethod
    def score(state: dict[str, Any]) -> str:
        (ana, ben), (won_a, won_b) = state["players"], state["score"]
        race = state["race"]
        race_text = f"race to {race[0]}" if race[0] == race[1] else f"race {race[0]}/{race[1]}"
        return f"{ana} {won_a} : {won_b} {ben}   ({race_text})"


# --- a client of the local API ---------------------------------------------------------------------------


# --- the conductor ---------------------------------------------------------------------------------------


def _stored(match: Match, item: Input) -> bool:
    """Apply ``item`` to the shadow ``match``; True if the daemon stores it (as ``Referee._apply`` decides)."""
    before, applied = match.state, match.applied_count
    match.apply(item)
    return not (match.state is before and match.applied_count == applied and not isinstance(item, Undo))


def _served(state: dict[str, Any]) -> dict[str, Any]:
    """The fields of the replay state line in a state the daemon served."""
    line = state_line(None)
    return {key: state.get(key) for key in line}


class TableWord:
    """The simulated table as a way in of the daemon (a source): it tells how far the table's time has come.

    ``promise(t)`` says the table sends nothing before ``t`` (``time.monotonic``, the daemon's clock) and that
    everything it sent is applied; the daemon's settle timer counts quiet only up to there
    (``scoreboard.sensing.interface.Heard``).
    """

    SOURCE = "sim"

    def __init__(self) -> None:
        self._emit: Emit | None = None

    def start(self, emit: Emit) -> None:
        self._emit = emit

    def set_rack_mode(self, on: bool) -> None:
        """Rack mode is the sensors' business: the table's word on its time is the same."""

    def close(self) -> None:
        self._emit = None

    def promise(self, t: float) -> None:
        emit = self._emit
        if emit is not None:
            emit(Heard(self.SOURCE, t))


class Conductor:
    """Plays a simulated table's inputs into the real daemon, one at a time, each checked once applied.

    ``mcu`` is the microcontroller simulator (``firmware_bridge.simulator.PtyMcu``)
    the daemon's serial source reads; ``strike_pin`` a gpiozero mock pin the GPIO
    source watches; ``api`` a client of the local API; ``word`` the table's word
    on its time to the daemon (``TableWord``), on ``time.monotonic``, which is
    also the pace the inputs are sent at. Call ``play`` from one thread.
    """

    def __init__(self, api: ApiClient, mcu, strike_pin, speed: float, word: TableWord | None = None,
                 summary_s: float = 0.0):
        self.api = api
        self.word = word if word is not None else TableWord()
        self.summary_s = summary_s
        """Real seconds between a rack won and the next rack's first input at the least (its summary is read)."""
        self.mcu = mcu
        self.strike_pin = strike_pin
        self.speed = speed
        self.clock = time.monotonic
        self.seq = 0
        self.match: Match | None = None
        self._last_strike = float("-inf")

    def play(self, log: Iterable[Input], racks: int | None = None,
             started: Callable[[], None] = lambda: None) -> dict[str, Any]:
        """Play ``log`` (``match_start`` first) until ``racks`` racks are over or the match is won; ``started`` is
        called once the daemon has begun the match (the touchscreen opens then: on the match, not on the setup
        screen of a table with none).

        Returns the last state the daemon served; raises ``DemoFailed`` where it went wrong.
        """
        try:
            return self._play(log, racks, started)
        finally:
            self.word.promise(math.inf)  # the table plays no more: nothing of it holds a settle back

    def _play(self, log: Iterable[Input], racks: int | None, started: Callable[[], None]) -> dict[str, Any]:
        items = iter(log)
        start = next(items)
        if not isinstance(start, MatchStart):
            raise DemoFailed("a simulated log begins with its match_start")
        answer = self.api.ask({"cmd": "new_match", "match_start": _untimed(start)})
        if not answer["ok"]:
            raise DemoFailed(f"the daemon refused the new match: {answer['error']}")
        self.match = Match(start)
        self.seq = 0
        started()
        if not self.mcu.wait_for_host(APPLY_TIMEOUT):
            raise DemoFailed(f"the daemon's serial source never pinged the microcontroller within {APPLY_TIMEOUT:g} s")
        last_t, last_sent = start.t or 0.0, self.clock()
        read_until = float("-inf")  # a won rack's summary is on the screen until then
        settled = True  # every input sent is applied: the table may promise how long it stays quiet
        for number, item in enumerate(items, start=1):
            state = self.match.state
            in_shot = state.shot is not None
            gap = 0.0 if (in_shot and not isinstance(item, _SENSED)) else max(0.0, (item.t or 0.0) - last_t)
            last_t = item.t if item.t is not None else last_t
            rack = state.table.rack
            stored = _stored(self.match, item)
            if stored:
                self.seq += 1
            if isinstance(item, Settle):
                self.word.promise(math.inf)  # quiet until the daemon's settle timer ends the shot
                self._await_applied(item, number)
                settled = True
            else:
                due = max(last_sent + gap / self.speed, read_until)
                if settled:
                    self.word.promise(due)
                self._idle_until(due)
                self._send(item)
                last_sent = self.clock()
                if stored:
                    self._await_applied(item, number)
                # A tap is answered once applied; a sensor input that changes nothing is never confirmed.
                settled = stored or not isinstance(item, _SENSED)
            table = self.match.state.table
            if table.match_winner is not None or (racks is not None and table.rack - 1 >= racks):
                break
            if table.rack != rack:
                read_until = self.clock() + self.summary_s
                answer = self.api.ask({"cmd": "rack_mode", "on": True})
                if not answer["ok"]:
                    raise DemoFailed(f"the daemon refused rack mode: {answer['error']}")
        return self.api.state

    # --- the table's ways in -------------------------------------------------------------------------

    def _send(self, item: Input) -> None:
        kind = type(item)
        if kind is Strike:
            self._idle_until(self._last_strike + STRIKE_SPACING)
            self.strike_pin.drive_high()
            self._idle_until(self.clock() + STRIKE_PULSE)
            self.strike_pin.drive_low()
            self._last_strike = self.clock()
        elif kind is Pocket or kind is Cushion:
            if kind is Pocket:
                self._await_armed()
            self.mcu.send(self.mcu.mcu.play(item))
        else:
            answer = self.api.ask(_untimed(item))
            if not answer["ok"]:
                raise DemoFailed(f"the daemon refused the simulated {item.TYPE}: {answer['error']}")

    def _await_armed(self) -> None:
        """After racking, the daemon re-arms the microcontroller at the break; a pocket before that is lost."""
        deadline = self.clock() + APPLY_TIMEOUT
        while not self.mcu.mcu.armed:
            if self.clock() >= deadline:
                raise DemoFailed("the daemon did not re-arm the microcontroller's pockets after the break")
            self.mcu.idle(self.clock() + 0.01)

    def _await_applied(self, item: Input, number: int) -> None:
        """Serve the microcontroller until the daemon has applied ``item``; then check the state it serves."""
        seq = self.seq
        timeout = APPLY_TIMEOUT + (4.0 / self.speed if isinstance(item, Settle) else 0.0)
        deadline = self.clock() + timeout
        while not self.api.wait_for(lambda state: state.get("seq", 0) >= seq, 0):
            if self.clock() >= deadline:
                what = "end the shot (its settle timer)" if isinstance(item, Settle) else f"apply the {item.TYPE}"
                raise DemoFailed(f"input {number}: the daemon did not {what} within {timeout:g} s")
            self.mcu.idle(self.clock() + 0.005)
        served = self.api.state
        if served.get("seq") != seq:
            raise DemoFailed(f"input {number} ({item.TYPE}): the daemon is at seq {served.get('seq')}, "
                             f"the simulated table at {seq}")
        expected = state_line(self.match.state)
        if _served(served) != expected:
            differ = sorted(key for key in expected if served.get(key) != expected[key])
            raise DemoFailed(f"input {number} ({item.TYPE}): the daemon's state differs from the simulated "
                             f"table's in {', '.join(differ)}")

    def _idle_until(self, when: float) -> None:
        """Wait until ``when``, answering the daemon's serial link meanwhile (heartbeats, pings)."""
        while self.clock() < when:
            self.mcu.idle(min(when, self.clock() + 0.05))


_SENSED = (Strike, Pocket, Cushion)


def _untimed(item: Input) -> dict[str, Any]:
    """The input as the table would send it now: the daemon stamps its own time."""
    raw = to_json(item)
    raw.pop("t", None)
    return raw


# --- the command -----------------------------------------------------------------------------------------


def demo_config(options: DemoOptions, folder: str, store: str, link: str):
    """The daemon's config for the demo: the serial bridge on ``link``, the strike sensor on a GPIO pin."""
    from scoreboard.config.table import parse

    config = parse(f"""
[table]
id = {orjson.dumps(options.table).decode()}
[store]
path = {orjson.dumps(store).decode()}
[api]
socket = {orjson.dumps(os.path.join(folder, "api.sock")).decode()}
[shots]
settle_after_s = {options.settle_after!r}
[sensors.serial]
port = {orjson.dumps(link).decode()}
rails = true
[sensors.gpio]
strike = {STRIKE_PIN}
""" + ("" if options.broker is None else f"""
[mqtt]
host = {orjson.dumps(options.broker[0]).decode()}
port = {options.broker[1]}
"""))
    return config


class Touchscreen:
    """``devetka ui`` beside the demo, a process of its own on the daemon's socket; what it says goes to stderr.

    ``shown`` is set once it draws the referee's state: the screen is up.
    """

    UP = "devetka ui: showing the referee's state"

    def __init__(self, socket_path: str) -> None:
        from scoreboard.sim.touchscreen import start_ui

        env = dict(os.environ, KIVY_NO_CONSOLELOG="1")  # Kivy's chatter off; its errors and ours still come
        self.process = start_ui(socket_path, env=env, note="SIMULATED", stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)  # a simulated table, marked as one on the screen
        self.shown = threading.Event()
        threading.Thread(target=self._relay, name="demo touchscreen", daemon=True).start()

    def _relay(self) -> None:
        for raw in self.process.stderr:
            line = raw.decode(errors="replace")
            if line.startswith(self.UP):
                self.shown.set()
            sys.stderr.write(line)
            sys.stderr.flush()

    def close(self) -> None:
        """Close the window (SIGTERM; SIGKILL if it lingers)."""
        end(self.process, 10)


def play(options: DemoOptions, out: Callable[[str], None] = print, screen: bool = False,
         log: Iterable[Input] | None = None) -> dict[str, Any]:
    """Run the daemon in this process and the simulated table beside it; the last state served.

    ``log`` is what the table plays, ``match_start`` first (default: ``demo_table(options)``'s match); it is
    read one input at a time, as each is due.

    With ``screen`` the touchscreen (``devetka ui``) shows the match too, each rack's
    summary stays ``options.summary_s`` seconds before the next rack, and the last
    screen ``SUMMARY_S`` seconds (or until its window is closed). Raises ``DemoFailed``
    when the daemon did not referee what was played.
    """
    from gpiozero.pins.mock import MockFactory

    from firmware_bridge.simulator import PtyMcu
    from firmware_bridge.source import SerialSource
    from hardware.sensors import GpioSource
    from scoreboard.daemon.serve import serve

    with tempfile.TemporaryDirectory(prefix="devetka-demo-") as folder:
        store = options.store or os.path.join(folder, "demo.sqlite3")
        link = os.path.join(folder, "mcu")
        mcu = PtyMcu(link, boot_id=options.seed & 0xFFFFFFFF)
        config = demo_config(options, folder, store, link)
        factory = MockFactory()
        word = TableWord()
        sources = [SerialSource(link), GpioSource.from_config(config.sensors, pin_factory=factory), word]
        strike_pin = factory.pin(STRIKE_PIN)
        strike_pin.drive_low()  # the sensor at rest (after the pull-up, which drives a mock pin high)
        outcome: dict[str, Any] = {}
        view = TerminalView()

        def show(state: dict[str, Any]) -> None:
            for line in view.show(state):
                out(line)

        def conduct(server) -> None:
            loop = asyncio.get_running_loop()

            def run() -> None:
                api = None
                screens: list[Touchscreen] = []

                def open_screen() -> None:
                    """The touchscreen, once the match is begun: its first frame with a state is the match."""
                    if not screen:
                        return
                    screens.append(Touchscreen(config.api.socket))
                    if serving(mcu, screens[0].shown.is_set, SCREEN_TIMEOUT):
                        out("devetka demo: the touchscreen shows the match")
                    else:
                        out(f"devetka demo: the touchscreen did not come up within {SCREEN_TIMEOUT:g} s: "
                            "playing on without it")

                try:
                    api = ApiClient(config.api.socket, on_state=show)
                    api.start()
                    if not api.wait_for(lambda state: True, APPLY_TIMEOUT):
                        raise DemoFailed(f"the daemon's local API did not answer within {APPLY_TIMEOUT:g} s")
                    conductor = Conductor(api, mcu, strike_pin, options.speed, word, summary_s=options.summary_s)
                    played = log if log is not None else demo_table(options).play_match()
                    outcome["state"] = conductor.play(played, options.racks, started=open_screen)
                    if screens and screens[0].process.poll() is None:
                        out(f"devetka demo: the last screen stays up {SUMMARY_S:g} s (or until its window is closed)")
                        # the summary, or the last ruling, is read; a player who closed the window is done
                        serving(mcu, lambda: screens[0].process.poll() is not None, SUMMARY_S)
                except BaseException as error:  # reported by play(), after the daemon has stopped cleanly
                    outcome["error"] = error
                finally:
                    closing = threading.Thread(target=lambda: [touchscreen.close() for touchscreen in screens],
                                               name="demo screens closing")
                    closing.start()  # its window goes while the link is still served: no red at the end either
                    serving(mcu, lambda: not closing.is_alive(), APPLY_TIMEOUT)
                    closing.join()
                    if api is not None:
                        api.stop()
                    outcome["finished"] = True
                    if options.hold and "error" not in outcome:
                        out(f"{HELD}: the daemon serves on until SIGINT or SIGTERM")
                    else:
                        loop.call_soon_threadsafe(server.stop)

            threading.Thread(target=run, name="demo table", daemon=True).start()

        try:
            status = asyncio.run(serve(config, sources, on_serving=conduct))
        finally:
            mcu.close()
        if status != 0:
            raise DemoFailed("the daemon could not start")
        if "finished" not in outcome:
            raise KeyboardInterrupt  # SIGINT or SIGTERM stopped the daemon before the table was done
        if "error" in outcome:
            raise outcome["error"]
        return outcome["state"]


def serving(mcu: Any, done: Callable[[], bool], timeout: float) -> bool:
    """Wait up to ``timeout`` s for ``done``, the simulated microcontroller answering the daemon meanwhile (its
    heartbeats): a real one never stops, and one left unserved while the demo waits (for the touchscreen's window
    to come up, or on the last screen) showed the players a red "Sensor link down: serial" (issue 33). True once
    ``done``."""
    deadline = mcu.clock() + timeout
    while not done():
        if mcu.clock() >= deadline:
            return False
        mcu.idle(min(deadline, mcu.clock() + 0.05))
    return True


HELD = "devetka demo: played"
"""The line a held demo prints once its table has played (``devetka venue-demo`` waits for it)."""


def player_pair(text: str) -> tuple[str, str]:
    """``NAME,NAME`` as the two players, checked as a match start checks them.

    >>> player_pair("Ana,Ben")
    ('Ana', 'Ben')
    """
    try:
        return players_of(text.split(","))
    except InputError as error:
        raise argparse.ArgumentTypeError(_("--players takes NAME,NAME: {error}").format(
            error=said(error.message))) from None


def broker_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT`` for an IPv6 address) as a pair; ``ValueError`` saying what is wrong.

    >>> broker_address("localhost:1883"), broker_address("[::1]:8883")
    (('localhost', 1883), ('::1', 8883))
    """
    host, colon, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(_("--broker takes HOST:PORT, e.g. localhost:1883, not {text}").format(text=repr(text)))
    return host, int(port)


def run(args: argparse.Namespace) -> int:
    """``devetka demo``: 0 after the racks or the match were played and refereed, 1 if not, 2 for bad options."""
    if not args.speed > 0:
        print(_("devetka demo: --speed must be above 0"), file=sys.stderr)
        return 2
    if args.racks is not None and args.racks < 1:
        print(_("devetka demo: --racks must be at least 1"), file=sys.stderr)
        return 2
    try:
        broker = broker_address(args.broker) if args.broker is not None else None
    except ValueError as error:
        print(f"devetka demo: {error}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        if broker is None and not args.no_mqtt:
            broker = _private_broker(stack)
        options = DemoOptions(racks=args.racks, seed=args.seed, speed=args.speed, table=args.table,
                              store=args.store, broker=broker, hold=args.hold, players=args.players)
        return _run(options, args.headless)


def _private_broker(stack: contextlib.ExitStack) -> tuple[str, int] | None:
    """A Mosquitto of the demo's own when one is installed (stopped at exit), else None, saying so."""
    from scoreboard.sim.broker import BrokerError, PrivateBroker

    if not PrivateBroker.available():
        print(_("devetka demo: mosquitto is not installed: running without MQTT"), flush=True)
        return None
    try:
        broker = stack.enter_context(PrivateBroker())
    except BrokerError as error:
        print(_("devetka demo: could not start a Mosquitto of its own, running without MQTT: {error}").format(
            error=error), flush=True)
        return None
    return broker.host, broker.port


def has_display(environ: dict[str, str] | None = None) -> bool:
    """Is there a screen for the touchscreen's window (X11 or Wayland)?

    >>> has_display({"DISPLAY": ":0"}), has_display({})
    (True, False)
    """
    environ = os.environ if environ is None else environ
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def _run(options: DemoOptions, headless: bool) -> int:
    store = options.store or _("a temporary store (removed at exit; --store FILE keeps it)")
    length = ngettext("{n} rack", "{n} racks", options.racks).format(n=options.racks) if options.racks \
        else _("the whole match")
    print(_("devetka demo: table {table}, {player0} v {player1}, race to {race}, {length}, seed {seed}, {speed}x "
            "speed; {store}").format(table=repr(options.table), player0=options.players[0],
                                     player1=options.players[1], race=options.race[0], length=length,
                                     seed=options.seed, speed=f"{options.speed:g}", store=store), flush=True)
    if options.broker is not None:
        host, port = options.broker
        print(f"devetka demo: MQTT on {host}:{port}: mosquitto_sub -h {host} -p {port} -t "
              f"'devetka/{options.table}/#' -v", flush=True)
    screen = not headless and has_display()
    if not headless and not screen:
        print(_("devetka demo: no display (DISPLAY is not set): the match is shown here, not on the touchscreen"),
              flush=True)

    def out(line: str) -> None:
        print(line, flush=True)

    if screen:
        options = replace(options, summary_s=SUMMARY_S)
    try:
        state = play(options, out, screen=screen)
    except DemoFailed as error:
        print(f"devetka demo: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(_("devetka demo: stopped before the end"), file=sys.stderr)
        return 130
    racks = state["rack"] - 1 if state["match_winner"] is None else sum(state["score"])
    kept = _(" in {store}: devetka export --store {store} | devetka replay -").format(store=options.store) \
        if options.store else ""
    print(ngettext("devetka demo: {n} rack refereed, {inputs} inputs stored (match {match}){kept}",
                   "devetka demo: {n} racks refereed, {inputs} inputs stored (match {match}){kept}", racks).format(
        n=racks, inputs=state["seq"], match=state["match_id"], kept=kept), flush=True)
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``demo`` to the ``devetka`` command."""
    dm = commands.add_parser("demo", help=_("a simulated table plays a match through the real daemon"),
                             description=_("A simulated table plays nine-ball through the real daemon: the "
                                           "microcontroller simulator on a pseudo-terminal, a mock GPIO strike "
                                           "sensor, taps on the local API. Exit 0 once it is refereed."))
    dm.add_argument("--headless", action="store_true", help=_("no touchscreen: the match as text in this terminal"))
    dm.add_argument("--racks", type=int, metavar="N",
                    help=_("stop after N racks (default: the whole match, race to 3)"))
    dm.add_argument("--seed", type=int, default=1, metavar="S", help=_("which match is played (default 1)"))
    dm.add_argument("--speed", type=float, default=1.0, metavar="X",
                    help=_("time runs X times faster, the settle timer's included (default 1: real time)"))
    dm.add_argument("--table", default="demo", metavar="ID", help=_("the table's id (default 'demo')"))
    dm.add_argument("--players", type=player_pair, default=("Ana", "Ben"), metavar="NAME,NAME",
                    help=_("the two players (default Ana,Ben)"))
    dm.add_argument("--store", metavar="FILE", help=_("keep the match in this store (default: a temporary one)"))
    dm.add_argument("--broker", metavar="HOST:PORT",
                    help=_("publish over MQTT to this broker (default: a Mosquitto of the demo's own, if installed)"))
    dm.add_argument("--no-mqtt", action="store_true", help=_("no MQTT at all"))
    dm.add_argument("--hold", action="store_true",
                    help=_("once played, keep the daemon serving (and publishing) until SIGINT or SIGTERM"))
    dm.set_defaults(run=run)


__all__ = ["Conductor", "DemoFailed", "DemoOptions", "TableWord", "TerminalView", "Touchscreen", "has_display", "play",
           "register"]

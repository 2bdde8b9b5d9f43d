"""The referee core of the daemon: one Match, one Store, and the requests that move them.

No socket and no event loop here: ``Referee.handle`` takes one decoded request
and returns a ``Reply``, so the rules of the daemon (store before answering,
a rejected input changes nothing) are tested in-process; ``scoreboard.adapters.local_api.server``
carries requests and broadcasts over the Unix socket.

An input is applied to the match first (that is the check), then committed to
the store; only after the commit is it answered as accepted. If the commit
fails, the match is folded again from the store, so the state served never
holds an input the store lacks.

>>> import tempfile
>>> referee = Referee.open(tempfile.mkdtemp() + "/devetka.db")
>>> referee.handle({"cmd": "new_match", "match_start": {
...     "type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0}}).ok
True
>>> referee.handle({"type": "pass"}).error
'pass without a push out to answer (5.6)'
>>> referee.handle({"type": "strike"}).state["seq"]
1
>>> referee.close()
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any, TypeVar, cast

from scoreboard.config.table import MatchConfig
from scoreboard.contract import present
from scoreboard.contract.present import served
from scoreboard.contract.records import State
from scoreboard.core import profiles
from scoreboard.core.actions import actions, refused
from scoreboard.core.inputs import (
    Extension,
    Input,
    InputError,
    MatchStart,
    ShotClock,
    Strike,
    Undo,
    UndoShot,
    parse,
    to_json,
)
from scoreboard.core.match import Match
from scoreboard.core.messages import Arg, Catalog, Message, msg, render
from scoreboard.core.messages import to_json as message_json
from scoreboard.core.output import state_line
from scoreboard.core.rules import RuleError, Step
from scoreboard.core.rules.words import shot_named
from scoreboard.core.settle import DEFAULT_SETTLE_AFTER, SettleTimer
from scoreboard.core.stats import counts
from scoreboard.i18n.catalog import catalog
from scoreboard.referee import calls
from scoreboard.referee.reply import Reply, StaleReply, is_code
from scoreboard.referee.results import board_link, event_link, night, result_texts
from scoreboard.referee.settings import Overrides
from scoreboard.referee.shot_clock import ShotClockTimer
from scoreboard.referee.store import Store, StoreError, WriteError
from scoreboard.sensing.interface import FencedSource, Health, Heard, Source

COMMANDS = ("call, call_decline, call_start, clock_pause, names, new_match, pin, rack_mode, restart, result, results, "
            "resume, settings, state, stats, withdraw")

#: The state's health entry of the store, there while it cannot write (a full disk, a read-only file).
STORE_HEALTH = ("store", "store")

NO_MATCH = msg("No match is being played: start one first.")
MATCH_OVER = msg("The match is over.")
NO_PIN = msg("no PIN is chosen yet: choose one (4 to 8 digits) with {command}, or [ui] pin in the config",
             command='{"cmd": "settings", "set": {"ui.pin": "..."}}')
WRONG_PIN = msg("wrong PIN")

T = TypeVar("T")


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _shot_taken_back(match: Match) -> dict[str, Any] | None:
    """What ``undo_shot`` takes back now: the shot (a message, put into words when served) and how many inputs;
    None before the first shot."""
    last = match.last_shot()
    if last is None:
        return None
    return {"shot": shot_named(last.verdict, last.in_progress), "inputs": len(last.inputs)}


def _said(served: dict[str, Any] | None, words: Catalog) -> dict[str, Any] | None:
    """A served dict whose ``shot`` is a message: its words in the players' language, and the message."""
    if served is None or "shot" not in served:
        return served
    shot = served["shot"]
    return dict(served, shot=render(shot, words), message=message_json(shot))


def refusal(message: Arg, words: Catalog, code: str = "invalid_input", **fields: Any) -> Reply:
    """A refused request: the error in English (the log's and the API's words) and in the players' language, and
    its ``code``."""
    assert is_code(code), code
    return Reply(False, error=render(message), words=render(message, words), code=code, **fields)


def _error_words(error: BaseException) -> Arg:
    """An error's words: its message where it has one (ours), else its own text (SQLite's, the system's)."""
    message = getattr(error, "message", None)
    return message if isinstance(message, Message | str) else str(error)


def _taking_back(match: Match, item: Input) -> dict[str, Any] | None:
    """What ``item`` will take back if it is an undo, for the screen to say once it is done."""
    kind = type(item)
    if kind is Undo:
        target = match.undo_target
        return None if target is None else {"type": "undo", "input": to_json(target)}
    if kind is UndoShot:
        shot = _shot_taken_back(match)
        return None if shot is None else {"type": "undo_shot", **shot}
    return None


class _Kept:
    """The values last made from their keys, made again when a key changes: ``kept(key, make)``. A key's parts
    are compared as a tuple compares them, so a verdict that is the same object costs no deep comparison."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[tuple[object, ...], Any]] = {}

    def __call__(self, key: tuple[str, *tuple[object, ...]], make: Callable[[], T]) -> T:
        name = key[0]
        kept = self._kept.get(name)
        if kept is not None and kept[0] == key:
            return cast(T, kept[1])
        value = make()
        self._kept[name] = (key, value)
        return value


def _profiles_offered(defaults: MatchConfig, sensed: dict[str, bool] | None) -> dict[str, dict[str, Any]]:
    """The rule profiles the setup screen may pick, each as the ``rules`` a ``new_match`` naming only it gets (the
    venue's options for what it leaves open, the table's sensors): only the venue's own when it locked it."""
    names = [defaults.profile] if defaults.locked and defaults.profile else list(profiles.PROFILES)
    return {name: profiles.compose({"profile": name}, profile=defaults.profile, written=defaults.written,
                                   locked=defaults.locked, sensed=sensed or _sensors_of(defaults)).to_json()
            for name in names}


def _fixed_offered(defaults: MatchConfig, offered: dict[str, Any]) -> dict[str, list[str]]:
    """Per profile offered, the game options a request may not change under it (the setup screen's switches
    that are not the players')."""
    return {name: profiles.fixes(name, defaults.written, defaults.locked) for name in offered}


def _sensors_of(defaults: MatchConfig) -> dict[str, bool]:
    return {option: getattr(defaults.rules, option) for option in profiles.SENSED}


class Referee:
    """Owns the current match and the store; the only writer of the store.

    ``seq`` is the store's number of the match's last stored input (0 right
    after its ``match_start``): it grows by one on every change, and a restart
    serves the same number, so ``(match_id, seq)`` names a state for good.
    """

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, settle_after: float = DEFAULT_SETTLE_AFTER,
                 hold_back: float = 0.0, defaults: MatchConfig | None = None, language: str = "en",
                 sound: bool = True, sensed: dict[str, bool] | None = None, table: str | None = None,
                 table_name: str | None = None, venue_url: str | None = None) -> None:
        self.store = store
        self.venue_url = venue_url
        """The venue board's address (``[venue] url``): a match's result is served with its page there (``board``)."""
        self.table_name = table_name
        """What the venue calls the table (``[table] name``, "Table 3 (TV)"), served as ``table_name``; None: its id."""
        self._started: tuple[int, str | None] | None = None
        """The current match's id and begin time, read once from the store (served as ``match_started``)."""
        self.language = language
        """The table's language (``[table] language``): the words served, unless the match chose its own."""
        self.sound = sound
        """The touchscreen's shot clock tones on or off (``[ui] sound``, a setting behind the PIN), served as
        ``sound``: the screen's setting, kept by the daemon with the others."""
        self.defaults = defaults if defaults is not None else MatchConfig()
        """The config's ``[match]``: what a ``new_match`` leaves out (players, race, rule options)."""
        self.table_sensed = sensed
        """The table's sensed switches (``rails_sensed``, ``strike_sensed``: ``Config.sensed``), every match's
        whatever the way in; None: not known here (a referee built without a config), taken from the request."""
        self.table = table
        """The table's id (``[table] id``), stamped on every ``match_start``; None: none known."""
        self.profiles = _profiles_offered(self.defaults, sensed)
        """The profiles the setup screen may pick, each the rules a ``new_match`` naming only it gets."""
        self.profile_fixes = _fixed_offered(self.defaults, self.profiles)
        """Per profile offered, the options a ``new_match`` may not change under it."""
        self.match_id: int | None = None
        self.match: Match | None = None
        self.seq = 0
        self._clock = clock
        self._base = clock()
        self._wall = wall
        self._epoch = wall() - self.now()
        """The wall clock's seconds at match time 0, taken again at each input: the shot clock's deadline is
        served on the wall clock (epoch ms), which other machines' screens share, but kept on the monotonic one."""
        self.timer = SettleTimer(settle_after, hold_back)
        """Turns a quiet table into a ``settle``: ``settle_if_due`` applies it (the event loop calls it)."""
        self.shot_clock = ShotClockTimer()
        """When the turn due now runs out (TR20): ``shot_clock_if_due`` acts on it (the event loop calls it)."""
        self.rack_mode = False
        self.calls = calls.TableCalls(wall)
        """The venue director's call offered here, and the calls answered (``scoreboard.referee.calls``)."""
        self.sources: list[Source] = []
        """The sensor sources, told when rack mode begins and ends (``devetka run`` fills it)."""
        self.stored: list[Callable[[int, Input, Step | None], None]] = []
        """Called with ``(seq, input, step)`` after each input is committed (MQTT's events); a match_start's
        step is None."""
        self.health: dict[tuple[str, str], dict[str, Any]] = {}
        """The last word of each sensor line and link on itself, served in the state."""
        self.sensors = {"gpio": False, "serial": False}
        """Which sensor sources the config turns on (``devetka run`` sets it), served in the state: with neither,
        the table is refereed from taps alone, and the screen must not say "Sensors OK"."""
        self.overrides: Overrides | None = None
        """The screen's settings over the config file (``scoreboard.referee.settings``); None: not kept here."""
        self._pin_chosen: bool | None = None
        """Whether a PIN is chosen, kept from the settings (read again after a change): served as ``pin_chosen``."""
        self.on_restart: Callable[[], None] | None = None
        """Stops the daemon for ``devetka run`` to start it again (``restart``); None: this daemon cannot."""
        self.resume_problem: str | None = None
        """Why the store's current match could not be resumed (then no match is served); None when it was."""
        self.taken_back: dict[str, Any] | None = None
        """What the last input took back, when it was an ``undo`` or ``undo_shot`` (served until the next change)."""
        self._moves = 0
        """Requests and reports taken so far: a reply's state built later than its own must refuse (``Reply``)."""
        self._said = _Kept()
        """The served ruling and undo in words, kept while their verdict and language stay: most inputs (a
        cushion, a pocket) leave the last ruling as it was, and saying it is a third of a state's words."""
        try:
            self._resume()
        except (StoreError, RuleError) as error:  # never a crash loop on a bad log: serve no match, say why
            self.match_id, self.match, self.seq = None, None, 0
            self.resume_problem = f"the current match in the store does not fold, so none is resumed: {error}"

    @classmethod
    def open(cls, store_path: str | os.PathLike[str], *, now: Callable[[], datetime | str] = _utc_now,
             **options: Any) -> Referee:
        """Open the store (a corrupt file is moved aside: see ``moved_aside``) and resume its current match.

        ``options``: ``clock``, ``settle_after`` and ``hold_back`` of the settle timer, and the
        match ``defaults``.
        """
        store = Store.open(store_path, now=now)
        try:
            return cls(store, **options)
        except BaseException:
            store.close()
            raise

    @property
    def moved_aside(self) -> str | None:
        """Where the store moved a corrupt file at open, with what was wrong; None when the file was sound."""
        if self.store.moved_aside is None:
            return None
        return f"{self.store.moved_aside} ({self.store.problem})"

    def _resume(self) -> None:
        """The current match as the fold of its stored log (a log that no longer folds raises)."""
        current = self.store.current_match()
        if current is None:
            self.match_id, self.match, self.seq = None, None, 0
            return
        match_id, log = current
        rules_version = self.store.rules_version(match_id)
        self.shot_clock = ShotClockTimer()
        self.match = Match.resume(log, rules_version, seen=self.shot_clock.seen_stored)
        self.match_id, self.seq = match_id, len(log) - 1
        self.calls.begun = self.store.call_begun(match_id) if self.match.match_start.call is not None else None
        self.taken_back = None
        if len(log) > 1 and type(log[-1]) in (Undo, UndoShot):  # the state is the fold of the log: so is this
            self.taken_back = _taking_back(Match.resume(log[:-1], rules_version), log[-1])
        last_t = max((item.t for item in log if item.t is not None), default=0.0)
        self._base = self._clock() - last_t  # the match's t goes on from where the log stopped
        self.timer.resumed(self.now(), self.match.state, log[-1])
        self._epoch = self._wall() - self.now()

    def now(self) -> float:
        """The match's time: seconds on a monotonic clock, going on across restarts from the stored log."""
        return self._clock() - self._base

    def sensed(self, item: Input) -> Reply:
        """A sensor source's input: its ``t`` (the same monotonic clock) moved onto the match's time."""
        self._moves += 1
        if item.t is not None:
            item = replace(item, t=item.t - self._base)
        return self._apply(item)

    def fence(self) -> None:
        """Ask every source that can to say how far it has been heard (its next ``Heard``)."""
        for source in self.sources:
            if isinstance(source, FencedSource):
                source.fence()

    def heard(self, report: Heard) -> None:
        """A way in has handed in everything up to ``report.t`` (the sources' monotonic clock): the settle timer
        counts quiet only up to there."""
        self.timer.heard(report.source, report.t - self._base)

    def health_report(self, report: Health) -> None:
        """Keep a source's word on itself (a line stuck, the link down) for the state."""
        self._moves += 1
        self.health[(report.source, report.subject)] = report.to_json()

    def settle_if_due(self) -> Reply | None:
        """Apply the settle timer's ``settle`` when the table has been quiet long enough; None when not due."""
        if self.match is None:
            return None
        item = self.timer.due(self.now())
        if item is None:
            return None
        self._moves += 1
        return self._apply(item)

    def shot_clock_if_due(self) -> Reply | None:
        """At the shot clock's deadline: the time foul applied (a strike sensor fitted) or proposed for a tap (the
        state says so); None when nothing is due."""
        if self.match is None:
            return None
        if self.shot_clock.lapsed(self.now()):
            self._moves += 1
            return Reply(True, self._served(), changed=True)  # the pause lapsed: every screen counts down again
        due = self.shot_clock.due(self.now())
        if due:
            self._moves += 1
        if isinstance(due, ShotClock):
            return self._apply(due)
        return Reply(True, self._served(), changed=True) if due else None

    def _refuse(self, message: Arg, code: str = "invalid_input", **fields: Any) -> Reply:
        """A refusal in the players' language now."""
        return refusal(message, self.words(), code, **fields)

    def handle(self, request: Any) -> Reply:
        """One request: a control command (``cmd``) or a match-log input; never raises for a bad request."""
        self._moves += 1
        if not isinstance(request, dict):
            return self._refuse(msg("a request must be a JSON object"))
        if "cmd" in request:
            return self._command(request)
        return self._input(request)

    def refuse_with(self, code: str, message: Arg, **fields: Any) -> Reply:
        """A refusal with its stable ``code``."""
        return self._refuse(message, code=code, **fields)

    def served(self, changed: bool = False) -> Reply:
        """The state now, for the calls' answers (``calls.py``), built when first read as every other reply's."""
        return Reply(True, self._served(), changed=changed)

    def new_match(self, match_start: Any, call: dict[str, Any] | None = None) -> Reply:
        """A match begun outside ``handle`` (a called match's Start or its break's strike, from ``call``)."""
        self._moves += 1
        return self._new_match(match_start, call)

    def _command(self, request: dict[str, Any]) -> Reply:
        cmd = request["cmd"]
        if cmd in calls.COMMANDS:
            return self.calls.handle(self, request)
        if cmd == "state":
            return Reply(True, self._served())
        if cmd == "new_match":
            return self._new_match(request.get("match_start"))
        if cmd == "rack_mode":
            return self._rack_mode(request.get("on"))
        if cmd == "clock_pause":
            return self._clock_pause(request.get("on"))
        if cmd == "names":
            return Reply(True, self.state(names=self.store.player_names()))
        if cmd == "stats":
            return Reply(True, self.state(stats=self.stats()))
        if cmd == "results":
            return Reply(True, self.state(results=night(self.store), event_page=None if self.venue_url is None
                                          else event_link(self.venue_url)))
        if cmd == "result":
            return self._result(request.get("match"))
        if cmd == "resume":
            return self._resume_match(request.get("match"))
        if cmd == "settings":
            return self._settings(request)
        if cmd == "pin":
            return self._check_pin(request.get("pin"))
        if cmd == "restart":
            return self._restart(request.get("pin"))
        if isinstance(cmd, str):
            return self._refuse(msg("unknown command {command} (known: {known})", command=repr(cmd), known=COMMANDS))
        return self._refuse(msg("cmd must be a string naming a command ({known})", known=COMMANDS))

    def _result(self, match_id: Any) -> Reply:
        """One stored match's result for the touchscreen's QR code: the text of ``devetka export --result`` and
        of its compact form (``scoreboard.referee.results``), and with ``[venue] url`` its page on the venue's board."""
        if type(match_id) is not int:
            return self._refuse(msg("result needs match: a stored match's id (a whole number), not {value}",
                                    value=repr(match_id)))
        try:
            texts = result_texts(self.store, match_id)
        except StoreError as error:
            return self._refuse(error.message)
        board = None if self.venue_url is None else board_link(self.venue_url, texts["compact"], self.spoken())
        return Reply(True, self.state(match=match_id, board=board, **texts))

    def _resume_match(self, match_id: Any) -> Reply:
        """Play on with an unfinished match stored here (one left when another was begun): it becomes the current
        match again, folded from its log; the match it replaces stays stored as it was."""
        if type(match_id) is not int:
            return self._refuse(msg("resume needs match: a stored match's id (a whole number), not {value}",
                                    value=repr(match_id)))
        if match_id == self.match_id:
            return self._refuse(msg("match {match} is the match being played", match=match_id), "not_now")
        try:
            resumed = Match.resume(self.store.log(match_id), self.store.rules_version(match_id))
        except StoreError as error:
            return self._refuse(error.message)
        except RuleError as error:
            return self._refuse(msg("match {match} cannot be resumed: its log does not fold ({error})",
                                    match=match_id, error=error.message))
        if resumed.state.table.match_winner is not None:
            return self._refuse(msg("match {match} is over: there is nothing to resume", match=match_id), "not_now")
        try:
            self.store.resume_match(match_id)
        except Exception as error:  # sqlite3 or the disk: the match stays as it was
            self._store_failed(error)
            return self._refuse(msg("the store could not resume the match: {error}", error=_error_words(error)),
                                "store_failed", changed=True)
        self._store_works()
        self._resume()
        return Reply(True, self._served(), changed=True)

    def _rack_mode(self, on: Any) -> Reply:
        """Players are racking: the sources drop pocket inputs until it ends (this command, or a strike)."""
        if not isinstance(on, bool):
            return self._refuse(msg("rack_mode needs on: true or false"))
        self.set_rack_mode(on)
        return Reply(True, self._served(), changed=True)

    def _clock_pause(self, on: Any) -> Reply:
        """The touchscreen is putting a ruling right (a foul called, a ball named, an undo): the shot clock stands
        still until it says so (``on: false``) or the pause lapses (``PAUSE_LAPSE_S``). A clock matter, not a rules
        input: nothing is stored and no ruling changes (docs/rules.md, "The shot clock")."""
        if not isinstance(on, bool):
            return self._refuse(msg("clock_pause needs on: true or false, not {value}", value=json.dumps(on)))
        if self.match is None:
            return self._refuse(msg("clock_pause: {problem}", problem=NO_MATCH), "not_now")
        now = self.now()
        timer = self.shot_clock
        timer.lapsed(now)
        if not on:
            return Reply(True, self._served(), changed=timer.resume(now))  # none to end: it lapsed, or a turn ended it
        if self.match.state.table.match_winner is not None:
            return self._refuse(msg("clock_pause: {problem}", problem=MATCH_OVER), "not_now")
        if not timer.running:
            return self._refuse(msg("clock_pause: no shot clock is running now (it is off, run out, or waits for the "
                                    "table to be quiet)"), "not_now")
        timer.pause(now)
        return Reply(True, self._served(), changed=True)

    def _settings(self, request: dict[str, Any]) -> Reply:
        """Read the settings, or check and store changes (all or none); the settle time, the table's language and
        the sound apply at once."""
        from scoreboard.config.table import ConfigError
        from scoreboard.referee.settings import LIVE

        if self.overrides is None:
            return self._refuse(msg("settings: this daemon keeps no settings file (started without a data directory)"),
                                "unavailable")
        changes = request.get("set")
        restart = False
        if changes is not None:
            no_pin = self._pin_refusal(request.get("pin"), changes)
            if no_pin is not None:
                return no_pin
            try:
                config = self.overrides.set(changes)
            except ConfigError as error:
                return self._refuse(msg("settings not saved: {problem}", problem=error.message))
            except OSError as error:
                return self._refuse(msg("settings not saved: {problem}", problem=msg(
                    "cannot write {path}: {error}", path=str(self.overrides.path), error=str(error))), "store_failed")
            self._pin_chosen = config.ui.pin is not None
            self.timer.settle_after = config.shots.settle_after_s
            self.language = config.table.language
            self.sound = config.ui.sound
            restart = any(key not in LIVE for key in changes)
        # a change is broadcast: every screen draws the served pin_chosen, language and sound as they now are
        return Reply(True, self.state(settings=self.overrides.shown(), restart=restart), changed=changes is not None)

    def _check_pin(self, pin: Any) -> Reply:
        """The touchscreen's keypad asks the daemon, which alone knows the PIN."""
        if self.overrides is None:
            return self._refuse(msg("pin: this daemon keeps no settings (started without a data directory)"),
                                "unavailable")
        current = self.overrides.pin()
        if current is None:
            return self._refuse(NO_PIN, "pin_not_chosen")
        if pin != current:
            return self._refuse(WRONG_PIN, "pin_wrong", wrong_pin=pin is not None)
        return Reply(True, self._served())

    def _restart(self, pin: Any) -> Reply:
        """Start the daemon again, behind the PIN: the settings saved that take effect only at a start (the table id,
        the broker, the sensors) then do, from the settings screen's Restart button. Answered before it stops."""
        if self.overrides is None:
            return self._refuse(msg("restart: this daemon keeps no settings (started without a data directory)"),
                                "unavailable")
        current = self.overrides.pin()
        if current is None:
            return self._refuse(msg("restart: {problem}", problem=NO_PIN), "pin_not_chosen")
        if pin != current:
            return self._refuse(msg("restart: {problem}", problem=WRONG_PIN), "pin_wrong", wrong_pin=pin is not None)
        if self.on_restart is None:
            return self._refuse(msg("restart: this daemon cannot start itself again (only devetka run can)"),
                                "unavailable")
        self.on_restart()
        return Reply(True, self._served())

    def _pin_refusal(self, pin: Any, changes: Any) -> Reply | None:
        """A change of settings needs the PIN; before one is chosen, only the change that chooses it."""
        current = self.overrides.pin() if self.overrides is not None else None
        if current is None:
            if isinstance(changes, dict) and "ui.pin" in changes:
                return None
            return self._refuse(msg("settings not saved: {problem}", problem=NO_PIN), "pin_not_chosen")
        if pin is None:
            return self._refuse(msg("settings not saved: {problem}", problem=msg(
                "a change needs the PIN ({field})", field='"pin": "..."')), "pin_required")
        if pin != current:
            return self._refuse(msg("settings not saved: {problem}", problem=WRONG_PIN), "pin_wrong", wrong_pin=True)
        return None

    def pin_chosen(self) -> bool | None:
        """Whether the table has a PIN (``[ui] pin`` or the screen's choice), for the settings screen to ask for it or
        to have one chosen; None: this daemon keeps no settings."""
        if self.overrides is None:
            return None
        if self._pin_chosen is None:
            self._pin_chosen = self.overrides.pin() is not None
        return self._pin_chosen

    def set_rack_mode(self, on: bool) -> None:
        self._moves += 1
        self.rack_mode = on
        for source in self.sources:
            source.set_rack_mode(on)

    def _new_match(self, raw: Any, call: dict[str, Any] | None = None) -> Reply:
        """Begin a match; what its ``match_start`` leaves out (all of it, if absent) comes from ``[match]``; its
        rules are composed key by key (profile, venue, request: ``profiles.compose``), its sensed switches are
        the table's and its ``table`` this one."""
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            return self._refuse(msg("new_match: match_start must be the match_start input as an object"))
        defaults = self.defaults
        asked = raw.get("rules")
        if self.table_sensed is None and (asked is None or isinstance(asked, dict)):  # no table known: the config's
            asked = {**_sensors_of(defaults), **(asked or {})}  # switches, unless asked
        try:
            rules = profiles.compose(asked, profile=defaults.profile, written=defaults.written,
                                     locked=defaults.locked, sensed=self.table_sensed)
        except profiles.Fixed as error:
            return self._refuse(msg("match_start: {problem}", problem=error.message), "rule_fixed")
        except InputError as error:
            return self._refuse(msg("match_start: {problem}", problem=error.message))
        named = raw.get("table")
        if self.table is not None and named is not None and named != self.table:
            return self._refuse(msg('match_start: table {named} is not this table ("{table}")', named=json.dumps(named),
                                    table=self.table), "wrong_table")
        raw = {"type": "match_start", "v": 1, "players": list(defaults.players), "race": list(defaults.race),
               "breaker": 0, **raw, "rules": rules.to_json()}
        if self.table is not None:
            raw["table"] = self.table
        if defaults.apa_skill is not None and "apa_skill" not in raw and rules.apa:
            raw["apa_skill"] = list(defaults.apa_skill)
        try:
            match_start = parse(raw)
        except InputError as error:
            return self._refuse(msg("match_start: {problem}", problem=error.message))
        if not isinstance(match_start, MatchStart):
            return self._refuse(msg("new_match needs a match_start, not {type}", type=repr(raw.get("type"))))
        match_start = replace(match_start, t=self.now())  # the daemon stamps the match's time
        match = Match(match_start)
        try:
            match_id = self.store.start_match(match_start, call=call)
        except Exception as error:  # sqlite3 or the disk: the match stays as it was
            self._store_failed(error)
            return self._refuse(msg("the store could not start the match: {error}", error=_error_words(error)),
                                "store_failed", changed=True)
        self._store_works()
        self.match, self.match_id, self.seq = match, match_id, 0
        self.taken_back = None
        self.timer.seen(match_start, match.state)
        self._clock_seen(self.now(), match.state)
        for listener in self.stored:
            listener(0, match_start, None)
        return Reply(True, self._served(), changed=True)

    def _input(self, raw: dict[str, Any]) -> Reply:
        try:
            item = parse(raw)
        except InputError as error:
            return self._refuse(error.message)
        if isinstance(item, MatchStart):
            return self._refuse(msg("a match_start begins a new match: send {command}",
                                    command='{"cmd": "new_match", ...}'))
        if item.t is not None:
            item = replace(item, t=None)  # the daemon stamps the match's time: a sent t would move its clock
        locked = self._clock_locked(item)
        if locked is not None:
            return self._refuse(locked, "rule_fixed")
        return self._apply(item)

    def _clock_locked(self, item: Input) -> Message | None:
        """A venue that locked ``shot_clock`` (``locked = true`` with it in ``[match.rules]``) keeps it so: the
        ``shot_clock`` input follows the same rule as a ``new_match`` (docs/rules.md, "Profiles")."""
        defaults = self.defaults
        if not isinstance(item, ShotClock) or item.on is None or not defaults.locked:
            return None
        if "shot_clock" not in defaults.written or item.on == defaults.written["shot_clock"]:
            return None
        return msg("shot_clock: the venue locked rules.shot_clock to {value}",
                   value=json.dumps(defaults.written["shot_clock"]))

    def _apply(self, item: Input) -> Reply:
        """Apply, commit, then answer: the one path every input takes, the settle timer's included."""
        t = self.now() if item.t is None else item.t
        if item.t is None:
            item = replace(item, t=t)
        match = self.match
        if match is None or self.match_id is None:
            return self._refuse(msg("no match yet: start one with {command}",
                                    command='{"cmd": "new_match", "match_start": {...}}'), "not_now")
        too_late = self._clock_refusal(item)
        if too_late is not None:
            return self._refuse(too_late, "not_now")
        before, applied = match.state, match.applied_count
        taken_back = _taking_back(match, item)
        try:
            step = match.apply(item)
        except RuleError as error:
            return self._refuse(error.message, "not_now")
        if match.state is before and match.applied_count == applied and not isinstance(item, Undo):
            self.timer.seen(item, match.state)
            return Reply(True, self._served())  # applied but changed nothing (a settle on a still table)
        try:
            seq = self.store.append(self.match_id, item)
        except Exception as error:  # not committed: the match must not keep it
            return self._not_stored(error)
        self._store_works()
        self.seq = seq
        self.taken_back = taken_back
        self.timer.seen(item, match.state)
        self._clock_seen(t, match.state)
        for listener in self.stored:
            listener(seq, item, step)
        if self.rack_mode and isinstance(item, Strike):
            self.set_rack_mode(False)  # the next strike ends racking, as the sources' own gates do
        return Reply(True, self._served(), changed=True)

    def _clock_seen(self, t: float, state: Any) -> None:
        self._epoch = self._wall() - self.now()
        self.shot_clock.seen(t, state)

    def _clock_refusal(self, item: Input) -> Message | None:
        """The daemon's own clock decides when time is up: no time foul before it runs out, no extension after."""
        if isinstance(item, ShotClock) and item.expired and not self.shot_clock.run_out(self.now()):
            left = self.shot_clock.left(self.now())
            if left is None:
                return None  # no turn is timed: the rules refuse it, with their reason
            tenths = max(0, round(left * 10))
            return msg("the shot clock has not run out: {seconds}.{tenths} s left", seconds=tenths // 10,
                       tenths=tenths % 10)
        if isinstance(item, Extension) and self.shot_clock.run_out(self.now()):
            return msg("the shot clock has run out: it is too late for an extension")
        return None

    def _clock_served(self) -> dict[str, Any]:
        """The daemon's part of the served shot clock: when the turn runs out and its warning (epoch ms on the
        wall clock, for screens to count down from; never ticks), and whether a time foul is proposed."""
        timer = self.shot_clock
        deadline, warning = timer.deadline, timer.warning
        paused, pause_ends = timer.paused, timer.pause_ends
        left = timer.left(self.now()) if paused else None
        return {
            "running": timer.running,
            "deadline": None if deadline is None or paused else round((deadline + self._epoch) * 1000),
            "warning_at": None if warning is None or paused else round((warning + self._epoch) * 1000),
            "time_foul_proposed": timer.proposed,
            "paused": paused,
            "paused_left": None if left is None else round(left * 1000),
            "pause_ends": None if pause_ends is None else round((pause_ends + self._epoch) * 1000),
        }

    def _clock_actions(self, served: dict[str, Any], now: float) -> dict[str, Any]:
        """The rules' clock taps, with the daemon's time: a time foul only once the clock ran out, an extension
        only before."""
        run_out = self.shot_clock.run_out(now)
        if not run_out and served["time_foul"]["ok"]:
            served["time_foul"] = {"ok": False, "why": render(msg("The shot clock has not run out."), self.words())}
        if run_out and served["extension"]["ok"]:
            served["extension"] = {"ok": False, "why": render(msg("The shot clock has run out."), self.words())}
        return served

    def _not_stored(self, error: Exception) -> Reply:
        """Put the match back as the store has it and say the input was not kept."""
        message = msg("the store could not save the input, so it was not applied: {error}", error=_error_words(error))
        self._store_failed(error)
        try:
            self._resume()
        except Exception as again:  # a log that no longer folds, or the disk: serve no match rather than a wrong one
            self.match = None
            return self._refuse(msg("{problem}; the match could not be read back either: {error}", problem=message,
                                    error=_error_words(again)), "store_failed", changed=True)
        return self._refuse(message, "store_failed", changed=True)

    def _store_failed(self, error: Exception) -> None:
        """The store's trouble goes into the state's health, so the screen and the dashboards show it."""
        status = "full" if isinstance(error, WriteError) and error.disk_full else "fault"
        self.health[STORE_HEALTH] = Health("store", str(self.store.path), status, str(error)).to_json()

    def _store_works(self) -> None:
        self.health.pop(STORE_HEALTH, None)

    def spoken(self) -> str:
        """The players' language now: the match's own (the setup screen's choice), else the table's."""
        chosen = self.match.match_start.language if self.match is not None else None
        return chosen or self.language

    def words(self) -> Catalog:
        return catalog(self.spoken())

    def _match_started(self) -> str | None:
        """When the current match was begun (the store's UTC ISO 8601), so a board shows the time played whenever it
        opened; None with no match."""
        if self.match_id is None:
            return None
        if self._started is None or self._started[0] != self.match_id:
            self._started = (self.match_id, self.store.started(self.match_id))
        return self._started[1]

    def _served(self) -> Callable[[], dict[str, Any]]:
        """The state as it is now, built when a reply's state is first read (``Reply``); refused once the referee
        has taken another request or report."""
        made, now = self._moves, self.now()

        def build() -> dict[str, Any]:
            if self._moves != made:
                raise StaleReply("a reply's state is read when it is answered: the referee has moved on since")
            return served(self.record(now))

        return build

    def state(self, **answer: Any) -> dict[str, Any]:
        """The state as served (``record``'s JSON object); ``answer``: what a command's answer adds to it."""
        return served(self.record(**answer))

    def record(self, now: float | None = None, **answer: Any) -> State:
        """The state record (``scoreboard.contract``): the fold's state line and the daemon's fields, by name, its
        words in the players' language (``language``), at match time ``now`` (default: the clock's). A field
        served is added to ``State`` and named here."""
        match = self.match
        words = self.words()
        called = match is not None and match.match_start.call is not None
        daemon: dict[str, Any] = dict(
            language=self.spoken(), sound=self.sound, seq=self.seq, match_id=self.match_id,
            match_started=self._match_started(), table_name=self.table_name, store=self.store.id,
            health=list(self.health.values()), sensors=self.sensors, rack_mode=self.rack_mode,
            shot_in_progress=match is not None and match.state.shot is not None, profiles=self.profiles,
            profile_fixes=self.profile_fixes, profile_locked=self.defaults.locked, pin_chosen=self.pin_chosen(),
            sensed=self.table_sensed if self.table_sensed is not None else _sensors_of(self.defaults),
            call=self.calls.served(words), match_call=match.match_start.call if match is not None else None,
            called_results=self.calls.results(self, state_line(match.state) if match and called else {}),
            next_for=self.calls.next_for(match, words), **answer)
        if called:
            daemon["rematch_breaker"] = None  # the players of a called match go where the director calls them next
        if match is None:
            return present.state(None, **daemon, last_verdict=None, undo=None, undo_shot=None, taken_back=None,
                                 shot_reopened=False, rules=None, rules_version=None,
                                 actions=dict(refused(NO_MATCH, words),
                                              rack_mode={"ok": False, "why": render(NO_MATCH, words)}))
        verdict = match.last_verdict()
        target = match.undo_target
        last = match.last_shot()
        over = match.state.table.match_winner is not None
        return present.state(
            match.state, last=verdict, conceded=match.last_concession(), words=words, clock=self._clock_served(),
            **daemon,
            last_verdict=None if verdict is None else self._said(("verdict", verdict, words),
                                                                  lambda: present.ruling(verdict, words)),
            undo=to_json(target) if target is not None else None,
            undo_shot=None if last is None else self._said(
                ("undo_shot", last.verdict, last.in_progress, len(last.inputs), words),
                lambda: _said(_shot_taken_back(match), words)),
            taken_back=_said(self.taken_back, words),
            shot_reopened=self.timer.reopened and match.state.shot is not None,
            rules=match.match_start.options.every(), rules_version=match.state.setup.rules_version,
            actions=dict(self._clock_actions(actions(match, words), self.now() if now is None else now),
                         rack_mode={"ok": False, "why": render(MATCH_OVER, words)} if over else {"ok": True}))

    def stats(self) -> dict[str, Any] | None:
        """The summary screen's counts (``scoreboard.core.stats``): the whole match, and the last shot's rack.

        Asked for, not in every state: it reads every shot of the match.
        """
        if self.match is None:
            return None
        verdicts = [line.verdict for line in self.match.shot_lines()]
        rack = verdicts[-1].rack if verdicts else self.match.state.table.rack
        return {"match": counts(verdicts), "rack": counts(verdicts, rack), "of_rack": rack}

    def close(self) -> None:
        self.store.close()

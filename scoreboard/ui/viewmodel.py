"""What the touchscreen shows, made from the daemon's state object: no Kivy here, so it is tested alone.

The daemon decides everything; the screen only shows its state and sends taps. The state is read as the
contract's ``State`` record (``scoreboard.contract.read``: a field this release does not know is ignored, one that
does not fit is named on the screen). The rule facts it shows (the ball on, the hill, the break to come, the
picker's balls, the push out answered, the rematch's breaker, the skill levels' bounds) are served
(``scoreboard/core/facts.py``): none is worked out here.
``view(state)`` is the whole picture: names and scores, the shooter, the balls
on the table in their colours, what the players may do, the ruling in words,
and every button with the request its tap sends. A button the state says cannot
apply is shown disabled rather than refused later: a chalky finger between
shots should not have to read an error.

>>> import tempfile
>>> from scoreboard.referee.referee import Referee
>>> folder = tempfile.TemporaryDirectory()
>>> referee = Referee.open(folder.name + "/devetka.db")
>>> for request in [{"cmd": "new_match", "match_start": {"type": "match_start", "v": 1, "players": ["Ana", "Ben"],
...                                                    "race": [3, 5], "breaker": 0}},
...                 {"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 2},
...                 {"type": "settle"}, {"type": "strike"}, {"type": "first_contact", "ball": 5},
...                 {"type": "settle"}]:
...     assert referee.handle(request).ok
>>> v = view(referee.state())
>>> v.players[1].name, v.players[1].score_text, v.players[1].shooting, v.players[0].fouls
('Ben', '0 of 5', True, 1)
>>> [(b.number, b.on) for b in v.balls][:3]
[(1, True), (3, False), (4, False)]
>>> v.status_text
'Ben to shoot: BALL IN HAND'
>>> v.undo_text, v.buttons["undo"].request
('Undo takes back: the end of the shot (the table came to rest)', {'type': 'undo'})
>>> referee.close(); folder.cleanup()
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from scoreboard.contract.read import Unreadable, contract_of, given, read_state
from scoreboard.contract.records import (
    CONTRACT,
    Action,
    Call,
    Health,
    NextFor,
    Ruling,
    Sensors,
    State,
    Stats,
    UndoShot,
)
from scoreboard.core.inputs import (
    Concede,
    Cushion,
    FirstContact,
    Foul,
    Identify,
    InputError,
    OffTable,
    Pocket,
    parse,
)
from scoreboard.core.messages import Balls, Catalog, Joined, from_json, msg_n, render
from scoreboard.i18n.catalog import catalog
from scoreboard.i18n.rules import text as rule_text


def N_(text: str) -> str:
    """Marks a word for the catalogs where it is defined; it is translated where it is shown."""
    return text


#: Standard pool ball colours (the 9 is a yellow stripe); the cue ball is white.
BALL_COLOURS = {
    0: "#f4f4f0", 1: "#f5c518", 2: "#1f4fd8", 3: "#e0201b", 4: "#6a2c91", 5: "#f57c00",
    6: "#118a3e", 7: "#7b1e1e", 8: "#111111", 9: "#f5c518",
}
STRIPED = frozenset({9, 10, 11, 12, 13, 14, 15})

#: The foul menu: the reason sent, the words on its button, and the rule it is.
FOUL_REASONS = (
    ("bad_hit", N_("Bad hit"), "5.8"),
    ("no_rail", N_("No rail"), "5.9"),
    ("scratch", N_("Scratch"), "5.7"),
    ("moved_ball", N_("Moved a ball"), "5.12"),
    ("illegal_break", N_("Illegal break"), "5.4"),
    ("other", N_("Other foul"), "5.7"),
)

#: Health statuses that mean a sensor line or the link is down (the others are events, not a state).
DOWN = frozenset({"fault", "offline", "full"})


@dataclass(frozen=True)
class Ball:
    """One ball as drawn: its number, colour, stripe, and whether it is the ball on (lowest, 5.1)."""

    number: int
    colour: str
    striped: bool
    on: bool = False

    @property
    def label(self) -> str:
        return "cue" if self.number == 0 else str(self.number)


def ball(number: int, on: bool = False) -> Ball:
    """The ball ``number`` (0 is the cue ball) in its standard colour.

    >>> ball(3).colour, ball(9).striped, ball(0).label
    ('#e0201b', True, 'cue')
    """
    return Ball(number, BALL_COLOURS[number], number in STRIPED, on)


@dataclass(frozen=True)
class Player:
    """One side of the scoreboard: the name, the racks won, the fouls in a row (dots beside the name), and marks."""

    name: str
    score_text: str
    shooting: bool
    fouls: int
    marks: str = ""
    """Who breaks (or broke) this rack, and who is on the hill: ``BREAKS`` / ``BROKE``, ``HILL``."""


@dataclass(frozen=True)
class Button:
    """A button: its words, whether it may be tapped, and the local-API request a tap sends (None: local only)."""

    text: str
    enabled: bool
    request: dict[str, Any] | None = None
    why: str = ""
    """Why it cannot be tapped now, in the daemon's words (``actions``): said when it is tapped anyway."""


@dataclass(frozen=True)
class Picker:
    """The ball picker for an unidentified pocketed ball: what was assumed and the balls it could have been."""

    assumed: tuple[int, ...]
    candidates: tuple[Ball, ...]
    text: str


@dataclass(frozen=True)
class Summary:
    """A rack or the match just won: the headline and the score, with the key that names it."""

    key: tuple[Any, ...]
    title: str
    detail: str
    """Who breaks the next rack (a rack's summary); "" once the match is over."""
    match_over: bool
    score: str = ""
    """The score alone, the biggest thing on the summary ("2  –  1"), between the two names."""
    names: tuple[str, str] = ("", "")
    next: tuple[str, str] = ("", "")
    """A called match won: "Next for you: ..." under each name, where the call said each player goes ("" unsaid)."""
    rematch: bool = False
    """The match won offers a rematch (the daemon serves who would break it; a called match offers none)."""


@dataclass(frozen=True)
class ShotClockFace:
    """The shot clock as served: when the turn runs out and its warning (the daemon's wall clock, epoch ms), and
    whether the time foul is proposed. The screen counts down from it; the state never ticks."""

    deadline_ms: int | None
    warning_ms: int | None
    proposed: bool
    paused_left_ms: int | None = None
    """While a ruling is put right (``clock_pause``): the ms left, standing still; None while it runs."""

    def at(self, now_ms: float) -> tuple[str, str]:
        """What the clock shows at ``now_ms``: the seconds left (rounded up) and its phase: "" (plenty), "warn"
        (from the warning, 10 s), "late" (the last 5 s), "out" (TIME: run out) or "paused" (standing still)."""
        if self.proposed:
            return N_("TIME"), "out"
        if self.paused_left_ms is not None:
            return str(max(0, -(-self.paused_left_ms // 1000))), "paused"
        if self.deadline_ms is None:
            return "", ""
        left = max(0, -int((now_ms - self.deadline_ms) // 1000))
        if left == 0:
            return "TIME", "out"
        if left <= SHOT_CLOCK_LATE_S:
            return str(left), "late"
        return str(left), "warn" if self.warning_ms is not None and now_ms >= self.warning_ms else ""


#: The shot clock turns red for its last seconds (amber from the warning the match sets, 10 s by default).
SHOT_CLOCK_LATE_S = 5


def _shot_clock(state: State) -> ShotClockFace | None:
    """The clock to show: only while a turn is timed, or its time foul is proposed (the daemon's word)."""
    clock = given(state.shot_clock)
    if clock is None or state.match_winner is not None:
        return None
    if clock.time_foul_proposed:
        return ShotClockFace(clock.deadline, None, True)
    if clock.running and clock.paused and clock.paused_left is not None:
        return ShotClockFace(None, None, False, clock.paused_left)
    if clock.running and clock.deadline is not None:
        return ShotClockFace(clock.deadline, clock.warning_at, False)
    return None


def _time_foul(verdict: Ruling | None) -> tuple[int, int, int] | None:
    """Which time foul the last ruling is, if it is one."""
    if verdict is None or not given(verdict.time_foul):
        return None
    return verdict.rack, verdict.shot, verdict.shooter


@dataclass(frozen=True)
class View:
    """Everything the screen shows for one state."""

    connected: bool
    has_match: bool
    screen: str
    """The screen the state calls for: ``setup`` (no match), ``choice`` (5.6), ``summary`` (match won) or ``live``."""
    players: tuple[Player, ...] = ()
    rack_text: str = ""
    balls: tuple[Ball, ...] = ()
    ball_in_hand: bool = False
    status_text: str = ""
    status_wrapped: str = ""
    """The status on two lines, broken where a long name leaves no room (before "BALL IN HAND")."""
    push_out_text: str = ""
    warning_text: str = ""
    ruling_text: str = ""
    undo_text: str = ""
    undo_shot_text: str = ""
    """What "Take back the shot" takes back, in the daemon's words."""
    reopened_text: str = ""
    """An undo brought the shot back and no timer will end it: what the players may do."""
    chooser: str = ""
    rack_mode: bool = False
    rack_mode_text: str = ""
    health_ok: bool = True
    health_text: str = ""
    health_label: str = "Sensors\nOK"
    health_level: str = "ok"
    """``ok`` (green), ``warn`` (amber: no sensors, taps only) or ``bad`` (red: a line stuck, no referee)."""
    hill_text: str = ""
    """``HILL-HILL`` when both players need one rack."""
    offline_text: str = ""
    """The banner over every screen while no state can come: connecting at first, the connection lost later."""
    offline_level: str = "bad"
    """``warn`` (grey: the first try is under way) or ``bad`` (red: no referee to be reached)."""
    picker: Picker | None = None
    why_text: str = ""
    """"Why?": the rules the last ruling cites, each its number and title in bold and its text (Kivy markup)."""
    summary: Summary | None = None
    buttons: dict[str, Button] = field(default_factory=dict)
    fouls: tuple[tuple[str, Button], ...] = ()
    off_table: tuple[tuple[Ball, Button], ...] = ()
    shot_clock: ShotClockFace | None = None
    """The shot clock while a turn is timed (or its time foul proposed); None when there is nothing to count."""
    sound: bool = False
    """The shot clock's tones are on (the daemon's ``[ui] sound``, a setting behind the PIN)."""
    time_foul: tuple[int, int, int] | None = None
    """The last ruling, when it is a time foul: its rack, shot and player (the tone at expiry, once each)."""
    call_text: str = ""
    """The venue director's call offered here, in the daemon's words ("Called: Ana - Ben, race to 7, ..."): shown
    over every screen with Start and Not now until the players answer it."""
    call_event: str = ""
    """The event's name over the call ("Friday 9-ball"), as the director's call names it; "" when it names none."""
    call_start: Button = Button("", False)
    call_decline: Button = Button("", False)
    apa_actions: bool = False
    """The match scores APA points and has no push outs: the live screen's push-out slot holds Safety and Timeout."""
    abandon_text: str = ""
    """The match being played, named by its score, while it is not over and something of it was played (there is
    something to undo): a new match (or another resumed) leaves it unfinished, so the screen asks first
    (``screens/abandon.kv``). A match just set up and not begun is replaced without a word (a name mistyped)."""

    def side(self, index: int) -> Player:
        """Player 0 or 1, or a blank one before a match (the kv files bind to it)."""
        return self.players[index] if self.players else Player("", "", False, 0)

    @property
    def banner_text(self) -> str:
        """The live screen's banner: racking first (pocket sensors are off: it must show while it lasts), then a
        reopened shot (what the players must do now), then 5.13 (it comes back when those end)."""
        return self.rack_mode_text or self.reopened_text or self.warning_text

    def foul(self, index: int) -> Button:
        """The foul menu's ``index``th button (disabled and blank before a match)."""
        return self.fouls[index][1] if self.fouls else Button("", False)


def view(state: dict[str, Any] | None, *, connected: bool = True, language: str | None = None) -> View:
    """The screen for a state object as the daemon serves it (the JSON object, decoded), in the state's language
    (``language`` before any state is heard, or to say it in another): ``None`` with ``connected`` is nothing
    heard from the daemon yet (the first try is under way: not yet a lost connection), ``connected=False`` no
    daemon to be reached.

    A state that does not fit the contract (a wrong type, a missing field) is not drawn: every button is off and
    the banner over every screen names the field (``unreadable``). A state of a later contract is drawn as read,
    every button off and the banner asking for the screen to be updated (docs/mqtt.md, "The contract"); one that
    does not fit either is not drawn, the banner asking for the update.

    >>> view(None).offline_text, view(None, connected=False).offline_text
    ('Connecting to the referee…', 'NO CONNECTION TO THE REFEREE: reconnecting…')
    """
    try:
        record = None if state is None else read_state(state)
    except Unreadable as error:
        if connected:
            return unreadable(error, catalog(language), later=contract_of(state) > CONTRACT)
        record = None
    t = catalog(language or (record.language if record is not None else None))
    _ = t.gettext
    if record is None or not connected:
        if connected:
            connecting = _("Connecting to the referee…")
            return View(connected=False, has_match=False, screen="live", status_text=connecting,
                        status_wrapped=connecting, buttons=_idle_buttons(t), health_ok=False,
                        health_text=_("Connecting to the referee"), health_level="warn",
                        health_label=_("Connecting…"), offline_text=connecting, offline_level="warn")
        waiting = _("Waiting for the referee (devetka run)…")
        return View(connected=False, has_match=False, screen="live", status_text=waiting, status_wrapped=waiting,
                    buttons=_idle_buttons(t), health_ok=False, health_text=_("No connection to the referee"),
                    health_level="bad", health_label=_("No connection to the referee"),
                    offline_text=_("NO CONNECTION TO THE REFEREE: reconnecting…"))
    shown = _drawn(record, t, language)
    if record.contract > CONTRACT:
        return _ahead(shown, t)
    return shown


def unreadable(error: Unreadable, t: Catalog, later: bool = False) -> View:
    """A state that does not fit the contract: nothing of it drawn, no tap offered, the field named in the
    banner over every screen (the screen shown stays: ``connected`` is false, as with no referee); of a ``later``
    contract, the banner asks for the update and the health says the field."""
    said = t.gettext("The referee's state cannot be shown: {error}").format(error=error)
    update = t.gettext(NEWER)
    return View(connected=False, has_match=False, screen="live", status_text=said, status_wrapped=said,
                buttons=_idle_buttons(t), health_ok=False, health_text=said, health_level="bad",
                health_label=t.gettext("STATE\nUNREADABLE"), offline_text=update if later else said,
                offline_level="warn" if later else "bad")


NEWER = N_("Newer table software: restart this screen to update it")


def _ahead(shown: View, t: Catalog) -> View:
    """A state of a later contract: drawn as read, but no tap sent (its fields' meaning may have changed)."""
    off = {name: replace(button, enabled=False) for name, button in shown.buttons.items()}
    return replace(shown, buttons=off, fouls=tuple((reason, replace(button, enabled=False))
                                                   for reason, button in shown.fouls),
                   off_table=tuple((item, replace(button, enabled=False)) for item, button in shown.off_table),
                   call_start=replace(shown.call_start, enabled=False),
                   call_decline=replace(shown.call_decline, enabled=False),
                   offline_text=t.gettext(NEWER),
                   offline_level="warn")


def _drawn(state: State, t: Catalog, language: str | None) -> View:
    """The screen for a state read."""
    _ = t.gettext
    health_level, health_text, health_label = _health(state.health, state.sensors, t)
    health: dict[str, Any] = {"health_ok": health_level == "ok", "health_text": health_text,
                              "health_level": health_level, "health_label": health_label}
    rack_mode = state.rack_mode
    rack_mode_text = _("RACKING: pocket sensors ignored until the next strike") if rack_mode else ""
    health.update(_call(state.call, t))
    if state.players is None:
        no_match = _("No match yet: set one up.")
        return View(connected=True, has_match=False, screen="setup", rack_mode=rack_mode,
                    rack_mode_text=rack_mode_text, **health,
                    status_text=no_match, status_wrapped=no_match, buttons=_idle_buttons(t))
    players = state.players
    shooter, winner = state.shooter, state.match_winner
    score, out_of = _standing(state)
    hill, breaking = state.hill, state.break_to_come
    sides = tuple(Player(players[i], _("{won} of {target}").format(won=score[i], target=out_of[i]), shooter == i,
                         state.fouls_in_row[i], _marks(state.breaker == i and winner is None, breaking, hill[i], t))
                  for i in (0, 1))
    dropped = [n for n in state.shot_dropped if n] if state.shot_in_progress else []
    balls = tuple(ball(n, on=n == state.ball_on) for n in state.on_table if n not in dropped)  # the shot in play's
    verdict = state.last_verdict
    live = winner is None
    awaiting = state.awaiting_choice and live
    in_shot = state.shot_in_progress
    screen = "choice" if awaiting else "summary" if winner is not None else "live"
    status = _status(players, shooter, state, winner, breaking, t)
    rules = state.rules or {}
    return View(
        connected=True, has_match=True, screen=screen, players=sides,
        rack_text=_("Rack {rack}").format(rack=state.rack), balls=balls,
        ball_in_hand=state.ball_in_hand and live and not in_shot,
        status_text=" ".join(status), status_wrapped="\n".join(status),
        push_out_text=_push_out_text(state, live and not awaiting and not in_shot, t),
        warning_text=_warning(shooter, state, t),
        ruling_text=_score_sheet_text(state, t) + _ruling_text(state, verdict, players, t),
        undo_text=_undo_text(state.undo, players, t),
        undo_shot_text=_undo_shot_text(state.undo_shot, t),
        reopened_text=_(REOPENED) if state.shot_reopened and live else "",
        chooser=players[shooter] if awaiting and shooter is not None else "",
        rack_mode=rack_mode, rack_mode_text=rack_mode_text, **health,
        hill_text=_("HILL-HILL") if all(hill) else "",
        picker=_picker(verdict, state.identify_candidates, t) if verdict is not None else None,
        why_text=_why(state.conceded.cites if state.conceded is not None else verdict.cites if verdict else [],
                      language or state.language),
        summary=_summary(state, players, verdict, t),
        abandon_text=_abandon_text(state, players, t) if live and state.undo is not None else "",
        apa_actions=given(state.safeties) is not None and rules.get("push_outs") is False,
        buttons=_buttons(state, players, t),
        shot_clock=_shot_clock(state),
        sound=state.sound,
        time_foul=_time_foul(verdict),
        fouls=tuple((reason, _served(f"{_(words)}  {rule}", state.actions.foul.get(reason, NOT_SERVED),
                                     {"type": "foul", "reason": reason}))
                    for reason, words, rule in FOUL_REASONS),
        off_table=tuple((ball(n), _served(_("cue ball") if n == 0 else _("the {ball}").format(ball=n),
                                          state.actions.off_table.get(str(n), NOT_SERVED),
                                          {"type": "off_table", "ball": n}))
                        for n in [0, *state.on_table]),
    )


NOT_SERVED = Action(ok=False, why=N_("The referee did not say whether this may be tapped now."))


def _call(call: Call | None, t: Catalog) -> dict[str, Any]:
    """The call offered here, as the daemon serves it, and the two answers to it (docs/events.md, "Calls").

    >>> from scoreboard.i18n.catalog import catalog
    >>> shown = _call(Call(id="s/1/W2-1/7", status="offered", match="W2-1", words="Called: Ana - Ben",
    ...                    event="Friday 9-ball"), catalog("en"))
    >>> shown["call_text"], shown["call_event"], shown["call_start"].request, shown["call_decline"].text
    ('Called: Ana - Ben', 'Friday 9-ball', {'cmd': 'call_start', 'call': 's/1/W2-1/7'}, 'Not now')
    """
    words = given(call.words) if call is not None else None
    if call is None or call.status != "offered" or not words:
        return {}
    _ = t.gettext
    return {"call_text": words, "call_event": given(call.event) or "", "call_start": _call_start(call, _),
            "call_decline": Button(_("Not now"), True, {"cmd": "call_decline", "call": call.id})}


def _call_start(call: Call, _: Callable[[str], str]) -> Button:
    """Start as the daemon serves it (``call.start``): not while the venue cannot be reached, and then why.

    >>> _call_start(Call(id="c", status="offered", match=None,
    ...                  start=Action(ok=False, why="the venue cannot be reached")), str).why
    'the venue cannot be reached'
    """
    start = given(call.start) or Action(ok=True)
    return Button(_("Start"), start.ok, {"cmd": "call_start", "call": call.id}, given(start.why) or "")


def _standing(state: State) -> tuple[list[int], list[int]]:
    """What each side's "N of M" counts: APA points against the targets where the daemon serves them, else
    racks won against the race."""
    points, targets = given(state.points), given(state.targets)
    if points is not None and targets is not None:
        return points, targets
    return state.score, state.race or [0, 0]


def _score_sheet_text(state: State, t: Catalog) -> str:
    """Under APA scoring, what the balls are worth and what the score sheet counts (a line above the ruling)."""
    if given(state.points) is None:
        return ""
    dead, innings = given(state.dead_balls) or 0, given(state.innings) or 0
    return t.gettext("APA points: 1 a ball, the 9 two. Dead balls {dead}, innings {innings}.").format(
        dead=dead, innings=innings) + "\n"


def _served(text: str, action: Action, request: dict[str, Any] | None = None) -> Button:
    """A button as the daemon serves its tap; its why is in the daemon's words (in the players' language)."""
    return Button(text, action.ok, request, "" if action.ok else given(action.why) or "")


def _any(actions: dict[str, Action]) -> Action:
    """A menu's button: open while any of its taps may be made (the foul menu, the ball picker)."""
    if any(action.ok for action in actions.values()):
        return Action(ok=True)
    return next(iter(actions.values()), NOT_SERVED)


def _idle_buttons(t: Catalog) -> dict[str, Button]:
    return {name: Button(t.gettext(text), False) for name, text in _BUTTON_TEXT.items()}


_BUTTON_TEXT = {
    "push_out": N_("Push out"), "accept": N_("Shoot"), "pass": N_("Pass back"), "undo": N_("Undo"),
    "fouls": N_("Foul…"), "miss": N_("Miss"), "pick": N_("Which ball?"), "rack_mode": N_("Racking"),
    "stalemate": N_("Stalemate"), "concede0": N_("Concede…"), "concede1": N_("Concede…"),
    "concede0_rack": N_("Concede the rack"), "concede0_match": N_("Concede the match"),
    "concede1_rack": N_("Concede the rack"), "concede1_match": N_("Concede the match"), "new_match": N_("New match"),
    "settle": N_("Shot over"), "undo_shot": N_("Take back the shot"), "call_foul": N_("Call a foul on that shot"),
    "name_ball": N_("Name the pocketed ball"), "off_table": N_("A ball left the table"),
    "safety": N_("Safety"), "timeout": N_("Timeout"), "rerack": N_("Re-rack and break"),
    "extension": N_("Extension"), "time_foul": N_("Time foul?"), "shot_clock": N_("Shot clock on"),
}

REOPENED = N_("SHOT OPEN AGAIN: call a foul or name a ball, then tap Shot over")


def _buttons(state: State, players: list[str], t: Catalog) -> dict[str, Button]:
    """Every button as the daemon serves it: whether it may be tapped now comes from ``actions`` alone."""
    shooter, rack_mode, actions = state.shooter, state.rack_mode, state.actions
    text = {name: t.gettext(words) for name, words in _BUTTON_TEXT.items()}
    if rack_mode:
        text["rack_mode"] = t.gettext("Racking done")
    return {
        "push_out": _served(text["push_out"], actions.push_out, {"type": "push_out"}),
        "accept": _served(text["accept"], actions.accept, {"type": "accept"}),
        "pass": _served(text["pass"], actions.pass_, {"type": "pass"}),
        "undo": _served(text["undo"], actions.undo, {"type": "undo"}),
        "undo_shot": _served(text["undo_shot"], actions.undo_shot, {"type": "undo_shot"}),
        "settle": _served(text["settle"], actions.settle, {"type": "settle"}),
        "call_foul": _served(text["call_foul"], _any(actions.foul)),
        "name_ball": _served(text["name_ball"], _any(actions.identify)),
        "off_table": _served(text["off_table"], _any(actions.off_table)),
        "fouls": _served(text["fouls"], _any(actions.foul)),
        "miss": _served(text["miss"], actions.miss, {"type": "miss"}),
        "pick": _served(text["pick"], _any(actions.identify)),
        "rack_mode": _served(text["rack_mode"], actions.rack_mode, {"cmd": "rack_mode", "on": not rack_mode}),
        "stalemate": _served(text["stalemate"], actions.stalemate, {"type": "stalemate"}),
        **_concede_buttons(players, actions.concede, t),
        "new_match": Button(text["new_match"], True),
        "safety": _served(_safety_text(given(state.safeties), shooter, t), actions.safety, {"type": "safety"}),
        "timeout": _served(_timeout_text(given(state.timeouts_left), shooter, t), actions.timeout,
                           {"type": "timeout"}),
        "rerack": _served(text["rerack"], actions.rerack, {"type": "rerack"}),
        **_clock_buttons(state, t),
    }


def _clock_buttons(state: State, t: Catalog) -> dict[str, Button]:
    """The shot clock's taps (TR20): the shooter's extension with its seconds, the time foul the daemon proposes,
    and the clock turned on or off from the More screen."""
    _ = t.gettext
    clock, shooter, actions = given(state.shot_clock), state.shooter, state.actions
    on = clock is not None and clock.on
    extension = (_("Extension\n+{seconds} s").format(seconds=clock.extension) if clock is not None
                 else _(_BUTTON_TEXT["extension"]))
    if clock is not None and shooter is not None and clock.extensions_left[shooter] == 0:
        extension = _("Extension used")
    switch = "off" if on else "on"
    return {
        "extension": _served(extension, actions.extension, {"type": "extension"}),
        "time_foul": _served(_(_BUTTON_TEXT["time_foul"]), actions.time_foul, {"type": "shot_clock", "expired": True}),
        "shot_clock": _served(_("Shot clock off") if on else _("Shot clock on"),
                              actions.shot_clock.get(switch, NOT_SERVED), {"type": "shot_clock", "on": not on}),
    }


def _safety_text(marked: list[int] | None, shooter: int | None, t: Catalog) -> str:
    """"Safety (2)": the safeties the shooter has marked in this match, as the score sheet counts them (APA)."""
    if marked is not None and shooter is not None:
        return t.gettext("Safety ({n})").format(n=marked[shooter])
    return t.gettext("Safety")


def _timeout_text(left: list[int] | None, shooter: int | None, t: Catalog) -> str:
    """"Timeout (1 left)": the shooter's timeouts left in this rack, as the daemon counts them."""
    if left is not None and shooter is not None:
        return t.ngettext("Timeout ({n} left)", "Timeout ({n} left)", left[shooter]).format(n=left[shooter])
    return t.gettext("Timeout")


def _marks(breaker: bool, breaking: bool, hill: bool, t: Catalog) -> str:
    """The words beside a name: who breaks this rack (or broke it), and who is on the hill (one rack to win)."""
    _ = t.gettext
    words = [(_("BREAKS") if breaking else _("BROKE"))] if breaker else []
    return "  ·  ".join([*words, *([_("HILL")] if hill else [])])


def _concede_buttons(players: list[str], served: dict[str, dict[str, Action]], t: Catalog) -> dict[str, Button]:
    """Either player may concede, named on the button; each opens a confirm with the rack and the match."""
    _ = t.gettext
    out = {}
    for index, name in enumerate(players):
        words = {"rack": _("{name} concedes the rack"), "match": _("{name} concedes the match")}
        taps = served.get(str(index), {})
        scopes = {scope: _served(words[scope].format(name=name), taps.get(scope, NOT_SERVED),
                                 {"type": "concede", "player": index, "scope": scope}) for scope in ("rack", "match")}
        menu = next((scope for scope in scopes.values() if scope.enabled), scopes["rack"])
        out[f"concede{index}"] = Button(_("{name} concedes…").format(name=name), menu.enabled, None, menu.why)
        out.update({f"concede{index}_{scope}": button for scope, button in scopes.items()})
    return out


def _status(players: list[str], shooter: int | None, state: State, winner: int | None, breaking: bool,
            t: Catalog) -> tuple[str, ...]:
    """Who is at the table and how, in the fewest words: the parts of one line, which a long name breaks in two
    before "BALL IN HAND"."""
    _ = t.gettext
    if winner is not None:
        return (_("{name} wins the match").format(name=players[winner]),)
    if shooter is None:
        return ("",)
    name = players[shooter]
    if state.awaiting_choice:
        return (_("{name}: shoot, or pass it back?").format(name=name),)
    if state.shot_in_progress:
        return _shot_in_play(name, state.shot_dropped, t)
    if breaking and state.ball_in_hand:
        return (_("{name} to break: ball in hand behind the head string (5.2)").format(name=name),)
    if state.ball_in_hand:
        return _("{name} to shoot:").format(name=name), _("BALL IN HAND")
    return (_("{name} to shoot").format(name=name),)


def _shot_in_play(name: str, dropped: list[int | None], t: Catalog) -> tuple[str, ...]:
    """The shot being played (or reopened by an undo), as the daemon serves it: whose, and what it has dropped so
    far (``shot_dropped``), not the turn before it ("to shoot: BALL IN HAND").

    >>> from scoreboard.i18n.catalog import catalog
    >>> _shot_in_play("Ana", [3, None, 5], catalog("en"))
    ('Ana: shot in play,', 'the 3 and 5 pocketed')
    """
    said = t.gettext("{name}: shot in play").format(name=name)
    down = [n for n in dropped if n]
    if not down:
        return (said,)
    balls = Balls(tuple(down))
    return said + ",", render(msg_n("the {balls} pocketed", "the {balls} pocketed", balls.n, balls=balls), t)


def _ruling(verdict: Ruling | None, state: State, t: Catalog) -> str:
    """The last ruling in words, said from its messages in the screen's language (the daemon's words where they
    are not served); once the push out is answered, as the daemon says it now (``ruling_now``); after a
    concession, the concession (``conceded``), not the shot before it."""
    said = state.conceded or state.ruling_now or verdict
    if said is None:
        return ""
    message = from_json(said.message)
    if not isinstance(message, Joined):
        return said.words
    return render(message, t)


def _why(cites: list[str], language: str | None) -> str:
    """The texts of the rules the ruling cites (``cites``), in the players' language: "5.8 POGREŠAN UDARAC" and
    the seed's words; an R ruling or a league option's rule in Devetka's words."""
    said = []
    for number in cites:
        rule = rule_text(number, language or "en")
        if rule is None:
            continue
        numbered = rule.number[:1].isdigit() or rule.number.startswith(("R", "TR"))
        title = f"{rule.number} {rule.title}" if numbered else rule.title
        said.append(f"[b]{_markup(title)}[/b]\n{_markup(rule.body)}")
    return "\n\n".join(said)


def _markup(text: str) -> str:
    """Text shown as it is in a Kivy markup label."""
    return text.replace("&", "&amp;").replace("[", "&bl;").replace("]", "&br;")


def _push_out_text(state: State, may_shoot: bool, t: Catalog) -> str:
    if not may_shoot:
        return ""
    if state.push_out:
        return t.gettext("PUSH OUT ANNOUNCED (5.6)")
    return t.gettext("PUSH OUT ALLOWED") if state.push_out_allowed else ""


def _warning(shooter: int | None, state: State, t: Catalog) -> str:
    """The 5.13 banner: the shooter (named just above it, with two foul dots) is on two fouls. Without the name: in
    two lines at 28 px cap height it fits beside a 20-character name."""
    if not state.warning or shooter is None or state.match_winner is not None:
        return ""
    return t.gettext("TWO FOULS: A THIRD LOSES THE RACK (5.13)")


def _picker(verdict: Ruling, candidates: list[int], t: Catalog) -> Picker | None:
    """Offer the balls an unnamed pocketed ball could have been, as the daemon serves them."""
    assumed = tuple(given(verdict.assumed) or ())
    if not assumed:
        return None
    taken = Balls(assumed)
    said = msg_n("A ball dropped unseen and was taken as the {balls}. Which ball was it?",
                 "Balls dropped unseen and were taken as the {balls}. Which ball was the first?", taken.n, balls=taken)
    return Picker(assumed, tuple(ball(n) for n in candidates), render(said, t))


def _summary(state: State, players: list[str], verdict: Ruling | None, t: Catalog) -> Summary | None:
    """The match once won (by the 9 or conceded), or the rack just won: while its last shot is the last ruling, or
    while the concession that ended it is served (``conceded``: no shot ruled since)."""
    _ = t.gettext
    standing = _standing(state)[0]
    score, names = f"{standing[0]}  –  {standing[1]}", (players[0], players[1])
    winner = state.match_winner
    if winner is not None:
        return Summary((state.match_id, "match"), _("{name} wins the match").format(name=players[winner]),
                       "", True, score, names, _next_for(state.next_for, t), state.rematch_breaker is not None)
    conceded = state.conceded
    if conceded is not None:
        key: tuple[Any, ...] = (state.match_id, "conceded", conceded.rack)
        title = _("{name} wins rack {rack}").format(name=players[conceded.winner], rack=conceded.rack)
    elif verdict is None or verdict.rack_winner is None:
        return None
    else:
        key = (state.match_id, verdict.rack, verdict.shot)
        title = _("{name} wins rack {rack}").format(name=players[verdict.rack_winner], rack=verdict.rack)
    breaker = players[state.breaker] if state.breaker is not None else ""
    detail = _("{name} breaks rack {rack}").format(name=breaker, rack=state.rack)
    return Summary(key, title, detail, False, score, names)


def _next_for(served: list[NextFor | None] | None, t: Catalog) -> tuple[str, str]:
    """Where each player of a called match just won goes next, in the daemon's words (``next_for``).

    >>> from scoreboard.i18n.catalog import catalog
    >>> said = NextFor(words="winners' round 3 against Cvita", message={"id": "winners' round 3"}, match=None)
    >>> _next_for([said, None], catalog("en"))
    ("Next for you: winners' round 3 against Cvita", '')
    """
    if served is None or len(served) != 2:
        return "", ""
    shown = [t.gettext("Next for you: {where}").format(where=item.words) if item is not None and item.words else ""
             for item in served]
    return shown[0], shown[1]


def _abandon_text(state: State, players: list[str], t: Catalog) -> str:
    """The match being played as a new match would leave it: its score and rack, not over ("Ana 2  –  1 Ben,
    rack 4, is not over.")."""
    score = _standing(state)[0]
    return t.gettext("{score}, rack {rack}, is not over.").format(
        score=f"{players[0]} {score[0]}  –  {score[1]} {players[1]}", rack=state.rack)


def _health(reports: list[Health], sensors: Sensors, t: Catalog | None = None) -> tuple[str, str, str]:
    """The table's health as the daemon serves it: its level, its words, and the sensors button's words.

    The store comes first: while it cannot write, no tap or sensor input is kept. The sensors are OK only when
    the config turns a source on (``state.sensors``) and no line or link is down.

    >>> def said(source, subject, status, **more):
    ...     return Health(type="health", source=source, subject=subject, status=status, **more)
    >>> gpio, serial = Sensors(gpio=True, serial=False), Sensors(gpio=False, serial=True)
    >>> _health([said("store", "/d.db", "full", detail="the disk holding /d.db is full")], gpio)
    ('bad', 'STORE PROBLEM: the disk holding /d.db is full', 'DISK\\nFULL')
    >>> _health([], Sensors(gpio=False, serial=False))
    ('warn', 'No sensors: taps only', 'No sensors: taps only')
    >>> _health([said("gpio", "pocket:foot_left", "fault")], gpio)[1]
    '1 sensor line stuck'
    >>> _health([said("serial", "link", "offline")], serial)[1]
    'Sensor link down: serial'
    """
    _ = (t or catalog("en")).gettext
    down = [r for r in reports if r.status in DOWN]
    store = next((r for r in down if r.source == "store"), None)
    if store is not None:
        label = _("DISK\nFULL") if store.status == "full" else _("STORE\nDOWN")
        return "bad", _("STORE PROBLEM: {detail}").format(detail=given(store.detail) or store.subject), label
    links = sorted({r.source for r in down if r.subject == "link"})
    if links:
        text = _("Sensor link down: {links}").format(links=", ".join(links))
        return "bad", text, text
    if down:
        text = (t or catalog("en")).ngettext("{n} sensor line stuck", "{n} sensor lines stuck", len(down)).format(
            n=len(down))
        return "bad", text, text
    if not (sensors.gpio or sensors.serial):
        return "warn", _("No sensors: taps only"), _("No sensors: taps only")
    return "ok", _("Sensors OK"), _("Sensors OK")


def _ruling_text(state: State, verdict: Ruling | None, players: list[str], t: Catalog) -> str:
    """The last ruling, after what an undo just took back, if one did."""
    words = _ruling(verdict, state, t)
    taken = state.taken_back
    if taken is None:
        return words
    if taken.type == "undo_shot":
        message = given(taken.message)
        shot = render(from_json(message), t) if message is not None else given(taken.shot) or ""
        said = t.gettext("Taken back: {what}.").format(what=shot)
    else:
        said = t.gettext("Taken back: {what}.").format(what=_input_words(given(taken.input) or {}, players, t))
    return f"{said}\n{words}" if words else said


def _undo_shot_text(shot: UndoShot | None, t: Catalog) -> str:
    """What a tap on "Take back the shot" takes back, said from its message in the screen's language, with how
    much of it the table took in, in players' words: what its sensors read and what was tapped."""
    if shot is None:
        return ""
    return t.ngettext("{shot} ({n} sensor reading or tap)", "{shot} ({n} sensor readings and taps)",
                      shot.inputs).format(shot=render(from_json(shot.message), t), n=shot.inputs)


def _undo_text(target: dict[str, Any] | None, players: list[str], t: Catalog) -> str:
    """What a tap on Undo takes back, in words."""
    if target is None:
        return t.gettext("Nothing to undo")
    return t.gettext("Undo takes back: {what}").format(what=_input_words(target, players, t))


def _input_words(line: dict[str, Any], players: list[str], t: Catalog) -> str:
    """An input of the match log (its served line, read by the core's parser) in a few words (what an undo takes
    back); one this release does not know is said to be one."""
    _ = t.gettext
    try:
        item = parse(line)
    except InputError:
        return _("an input this screen does not know")
    if isinstance(item, Pocket | FirstContact | Cushion | Identify | OffTable):
        unnamed, cue, numbered = _BALL_WORDS[item.TYPE]
        number = item.ball
        return _(unnamed if number is None else cue if number == 0 else numbered).format(ball=number)
    if isinstance(item, Foul):
        words = {reason: _(text).lower() for reason, text, _rule in FOUL_REASONS}
        return _("the foul called: {reason}").format(reason=words.get(item.reason, item.reason))
    if isinstance(item, Concede):
        who = players[item.player] if item.player in (0, 1) else _("a player")
        said = _("{name} conceding the match") if item.scope == "match" else _("{name} conceding the rack")
        return said.format(name=who)
    return _(_PLAIN_WORDS[item.TYPE]) if item.TYPE in _PLAIN_WORDS else item.TYPE


#: An input about a ball: its words with no ball named, with the cue ball, and with an object ball.
_BALL_WORDS = {
    "pocket": (N_("an unnamed ball pocketed"), N_("the cue ball pocketed"), N_("the {ball} pocketed")),
    "first_contact": (N_("the cue ball hitting no ball"), N_("the cue ball hitting no ball"),
                      N_("the cue ball hitting the {ball} first")),
    "cushion": (N_("a ball reaching a cushion"), N_("the cue ball reaching a cushion"),
                N_("the {ball} reaching a cushion")),
    "identify": (N_("naming the unseen ball"), N_("naming the unseen ball"),
                 N_("naming the unseen ball as the {ball}")),
    "off_table": (N_("a ball off the table"), N_("the cue ball off the table"), N_("the {ball} off the table")),
}

_PLAIN_WORDS = {
    "strike": N_("the strike that began the shot"),
    "push_out": N_("the push out announced"),
    "accept": N_("the choice to shoot after the push out"),
    "pass": N_("passing the shot back"),
    "miss": N_("the miss"),
    "settle": N_("the end of the shot (the table came to rest)"),
    "stalemate": N_("the stalemate"),
    "safety": N_("the safety marked"),
    "timeout": N_("the timeout"),
    "rerack": N_("the re-rack"),
}


def match_start(players: tuple[str, str], race: tuple[int, int], breaker: int,
                rules: dict[str, Any], apa_skill: tuple[int, int] | None = None,
                language: str | None = None) -> dict[str, Any]:
    """The ``new_match`` request of the setup screen; names are trimmed, the daemon checks the rest.

    >>> match_start((" Ana ", "Ben"), (3, 5), 1, {"break": "alternate"})["match_start"]["players"]
    ['Ana', 'Ben']
    """
    start = {"type": "match_start", "v": 1, "players": [name.strip() for name in players], "race": list(race),
             "breaker": breaker, "rules": dict(rules)}
    if apa_skill is not None:
        start["apa_skill"] = list(apa_skill)
    if language is not None:
        start["language"] = language
    return {"cmd": "new_match", "match_start": start}


#: Screens a player opens and closes; a new state never takes one away (the daemon's settle must not
#: close the foul menu under a finger).
OPENED_BY_HAND = frozenset({"fouls", "picker", "undo", "take_back", "more", "settings", "setup", "results", "why",
                            "abandon"})


def next_screen(current: str, shown: View, dismissed: set[Any] | frozenset[Any] = frozenset(),
                before: View | None = None) -> str:
    """The screen to show after a new view: what the state calls for, unless a player opened another.

    A rack or match summary shows once, until dismissed (its key in ``dismissed``).
    The setup screen shown because there was no match (``before``) gives way when one begins.

    >>> waiting = View(connected=True, has_match=True, screen="choice")
    >>> next_screen("live", waiting), next_screen("fouls", waiting)
    ('choice', 'fouls')
    >>> next_screen("fouls", View(connected=True, has_match=False, screen="setup"))
    'setup'
    >>> next_screen("setup", waiting, before=View(connected=True, has_match=False, screen="setup"))
    'choice'
    """
    if not shown.connected:
        return current
    if shown.screen == "setup":
        return current if current == "settings" else "setup"
    if current == "setup" and before is not None and before.connected and not before.has_match:
        current = "live"
    if current in OPENED_BY_HAND:
        return current
    if shown.summary is not None and shown.summary.key not in dismissed:
        return "summary"
    if shown.screen == "summary":
        return "live"
    return shown.screen


def stats_text(stats: Stats | None, players: list[str] | None, match_over: bool, language: str | None = None) -> str:
    """The summary's counts, one line each: the match's when it is over, else the rack's (the stats command's).

    >>> from scoreboard.contract.read import read
    >>> counts = {"balls": [4, 2], "fouls": [0, 1], "break_and_runs": [0, 0], "nines_on_break": [0, 0]}
    >>> print(stats_text(read(Stats, {"match": counts, "rack": counts, "of_rack": 1}), ["Ana", "Ben"], False))
    Balls pocketed:  Ana 4  ·  Ben 2
    Fouls:  Ana 0  ·  Ben 1
    Break-and-runs:  Ana 0  ·  Ben 0
    Nines on the break:  Ana 0  ·  Ben 0
    """
    if stats is None or not players:
        return ""
    counted = stats.match if match_over else stats.rack
    _ = catalog(language).gettext
    rows = ((N_("Balls pocketed"), counted.balls), (N_("Fouls"), counted.fouls),
            (N_("Break-and-runs"), counted.break_and_runs), (N_("Nines on the break"), counted.nines_on_break))
    return "\n".join(f"{_(label)}:  {players[0]} {pair[0]}  ·  {players[1]} {pair[1]}" for label, pair in rows)


#: The setup screen's words for the profiles the daemon offers (``State.profiles``); "" is the screen's own
#: options (the toggles).
PROFILE_WORDS = {"wpa": N_("WPA"), "apa9": N_("APA 9-ball"), "bar": N_("Bar rules"), "": N_("Own options")}


# The setup screen and a rematch build on the state read (``DevetkaApp.served``): None before one is heard, and for
# one that does not fit (``view`` names its field on the screen; the setup screen then offers its own options).


def profile_choices(served: State | None) -> list[str]:
    """The profiles the setup screen may pick, in the daemon's order; the screen's own options too, unless the
    venue locked a profile."""
    offered = list(served.profiles) if served is not None else []
    return offered if served is not None and served.profile_locked and offered else [*offered, ""]


def next_profile(served: State | None, current: str) -> str:
    """The profile a tap on the setup screen's "Rules" button picks after ``current``."""
    choices = profile_choices(served)
    return choices[(choices.index(current) + 1) % len(choices)] if current in choices else choices[0]


def _profile(served: State | None, profile: str) -> dict[str, str | int | bool | None] | None:
    """The rules the daemon serves for ``profile`` (None: the screen's own options, or a profile not offered)."""
    return served.profiles.get(profile) if served is not None and profile else None


def profile_scores_points(served: State | None, profile: str) -> bool:
    """Whether the served profile plays for APA points (the setup screen then asks skill levels, not a race)."""
    return (_profile(served, profile) or {}).get("scoring") == "apa"


def profile_fixes(served: State | None, profile: str) -> list[str]:
    """The options the daemon says ``profile`` fixes (``State.profile_fixes``; none for the screen's own)."""
    return list(served.profile_fixes.get(profile, [])) if served is not None else []


#: The match's sensed switches: the table's sensors decide them, never a request (docs/rules.md, "Profiles").
SENSED = ("rails_sensed", "strike_sensed")


def setup_request(read: State | None, profile: str, players: tuple[str, str], counts: tuple[int, int],
                  breaker: int, switches: dict[str, Any], language: str | None = None) -> dict[str, Any]:
    """The setup screen's ``new_match``, with only what the players set: the profile (``""``: the screen's own
    options, ``null`` to the daemon), and each of the screen's ``switches`` the profile leaves open and the players
    set otherwise than the daemon would; the daemon composes the rest (the venue's shot clock, the table's
    sensors). Under APA points ``counts`` are the skill levels, else the race. ``language``: the players' choice
    for this match (None: the table's).

    >>> import tempfile
    >>> from scoreboard.referee.referee import Referee
    >>> folder = tempfile.TemporaryDirectory()
    >>> referee = Referee.open(folder.name + "/devetka.db")
    >>> served = read_state(referee.state())
    >>> setup_request(served, "wpa", ("Ana", "Ben"), (3, 3), 0, {"break": "alternate",
    ...               "three_foul_rule": True, "rails_sensed": True})["match_start"]["rules"]
    {'profile': 'wpa', 'break': 'alternate'}
    >>> setup_request(served, "apa9", ("Ana", "Ben"), (3, 12), 0, {})["match_start"]["apa_skill"]
    [3, 9]
    >>> referee.close(); folder.cleanup()
    """
    served = _profile(read, profile)
    fixed = profile_fixes(read, profile)
    rules: dict[str, Any] = {"profile": profile or None}
    for option, value in switches.items():
        if option in SENSED or option in fixed:
            continue
        if served is None or served.get(option) != value:
            rules[option] = value
    if read is not None and served is not None and served.get("scoring") == "apa":
        least, most = read.limits.apa_skill
        skill = (min(most, max(least, counts[0])), min(most, max(least, counts[1])))
        return match_start(players, counts, breaker, rules, skill, language)
    return match_start(players, counts, breaker, rules, language=language)


def rematch_rules(served: State | None) -> dict[str, Any]:
    """The rules a rematch asks for: the match's own, but the sensed switches (the table's, for the daemon to
    give) and with its profile said, none included (so the venue's profile does not replace the match's own
    options).

    >>> import tempfile
    >>> from scoreboard.referee.referee import Referee
    >>> folder = tempfile.TemporaryDirectory()
    >>> referee = Referee.open(folder.name + "/devetka.db")
    >>> answer = referee.handle({"cmd": "new_match", "match_start": {"type": "match_start", "v": 1,
    ...     "players": ["Ana", "Ben"], "race": [3, 3], "breaker": 0,
    ...     "rules": {"break": "alternate", "rails_sensed": True, "shot_clock": True}}})
    >>> {option: value for option, value in rematch_rules(read_state(answer.state)).items()
    ...  if option in ("break", "rails_sensed", "shot_clock", "profile")}
    {'break': 'alternate', 'shot_clock': True, 'profile': None}
    >>> referee.close(); folder.cleanup()
    """
    rules = {option: value for option, value in ((served.rules if served else None) or {}).items()
             if option not in SENSED}
    rules.setdefault("profile", None)
    return rules

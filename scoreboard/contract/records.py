"""Every message the daemon serves, declared once as a frozen, typed record (docs/mqtt.md).

A field is added here, one line with its description, and given a value in ``scoreboard.contract.present``;
``python -m scoreboard.contract.schema --write`` writes the JSON Schemas again. ``CONTRACT`` is raised when a
served field's meaning changes (not when one is added): a client that meets a higher one than it knows says so
and draws what it still understands (docs/mqtt.md, "The contract").

A field a state serves only under some rule options (ball in hand behind the head string, the APA score sheet,
the shot clock) is ``UNSET`` otherwise: it is then left out of the JSON, as it always was.

>>> from typing import get_args
>>> list(get_args(Code)) == list(CODES)
True
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, Struct, UnsetType, field

#: The contract's number, served as every state's ``contract``: raised when a served field's meaning changes.
CONTRACT = 1

Player = Annotated[int, Meta(ge=0, le=1, description="a player: an index into players")]
Pair = Annotated[list[int], Meta(min_length=2, max_length=2, description="[player 0's, player 1's]")]
Ball = Annotated[int, Meta(ge=1, le=9)]
Message = Annotated[dict[str, Any], Meta(
    description="words as messages (match-log.md, 'Rulings as messages'): {join, parts: [{id, args, ...}]}")]
InputLine = Annotated[dict[str, Any], Meta(description="an input as its match-log line, t in the match's seconds")]

#: Every refusal's kind (docs/mqtt.md, "Refusals"): stable, so no client branches on the words.
Code = Literal["invalid_input", "not_now", "rule_fixed", "wrong_table", "pin_required", "pin_not_chosen", "pin_wrong",
               "pin_locked", "not_allowed", "unavailable", "store_failed", "internal_error", "expired", "superseded",
               "in_play", "call_pending", "no_call", "venue_away"]

#: Every refusal's ``code``, one per kind (docs/mqtt.md, "Refusals"): stable, so no client branches on the words.
CODES: dict[Code, str] = {
    "invalid_input": "the request is not well formed, or names an unknown command, option or value",
    "not_now": "the rules or the match refuse it now (no match, the match over, a tap that is not allowed)",
    "rule_fixed": "a new match would change an option the profile, the venue or the table's sensors fix",
    "wrong_table": "a new match names another table",
    "pin_required": "a change of settings without the PIN",
    "pin_not_chosen": "no PIN is chosen yet: only the change that chooses one is taken",
    "pin_wrong": "the PIN given is not the table's",
    "pin_locked": "too many wrong PINs: requests carrying a PIN are refused for a while",
    "not_allowed": "this way in may not send it (MQTT: settings and the PIN)",
    "unavailable": "this daemon keeps no settings (started without a data directory)",
    "store_failed": "the store could not save it: nothing changed",
    "internal_error": "a fault of the daemon's own: reported, the match as it was",
    "expired": "a director's call arrived after its expiry",
    "superseded": "a director's call was withdrawn, or a newer call came first",
    "in_play": "a director's call while a match is being played at this table",
    "call_pending": "a director's call while another call is offered at this table",
    "no_call": "a Start or Not now for a call that is not offered at this table",
    "venue_away": "a called match's Start while the table's bridge says the venue cannot be reached",
}


class Record(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A served record: frozen (built once, never edited on its way out), and no field it does not declare."""


class Action(Record, frozen=True, kw_only=True):
    """A tap the touchscreen offers: whether it may be made now, and if not the sentence why (the players')."""

    ok: bool
    why: str | UnsetType = UNSET


Taps = dict[str, Action]


class Actions(Record, frozen=True, kw_only=True):
    """Each tap the touchscreen offers, decided by trying it on the fold (docs/architecture.md)."""

    push_out: Action
    accept: Action
    pass_: Action = field(name="pass")
    undo: Action
    undo_shot: Action
    miss: Action
    stalemate: Action
    safety: Action
    timeout: Action
    rerack: Action
    extension: Action
    time_foul: Action
    settle: Action
    rack_mode: Action
    foul: Annotated[Taps, Meta(description="per foul reason (bad_hit, no_rail, ...)")]
    shot_clock: Annotated[Taps, Meta(description="the shot clock turned on and off")]
    concede: Annotated[dict[str, Taps], Meta(description="per player ('0', '1'), rack and match")]
    identify: Annotated[Taps, Meta(description="per ball ('1'..'9'): the ball a pocket sensor could not name")]
    off_table: Annotated[Taps, Meta(description="per ball ('0' the cue ball .. '9'): a ball off the table")]


class Ruling(Record, frozen=True, kw_only=True):
    """A ruling: a shot line of match-log.md, its words in the players' language, the same as messages, and the
    rules they cite (for "Why?"). Served as the state's ``last_verdict`` and in a verdict event."""

    type: Literal["shot"]
    rack: int
    shot: int
    shooter: Player
    break_: bool = field(name="break")
    push_out: bool
    between_shots: bool | UnsetType = UNSET
    pocketed: list[Ball]
    scratch: bool | UnsetType = UNSET
    off_table: list[int] | UnsetType = UNSET
    foul: bool
    rules: list[str]
    respot_nine: bool
    on_table: list[Ball]
    assumed: list[Ball] | UnsetType = UNSET
    next_shooter: Annotated[Player | None, Meta(description="null: the match is over")]
    ball_in_hand: bool
    push_out_allowed: bool
    fouls_in_row: Pair
    warning: bool
    rack_winner: Player | None
    behind_head_string: bool | UnsetType = UNSET
    break_choice: bool | UnsetType = UNSET
    time_foul: bool | UnsetType = UNSET
    points_scored: int | UnsetType = UNSET
    safety: bool | UnsetType = UNSET
    dead_balls: int | UnsetType = UNSET
    words: Annotated[str, Meta(description="what the screen says, in the state's language")]
    message: Message
    cites: Annotated[list[str], Meta(description="the rules the words cite (5.8, R3) and the league option applied")]


class ShotClock(Record, frozen=True, kw_only=True):
    """The shot clock (docs/mqtt.md, "The shot clock"): the rules' part and the daemon's deadline beside it."""

    on: Annotated[bool, Meta(description="the clock is on (WPA Tournament Regulation 20)")]
    limit: Annotated[int | None, Meta(description="the seconds of the turn due now; null when no turn is timed")]
    warning: Annotated[int, Meta(description="the match's warning, in seconds")]
    extension: Annotated[int, Meta(description="the match's extension, in seconds")]
    extensions_left: Annotated[Pair, Meta(description="each player's extensions left in this rack")]
    extended: Annotated[bool, Meta(description="the turn due now has its extension")]
    running: Annotated[bool, Meta(description="a turn is being timed and has not run out")]
    deadline: Annotated[int | None, Meta(description="when the turn runs out: wall clock ms since the epoch")]
    warning_at: Annotated[int | None, Meta(description="deadline less the warning, likewise")]
    time_foul_proposed: Annotated[bool, Meta(description="the clock ran out with no strike sensor: 'Time foul?'")]
    paused: Annotated[bool, Meta(
        description="the clock stands still while a ruling is put right on the touchscreen (clock_pause)")]
    paused_left: Annotated[int | None, Meta(
        description="while paused, the ms left on the clock, standing still (deadline and warning_at are null)")]
    pause_ends: Annotated[int | None, Meta(
        description="while paused, when the pause lapses by itself: wall clock ms since the epoch")]


class Health(Record, frozen=True, kw_only=True):
    """A sensor line's or link's last word on itself (a stuck line, the serial link, the store)."""

    type: Literal["health"]
    source: str
    subject: str
    status: str
    detail: str | UnsetType = UNSET
    count: int | UnsetType = UNSET
    t: float | UnsetType = UNSET


class Sensors(Record, frozen=True, kw_only=True):
    gpio: bool
    serial: bool


class Sensed(Record, frozen=True, kw_only=True):
    rails_sensed: bool
    strike_sensed: bool


class UndoShot(Record, frozen=True, kw_only=True):
    """What ``undo_shot`` takes back: the shot in words, how many inputs, the shot as messages."""

    shot: str
    inputs: int
    message: Message


class TakenBack(Record, frozen=True, kw_only=True):
    """What the last input took back: ``{type: undo, input}`` or ``{type: undo_shot, shot, inputs, message}``."""

    type: Literal["undo", "undo_shot"]
    input: InputLine | UnsetType = UNSET
    shot: str | UnsetType = UNSET
    inputs: int | UnsetType = UNSET
    message: Message | UnsetType = UNSET


Options = Annotated[dict[str, str | int | bool | None], Meta(
    description="every rule option with its value (match-log.md; profile null: none)")]


class Said(Record, frozen=True, kw_only=True):
    """Words to show: in the players' language, and the same as messages for a screen in another."""

    words: str
    message: Message


class Concession(Record, frozen=True, kw_only=True):
    """The concession that ended the last rack or the match (R9), served until a shot is ruled after it: a screen
    says it in place of the last shot's ruling, which it did not give."""

    player: Annotated[Player, Meta(description="who conceded")]
    scope: Literal["rack", "match"]
    rack: Annotated[int, Meta(description="the rack conceded, or the one being played when the match was")]
    winner: Annotated[Player, Meta(description="who won the rack (or the match) by it")]
    match_over: Annotated[bool, Meta(description="it ended the match (a match conceded, or a rack at the hill)")]
    words: Annotated[str, Meta(description="what the screen says, in the state's language")]
    message: Message
    cites: Annotated[list[str], Meta(description="the rules the words cite: R9")]


class Limits(Record, frozen=True, kw_only=True):
    """The numbers a setup screen keeps its fields in: [least, most]."""

    apa_skill: Pair
    race: Pair


class Call(Record, frozen=True, kw_only=True):
    """A director's call at this table (docs/events.md, "Calls"): the one offered, with its words, else the last
    one answered."""

    id: Annotated[str, Meta(description="the call's id, as the director sent it")]
    status: Literal["offered", "started", "declined", "refused", "withdrawn"]
    match: Annotated[str | None, Meta(description="the event's match the call is for")]
    players: Annotated[list[str] | UnsetType, Meta(description="offered: the called match's players")] = UNSET
    event: Annotated[str | None | UnsetType, Meta(
        description="offered: the event's name, shown over the call; null: the call named none")] = UNSET
    words: Annotated[str | UnsetType, Meta(description="offered: the call in the players' language")] = UNSET
    message: Message | UnsetType = UNSET
    start: Annotated[Action | UnsetType, Meta(
        description="offered: whether Start may be pressed now; not while the table's bridge says the venue cannot "
                    "be reached (why: in the players' language)")] = UNSET
    code: Annotated[Code | UnsetType, Meta(description="refused: the refusal's kind")] = UNSET


class CalledResult(Record, frozen=True, kw_only=True):
    """A called match won at this table: what the director takes back to the event."""

    call: str
    match_id: int
    seq: Annotated[int, Meta(ge=0, description="the match's last input")]
    score: Pair
    winner: Player | None
    points: Pair | UnsetType = UNSET


class NextFor(Record, frozen=True, kw_only=True):
    """Where a player of a called match just won goes next, as the call said (docs/events.md, "Where next")."""

    words: Annotated[str, Meta(description="in the players' language: 'winners' round 2 against Ana'")]
    message: Message
    match: Annotated[str | None, Meta(description="the event's next match; null: out, the event won, standings")]


class Counts(Record, frozen=True, kw_only=True):
    """The summary screen's counts of a rack or a match (``scoreboard.core.stats``), each [player 0's, player 1's]."""

    balls: Annotated[Pair, Meta(description="object balls pocketed on shots that were not fouls")]
    fouls: Pair
    break_and_runs: Pair
    nines_on_break: Pair


class Stats(Record, frozen=True, kw_only=True):
    """The stats command's counts: the whole match's and those of the last shot's rack."""

    match: Counts
    rack: Counts
    of_rack: Annotated[int, Meta(ge=0, description="the rack ``rack`` counts")]


class TonightsMatch(Record, frozen=True, kw_only=True):
    """One of tonight's matches at this table (the results command): its compact result, as the QR code holds it
    (``scoreboard.core.results.compact``: the result ``devetka export --result`` prints with its racks totalled
    per player), or, for a match whose log no longer folds, its id, start and players with ``error``."""

    match: Annotated[int, Meta(ge=1, description="the stored match's id")]
    started: Annotated[str | None, Meta(description="when it began (UTC, ISO 8601)")]
    players: Annotated[list[str], Meta(min_length=2, max_length=2)]
    error: Annotated[str | UnsetType, Meta(description="why its log cannot be read: then nothing below")] = UNSET
    table: str | None | UnsetType = UNSET
    profile: str | None | UnsetType = UNSET
    scoring: Annotated[str | UnsetType, Meta(description="racks, or apa: points against targets")] = UNSET
    race: Pair | None | UnsetType = UNSET
    score: Annotated[Pair | UnsetType, Meta(description="racks won")] = UNSET
    winner: Player | None | UnsetType = UNSET
    racks: Annotated[int, Meta(ge=0, description="racks finished")] | UnsetType = UNSET
    duration_s: Annotated[float, Meta(ge=0)] | UnsetType = UNSET
    break_and_runs: Pair | UnsetType = UNSET
    nines_on_break: Pair | UnsetType = UNSET
    fouls: Pair | UnsetType = UNSET
    racks_left_out: Annotated[bool | UnsetType, Meta(description="the racks are totalled, not listed")] = UNSET
    points: Annotated[Pair | UnsetType, Meta(description="APA: each player's points")] = UNSET
    targets: Annotated[Pair | UnsetType, Meta(description="APA: the points each player must reach")] = UNSET
    innings: Annotated[int, Meta(ge=0, description="APA: the score sheet's innings")] | UnsetType = UNSET
    dead_balls: Annotated[int, Meta(ge=0, description="APA: balls dead (not scored)")] | UnsetType = UNSET
    safeties: Annotated[Pair | UnsetType, Meta(description="APA: defensive shots")] = UNSET


class Tonight(Record, frozen=True, kw_only=True):
    """The results command's answer: tonight's matches at this table, oldest first."""

    since: Annotated[str, Meta(description="when tonight began (UTC, ISO 8601): twelve hours before the answer")]
    matches: list[TonightsMatch]


#: A setting's value, by its dotted name (``table.id``, ``ui.sound``: README, "Settings changed at the table").
Setting = str | int | float | bool | None


class Settings(Record, frozen=True, kw_only=True):
    """The settings command's answer (behind the PIN): the table's settings the touchscreen changes."""

    overrides: Annotated[dict[str, Setting], Meta(description="the settings changed on the touchscreen, by name")]
    effective: Annotated[dict[str, Setting], Meta(
        description="every setting the touchscreen changes, as in effect (the PIN never shown)")]
    pin_chosen: Annotated[bool, Meta(description="a PIN is chosen")]
    file: Annotated[str, Meta(description="the file the touchscreen's changes are kept in")]


class State(Record, frozen=True, kw_only=True):
    """The state: the replay state line of match-log.md plus the daemon's fields (docs/mqtt.md, ``state``)."""

    type: Literal["state"]
    contract: Annotated[int, Meta(ge=1, description="the contract's number: raised when a field's meaning changes")]
    players: Annotated[list[str], Meta(min_length=2, max_length=2)] | None
    race: Pair | None
    score: Pair
    rack: Annotated[int, Meta(ge=0, description="the rack being played, from 1")]
    breaker: Player | None
    match_winner: Player | None
    on_table: Annotated[list[Ball], Meta(description="the object balls on the table")]
    shooter: Player | None
    ball_in_hand: bool
    push_out_allowed: bool
    push_out: bool
    awaiting_choice: bool
    fouls_in_row: Pair
    warning: Annotated[bool, Meta(description="the shooter is on two fouls (5.13)")]
    behind_head_string: bool | UnsetType = UNSET
    break_choice: bool | UnsetType = UNSET
    apa_skill: Pair | UnsetType = UNSET
    points: Pair | UnsetType = UNSET
    targets: Pair | UnsetType = UNSET
    innings: int | UnsetType = UNSET
    dead_balls: int | UnsetType = UNSET
    rack_dead_balls: int | UnsetType = UNSET
    safeties: Pair | UnsetType = UNSET
    timeouts_left: Pair | UnsetType = UNSET
    shot_clock: ShotClock | UnsetType = UNSET
    profile: str | UnsetType = UNSET
    language: Annotated[str, Meta(description="the players' language (en, hr): the state's words are in it")]
    sound: Annotated[bool, Meta(description="the touchscreen's shot clock tones are on ([ui] sound)")]
    seq: Annotated[int, Meta(ge=0, description="the store's number of the match's last input")]
    match_id: int | None
    match_started: Annotated[str | None, Meta(
        description="when the match was begun: UTC, ISO 8601, as the store keeps it; null with no match")]
    table_name: Annotated[str | None, Meta(
        description="what the venue calls the table ([table] name, e.g. 'Table 3 (TV)'); null: unset, show its id")]
    store: Annotated[str | None, Meta(description="the store's lasting id: (store, match_id, seq) names a state")]
    health: list[Health]
    sensors: Annotated[Sensors, Meta(description="the sensor sources the config turns on")]
    rack_mode: Annotated[bool, Meta(description="players are racking: pocket sensors are ignored")]
    shot_in_progress: Annotated[bool, Meta(description="a shot has begun and its settle (or a miss) is to come")]
    profiles: Annotated[dict[str, Options], Meta(
        description="the rule profiles the setup screen may pick, each the rules a new_match naming only it gets")]
    profile_fixes: Annotated[dict[str, list[str]], Meta(
        description="per profile offered, the game options a new_match may not change under it")]
    profile_locked: Annotated[bool, Meta(description="the venue locked the profile: only that one is offered")]
    pin_chosen: Annotated[bool | None, Meta(description="the table has a PIN; null: the daemon keeps no settings")]
    sensed: Annotated[Sensed, Meta(description="the table's sensed switches, every match's")]
    last_verdict: Ruling | None
    undo: Annotated[InputLine | None, Meta(description="the input an undo would take back")]
    undo_shot: UndoShot | None
    taken_back: Annotated[TakenBack | None, Meta(description="what the last input took back, until the next change")]
    shot_reopened: Annotated[bool, Meta(description="a shot an undo brought back: no settle comes by itself")]
    rules: Options | None
    rules_version: Annotated[int | None, Meta(description="the rules the match is refereed under, for good")]
    actions: Actions
    call: Annotated[Call | None, Meta(description="the director's call offered here, else the last one answered")]
    match_call: Annotated[str | None, Meta(description="the call the match being played was begun from")]
    called_results: Annotated[list[CalledResult], Meta(
        description="the called matches won at this table tonight (the last few): the director takes them")]
    next_for: Annotated[list[NextFor | None] | None, Meta(
        description="the called match won here: each player's next (null: unsaid); null: no call said it")]
    # The rule facts a screen shows, decided by the rules core (scoreboard/core/facts.py): no screen works one out.
    ball_on: Annotated[Ball | None, Meta(description="the lowest ball on the table, the one to hit first (5.1)")]
    hill: Annotated[list[bool], Meta(description="each player is one rack from winning the race (never under APA)")]
    break_to_come: Annotated[bool, Meta(description="the rack's break is still to be played")]
    rematch_breaker: Annotated[Player | None, Meta(
        description="who breaks a rematch: the match's loser; null while the match is not won, and for a called "
                    "match (the director calls each player's next match: no rematch is offered)")]
    shot_dropped: Annotated[list[int | None], Meta(
        description="the balls the shot being played has dropped so far, in order (0 the cue ball, null unnamed)")]
    identify_candidates: Annotated[list[Ball], Meta(
        description="the balls a pocketed ball the last shot could not name may have been (the picker's)")]
    ruling_now: Annotated[Said | None, Meta(
        description="the last ruling as said now where it differs from last_verdict: a push out answered (5.6)")]
    conceded: Annotated[Concession | None, Meta(
        description="the concession that ended the last rack or the match, until a shot is ruled after it (R9)")]
    limits: Annotated[Limits, Meta(description="the bounds of a new match's numbers")]
    # What a command's answer adds to the state it answers with (README, "The rules daemon"); never broadcast.
    names: Annotated[list[str] | UnsetType, Meta(description="the names command: the players' names stored")] = UNSET
    stats: Annotated[Stats | None | UnsetType, Meta(
        description="the stats command: the counts (null: no match)")] = UNSET
    results: Annotated[Tonight | UnsetType, Meta(description="the results command: tonight's matches")] = UNSET
    event_page: Annotated[str | None | UnsetType, Meta(
        description="the results command: the venue board's page of the night's event ([venue] url), null with "
                    "none")] = UNSET
    match: Annotated[int | UnsetType, Meta(description="the result command: the match asked for")] = UNSET
    result: Annotated[str | None | UnsetType, Meta(description="the result command: the result text")] = UNSET
    compact: Annotated[str | None | UnsetType, Meta(description="the result command: the compact text")] = UNSET
    board: Annotated[str | None | UnsetType, Meta(
        description="the result command: the match's page on the venue board ([venue] url), null with none")] = UNSET
    settings: Annotated[Settings | UnsetType, Meta(description="the settings command: overrides, values")] = UNSET
    restart: Annotated[bool | UnsetType, Meta(description="the settings command: a change waits for a restart")] = UNSET


class InputEvent(Record, frozen=True, kw_only=True, tag_field="event", tag="input"):
    """An input the daemon stored (sensed, tapped, sent over MQTT or made by the settle timer)."""

    store: str | None
    match_id: int | None
    seq: int
    input: InputLine


class VerdictEvent(Record, frozen=True, kw_only=True, tag_field="event", tag="verdict"):
    """The ruling an input gave, right after it; ``amends``: it replaces the last one (a ball dropped late)."""

    store: str | None
    match_id: int | None
    seq: int
    amends: bool
    verdict: Ruling


Event = InputEvent | VerdictEvent


class Refusal(Record, frozen=True, kw_only=True):
    """A refused request's answer: ``error`` in English, ``words`` in the players' language, and its ``code``."""

    id: Annotated[Any, Meta(description="the request's id, as sent; null when none was given or it could not be read")]
    ok: Literal[False]
    error: str
    words: str | None
    code: Code


class Answer(Record, frozen=True, kw_only=True):
    """A request's answer when it was taken: the state it led to."""

    id: Annotated[Any, Meta(description="the request's id, as sent")]
    ok: Literal[True]
    state: State

"""The inputs of the match log (docs/match-log.md): typed, validated values.

Every part of Devetka speaks these: sensors and the serial bridge produce them,
taps and MQTT commands are them, the rules fold consumes them and the store
keeps them. ``parse`` turns one JSON object into an input and raises
``InputError`` naming the field and the problem; ``to_json`` writes it back.
Unknown fields are ignored, as the spec says.

>>> parse({"type": "pocket", "ball": 3, "pocket": "foot_left"})
Pocket(ball=3, pocket='foot_left', t=None, src=None)
>>> to_json(Pocket(ball=3, pocket="foot_left"))
{'type': 'pocket', 'ball': 3, 'pocket': 'foot_left'}
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Protocol, TypeGuard, TypeVar, cast

from scoreboard.core.messages import Message, msg

LOG_VERSION = 1

POCKETS = ("head_left", "head_right", "side_left", "side_right", "foot_left", "foot_right")
RAILS = ("head", "foot", "left_head", "left_foot", "right_head", "right_foot")
SOURCES = ("gpio", "serial", "touch", "mqtt", "camera", "replay")
FOUL_REASONS = ("bad_hit", "no_rail", "scratch", "off_table", "moved_ball", "illegal_break", "other")
CONCEDE_SCOPES = ("rack", "match")
BREAK_ORDERS = ("winner", "alternate")

CUE_BALL = 0
NINE = 9
OBJECT_BALLS = tuple(range(1, 10))


class InputError(ValueError):
    """An input that is not a well-formed match-log input; the message names the problem (a ``Message``:
    ``str(error)`` is the English, ``render(error.message, catalog)`` another language)."""

    def __init__(self, message: Message | str) -> None:
        super().__init__(message)  # put into words when read (``str``), not when raised
        self.message = message


#: The rule options that take one of a few names, each with its choices; the first choice is the default.
CHOICES: dict[str, tuple[str, ...]] = {
    "break": BREAK_ORDERS,
    "scoring": ("racks", "apa"),
    "ball_in_hand": ("anywhere", "behind_head_string"),
    "nine_on_break": ("wins", "spotted"),
    "break_requirement": ("four_rails", "three_point"),
    "break_failure": ("foul", "option"),
}
#: The shot clock's options (WPA Tournament Regulation 20, docs/rules.md "The shot clock"): whole seconds, each
#: with its bounds; ``check_clock`` checks them against each other.
CLOCK_SECONDS: dict[str, tuple[int, int]] = {
    "shot_clock_s": (10, 60),
    "shot_clock_warning_s": (1, 59),
    "shot_clock_extension_s": (5, 60),
    "shot_clock_extensions": (0, 9),
    "shot_clock_after_break_s": (10, 60),
    "shot_clock_after_push_out_s": (10, 60),
}
#: APA timeouts a rack by skill level (the ``timeout`` input): a league's allowance, each with its bounds. The
#: defaults are APA's ([S9] in docs/rules.md): two a rack for skill levels 1 to 3, one for 4 and up.
TIMEOUT_COUNTS: dict[str, tuple[int, int]] = {
    "timeouts_skill_1_3": (0, 9),
    "timeouts_skill_4_9": (0, 9),
}
#: The shot clock's options that may be null: the shot after a push out is an ordinary turn unless one is set.
CLOCK_UNSET = ("shot_clock_after_push_out_s",)
#: The longest a shot may be timed after the break or a push out, whatever the options say (TR20: "not over 60 s").
AFTER_BREAK_CAP_S = 60
#: The profiles a match may be labelled with (``rules.profile``); their options are in ``core/profiles.py``.
PROFILE_NAMES = ("wpa", "apa9", "bar")
#: The options of the first release: written in every ``match_start`` with rules, as they always were.
FIRST_OPTIONS = ("break", "rails_sensed", "push_out_after_break_foul", "three_foul_rule", "strike_sensed")


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The rule options of ``match_start.rules``; each default keeps the rules of the spec.

    ``profile`` is only a label (the profile the options were taken from): the other values decide.

    >>> RuleOptions().break_order, RuleOptions().rails_sensed, RuleOptions().scoring
    ('winner', True, 'racks')
    """

    break_order: str = "winner"
    rails_sensed: bool = True
    push_out_after_break_foul: bool = False
    three_foul_rule: bool = True
    strike_sensed: bool = False
    scoring: str = "racks"
    ball_in_hand: str = "anywhere"
    nine_on_break: str = "wins"
    break_requirement: str = "four_rails"
    break_failure: str = "foul"
    push_outs: bool = True
    shot_clock: bool = False
    shot_clock_s: int = 35
    shot_clock_warning_s: int = 10
    shot_clock_extension_s: int = 25
    shot_clock_extensions: int = 1
    shot_clock_after_break_s: int = 60
    shot_clock_after_push_out_s: int | None = None
    timeouts_skill_1_3: int = 2
    timeouts_skill_4_9: int = 1
    profile: str | None = None

    JSON_NAMES: ClassVar[dict[str, str]] = {
        "break": "break_order",
        "rails_sensed": "rails_sensed",
        "push_out_after_break_foul": "push_out_after_break_foul",
        "three_foul_rule": "three_foul_rule",
        "strike_sensed": "strike_sensed",
        "scoring": "scoring",
        "ball_in_hand": "ball_in_hand",
        "nine_on_break": "nine_on_break",
        "break_requirement": "break_requirement",
        "break_failure": "break_failure",
        "push_outs": "push_outs",
        "shot_clock": "shot_clock",
        "shot_clock_s": "shot_clock_s",
        "shot_clock_warning_s": "shot_clock_warning_s",
        "shot_clock_extension_s": "shot_clock_extension_s",
        "shot_clock_extensions": "shot_clock_extensions",
        "shot_clock_after_break_s": "shot_clock_after_break_s",
        "shot_clock_after_push_out_s": "shot_clock_after_push_out_s",
        "timeouts_skill_1_3": "timeouts_skill_1_3",
        "timeouts_skill_4_9": "timeouts_skill_4_9",
        "profile": "profile",
    }

    @classmethod
    def from_json(cls, raw: Any) -> RuleOptions:
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            raise InputError(msg("rules must be an object of rule options"))
        values: dict[str, Any] = {}
        for name, value in raw.items():
            attr = cls.JSON_NAMES.get(name)
            if attr is None:
                known = ", ".join(cls.JSON_NAMES)
                raise InputError(msg("unknown rule option {name} (known: {known})", name=repr(name), known=known))
            check_option(name, value)
            values[attr] = value
        if values.get("scoring") == "apa":
            for name, attr in (("push_outs", "push_outs"), ("three_foul_rule", "three_foul_rule")):
                if values.setdefault(attr, False):
                    raise InputError(msg('rules.{name} must be false under rules.scoring "apa": APA 9-ball has none',
                                         name=name))
        options = cls(**values)
        check_clock(options)
        return options

    @property
    def apa(self) -> bool:
        """APA 9-ball scoring: points against a target by skill level, not racks against a race."""
        return self.scoring == "apa"

    def timeouts(self, skill: int) -> int:
        """The timeouts a rack a player of APA skill level ``skill`` may take: the league's allowance."""
        return self.timeouts_skill_1_3 if skill <= 3 else self.timeouts_skill_4_9

    def every(self) -> dict[str, Any]:
        """Every option's value under its log name, the label included (null: none): what the state serves, so a
        screen that asks for the same match again (a rematch) asks for every option, not the venue's defaults."""
        return {name: getattr(self, attr) for name, attr in self.JSON_NAMES.items()}

    def to_json(self) -> dict[str, Any]:
        """Every option of the first release, and each later one that is set (all of them under a profile)."""
        default = _DEFAULT_OPTIONS
        return {
            name: getattr(self, attr) for name, attr in self.JSON_NAMES.items()
            if name in FIRST_OPTIONS or self.profile is not None or getattr(self, attr) != getattr(default, attr)
        }


def check_option(name: str, value: Any) -> None:
    """Raise ``InputError`` naming the option unless ``value`` is one it takes."""
    choices = CHOICES.get(name)
    if choices is not None:
        if value not in choices:
            raise InputError(msg("rules.{name} must be {choices}, not {value}", name=name, choices=_either(choices),
                                 value=_json(value)))
    elif name == "profile":
        if value not in PROFILE_NAMES:
            raise InputError(msg("rules.profile must be {choices}, not {value}", choices=_either(PROFILE_NAMES),
                                 value=_json(value)))
    elif name in CLOCK_SECONDS or name in TIMEOUT_COUNTS:
        if value is None and name in CLOCK_UNSET:
            return
        low, high = CLOCK_SECONDS.get(name) or TIMEOUT_COUNTS[name]
        if not _is_int(value) or not low <= value <= high:
            raise InputError(msg("rules.{name} must be a whole number from {low} to {high}, not {value}", name=name,
                                 low=low, high=high, value=_json(value)))
    elif not isinstance(value, bool):
        raise InputError(msg("rules.{name} must be true or false", name=name))


def check_clock(options: RuleOptions) -> None:
    """The shot clock's options must fit together: the warning inside the limit, the limit after the break no
    shorter than the limit (TR20: a longer limit after the break, 60 s at most)."""
    if options.shot_clock_warning_s >= options.shot_clock_s:
        raise InputError(msg("rules.shot_clock_warning_s ({warning}) must be less than rules.shot_clock_s ({limit})",
                             warning=options.shot_clock_warning_s, limit=options.shot_clock_s))
    if not options.shot_clock_s <= options.shot_clock_after_break_s <= AFTER_BREAK_CAP_S:
        raise InputError(msg("rules.shot_clock_after_break_s must be from rules.shot_clock_s ({limit}) to {cap}, not "
                             "{value}", limit=options.shot_clock_s, cap=AFTER_BREAK_CAP_S,
                             value=options.shot_clock_after_break_s))
    push_out = options.shot_clock_after_push_out_s
    if push_out is not None and not options.shot_clock_s <= push_out <= AFTER_BREAK_CAP_S:
        raise InputError(msg("rules.shot_clock_after_push_out_s must be from rules.shot_clock_s ({limit}) to {cap}, "
                             "not {value}", limit=options.shot_clock_s, cap=AFTER_BREAK_CAP_S, value=push_out))


_DEFAULT_OPTIONS = RuleOptions()


def _either(choices: tuple[str, ...]) -> Message:
    quoted = [repr(choice) for choice in choices]
    return msg("{choices} or {last}", choices=", ".join(quoted[:-1]), last=quoted[-1])


@dataclass(frozen=True, slots=True)
class MatchStart:
    """A new match: player 0 and 1, the race per player, who breaks first (5.3, R8).

    >>> MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0).options.break_order
    'winner'
    """

    TYPE: ClassVar[str] = "match_start"
    players: tuple[str, str]
    race: tuple[int, int]
    breaker: int
    options: RuleOptions = field(default_factory=RuleOptions)
    table: str | None = None
    apa_skill: tuple[int, int] | None = None
    language: str | None = None
    """The language the players chose for this match's words (``"hr"``); it changes no ruling."""
    start_score: tuple[int, int] | None = None
    """A continued match (moved from another table): the racks each player had won there. Rack ``sum + 1`` is
    racked, ``breaker`` breaking it; the race is still ``race``."""
    call: str | None = None
    """The venue director's call this match was begun from (``store/event/match/n``), so its result goes back to
    the event; it changes no ruling."""
    v: int = LOG_VERSION
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Strike:
    """The cue struck the cue ball: a new shot begins."""

    TYPE: ClassVar[str] = "strike"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class FirstContact:
    """The first object ball the cue ball touched; ``None`` when it touched none (5.8)."""

    TYPE: ClassVar[str] = "first_contact"
    ball: int | None
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Cushion:
    """A ball hit a cushion (5.9, 5.4); the ball and rail only where the hardware knows them."""

    TYPE: ClassVar[str] = "cushion"
    ball: int | None = None
    rail: str | None = None
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Pocket:
    """A ball dropped: 0 is the cue ball, ``None`` an object ball the hardware could not name."""

    TYPE: ClassVar[str] = "pocket"
    ball: int | None = None
    pocket: str | None = None
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Identify:
    """Names the earliest unidentified pocketed ball of the current or last shot."""

    TYPE: ClassVar[str] = "identify"
    ball: int
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class OffTable:
    """A ball left the table (5.11); a player's tap."""

    TYPE: ClassVar[str] = "off_table"
    ball: int
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class PushOut:
    """The shooter announces a push out for the next shot (5.6)."""

    TYPE: ClassVar[str] = "push_out"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Accept:
    """After a push out, the opponent shoots from where the ball lies (5.6)."""

    TYPE: ClassVar[str] = "accept"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Pass:
    """After a push out, the opponent hands the shot back (5.6, R3)."""

    TYPE: ClassVar[str] = "pass"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Foul:
    """A foul called by a player or referee; ``player`` is who committed it, if named."""

    TYPE: ClassVar[str] = "foul"
    reason: str
    player: int | None = None
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Miss:
    """The shot is over with no ball pocketed (a tap when the sensors saw nothing)."""

    TYPE: ClassVar[str] = "miss"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Settle:
    """The table is still: the current shot is over (the daemon's quiet timer)."""

    TYPE: ClassVar[str] = "settle"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Stalemate:
    """The rack is drawn and replayed by the same breaker (5.14, R7)."""

    TYPE: ClassVar[str] = "stalemate"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Concede:
    """A player gives up the rack or the match (R9)."""

    TYPE: ClassVar[str] = "concede"
    player: int
    scope: str = "rack"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Safety:
    """The shot in progress, or the last one, was a defensive shot (APA scoring: the score sheet counts them)."""

    TYPE: ClassVar[str] = "safety"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Timeout:
    """The player due at the table takes a timeout (APA scoring: a few per rack by skill level)."""

    TYPE: ClassVar[str] = "timeout"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Rerack:
    """After a break that failed its requirement, with ``break_failure: "option"``: the incoming player has the
    balls racked again and breaks them himself (``accept`` takes the table as it lies)."""

    TYPE: ClassVar[str] = "rerack"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class ShotClock:
    """The shot clock turned on or off (``on``, a player's or the venue's demand), or run out (``expired``, written
    by the daemon, whose clock it is: the fold sees no time). Exactly one of the two is set."""

    TYPE: ClassVar[str] = "shot_clock"
    on: bool | None = None
    expired: bool | None = None
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Extension:
    """The player due at the table takes his extension on the shot clock for this shot (once a rack)."""

    TYPE: ClassVar[str] = "extension"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class Undo:
    """Takes back the last input that changed the state."""

    TYPE: ClassVar[str] = "undo"
    t: float | None = None
    src: str | None = None


@dataclass(frozen=True, slots=True)
class UndoShot:
    """Takes back the last shot: every input from the one that began it to the end of the log.

    A type of its own, not a field on ``undo``, so that a reader that does not know it refuses it
    rather than taking back one input where a whole shot was meant.
    """

    TYPE: ClassVar[str] = "undo_shot"
    t: float | None = None
    src: str | None = None


Input = (
    MatchStart | Strike | FirstContact | Cushion | Pocket | Identify | OffTable | PushOut
    | Accept | Pass | Foul | Miss | Settle | Stalemate | Concede | Undo | UndoShot | Safety | Timeout | Rerack
    | ShotClock | Extension
)
ShotEvent = FirstContact | Cushion | Pocket | Identify | OffTable | Foul | Safety
"""The inputs that belong to a shot (``Shot.events``)."""
BetweenShots = PushOut | Accept | Pass | Stalemate | Concede | Rerack | Timeout
"""The inputs between shots (``State.since``): they end the shot in progress and change the table."""

INPUT_TYPES: dict[str, type] = {
    cls.TYPE: cls
    for cls in (
        MatchStart, Strike, FirstContact, Cushion, Pocket, Identify, OffTable, PushOut,
        Accept, Pass, Foul, Miss, Settle, Stalemate, Concede, Undo, UndoShot, Safety, Timeout, Rerack,
        ShotClock, Extension,
    )
}


def _is_int(value: Any) -> TypeGuard[int]:
    return type(value) is int


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


_MISSING = object()
_INFINITE = (math.inf, -math.inf)


def _ball(raw: dict[str, Any], kind: str, low: int, *, required: bool, nullable: bool) -> int | None:
    """Read ``ball``: an integer from ``low`` to 9 (and null where the spec allows it)."""
    value = raw.get("ball", _MISSING)
    if type(value) is int and low <= value <= 9:
        return value
    if value is _MISSING:
        if required:
            raise InputError(msg("{kind} needs ball ({balls})", kind=kind, balls=_ball_range(low, nullable)))
        return None
    if value is None:
        if nullable:
            return None
        raise InputError(msg("{kind} needs ball ({balls}), not null", kind=kind, balls=_ball_range(low, nullable)))
    raise InputError(msg("{kind} ball must be {balls}, not {value}", kind=kind, balls=_ball_range(low, nullable),
                          value=_json(value)))


def _ball_range(low: int, nullable: bool) -> Message:
    return msg("{low}-9 or null", low=low) if nullable else msg("{low}-9", low=low)


_CANONICAL = {name: name for name in POCKETS + RAILS + SOURCES + CONCEDE_SCOPES}


def _choice(raw: dict[str, Any], kind: str, name: str, choices: tuple[str, ...]) -> str | None:
    """A name from ``choices``, as the one shared string: a long match keeps one copy, not one per input."""
    value = raw.get(name)
    if value is None:
        return None
    if value in choices:
        return _CANONICAL[value]
    raise InputError(msg("{kind} {name} must be one of {choices}, not {value}", kind=kind, name=name,
                          choices=", ".join(choices), value=_json(value)))


def _player(raw: dict[str, Any], kind: str, *, required: bool) -> int | None:
    value = raw.get("player")
    if value is None and not required:
        return None
    if not _is_int(value) or value not in (0, 1):
        raise InputError(msg("{kind} needs player 0 or 1", kind=kind))
    return value


def _time(t: Any) -> float | None:
    if t is None or type(t) is float and math.isfinite(t):
        return t
    if type(t) is int:
        return float(t)
    raise InputError(msg("t must be a number of seconds, not {value}", value=_json(t)))


#: A player's name a bar would print on its board: at most this many characters, all printable.
NAME_MAX = 40
#: Four digits: what the score panel shows and every JSON reader holds exactly; the simulator's benchmark matches
#: run to 5,000 racks. A bigger number is a typo or an attack, not a match.
RACE_MAX = 9999


def players_of(value: Any) -> tuple[str, str]:
    """The two players' names of a match start (the log's, the config's, the screen's), stripped and bounded.

    >>> players_of([" Ana", "Ben"])
    ('Ana', 'Ben')
    >>> players_of(["Ana", "Ben\\x07"])
    Traceback (most recent call last):
    ...
    scoreboard.core.inputs.InputError: match_start players: a name may hold only printable characters, not '\\x07'
    """
    if (
        not isinstance(value, list | tuple) or len(value) != 2
        or not all(isinstance(p, str) and p.strip() for p in value)
    ):
        raise InputError(msg("match_start players must be a list of 2 non-empty names"))
    names = value[0].strip(), value[1].strip()
    for name in names:
        if len(name) > NAME_MAX:
            raise InputError(msg("match_start players: a name is at most {most} characters, not {length}",
                                 most=NAME_MAX, length=len(name)))
        odd = next((c for c in name if not c.isprintable()), None)
        if odd is not None:
            raise InputError(msg("match_start players: a name may hold only printable characters, not {odd}",
                                     odd=repr(odd)))
    return names


def race_of(value: Any) -> tuple[int, int]:
    """The racks each player needs to win (the log's, the config's, the screen's), from 1 to ``RACE_MAX``.

    >>> race_of([3, 5])
    (3, 5)
    """
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(_is_int(n) and n >= 1 for n in value):
        raise InputError(msg("match_start race must be [n0, n1], racks to win, each at least 1"))
    if any(n > RACE_MAX for n in value):
        raise InputError(msg("match_start race: racks to win are at most {most}, not {value}", most=RACE_MAX,
                                 value=max(value)))
    return value[0], value[1]


def apa_skill_of(value: Any) -> tuple[int, int]:
    """The two players' APA skill levels, 1 to 9 (the log's, the screen's).

    >>> apa_skill_of([3, 5])
    (3, 5)
    """
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(_is_int(n) and 1 <= n <= 9 for n in value):
        raise InputError(msg("match_start apa_skill must be [sl0, sl1], skill levels 1 to 9, not {value}",
                             value=_json(value)))
    return value[0], value[1]


#: A language tag (BCP 47's shape: "hr", "en-GB"): one Devetka has no words in is said in English.
_LANGUAGE_TAG = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}")

#: The longest call id a match_start may carry.
CALL_MAX = 64

#: The race of a match scored in APA points, where ``race`` was left out: it is not used.
NO_RACE = (0, 0)


def _start_score(value: Any, race: tuple[int, int], apa: bool) -> tuple[int, int] | None:
    """A continued match's racks won so far: each below its player's race (else the match was over).

    >>> _start_score([2, 3], (5, 5), False)
    (2, 3)
    """
    if value is None:
        return None
    if apa:
        raise InputError(msg("match_start start_score counts racks: a match scored in APA points cannot be "
                             "continued from one"))
    if (not isinstance(value, list) or len(value) != 2 or not all(_is_int(n) and n >= 0 for n in value)
            or value[0] >= race[0] or value[1] >= race[1]):
        raise InputError(msg("match_start start_score must be [n0, n1], racks won so far, each below its race "
                             "{race}, not {value}", race=_json(list(race)), value=_json(value)))
    return value[0], value[1]


def _match_start(raw: dict[str, Any], t: float | None, src: str | None) -> MatchStart:
    v = raw.get("v")
    if v != LOG_VERSION or not _is_int(v):
        raise InputError(msg("match_start v must be {version} (the log version read here), not {value}",
                             version=LOG_VERSION, value=_json(v)))
    players = players_of(raw.get("players"))
    options = RuleOptions.from_json(raw.get("rules"))
    skill = raw.get("apa_skill")
    if options.apa:
        apa_skill: tuple[int, int] | None = apa_skill_of(skill)
        race = NO_RACE if raw.get("race") is None else race_of(raw.get("race"))
    else:
        if skill is not None:
            raise InputError(msg('match_start apa_skill needs rules.scoring "apa" (points against a skill '
                                 "level's target)"))
        apa_skill = None
        race = race_of(raw.get("race"))
    breaker = raw.get("breaker")
    if not _is_int(breaker) or breaker not in (0, 1):
        raise InputError(msg("match_start breaker must be 0 or 1 (the player the lag winner chose, 5.3)"))
    table = raw.get("table")
    if table is not None and (not isinstance(table, str) or len(table) > NAME_MAX or not table.isprintable()):
        raise InputError(msg("match_start table must be a string of at most {most} printable characters",
                             most=NAME_MAX))
    language = raw.get("language")
    if language is not None and (not isinstance(language, str) or not _LANGUAGE_TAG.fullmatch(language)):
        raise InputError(msg('match_start language must be a language tag such as "hr" or "en", not {value}',
                             value=_json(language)))
    start_score = _start_score(raw.get("start_score"), race, options.apa)
    call = raw.get("call")
    if call is not None and (not isinstance(call, str) or not call or len(call) > CALL_MAX or not call.isprintable()):
        raise InputError(msg("match_start call must be a director's call id of at most {most} printable characters",
                             most=CALL_MAX))
    return MatchStart(
        players=players,
        race=race,
        breaker=breaker,
        options=options,
        table=table,
        apa_skill=apa_skill,
        language=language,
        start_score=start_score,
        call=call,
        t=t,
        src=src,
    )


_T = TypeVar("_T")


class _Builders(Protocol):
    """``_BUILD``: each input class's builder makes that class."""

    def __getitem__(self, cls: type[_T], /) -> Callable[..., _T]: ...


def _builder(cls: type) -> Callable[..., Any]:
    """Build ``cls`` from all its field values, in order, without the frozen dataclass's ``__init__``.

    That ``__init__`` sets each field through ``object.__setattr__`` and was a
    third of the cost of parsing a line; setting the slots directly is the same
    object, made in half the time. Only the parser uses it, after validating.
    """
    names = [f.name for f in fields(cls)]
    setters = {f"set_{name}": getattr(cls, name).__set__ for name in names}
    body = "".join(f"    set_{name}(item, {name})\n" for name in names)
    source = f"def build({', '.join(names)}):\n    item = new(cls)\n{body}    return item\n"
    scope: dict[str, Any] = {"new": object.__new__, "cls": cls, **setters}
    exec(source, scope)
    return cast("Callable[..., Any]", scope["build"])


_BUILD: _Builders = {cls: _builder(cls) for cls in INPUT_TYPES.values() if cls is not MatchStart}


def _foul(raw: dict[str, Any], t: float | None, src: str | None) -> Foul:
    reason = raw.get("reason")
    if reason not in FOUL_REASONS:
        raise InputError(msg("foul reason must be one of {choices}, not {value}", choices=", ".join(FOUL_REASONS),
                             value=_json(reason)))
    return _BUILD[Foul](reason, _player(raw, "foul", required=False), t, src)


def _concede(raw: dict[str, Any], t: float | None, src: str | None) -> Concede:
    player = _player(raw, "concede", required=True)
    scope = _choice(raw, "concede", "scope", CONCEDE_SCOPES) or "rack"
    return _BUILD[Concede](player, scope, t, src)


def _first_contact(raw: dict[str, Any], t: float | None, src: str | None) -> FirstContact:
    return _BUILD[FirstContact](_ball(raw, "first_contact", 1, required=True, nullable=True), t, src)


def _cushion(raw: dict[str, Any], t: float | None, src: str | None) -> Cushion:
    ball = _ball(raw, "cushion", 0, required=False, nullable=True)
    return _BUILD[Cushion](ball, _choice(raw, "cushion", "rail", RAILS), t, src)


def _pocket(raw: dict[str, Any], t: float | None, src: str | None) -> Pocket:
    return _BUILD[Pocket](_ball(raw, "pocket", 0, required=False, nullable=True),
                  _choice(raw, "pocket", "pocket", POCKETS), t, src)


def _identify(raw: dict[str, Any], t: float | None, src: str | None) -> Identify:
    return _BUILD[Identify](_ball(raw, "identify", 1, required=True, nullable=False), t, src)


def _off_table(raw: dict[str, Any], t: float | None, src: str | None) -> OffTable:
    return _BUILD[OffTable](_ball(raw, "off_table", 0, required=True, nullable=False), t, src)


def _shot_clock(raw: dict[str, Any], t: float | None, src: str | None) -> ShotClock:
    on, expired = raw.get("on"), raw.get("expired")
    if expired is None and isinstance(on, bool):
        return _BUILD[ShotClock](on, None, t, src)
    if on is None and expired is True:
        return _BUILD[ShotClock](None, True, t, src)
    given = ", ".join(f'"{name}": {_json(raw[name])}' for name in ("on", "expired") if name in raw) or "neither"
    raise InputError('shot_clock needs either "on": true or false (the clock turned on or off) or "expired": true '
                     f"(the clock ran out); it has {given}")


def _bare(cls: type[_T]) -> Callable[[dict[str, Any], float | None, str | None], _T]:
    """The parser of an input with no fields of its own."""
    build = _BUILD[cls]
    return lambda raw, t, src: build(t, src)


_PARSERS: dict[str, Callable[[dict[str, Any], float | None, str | None], Input]] = {
    "match_start": _match_start,
    "strike": _bare(Strike),
    "first_contact": _first_contact,
    "cushion": _cushion,
    "pocket": _pocket,
    "identify": _identify,
    "off_table": _off_table,
    "push_out": _bare(PushOut),
    "accept": _bare(Accept),
    "pass": _bare(Pass),
    "foul": _foul,
    "miss": _bare(Miss),
    "settle": _bare(Settle),
    "stalemate": _bare(Stalemate),
    "concede": _concede,
    "undo": _bare(Undo),
    "undo_shot": _bare(UndoShot),
    "safety": _bare(Safety),
    "timeout": _bare(Timeout),
    "rerack": _bare(Rerack),
    "shot_clock": _shot_clock,
    "extension": _bare(Extension),
}


def parse(raw: Any) -> Input:
    """Turn one decoded JSON value into an input, or raise ``InputError`` naming what is wrong."""
    if type(raw) is not dict:
        raise InputError(msg("an input must be a JSON object with a type"))
    kind = raw.get("type")
    parser = _PARSERS.get(kind) if type(kind) is str else None
    if parser is None:
        if kind is None:
            raise InputError(msg("missing type"))
        if isinstance(kind, str):
            raise InputError(msg("unknown type {kind}", kind=repr(kind)))
        raise InputError(msg("type must be a string, not {value}", value=_json(kind)))
    src = raw.get("src")
    if src is not None:
        src = (_CANONICAL.get(src) if type(src) is str and src in SOURCES
               else _choice(raw, cast(str, kind), "src", SOURCES))  # kind is a str: it has a parser
    t = raw.get("t")
    if t is not None and (type(t) is not float or t != t or t in _INFINITE):
        t = _time(t)
    return parser(raw, t, src)


def to_json(item: Input) -> dict[str, Any]:
    """The input as the JSON object of the spec; optional fields left out when unset."""
    out: dict[str, Any] = {"type": item.TYPE}
    if isinstance(item, MatchStart):
        out.update(v=item.v, players=list(item.players))
        if item.race != NO_RACE:
            out["race"] = list(item.race)
        out["breaker"] = item.breaker
        if item.options != _DEFAULT_OPTIONS:
            out["rules"] = item.options.to_json()
        if item.apa_skill is not None:
            out["apa_skill"] = list(item.apa_skill)
        if item.table is not None:
            out["table"] = item.table
        if item.language is not None:
            out["language"] = item.language
        if item.start_score is not None:
            out["start_score"] = list(item.start_score)
        if item.call is not None:
            out["call"] = item.call
    else:
        for f in fields(item):
            if f.name in ("t", "src"):
                continue
            value = getattr(item, f.name)
            if value is not None or (isinstance(item, FirstContact) and f.name == "ball"):
                out[f.name] = value
    if item.t is not None:
        out["t"] = item.t
    if item.src is not None:
        out["src"] = item.src
    return out

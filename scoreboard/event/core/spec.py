"""The event file, checked: format, players or rosters, races, handicap chart, tables (docs/events.md).

Read from a parsed TOML table (or its JSON, as the event log keeps it) and checked here, so the file and the
stored ``created`` record mean the same. A problem is a ``ConfigError`` naming the key.

>>> spec = spec_of({"name": "Friday", "format": "single", "players": ["Ana", "Ben", "Cvita"],
...                 "race": {"default": 5, "final": 7}})
>>> spec.format, spec.names, spec.races.race("W1", "winners", False), spec.races.race("W2", "winners", True)
('single', ('Ana', 'Ben', 'Cvita'), 5, 7)
>>> spec_of(spec.to_json()) == spec
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoreboard.core.checks import ConfigError, table_id, text
from scoreboard.core.inputs import NAME_MAX, PROFILE_NAMES, RACE_MAX
from scoreboard.core.messages import msg

FORMATS = ("single", "double", "round_robin", "apa_team")
SEEDINGS = ("given", "drawn")
FINALS = ("single", "true_double")
#: The sides a race may be set for; ``final`` is the last match of a bracket (the grand final in double).
SIDES = ("winners", "losers", "final", "group", "playoff")
#: The most players one event file may hold: a bracket of 256 is a big open night already.
PLAYERS_MAX = 256
GROUP_NAMES = "ABCDEFGH"
#: An APA team night: five matches, a roster of at most eight (the Official Team Manual's 9-ball team).
APA_MATCHES = 5
ROSTER_MAX = 8


@dataclass(frozen=True, slots=True)
class Races:
    """Racks to win: per round label (``W3``, ``L2``, ``GF``), else for the final, else per side, else the default."""

    default: int = 7
    sides: tuple[tuple[str, int], ...] = ()
    rounds: tuple[tuple[str, int], ...] = ()

    def race(self, round_label: str, side: str, final: bool) -> int:
        rounds, sides = dict(self.rounds), dict(self.sides)
        if round_label in rounds:
            return rounds[round_label]
        if final and "final" in sides:
            return sides["final"]
        return sides.get(side, self.default)

    def to_json(self) -> dict[str, Any]:
        return {"default": self.default, **dict(self.sides), **({"rounds": dict(self.rounds)} if self.rounds else {})}


@dataclass(frozen=True, slots=True)
class Member:
    """One player on an APA roster, with the skill level the night is played at."""

    name: str
    skill: int


@dataclass(frozen=True, slots=True)
class Team:
    name: str
    members: tuple[Member, ...]

    def skill_of(self, name: str) -> int | None:
        return next((m.skill for m in self.members if m.name == name), None)


@dataclass(frozen=True, slots=True)
class Handicap:
    """A race per pair from the players' levels: ``races[(a, b)]`` is (racks for level a, racks for level b)."""

    levels: tuple[tuple[str, int], ...]
    races: tuple[tuple[tuple[int, int], tuple[int, int]], ...]

    def race(self, first: str, second: str) -> tuple[int, int]:
        levels, races = dict(self.levels), dict(self.races)
        a, b = levels[first], levels[second]
        if (a, b) in races:
            return races[(a, b)]
        ra, rb = races[(b, a)]
        return rb, ra


@dataclass(frozen=True, slots=True)
class EventSpec:
    name: str
    format: str
    players: tuple[str, ...] = ()
    teams: tuple[Team, ...] = ()
    races: Races = Races()
    handicap: Handicap | None = None
    seeding: str = "given"
    final: str = "single"
    groups: int = 1
    advance: int = 2
    tables: tuple[str, ...] = ()
    profile: str | None = None
    pins: tuple[tuple[str, str], ...] = ()
    """(match, table): a match the director calls only to that table (the TV table for the final)."""

    @property
    def names(self) -> tuple[str, ...]:
        """Everyone who may play: the players, or every roster's members."""
        if self.format == "apa_team":
            return tuple(m.name for team in self.teams for m in team.members)
        return self.players

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "format": self.format}
        if self.format == "apa_team":
            out["teams"] = [{"name": t.name, "players": [{"name": m.name, "skill": m.skill} for m in t.members]}
                            for t in self.teams]
        else:
            out["players"] = list(self.players)
            out["race"] = self.races.to_json()
            out["seeding"] = self.seeding
        if self.format == "double":
            out["final"] = self.final
        if self.format == "round_robin":
            out["round_robin"] = {"groups": self.groups, "advance": self.advance}
        if self.handicap is not None:
            out["handicap"] = {"levels": dict(self.handicap.levels),
                               "races": {f"{a}-{b}": list(r) for (a, b), r in self.handicap.races}}
        if self.tables:
            out["tables"] = list(self.tables)
        if self.profile is not None:
            out["profile"] = self.profile
        if self.pins:
            out["pins"] = dict(self.pins)
        return out


def spec_of(raw: Mapping[str, Any]) -> EventSpec:
    """The event file's table, checked; ``ConfigError`` names the first key that is wrong."""
    if not isinstance(raw, Mapping):
        raise ConfigError("", msg("an event file is a TOML table"))
    known = {"name", "format", "players", "teams", "race", "handicap", "seeding", "final", "round_robin", "tables",
             "profile", "pins"}
    for key in raw:
        if key not in known:
            raise ConfigError(str(key), msg("not a key of an event file (expected one of {choices})",
                                            choices=", ".join(sorted(known))))
    name = text(raw.get("name"), "name")
    form = _choice(raw.get("format"), "format", FORMATS)
    tables = tuple(table_id(t, f"tables[{i}]") for i, t in enumerate(_list(raw.get("tables", []), "tables")))
    if len(set(tables)) != len(tables):
        raise ConfigError("tables", msg("a table is named twice"))
    profile = raw.get("profile")
    if profile is not None:
        profile = _choice(profile, "profile", PROFILE_NAMES)
    pins = _pins(raw.get("pins", {}), tables)
    if form == "apa_team":
        for key in ("players", "race", "handicap", "seeding", "final", "round_robin"):
            if key in raw:
                raise ConfigError(key, msg("an APA team night has rosters (teams), not {key}", key=key))
        return EventSpec(name, form, teams=_teams(raw.get("teams")), tables=tables, profile=profile or "apa9",
                         pins=pins)
    if "teams" in raw:
        raise ConfigError("teams", msg("only an APA team night (format \"apa_team\") has teams"))
    players = _players(raw.get("players"))
    seeding = _choice(raw.get("seeding", "given"), "seeding", SEEDINGS)
    final = _choice(raw.get("final", "single"), "final", FINALS)
    if form != "double" and "final" in raw:
        raise ConfigError("final", msg("only double elimination has a true double final"))
    groups, advance = 1, 2
    if form == "round_robin":
        groups, advance = _round_robin(raw.get("round_robin", {}), len(players))
    elif "round_robin" in raw:
        raise ConfigError("round_robin", msg("only a round robin has groups"))
    handicap = _handicap(raw["handicap"], players) if "handicap" in raw else None
    return EventSpec(name, form, players=players, races=_races(raw.get("race", {})), handicap=handicap,
                     seeding=seeding, final=final, groups=groups, advance=advance, tables=tables, profile=profile,
                     pins=pins)


def _pins(value: Any, tables: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``pins``: match id -> table id; with ``tables`` given, a pinned table must be one of them."""
    if not isinstance(value, Mapping):
        raise ConfigError("pins", msg("a table of match ids to table ids, such as {example}",
                                      example='{ "GF-1" = "tv" }'))
    out = []
    for match, table in value.items():
        table = table_id(table, f"pins.{match}")
        if tables and table not in tables:
            raise ConfigError(f"pins.{match}", msg("no table {table} in this event (its tables: {tables})",
                                                   table=table, tables=", ".join(tables)))
        out.append((str(match), table))
    return tuple(out)


def _choice(value: Any, key: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(key, msg("expected one of {choices}, got {value}", choices=", ".join(choices),
                                   value=repr(value)))
    return str(value)


def _list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise ConfigError(key, msg("expected a list"))
    return list(value)


def _name(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > NAME_MAX or not value.isprintable():
        raise ConfigError(key, msg("expected a name of at most {most} printable characters, got {value}",
                                   most=NAME_MAX, value=repr(value)))
    return " ".join(value.split())


def _players(value: Any) -> tuple[str, ...]:
    names = tuple(_name(v, f"players[{i}]") for i, v in enumerate(_list(value, "players")))
    if not 2 <= len(names) <= PLAYERS_MAX:
        raise ConfigError("players", msg("an event needs from 2 to {most} players, got {n}", most=PLAYERS_MAX,
                                         n=len(names)))
    _unique(names, "players")
    return names


def _unique(names: tuple[str, ...], key: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name.casefold() in seen:
            raise ConfigError(key, msg("{name} is named twice", name=name))
        seen.add(name.casefold())


def _racks(value: Any, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= RACE_MAX:
        raise ConfigError(key, msg("expected racks to win, a whole number from 1 to {most}, got {value}",
                                   most=RACE_MAX, value=repr(value)))
    return value


def _races(value: Any) -> Races:
    if isinstance(value, int) and not isinstance(value, bool):
        return Races(_racks(value, "race"))
    if not isinstance(value, Mapping):
        raise ConfigError("race", msg("expected racks to win, or a table of them"))
    sides: list[tuple[str, int]] = []
    rounds: list[tuple[str, int]] = []
    for key, raw in value.items():
        if key == "default":
            continue
        if key == "rounds":
            if not isinstance(raw, Mapping):
                raise ConfigError("race.rounds", msg("expected a table of round = racks"))
            rounds = [(str(r), _racks(n, f"race.rounds.{r}")) for r, n in raw.items()]
        elif key in SIDES:
            sides.append((key, _racks(raw, f"race.{key}")))
        else:
            raise ConfigError(f"race.{key}", msg("expected one of {choices}", choices=", ".join(
                ("default", *SIDES, "rounds"))))
    return Races(_racks(value.get("default", 7), "race.default"), tuple(sides), tuple(rounds))


def _round_robin(value: Any, players: int) -> tuple[int, int]:
    if not isinstance(value, Mapping):
        raise ConfigError("round_robin", msg("expected a table with groups and advance"))
    groups, advance = value.get("groups", 1), value.get("advance", 2)
    for key, n in (("groups", groups), ("advance", advance)):
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ConfigError(f"round_robin.{key}", msg("expected a whole number > 0, got {value}", value=repr(n)))
    if groups > len(GROUP_NAMES):
        raise ConfigError("round_robin.groups", msg("at most {most} groups", most=len(GROUP_NAMES)))
    if players < 2 * groups:
        raise ConfigError("round_robin.groups", msg("{n} players make no {groups} groups of two or more",
                                                    n=players, groups=groups))
    if advance > players // groups:
        raise ConfigError("round_robin.advance", msg("the smallest group has {size} players: {advance} cannot "
                                                     "go through", size=players // groups, advance=advance))
    return groups, advance


def _handicap(value: Any, players: tuple[str, ...]) -> Handicap:
    if not isinstance(value, Mapping) or not isinstance(value.get("levels"), Mapping) \
            or not isinstance(value.get("races"), Mapping):
        raise ConfigError("handicap", msg("expected a table with levels (a level per player) and races "
                                          "(\"a-b\" = [racks, racks])"))
    levels: dict[str, int] = {}
    for name in players:
        level = value["levels"].get(name)
        if not isinstance(level, int) or isinstance(level, bool):
            raise ConfigError(f"handicap.levels.{name}", msg("every player needs a whole-number level"))
        levels[name] = level
    for name in value["levels"]:
        if name not in levels:
            raise ConfigError(f"handicap.levels.{name}", msg("not one of the players"))
    races: dict[tuple[int, int], tuple[int, int]] = {}
    for key, race in value["races"].items():
        parts = str(key).split("-")
        if len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() for p in parts):
            raise ConfigError(f"handicap.races.{key}", msg("expected a pair of levels such as \"3-5\""))
        pair = (int(parts[0]), int(parts[1]))
        if not isinstance(race, list) or len(race) != 2:
            raise ConfigError(f"handicap.races.{key}", msg("expected [racks, racks]"))
        races[pair] = (_racks(race[0], f"handicap.races.{key}"), _racks(race[1], f"handicap.races.{key}"))
    present = sorted(set(levels.values()))
    for a in present:
        for b in present:
            if a <= b and (a, b) not in races and (b, a) not in races:
                raise ConfigError("handicap.races", msg("no race for levels {a} and {b}", a=a, b=b))
    return Handicap(tuple(levels.items()), tuple(sorted(races.items())))


def _teams(value: Any) -> tuple[Team, ...]:
    teams = _list(value, "teams")
    if len(teams) != 2:
        raise ConfigError("teams", msg("an APA team night has two teams, got {n}", n=len(teams)))
    out = []
    for i, raw in enumerate(teams):
        key = f"teams[{i}]"
        if not isinstance(raw, Mapping):
            raise ConfigError(key, msg("expected a table with name and players"))
        members = []
        for j, member in enumerate(_list(raw.get("players"), f"{key}.players")):
            where = f"{key}.players[{j}]"
            if not isinstance(member, Mapping):
                raise ConfigError(where, msg("expected a table with name and skill"))
            skill = member.get("skill")
            if not isinstance(skill, int) or isinstance(skill, bool) or not 1 <= skill <= 9:
                raise ConfigError(f"{where}.skill", msg("expected an APA 9-ball skill level from 1 to 9, got {value}",
                                                        value=repr(skill)))
            members.append(Member(_name(member.get("name"), f"{where}.name"), skill))
        if not APA_MATCHES <= len(members) <= ROSTER_MAX:
            raise ConfigError(f"{key}.players", msg("a roster has from {least} to {most} players, got {n}",
                                                    least=APA_MATCHES, most=ROSTER_MAX, n=len(members)))
        cheapest = sum(sorted(m.skill for m in members)[:APA_MATCHES])
        if cheapest > 23:
            raise ConfigError(f"{key}.players", msg("no five of this roster add up to 23 or less (the 23-rule): "
                                                    "the lowest five add up to {total}", total=cheapest))
        if sum(1 for m in members if m.skill < 6) < APA_MATCHES - 2:
            raise ConfigError(f"{key}.players", msg("a roster needs at least three players below skill level 6: at "
                                                    "most two of 6 or more may play a night"))
        out.append(Team(_name(raw.get("name"), f"{key}.name"), tuple(members)))
    _unique(tuple(t.name for t in out), "teams")
    _unique(tuple(m.name for t in out for m in t.members), "teams")
    return tuple(out)

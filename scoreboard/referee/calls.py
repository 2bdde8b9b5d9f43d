"""The table's side of the director's calls (docs/events.md, "Calls"): a call offered, begun or refused.

The venue's director calls a match to a table with ``{"cmd": "call", "call": {...}}`` (over the bridged ``cmd``
topic); the table answers every call at once: ``ok`` when the call is offered to the players (or was already),
else a refusal with a stable ``code``:

- ``expired``: the call arrived after its ``expires`` (it waited in a queue while the table was away);
- ``superseded``: the director withdrew it (``{"cmd": "withdraw", "call": ID}``) or a newer call came first;
- ``in_play``: a match is being played here; ``call_pending``: another call is offered here now;
- ``invalid_input``: the call is malformed (its ``match_start`` refused by the rules' own check).

A call may carry the event's name (``event``, shown over the call) and where each player goes next (``next``, from
``scoreboard.event.core.where_next``): the table keeps the call a match was begun from, and once that match is won
serves ``next_for``, each player's destination in the players' language (docs/events.md, "Where next"). A call
without them is offered as before.

Start (or the break's strike) of an offered call is refused ``venue_away`` while the table's bridge says the venue
cannot be reached (``venue_link``) or the director's heartbeat has not been heard for three beats
(``director_heard``), both told by the MQTT adapter: the director may have released the call meanwhile and called
its match to another table, and a match never plays on two tables.

The players answer an offered call on the touchscreen: ``call_start`` begins exactly its ``match_start`` (with
``call``, so the match's result goes back to the event), ``call_decline`` ("Not now") gives it back. The state
serves ``call``: the call offered, or the last one answered, so the director reads the answer from the table's
retained state too.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from scoreboard.config.table import MatchConfig
from scoreboard.core import profiles
from scoreboard.core.inputs import CALL_MAX, InputError, MatchStart, parse
from scoreboard.core.match import Match
from scoreboard.core.messages import Arg, Message, msg, render
from scoreboard.core.messages import to_json as message_json
from scoreboard.core.output import state_line
from scoreboard.core.rules import RuleError
from scoreboard.referee.reply import Reply
from scoreboard.referee.results import night_start
from scoreboard.referee.store import Store, StoreError

COMMANDS = ("call", "withdraw", "call_start", "call_decline")


class Referee(Protocol):
    """The referee as the calls see it: its match and store, its defaults, and its three ways of answering."""

    match: Match | None
    match_id: int | None
    seq: int
    store: Store
    defaults: MatchConfig

    def refuse_with(self, code: str, message: Arg, **fields: Any) -> Reply: ...

    def served(self, changed: bool = False) -> Reply: ...

    def new_match(self, match_start: Any, call: dict[str, Any] | None = None) -> Reply: ...
#: Start of an offered call while the venue cannot be reached (``venue_away``).
VENUE_AWAY = msg("the venue cannot be reached: this called match can start once it is back (or ask the desk)")
#: The director's heartbeats missed before the table takes its venue link as down (as the venue's boards do).
HEARTBEATS_MISSED = 3
#: How many answered calls the table remembers, to answer a call sent again the same way.
REMEMBERED = 256
#: How many called matches' results the state serves: the night's, so none is lost while the venue is away.
RESULTS_SERVED = 32


def said(call: dict[str, Any]) -> Message:
    """"Called: Ana - Ben, race to 7, winners' round 2"."""
    start = call["match_start"]
    a, b = start["players"]
    if "apa_skill" in start:
        race = msg("APA skill levels {a} and {b}", a=start["apa_skill"][0], b=start["apa_skill"][1])
    elif start["race"][0] == start["race"][1]:
        race = msg("race to {n}", n=start["race"][0])
    else:
        race = msg("race to {a}-{b}", a=start["race"][0], b=start["race"][1])
    return msg("Called: {a} - {b}, {race}, {round}", a=a, b=b, race=race, round=round_said(call))


def round_said(call: dict[str, Any]) -> Message:
    side, label, match = call.get("side"), str(call.get("round", "")), str(call.get("match", ""))
    number = "".join(c for c in label if c.isdigit()) or "1"
    if side == "winners":
        return msg("winners' round {n}", n=number)
    if side == "losers":
        return msg("losers' round {n}", n=number)
    if side == "final":
        return msg("the grand final (reset)") if match.endswith("-2") else msg("the grand final")
    if side == "group":
        return msg("group {group}", group=label[:1])
    if side == "playoff":
        return msg("playoff round {n}", n=number)
    if side == "team":
        return msg("team match {n}", n=match.rsplit("-", 1)[-1])
    return msg("match {match}", match=match)


def where_said(where: Any) -> Message | None:
    """"winners' round 2 against Ana", "out of the event", ...: one destination of a call's ``next``; None for one of
    a kind this release does not know (a later director's), left unsaid."""
    if not isinstance(where, dict):
        return None
    if where.get("out") is True:
        return msg("out of the event")
    if where.get("won") is True:
        return msg("the event's winner")
    if isinstance(where.get("standings"), str):
        return msg("group {group}'s standings decide", group=where["standings"])
    if not isinstance(where.get("match"), str):
        return None
    round_ = round_said(where)
    against = where.get("against")
    if not isinstance(against, dict):
        return round_
    if isinstance(against.get("player"), str):
        return msg("{round} against {name}", round=round_, name=against["player"])
    players = against.get("players")
    pair: list[str] | None = players if (isinstance(players, list) and len(players) == 2
                                         and all(isinstance(p, str) for p in players)) else None
    if isinstance(against.get("winner_of"), str):
        if pair is not None:
            return msg("{round} against the winner of {a} - {b}", round=round_, a=pair[0], b=pair[1])
        return msg("{round} against the winner of match {match}", round=round_, match=against["winner_of"])
    if isinstance(against.get("loser_of"), str):
        if pair is not None:
            return msg("{round} against the loser of {a} - {b}", round=round_, a=pair[0], b=pair[1])
        return msg("{round} against the loser of match {match}", round=round_, match=against["loser_of"])
    if isinstance(against.get("group"), str) and isinstance(against.get("place"), int):
        return msg("{round} against number {place} of group {group}", round=round_, place=against["place"],
                   group=against["group"])
    return round_


class TableCalls:
    """The call offered at this table and the calls it answered (in memory: a restarted daemon has none offered,
    and the director calls again once an answer is overdue). The call a match was begun from is stored with the
    match (``Store.call_begun``): a restarted daemon still says where its players go next."""

    def __init__(self, wall: Callable[[], float]) -> None:
        self._wall = wall
        self.offer: dict[str, Any] | None = None
        self.last: dict[str, Any] | None = None
        self.begun: dict[str, Any] | None = None
        """The call the last called match here was begun from, whole: where its players go next is said from it."""
        self._answered: OrderedDict[str, str] = OrderedDict()
        """Call id -> what it came to: offered, started, declined, or a refusal's code."""
        self._results: OrderedDict[int, dict[str, Any]] | None = None
        """Match id -> the result of a called match won here (read from the store at first, then kept)."""
        self.venue_reachable: bool | None = None
        """The venue link as the table's bridge last said it (None: never said: no venue, or not heard yet)."""
        self._heard_until: float | None = None
        """Until when (the wall clock) the director's last heartbeat vouches for the venue link (None: none heard)."""
        self.beat_every: float | None = None
        """The director's heartbeat interval, as its last beat said (None: none heard)."""

    def venue_link(self, up: bool) -> bool:
        """The table's bridge to the venue went up or down (its notification, read by the MQTT adapter): while it is
        down, an offered call's Start is refused (``venue_away``). True when the served state changes with it."""
        was_away = self.venue_away()
        self.venue_reachable = up
        if up and self.beat_every is not None:
            self.director_heard(self.beat_every)  # the bridge back up vouches for the link as a beat would
        return was_away is not self.venue_away() and self.offer is not None

    def director_heard(self, every_s: float) -> float:
        """The venue director's heartbeat, bridged in: the link is taken as down once ``HEARTBEATS_MISSED`` of its
        beats are missed (a cut network: the table's bridge says nothing then). The seconds until that."""
        quiet = HEARTBEATS_MISSED * every_s
        self.beat_every = every_s
        self._heard_until = max(self._heard_until or 0.0, self._wall() + quiet)
        return quiet

    def venue_away(self) -> bool:
        """The venue link known down: the bridge says 0, or the director's heartbeat has not been heard lately."""
        return self.venue_reachable is False or (self._heard_until is not None and self._wall() > self._heard_until)

    def handle(self, referee: Referee, request: dict[str, Any]) -> Reply:
        cmd = request["cmd"]
        if cmd == "call":
            return self._call(referee, request.get("call"))
        call = request.get("call")
        if cmd == "withdraw":
            return self._withdraw(referee, call)
        if self.offer is None or call != self.offer["id"]:
            return referee.refuse_with("no_call", msg("no call {call} is offered at this table", call=repr(call)))
        if cmd == "call_decline":
            self._end(self.offer, "declined")
            return referee.served(changed=True)
        return self._start(referee)

    def strike_starts(self, referee: Referee) -> bool:
        """A strike sensed while a call is offered whose venue says the break begins it (``start_on_strike``): the
        called match begins, and the strike is its break. False when no such call stands (or it could not begin)."""
        offer = self.offer
        if offer is None or not offer.get("start_on_strike"):
            return False
        if referee.match is not None and referee.match.state.table.match_winner is None:
            return False
        return self._start(referee).ok

    def served(self, words: Any) -> dict[str, Any] | None:
        """The state's ``call``: the one offered (with its words), else the last one answered."""
        if self.offer is None:
            return self.last
        call = self.offer
        said_now = said(call)
        return {"id": call["id"], "status": "offered", "match": call["match"], "event": call.get("event"),
                "players": call["match_start"]["players"], "words": render(said_now, words),
                "message": message_json(said_now), "start": self._start_action(words)}

    def next_for(self, match: Match | None, words: Any) -> list[dict[str, Any] | None] | None:
        """The state's ``next_for``: once the match begun from a call carrying ``next`` is won, each player's
        destination (the winner's win, the loser's loss) in words; else None."""
        begun = self.begun
        if match is None or begun is None or match.match_start.call != begun["id"] or not begun.get("next"):
            return None
        winner = match.state.table.match_winner
        if winner is None:
            return None
        out: list[dict[str, Any] | None] = []
        for player, onward in enumerate(begun["next"]):
            where = onward.get("win" if player == winner else "lose")
            said_now = where_said(where)
            out.append(None if said_now is None else {
                "words": render(said_now, words), "message": message_json(said_now),
                "match": where["match"] if isinstance(where.get("match"), str) else None})
        return out

    def results(self, referee: Referee, served: dict[str, Any]) -> list[dict[str, Any]]:
        """The state's ``called_results``: every called match won at this table lately, the one in ``served`` too,
        each with its call, match id, last seq and score (and APA points): the director takes them from the
        retained state, so a result made while the venue was away, or followed at once by the next match, arrives."""
        if self._results is None:
            self._results = _stored_results(referee)
        match = referee.match
        if match is not None and match.match_start.call is not None and referee.match_id is not None:
            if served.get("match_winner") is None:
                self._results.pop(referee.match_id, None)
            else:
                self._results[referee.match_id] = _result(match.match_start.call, referee.match_id, referee.seq,
                                                          served)
                while len(self._results) > RESULTS_SERVED:
                    self._results.popitem(last=False)
        return list(self._results.values())

    def _remember(self, call_id: str, outcome: str) -> None:
        self._answered[call_id] = outcome
        self._answered.move_to_end(call_id)
        while len(self._answered) > REMEMBERED:
            self._answered.popitem(last=False)

    def _end(self, call: dict[str, Any], outcome: str, code: str | None = None) -> None:
        self._remember(call["id"], outcome if code is None else code)
        self.last = {"id": call["id"], "status": outcome, "match": call.get("match")}
        if code is not None:
            self.last["code"] = code
        if self.offer is not None and self.offer["id"] == call["id"]:
            self.offer = None

    def _refuse(self, referee: Referee, call: dict[str, Any], code: str, message: Message) -> Reply:
        self._end(call, "refused", code)
        return referee.refuse_with(code, message, changed=True)

    def _call(self, referee: Referee, call: Any) -> Reply:
        problem = _malformed(call)
        if problem is not None:
            return referee.refuse_with("invalid_input", msg("call: {problem}", problem=problem))
        call_id = call["id"]
        before = self._answered.get(call_id)
        if before in ("offered", "started"):
            return referee.served()
        if before is not None:
            return referee.refuse_with(before if before != "declined" else "superseded",
                                       msg("call {call} was answered already ({outcome})", call=call_id,
                                           outcome=before))
        expires = call.get("expires")
        if expires is not None and expires <= self._wall():
            return self._refuse(referee, call, "expired", msg("call {call} expired before it arrived", call=call_id))
        if referee.match is not None and referee.match.state.table.match_winner is None:
            return self._refuse(referee, call, "in_play", msg("a match is being played at this table"))
        if self.offer is not None:
            return self._refuse(referee, call, "call_pending", msg("another call is offered at this table"))
        try:
            _start_of(referee, call)
        except InputError as error:
            return self._refuse(referee, call, "invalid_input", msg("call: {problem}", problem=error.message))
        self.offer = call
        self._remember(call_id, "offered")
        return referee.served(changed=True)

    def _withdraw(self, referee: Referee, call_id: Any) -> Reply:
        if not isinstance(call_id, str):
            return referee.refuse_with("invalid_input", msg("withdraw needs call: a call's id"))
        if self._answered.get(call_id) == "started":
            return referee.refuse_with("in_play", msg("call {call} has begun its match here", call=call_id))
        self._remember(call_id, "superseded")
        if self.offer is not None and self.offer["id"] == call_id:
            self._end(self.offer, "withdrawn")
            self._remember(call_id, "superseded")
        return referee.served(changed=True)

    def _start_action(self, words: Any) -> dict[str, Any]:
        """The offered call's ``start``: whether Start may be pressed now, and if not why (the players' words)."""
        if self.venue_away():
            return {"ok": False, "why": render(VENUE_AWAY, words)}
        return {"ok": True}

    def _venue_away(self, referee: Referee) -> Reply | None:
        """The refusal of a Start while the venue is known unreachable: the call stays offered, nothing changes."""
        if self.venue_away():
            return referee.refuse_with("venue_away", VENUE_AWAY)
        return None

    def _start(self, referee: Referee) -> Reply:
        assert self.offer is not None
        call = self.offer
        away = self._venue_away(referee)
        if away is not None:
            return away
        reply = referee.new_match(_start_of(referee, call), call)
        if reply.ok:
            self.begun = call
            self._end(call, "started")
            return referee.served(changed=True)
        return reply


def _malformed(call: Any) -> Message | None:
    if not isinstance(call, dict):
        return msg("call must be an object with id, match and match_start")
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id or len(call_id) > CALL_MAX or not call_id.isprintable():
        return msg("id must be a string of at most {most} printable characters", most=CALL_MAX)
    if not isinstance(call.get("match"), str) or not isinstance(call.get("match_start"), dict):
        return msg("call must be an object with id, match and match_start")
    expires = call.get("expires")
    if expires is not None and (not isinstance(expires, int | float) or isinstance(expires, bool)):
        return msg("expires must be seconds since the epoch or null")
    if call.get("event") is not None and not isinstance(call["event"], str):
        return msg("event must be the event's name")
    onward = call.get("next")
    if onward is not None and (not isinstance(onward, list) or len(onward) != 2
                               or not all(isinstance(o, dict) for o in onward)):
        return msg("next must be a list of two objects, one per player")
    profile = call.get("profile")
    if profile is not None and profile not in profiles.PROFILES:
        return msg("unknown profile {name} (known: {known})", name=repr(profile), known=", ".join(profiles.PROFILES))
    return None


def _start_of(referee: Referee, call: dict[str, Any]) -> dict[str, Any]:
    """The call's match_start as this table begins it: the profile's rules over the table's own sensor options, the
    call's id; checked by the rules' own parse (``InputError``)."""
    start = {"type": "match_start", "v": 1, "breaker": 0, **call["match_start"], "call": call["id"]}
    profile = call.get("profile")
    if profile is not None:
        start["rules"] = profiles.options(profile, referee.defaults.rules).to_json()
    else:
        start.setdefault("rules", referee.defaults.rules.to_json())
    parse(start)
    return start


def _result(call_id: str, match_id: int, seq: int, served: dict[str, Any]) -> dict[str, Any]:
    out = {"call": call_id, "match_id": match_id, "seq": seq, "score": served["score"],
           "winner": served["match_winner"]}
    if served.get("points") is not None:
        out["points"] = served["points"]
    return out


def _stored_results(referee: Referee) -> OrderedDict[int, dict[str, Any]]:
    """Tonight's called matches won here (the store's last ``RESULTS_SERVED``), folded once when first served."""
    found: OrderedDict[int, dict[str, Any]] = OrderedDict()
    try:
        tonight = referee.store.matches(night_start(referee.store))
    except StoreError:  # a store with no clock (read-only): nothing to serve
        return found
    for summary in tonight[-RESULTS_SERVED:]:
        if summary.winner is None or summary.id == referee.match_id:
            continue
        try:
            log = referee.store.log(summary.id)
            start = log[0]
            if not isinstance(start, MatchStart) or start.call is None:
                continue
            state = Match.resume(log, referee.store.rules_version(summary.id)).closed().state
        except (StoreError, RuleError):
            continue
        found[summary.id] = _result(start.call, summary.id, len(log) - 1, state_line(state))
    return found

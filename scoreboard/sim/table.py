"""A simulated pool table: two players play nine-ball and the table reports it as match-log inputs.

Tests, benchmarks and the demo need matches that look like a real table's log
without a table. ``SimulatedTable`` plays shots with a small stochastic model
(break, pots by skill, misses, fouls, push outs, stalemates, a mistaken tap
taken back with ``undo``) and reports each shot the way the table's sensors
and the players' taps would (``scoreboard.core.inputs``). It asks the real rules
fold (``scoreboard.core.match.Match``) who is at the table, which balls are left
and what may be done, and checks every input it produces with it, so each log
it yields is one the daemon accepts in full.

Pure: no I/O and no clock. The ``t`` of each input is simulated time (seconds
from the match start, plausibly spaced) and ``src`` says which part of a real
table would have produced it. The same seed always gives the same match.

>>> table = SimulatedTable(seed=1, race=(2, 2))
>>> log = list(table.play_match())
>>> type(log[0]).__name__, table.match.state.table.match_winner in (0, 1)
('MatchStart', True)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from random import Random

from scoreboard.core.inputs import (
    CUE_BALL,
    NINE,
    POCKETS,
    RAILS,
    Accept,
    Concede,
    Cushion,
    FirstContact,
    Foul,
    Identify,
    Input,
    MatchStart,
    Miss,
    OffTable,
    Pass,
    Pocket,
    PushOut,
    RuleOptions,
    Settle,
    Stalemate,
    Strike,
    Undo,
)
from scoreboard.core.match import Match
from scoreboard.core.rules import State, Verdict, evolve

__all__ = ["Sensors", "SimulatedTable"]

# How often things happen, per shot unless named otherwise. Tuned so that two
# players of skill 0.6 play racks of about a dozen shots with a foul in most
# racks, a push out after about one break in four and the 9 on the break in
# about one rack in forty.
BREAK_POTS = {0: 0.36, 1: 0.38, 2: 0.19, 3: 0.07}  # object balls pocketed on the break
BREAK_RAIL_BALLS = {2: 0.03, 3: 0.07, 4: 0.2, 5: 0.3, 6: 0.26, 7: 0.14}  # object balls to a rail
BREAK_MISCUE = 0.02  # the 1 not hit first
BREAK_SCRATCH = 0.05
BREAK_OFF_TABLE = 0.01
PUSH_OUT = 0.3  # the player who may push out does
PASS = 0.5  # the push out is passed back
EXPLICIT_ACCEPT = 0.75  # an accept is tapped (else the next shot accepts it)
FOUL_BETWEEN_SHOTS = 0.05  # after a push-out choice, a ball is moved before the shot (R5)
BAD_HIT = 0.03
SCRATCH = 0.025
NO_RAIL = 0.015
OFF_TABLE = 0.005
CALLED_FOUL = 0.006  # moved ball or another foul only a player sees
COMBINATION = 0.08  # a pot that drops a ball other than the one hit (the 9 in about a third)
EXTRA_BALL = 0.07  # a second ball drops on the same shot
KICK = 0.06  # the cue ball goes to a rail before the contact
TAP_NOTICED = 0.85  # a foul the sensors cannot see is called at all
TAP_LATE = 0.4  # ... and called after the table is still
IDENTIFY_ANYWAY = 0.1  # a player names an unidentified ball the rules had right
SLOW_BALL = 0.05  # with a strike sensor: a ball drops after the table seemed still
STALEMATE = 0.001  # per shot, from the 12th shot of a rack
CONCEDE = 0.0005  # per shot: the player sitting out concedes the rack
MISTAKE = 0.01  # a mistaken tap, taken back with undo
LONGEST_RACK = 200  # shots; a rack this long is declared a stalemate


@dataclass(frozen=True, slots=True)
class Sensors:
    """What the simulated table can tell beyond the cushion and strike sensors of the rule options.

    Tables differ: cheap pocket sensors see that a ball dropped but not which,
    and only a camera sees which ball the cue ball hit first. What the table
    cannot sense, the simulated players tap (``identify``, a called ``foul``).

    >>> log = list(SimulatedTable(seed=3, race=(2, 2), sensors=Sensors(ball_ids=0.0)).play_match())
    >>> {item.ball for item in log if isinstance(item, Pocket)} <= {0, None}  # the cue ball is always known
    True
    >>> any(isinstance(item, Identify) for item in log)
    True
    """

    ball_ids: float = 1.0
    """The share of object balls the pocket sensors name: 1 always, 0 never (then ``pocket`` has no ball
    and a player taps ``identify`` where the rules took it for another)."""
    camera: bool = True
    """``first_contact`` is sensed and cushion inputs name the ball; else bad hits are called by a tap."""


@dataclass
class _Plan:
    """What really happened on one shot, before the table's sensors report it."""

    contact: int | None  # first object ball hit (None: none)
    kick: bool = False  # the cue ball went to a rail before the contact
    after: list = field(default_factory=list)  # ("cushion", ball) and ("pocket", ball) in the order they happened
    off: tuple[int, ...] = ()  # balls driven off the table
    calls: tuple[str, ...] = ()  # fouls only a tap can report

    def pocketed(self) -> list[int]:
        return [ball for kind, ball in self.after if kind == "pocket" and ball != CUE_BALL]


class SimulatedTable:
    """Two simulated players at a table with sensors: each ``play_*`` call yields a whole log of inputs.

    ``skill`` (0 to 1, one per player) is how well each plays: how often a pot
    drops, how rarely a foul happens. ``rules`` are the match's rule options;
    its ``rails_sensed`` and ``strike_sensed`` also say which sensors the table
    has. ``sensors`` says the rest. The seed fixes the match: calling a
    ``play_*`` method again yields the same inputs. ``match`` is the fold of
    what the last ``play_*`` call yielded so far: the rules' view of the table.

    >>> table = SimulatedTable(seed=3, players=("Ana", "Ben"), race=(2, 2), skill=(0.8, 0.4))
    >>> log = list(table.play_match())
    >>> log == list(table.play_match())
    True
    >>> table.match.state.table.match_winner in (0, 1)
    True

    For benchmarks, a fixed number of racks whatever the race:

    >>> _ = list(table.play_racks(10))
    >>> table.match.state.table.rack  # ten racks over, the eleventh racked
    11
    """

    def __init__(
        self,
        seed: int | str,
        players: tuple[str, str] = ("Ana", "Ben"),
        race: tuple[int, int] = (3, 3),
        breaker: int = 0,
        rules: RuleOptions | None = None,
        sensors: Sensors | None = None,
        skill: tuple[float, float] = (0.6, 0.6),
        apa_skill: tuple[int, int] | None = None,
    ) -> None:
        if len(skill) != 2 or not all(0.0 <= s <= 1.0 for s in skill):
            raise ValueError("skill must be two numbers from 0 to 1, one per player")
        if len(race) != 2 or not all(isinstance(n, int) and n >= 1 for n in race):
            raise ValueError("race must be two whole numbers of racks, each at least 1")
        if breaker not in (0, 1):
            raise ValueError("breaker must be 0 or 1")
        self.seed = seed
        self.players = (players[0], players[1])
        self.race = (race[0], race[1])
        self.breaker = breaker
        self.rules = rules if rules is not None else RuleOptions()
        self.sensors = sensors if sensors is not None else Sensors()
        if not 0.0 <= self.sensors.ball_ids <= 1.0:
            raise ValueError("sensors.ball_ids must be from 0 to 1")
        self.skill = (float(skill[0]), float(skill[1]))
        self.apa_skill = apa_skill
        """The players' APA skill levels, for a match scored in APA points (``rules.scoring "apa"``)."""
        self.match: Match | None = None

    def play_match(self) -> Iterator[Input]:
        """Yield a whole match, ``match_start`` first, until a player wins the race."""
        return self._play(self.race, None)

    def play_racks(self, racks: int) -> Iterator[Input]:
        """Yield ``racks`` racks whatever the race (for benchmarks): the race is set to ``racks`` each."""
        if racks < 1:
            raise ValueError("racks must be at least 1")
        return self._play((racks, racks), racks)

    def _play(self, race: tuple[int, int], racks: int | None) -> Iterator[Input]:
        game = _Game(self, race)
        self.match = game.match
        yield game.start
        while True:
            table = game.match.state.table
            done = table.rack - 1 + (table.match_winner is not None)
            if table.match_winner is not None or (racks is not None and done >= racks):
                return
            game.turn()
            yield from game.out
            game.out.clear()


class _Game:
    """One simulated match in progress: the random sources, the simulated clock and the fold."""

    def __init__(self, table: SimulatedTable, race: tuple[int, int]) -> None:
        # Three sources, so that what happens at the table does not depend on how it is reported:
        # the same seed plays the same shots whatever the sensors, and the same inputs whatever the clock.
        self.rng = Random(f"devetka-sim:{table.seed}")  # what really happens
        self.report_rng = Random(f"devetka-sim-report:{table.seed}")  # what the sensors and taps tell of it
        self.clock_rng = Random(f"devetka-sim-clock:{table.seed}")  # when
        self.rules = table.rules
        self.sensors = table.sensors
        self.skill = table.skill
        self.t = 0.0
        self.start = MatchStart(players=table.players, race=race, breaker=table.breaker,
                                options=table.rules, apa_skill=table.apa_skill, t=0.0)
        self.match = Match(self.start)
        self.out: list[Input] = []
        self.verdict: Verdict | None = None

    # --- emitting inputs ---------------------------------------------------

    def emit(self, kind: type, low: float, high: float, **fields) -> None:
        """Make a ``kind`` input ``low``-``high`` seconds after the last one, check it with the fold, keep it."""
        self.t += self.clock_rng.uniform(low, high)
        item = kind(t=round(self.t, 3), **fields)
        step = self.match.apply(item)  # a RuleError here is a bug of the simulator
        if step.verdict is not None:
            self.verdict = step.verdict
        self.out.append(item)

    @property
    def state(self) -> State:
        return self.match.state

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def told(self, p: float) -> bool:
        return self.report_rng.random() < p

    # --- one turn at the table ---------------------------------------------

    def turn(self) -> None:
        """What happens until the next shot is over: a push-out choice, a shot and the taps after it."""
        rng = self.rng
        table = self.state.table
        if table.awaiting_choice:
            if self.chance(PASS):
                self.emit(Pass, 2, 8, src="touch")
            elif self.chance(EXPLICIT_ACCEPT):
                self.emit(Accept, 2, 8, src="touch")
            if not self.state.table.awaiting_choice and self.chance(FOUL_BETWEEN_SHOTS):
                reason = rng.choice(("moved_ball", "moved_ball", "other"))
                self.emit(Foul, 3, 15, reason=reason, src="touch")
                return
            table = self.state.table
        if table.shot_no == 0:
            self.shot(self.plan_break(), aim=(40, 100))
        elif table.shot_no >= LONGEST_RACK or (table.shot_no >= 12 and self.chance(STALEMATE)):
            self.emit(Stalemate, 5, 30, src="touch")
            return
        elif self.chance(CONCEDE):
            self.emit(Concede, 5, 20, player=1 - table.shooter, src="touch")
            return
        elif table.push_out_allowed and not table.awaiting_choice and self.chance(PUSH_OUT):
            self.emit(PushOut, 4, 15, src="touch")
            self.shot(self.plan_push_out(), aim=(4, 15))
        else:
            aim = (15, 45) if table.ball_in_hand else (6, 35)
            self.shot(self.plan_shot(), aim=aim)
        if self.chance(MISTAKE):
            self.mistake()

    def mistake(self) -> None:
        """A tap made by mistake and taken back at once: the scoreboard's undo."""
        state = self.state
        if state.last is not None and self.chance(0.6):
            self.emit(Foul, 2, 6, reason="other", src="touch")
        elif state.table.match_winner is None and state.table.shot_no > 0:
            self.emit(Stalemate, 2, 6, src="touch")
        else:
            return
        self.emit(Undo, 1, 4, src="touch")

    # --- what really happens -------------------------------------------------

    def plan_break(self) -> _Plan:
        rng = self.rng
        on = list(self.state.table.on_table)
        contact: int | None = 1
        if self.chance(BREAK_MISCUE):
            contact = rng.choice((2, 3, None))
        pots: list[int] = []
        if contact is not None:
            count = _pick(rng, BREAK_POTS)
            candidates = on[:]
            weights = [0.5 if ball == 1 else 0.25 if ball == NINE else 1.0 for ball in candidates]
            for _ in range(count):
                ball = rng.choices(candidates, weights)[0]
                index = candidates.index(ball)
                del candidates[index], weights[index]
                pots.append(ball)
        left = [ball for ball in on if ball not in pots]
        to_rail = min(_pick(rng, BREAK_RAIL_BALLS), len(left)) if contact is not None else 0
        railed = rng.sample(left, to_rail)
        after: list = [("cushion", ball) for ball in railed] + [("pocket", ball) for ball in pots]
        rng.shuffle(after)
        if contact is not None and self.chance(0.5):
            after.append(("cushion", CUE_BALL))
        if self.chance(BREAK_SCRATCH):
            after.append(("pocket", CUE_BALL))
        off: tuple[int, ...] = ()
        if self.chance(BREAK_OFF_TABLE) and len(left) > 1:
            off = (rng.choice(left),)
        calls: list[str] = []
        if contact != 1 and not self.sensors.camera:
            calls.append("bad_hit")
        if not pots and to_rail < 4 and not self.rules.rails_sensed and contact == 1:
            calls.append("illegal_break")
        return _Plan(contact=contact, after=after, off=off, calls=tuple(calls))

    def plan_push_out(self) -> _Plan:
        """5.6: the cue ball is moved to a better place; no contact or rail needed, other fouls apply."""
        rng = self.rng
        on = list(self.state.table.on_table)
        contact = rng.choice(on) if self.chance(0.5) else None
        after: list = []
        if self.chance(0.6):
            after.append(("cushion", CUE_BALL))
        if contact is not None and self.chance(0.03):
            after.append(("pocket", contact))
        if self.chance(0.02):
            after.append(("pocket", CUE_BALL))
        calls = ("moved_ball",) if self.chance(CALLED_FOUL) else ()
        return _Plan(contact=contact, after=after, calls=calls)

    def plan_shot(self) -> _Plan:
        """An ordinary shot: the lowest ball is played; it drops (or another does) by the shooter's skill."""
        rng = self.rng
        table = self.state.table
        on = list(table.on_table)
        lowest = on[0]
        skill = self.skill[table.shooter]
        careful = self.rules.three_foul_rule and table.fouls_in_row[table.shooter] == 2
        care = 0.3 if careful else 1.0
        in_hand = table.ball_in_hand

        bad_hit = self.chance(BAD_HIT * (1.4 - skill) * care * (0.4 if in_hand else 1.0))
        contact: int | None = lowest
        if bad_hit:
            contact = rng.choice(on[1:]) if len(on) > 1 and self.chance(0.85) else None
        kick = not in_hand and self.chance(KICK)
        scratch = self.chance(SCRATCH * (1.3 - skill) * care)

        pots: list[int] = []
        p_pot = min(0.95, 0.2 + 0.65 * skill + (0.1 if in_hand else 0.0)) * (0.3 if bad_hit else 1.0)
        if kick:
            p_pot *= 0.4
        if contact is not None and self.chance(p_pot):
            others = [ball for ball in on if ball != contact]
            if others and self.chance(COMBINATION):
                pots.append(NINE if NINE in others and self.chance(0.35) else rng.choice(others))
            else:
                pots.append(contact)
            rest = [ball for ball in on if ball not in pots]
            if rest and self.chance(EXTRA_BALL):
                weights = [0.3 if ball == NINE else 1.0 for ball in rest]
                pots.append(rng.choices(rest, weights)[0])

        no_rail = not pots and self.chance(NO_RAIL * care)
        after: list = [("pocket", ball) for ball in pots]
        if not no_rail:
            rails = rng.randint(1, 3) if not pots else rng.randint(0, 2)
            railers = [CUE_BALL] + ([contact] if contact is not None and contact not in pots else [])
            for _ in range(rails):
                after.insert(rng.randint(0, len(after)), ("cushion", rng.choice(railers)))
        off: tuple[int, ...] = ()
        if scratch and self.chance(0.1):
            off = (CUE_BALL,)
        elif scratch:
            after.append(("pocket", CUE_BALL))
        if self.chance(OFF_TABLE * care):
            left = [ball for ball in on if ball not in pots]
            if left:
                off += (rng.choice(left),)

        calls: list[str] = []
        if bad_hit and not self.sensors.camera and self.told(TAP_NOTICED):
            calls.append("bad_hit")
        if no_rail and not self.rules.rails_sensed and self.told(TAP_NOTICED):
            calls.append("no_rail")
        if self.chance(CALLED_FOUL * care):
            calls.append(rng.choice(("moved_ball", "moved_ball", "other")))
        return _Plan(contact=contact, kick=kick, after=after, off=off, calls=tuple(calls))

    # --- what the table reports ---------------------------------------------

    def shot(self, plan: _Plan, aim: tuple[float, float]) -> None:
        """Report one shot as the sensors and the players would, then the taps that put its verdict right."""
        rng = self.report_rng
        rails, strike, camera, ids = (self.rules.rails_sensed, self.rules.strike_sensed,
                                      self.sensors.camera, self.sensors.ball_ids)
        shooter = self.state.table.shooter
        # (input type, fields, seconds after the input before it: low, high)
        sensed: list[tuple[type, dict, float, float]] = []
        if strike:
            sensed.append((Strike, {"src": "gpio"}, 0, 0))
        if plan.kick and rails:
            ball = CUE_BALL if camera else None
            sensed.append((Cushion, {"ball": ball, "rail": rng.choice(RAILS), "src": "gpio"}, 0.2, 0.9))
        if camera:
            sensed.append((FirstContact, {"ball": plan.contact, "src": "camera"}, 0.1, 0.6))
        unnamed: list[int] = []  # the real balls of the pockets reported with no ball, in order
        for kind, ball in plan.after:
            if kind == "cushion":
                if rails:
                    named = ball if camera else None
                    sensed.append((Cushion, {"ball": named, "rail": rng.choice(RAILS), "src": "gpio"}, 0.1, 1.2))
            else:
                named = ball if ball == CUE_BALL or (ids and self.told(ids)) else None
                if named is None:
                    unnamed.append(ball)
                sensed.append((Pocket, {"ball": named, "pocket": rng.choice(POCKETS), "src": "gpio"}, 0.2, 1.5))

        slow = None
        if strike and sensed[-1][0] is Pocket and self.told(SLOW_BALL):
            slow = sensed.pop()

        taps: list[tuple[type, dict]] = [(OffTable, {"ball": ball, "src": "touch"}) for ball in plan.off]
        late: list[tuple[type, dict]] = []
        for reason in plan.calls:
            player = shooter if self.told(0.5) else None
            (late if self.told(TAP_LATE) else taps).append(
                (Foul, {"reason": reason, "player": player, "src": "touch"}))

        if sensed:
            (kind, fields, _, _), *rest = sensed
            self.emit(kind, *aim, **fields)
            for kind, fields, low, high in rest:
                self.emit(kind, low, high, **fields)
            for kind, fields in taps:
                self.emit(kind, 0.5, 3, **fields)
            if (unnamed or slow is not None) and (
                    NINE in unnamed or self.wins_match()
                    or (slow is not None and self.wins_match(slow[0](**slow[1])))):
                # After the settle of a shot that wins the match only a late foul may come (the spec):
                # the slow ball drops before it, and a player who saw the 9 drop names the balls at once.
                if slow is not None:
                    self.emit(slow[0], slow[2], slow[3], **slow[1])
                    slow = None
                self.identify(unnamed, 1, 3)
            self.emit(Settle, 1.5, 2.5)
        else:
            # Nothing sensed: the player taps miss, and that is the whole shot; taps then belong to it.
            self.emit(Miss, aim[0] + 3, aim[1] + 8, src="touch")
            for kind, fields in taps:
                self.emit(kind, 1, 4, **fields)
        if slow is not None:
            self.emit(slow[0], 0.5, 3, **slow[1])

        self.identify(unnamed)
        for kind, fields in late:
            self.emit(kind, 2, 8, **fields)
        if late:
            self.identify(unnamed)

    def identify(self, unnamed: list[int], low: float = 2, high: float = 6) -> None:
        """Players name unidentified balls the rules took for others (and now and then one they had right)."""
        while unnamed:
            state = self.state
            if state.table.match_winner is not None:
                return
            shot = state.shot if state.shot is not None else state.last
            named = sum(1 for event in shot.events if type(event) is Identify)
            if named >= len(unnamed):
                return
            still = unnamed[named:]
            verdict = evolve(state, Settle()).verdict if state.shot is not None else self.verdict
            if tuple(still) == verdict.assumed and not self.told(IDENTIFY_ANYWAY):
                return
            self.emit(Identify, low, high, ball=still[0], src="touch")

    def wins_match(self, *items: Input) -> bool:
        """Would the shot in progress, with ``items`` added, win the match at its settle? (The fold is pure.)"""
        state = self.state
        for item in items:
            state = evolve(state, item).state
        return evolve(state, Settle()).state.table.match_winner is not None


def _pick(rng: Random, weights: dict[int, float]) -> int:
    return rng.choices(list(weights), list(weights.values()))[0]

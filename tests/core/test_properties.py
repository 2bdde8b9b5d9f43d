"""Property tests over random match logs (docs/match-log.md, docs/rules.md; rules 5.1-5.15, R1-R11).

The logs are built input by input knowing the match so far, so that real play
happens: most shots are a strike, a first contact on the lowest ball, cushions,
pockets of balls still on the table and a settle; between shots come push outs,
choices, late fouls, identifications, stalemates, concessions and undos. A share
of every log is wild input of any type with random fields (most of it errors).

A failing example prints its log as JSON lines (the ``note``), ready for
``devetka replay -``. The log properties run 200 examples, or as many as the
loaded hypothesis profile asks for if that is more (for a bug hunt).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from scoreboard.core.inputs import (
    BREAK_ORDERS,
    CHOICES,
    CONCEDE_SCOPES,
    FOUL_REASONS,
    INPUT_TYPES,
    POCKETS,
    PROFILE_NAMES,
    RAILS,
    SOURCES,
    Accept,
    Concede,
    Cushion,
    Extension,
    FirstContact,
    Foul,
    Identify,
    Input,
    InputError,
    MatchStart,
    Miss,
    OffTable,
    Pass,
    Pocket,
    PushOut,
    Rerack,
    RuleOptions,
    Safety,
    Settle,
    ShotClock,
    Stalemate,
    Strike,
    Timeout,
    Undo,
    UndoShot,
    parse,
    to_json,
)
from scoreboard.core.match import Match
from scoreboard.core.output import shot_line, state_line
from scoreboard.core.rules import RuleError, State, Step, Table, Verdict, clock, evolve
from scoreboard.core.rules import start as start_state
from scoreboard.core.rules.facts import read
from scoreboard.matchlog.jsonl import parse_line
from scoreboard.matchlog.replay import replay

FULL_RACK = tuple(range(1, 10))

# 200 random logs per property, or more when the loaded profile asks for more (a bug hunt)
LOGS = settings(deadline=None, max_examples=max(200, settings().max_examples),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# --- Strategies: values of the spec -------------------------------------------------------------

names = st.text(min_size=1, max_size=8).map(str.strip).filter(lambda name: name and name.isprintable())
times = st.none() | st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False)
sources = st.none() | st.sampled_from(SOURCES)
players = st.integers(0, 1)
balls = st.integers(0, 9)
object_balls = st.integers(1, 9)

rule_options = st.builds(
    RuleOptions,
    break_order=st.sampled_from(BREAK_ORDERS),
    rails_sensed=st.booleans(),
    push_out_after_break_foul=st.booleans(),
    three_foul_rule=st.booleans(),
    strike_sensed=st.booleans(),
    scoring=st.sampled_from(CHOICES["scoring"]),
    ball_in_hand=st.sampled_from(CHOICES["ball_in_hand"]),
    nine_on_break=st.sampled_from(CHOICES["nine_on_break"]),
    break_requirement=st.sampled_from(CHOICES["break_requirement"]),
    break_failure=st.sampled_from(CHOICES["break_failure"]),
    push_outs=st.booleans(),
    shot_clock=st.booleans(),
    profile=st.none() | st.sampled_from(PROFILE_NAMES),
).map(lambda options: replace(options, push_outs=False, three_foul_rule=False) if options.apa else options)


NOTHING = st.none()
LOG_RACES = st.integers(1, 4)
LOG_NAMES = st.sampled_from(["Ana", "Ben", "Đurđa"])
LOG_TABLES = st.none() | st.just("table 1")


def match_starts(race=LOG_RACES, names=LOG_NAMES, tables=LOG_TABLES, t=NOTHING, src=NOTHING):
    skills = st.tuples(st.integers(1, 9), st.integers(1, 9))
    return (rule_options | st.just(RuleOptions())).flatmap(lambda options: st.builds(
        MatchStart, players=st.tuples(names, names), race=st.tuples(race, race), breaker=players,
        options=st.just(options), table=tables, apa_skill=skills if options.apa else st.none(), t=t, src=src,
    ))


def input_strategies(t=NOTHING, src=NOTHING) -> dict[str, st.SearchStrategy]:
    """A strategy of valid inputs (as ``parse`` gives them) for every type of the spec."""
    return {
        "match_start": match_starts(race=st.integers(1, 99), names=names, tables=st.none() | names,
                                    t=t, src=src),
        "strike": st.builds(Strike, t=t, src=src),
        "first_contact": st.builds(FirstContact, ball=st.none() | object_balls, t=t, src=src),
        "cushion": st.builds(Cushion, ball=st.none() | balls, rail=st.none() | st.sampled_from(RAILS), t=t, src=src),
        "pocket": st.builds(Pocket, ball=st.none() | balls, pocket=st.none() | st.sampled_from(POCKETS), t=t,
                            src=src),
        "identify": st.builds(Identify, ball=object_balls, t=t, src=src),
        "off_table": st.builds(OffTable, ball=balls, t=t, src=src),
        "push_out": st.builds(PushOut, t=t, src=src),
        "accept": st.builds(Accept, t=t, src=src),
        "pass": st.builds(Pass, t=t, src=src),
        "foul": st.builds(Foul, reason=st.sampled_from(FOUL_REASONS), player=st.none() | players, t=t, src=src),
        "miss": st.builds(Miss, t=t, src=src),
        "settle": st.builds(Settle, t=t, src=src),
        "stalemate": st.builds(Stalemate, t=t, src=src),
        "concede": st.builds(Concede, player=players, scope=st.sampled_from(CONCEDE_SCOPES), t=t, src=src),
        "undo": st.builds(Undo, t=t, src=src),
        "undo_shot": st.builds(UndoShot, t=t, src=src),
        "safety": st.builds(Safety, t=t, src=src),
        "timeout": st.builds(Timeout, t=t, src=src),
        "rerack": st.builds(Rerack, t=t, src=src),
        "shot_clock": st.builds(ShotClock, on=st.booleans(), t=t, src=src)
        | st.builds(ShotClock, expired=st.just(True), t=t, src=src),
        "extension": st.builds(Extension, t=t, src=src),
    }


# --- Strategies: match logs, each input chosen knowing the match so far -------------------------
#
# A log is drawn as a list of actions, each a few random bytes, and each action is read as an input
# against the match as it stands: "pocket a ball still on the table", "first contact on the lowest
# ball". Deleting an action or lowering a byte keeps the rest of the log meaning much the same
# thing, so hypothesis shrinks a failing log well. Zero bytes read as the first choice on the menu:
# a settle (an undo once the match is won).

BYTES_PER_INPUT = 7


class Rolls:
    """The randomness of one input: the bytes of its action as numbers 0-99, read in turn (then 0)."""

    def __init__(self, action: bytes) -> None:
        self.numbers = [byte * 100 // 256 for byte in action]

    def pct(self) -> int:
        return self.numbers.pop(0) if self.numbers else 0

    def pick(self, values):
        values = list(values)
        return values[self.pct() * len(values) // 100]


PER_ACTION = 2  # inputs per action: fewer, longer draws make a log faster to generate
actions = st.binary(min_size=BYTES_PER_INPUT * PER_ACTION, max_size=BYTES_PER_INPUT * PER_ACTION)


def _wild(r: Rolls) -> Input:
    """Any input but match_start, with any fields the parser allows: mostly errors where it lands.

    Not ``undo_shot``: the other properties follow undo with a stack of states; it has a property of its own.
    """
    kind = r.pick(kind for kind in INPUT_TYPES if kind not in ("match_start", "undo_shot"))
    ball = r.pick([None, *range(10)])
    return {
        "strike": lambda: Strike(),
        "first_contact": lambda: FirstContact(None if ball == 0 else ball),
        "cushion": lambda: Cushion(ball, r.pick([None, *RAILS])),
        "pocket": lambda: Pocket(ball, r.pick([None, *POCKETS])),
        "identify": lambda: Identify(ball or 9),
        "off_table": lambda: OffTable(ball or 0),
        "push_out": PushOut, "accept": Accept, "pass": Pass,
        "foul": lambda: Foul(r.pick(FOUL_REASONS), r.pick([None, 0, 1])),
        "miss": Miss, "settle": Settle, "stalemate": Stalemate,
        "concede": lambda: Concede(r.pick([0, 1]), r.pick(CONCEDE_SCOPES)),
        "undo": Undo, "safety": Safety, "timeout": Timeout, "rerack": Rerack,
        "shot_clock": lambda: r.pick([ShotClock(on=True), ShotClock(on=False), ShotClock(expired=True)]),
        "extension": Extension,
    }[kind]()


def _ball_left(r: Rolls, left: list[int]) -> int:
    """A ball still on the table: mostly the lowest, the 9 now and then (a combination)."""
    roll = r.pct()
    if roll < 60:
        return left[0]
    if 9 in left and roll < 90:
        return 9
    return r.pick(left)


def _foul(r: Rolls, shooter: int | None) -> Foul:
    roll = r.pct()
    player = None if roll < 50 or shooter is None else (shooter if roll < 90 else 1 - shooter)
    return Foul(reason=r.pick(FOUL_REASONS), player=player)


def _first_contact(r: Rolls, on_table) -> FirstContact:
    roll = r.pct()
    if roll < 80:
        return FirstContact(min(on_table))
    if roll < 95:
        return FirstContact(r.pick(range(1, 10)))
    return FirstContact(None)


def _cushion(r: Rolls, left: list[int]) -> Cushion:
    roll, rail = r.pct(), r.pick([None, *RAILS])
    if roll < 40 or not left:
        return Cushion(None, rail)
    if roll < 80:
        return Cushion(r.pick(left), rail)
    if roll < 90:
        return Cushion(0, rail)
    return Cushion(r.pick(range(10)), rail)


def _pocket(r: Rolls, left: list[int]) -> Pocket:
    roll, where = r.pct(), r.pick([None, *POCKETS])
    if roll < 75 and left:
        return Pocket(_ball_left(r, left), where)
    if roll < 88:
        return Pocket(None, where)
    if roll < 94:
        return Pocket(0, where)
    return Pocket(r.pick(range(10)), where)


def _identify(r: Rolls, shot) -> Identify:
    named = {e.ball for e in shot.events if type(e) in (Pocket, Identify, OffTable)}
    choices = [ball for ball in shot.before.on_table if ball not in named]
    if choices and r.pct() < 85:
        return Identify(r.pick(choices))
    return Identify(r.pick(range(1, 10)))


def _off_table(r: Rolls, left: list[int]) -> OffTable:
    roll = r.pct()
    if roll < 60 and left:
        return OffTable(r.pick(left))
    if roll < 85:
        return OffTable(0)
    return OffTable(r.pick(range(10)))


def _left(shot) -> list[int]:
    facts = read(shot)
    return [ball for ball in shot.before.on_table if ball not in facts.pocketed and ball not in facts.off_table]


def next_input(state: State, previous: Input | None, action: bytes) -> Input:
    """The input ``action`` stands for in ``state``: a plausible one, or now and then any input at all."""
    table, shot, last = state.table, state.shot, state.last
    options = state.setup.options
    r = Rolls(action)
    menu_roll = r.pct() * 100 + r.pct()
    undo_weight = 4 if type(previous) is Undo else 1
    menu: list[tuple[int, object]] = []
    if table.match_winner is not None:
        menu += [(1, Undo), (2, lambda: _foul(r, last.shooter if last else None)), (3, lambda: _wild(r))]
    elif shot is None:
        menu += [(1, Settle), (12, Strike)]
        if not options.strike_sensed:
            menu.append((4, lambda: _first_contact(r, table.on_table)))
        menu.append((2, Miss))
        if table.push_out_allowed and not table.push_out:
            menu.append((15, PushOut))
        if table.awaiting_choice:
            menu += [(10, Accept), (10, Pass)]
        if last is not None:
            menu.append((2, lambda: _foul(r, last.shooter)))
            menu.append((1, lambda: _off_table(r, _left(last))))
            if read(last).unidentified:
                menu.append((6, lambda: _identify(r, last)))
            if options.strike_sensed:
                menu.append((1, lambda: _pocket(r, _left(last))))
        if table.shot_no > 0:
            between = lambda: Foul(reason=r.pick(["moved_ball", "other"]), player=r.pick([None, table.shooter]))  # noqa: E731
            menu.append((1 if last else 4, between))  # R5, after a push out, a choice or another such foul
            menu.append((1, Stalemate))
        menu.append((1, lambda: ShotClock(on=r.pick([True, False]))))
        if state.clock is not None and state.clock.on:
            menu += [(2, Extension), (2, lambda: ShotClock(expired=True))]
        menu.append((1, lambda: Concede(player=r.pick([0, 1]), scope="rack")))
        menu.append((1, lambda: Concede(player=r.pick([0, 1]), scope=r.pick(CONCEDE_SCOPES))))
        menu += [(undo_weight + 1, Undo), (2, lambda: _wild(r))]
    else:
        left = _left(shot)
        events = shot.events
        menu.append((2 + 3 * len(events), Settle))
        if not any(type(e) is FirstContact for e in events):
            menu.append((12, lambda: _first_contact(r, shot.before.on_table)))
        menu.append((10 if shot.is_break else 4, lambda: _cushion(r, left)))
        menu.append((5, lambda: _pocket(r, left)))
        if not any(type(e) is Pocket for e in events):
            menu.append((2, Miss))
        menu += [(2, Strike), (1, lambda: _foul(r, shot.shooter)), (1, lambda: _off_table(r, left))]
        if read(shot).unidentified:
            menu.append((3, lambda: _identify(r, shot)))
        menu += [(undo_weight - 1, Undo), (2, lambda: _wild(r))]
    roll = menu_roll * sum(weight for weight, _ in menu) // 10_000
    for weight, make in menu:
        if roll < weight:
            return make()
        roll -= weight
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Log:
    start: MatchStart
    items: tuple[Input, ...]

    def jsonl(self) -> str:
        return "\n".join(json.dumps(to_json(item)) for item in (self.start, *self.items))


def _read_log(start: MatchStart, steps: list[bytes]) -> Log:
    """The log the actions stand for; the match is followed with the pure fold and a stack for undo."""
    states = [start_state(start)]
    items: list[Input] = []
    size = BYTES_PER_INPUT
    for action in (chunk[k:k + size] for chunk in steps for k in range(0, len(chunk), size)):
        item = next_input(states[-1], items[-1] if items else None, action)
        items.append(item)
        try:
            if type(item) is Undo:
                if len(states) > 1:
                    states.pop()
            else:
                step = evolve(states[-1], item)
                if step.state != states[-1]:
                    states.append(step.state)
        except Exception:  # noqa: BLE001 - the tests say what is wrong; here the log just goes on
            pass
    return Log(start, tuple(items))


def _flat(lists: list[list]) -> list:
    return [item for inner in lists for item in inner]


def match_logs() -> st.SearchStrategy[Log]:
    """Logs of some 40 inputs on average, up to 240: lists of lists of bursts, since a flat list of
    hypothesis is a few elements long on average."""
    bursts = st.lists(actions, min_size=1, max_size=6)
    runs = st.lists(bursts, min_size=1, max_size=5).map(_flat)
    return st.builds(_read_log, match_starts(), st.lists(runs, min_size=1, max_size=4).map(_flat))


# --- Folding a log and checking as it goes ------------------------------------------------------

@dataclass
class Outcome:
    item: Input
    before: State
    after: State
    step: Step | None
    error: RuleError | None


def fold(log: Log, each=None) -> tuple[Match, list[Outcome]]:
    """Apply every input of ``log`` to a new Match; ``each(match, outcome)`` after every input."""
    match = Match(log.start)
    outcomes = []
    for position, item in enumerate(log.items, 2):
        before = match.state
        try:
            step, error = match.apply(item, position), None
        except RuleError as rejected:
            step, error = None, rejected
        outcome = Outcome(item, before, match.state, step, error)
        outcomes.append(outcome)
        if each is not None:
            each(match, outcome)
    return match, outcomes


def verdicts(match: Match) -> list[Verdict]:
    return [line.verdict for line in match.shot_lines()]


# --- 1. The fold raises nothing but RuleError; parsing nothing but InputError --------------------

@LOGS
@given(log=match_logs())
def test_fold_raises_only_rule_error(log):
    note(log.jsonl())
    match, _ = fold(log)  # any exception but RuleError escapes fold() and fails the test
    match.shot_lines()
    match.closed()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
raw_fields = st.sampled_from(
    ["type", "ball", "pocket", "rail", "reason", "player", "scope", "t", "src", "v", "players", "race",
     "breaker", "rules", "table"]
)
raw_inputs = st.dictionaries(
    raw_fields,
    json_values | st.sampled_from([*INPUT_TYPES, *POCKETS, *RAILS, *FOUL_REASONS, *SOURCES, *CONCEDE_SCOPES])
    | st.integers(-1, 10),
    max_size=6,
) | json_values
raw_lines = (
    raw_inputs.map(json.dumps)
    | st.text(max_size=20)
    | st.builds(lambda depth, tail: "[" * depth + tail, st.integers(0, 5000), st.text(max_size=3))
    | st.binary(max_size=20)
)


@settings(deadline=None)
@given(text=raw_lines)
def test_parse_line_raises_only_input_error(text):
    try:
        parse_line(text)
    except InputError:
        pass


@settings(deadline=None)
@given(raw=raw_inputs)
def test_parse_raises_only_input_error(raw):
    try:
        parse(raw)
    except InputError:
        pass


# --- 2. A rejected input leaves the match exactly as it was -------------------------------------

@LOGS
@given(log=match_logs())
def test_rejected_input_leaves_match_unchanged(log):
    note(log.jsonl())
    match = Match(log.start)
    for item in log.items:
        before, target = match.state, match.undo_target
        lines = match.shot_lines() if _refused(match, item) else None
        try:
            match.apply(item)
        except RuleError:
            assert lines is not None, "rejected by the match, not by the fold"
            assert match.state is before
            assert match.shot_lines() == lines
            assert match.undo_target is target
        else:
            assert lines is None, "accepted by the match, rejected by the fold"


def _refused(match: Match, item: Input) -> bool:
    """Would the fold refuse ``item`` (undo: with nothing to take back)? Asked of the pure fold."""
    if type(item) is Undo:
        return match.undo_target is None
    try:
        evolve(match.state, item)
    except RuleError:
        return True
    return False


# --- 3. Undo takes back the last input that changed the state -----------------------------------

@LOGS
@given(log=match_logs(), data=st.data())
def test_undo_restores_the_state_before_the_last_change(log, data):
    """Every undo of the log against a stack of states; and an undo tried after random changes."""
    note(log.jsonl())
    match = Match(log.start)
    history = [match.state]  # the state after each input that changed it, as the spec counts them
    lines = [match.shot_lines()]
    tries = data.draw(st.sets(st.integers(0, max(len(log.items) - 1, 0)), max_size=12), label="undo tried at")
    for index, item in enumerate(log.items):
        before, target = match.state, match.undo_target
        try:
            match.apply(item)
        except RuleError:
            if type(item) is Undo:
                assert len(history) == 1, "undo refused with inputs left to take back"
            continue
        after = match.state
        if type(item) is Undo:
            history.pop()
            lines.pop()
            assert after == history[-1]
            assert match.shot_lines() == lines[-1]
        elif after == before:
            assert match.undo_target is target, "an input that changed nothing became the undo target"
        else:
            if index in tries:
                match.apply(Undo())
                assert match.state == before
                assert match.shot_lines() == lines[-1]
                assert match.undo_target is target
                match.apply(item)
                assert match.state == after
            history.append(match.state)
            lines.append(match.shot_lines())


@LOGS
@given(log=match_logs())
def test_undo_shot_goes_back_to_the_moment_before_the_last_shot_began(log):
    """At the log's end, ``undo_shot`` again and again: each time the state and shot lines from just before the
    input that began the last shot left (a fresh shot in progress, or a miss that was a whole shot), until none
    is left and it is refused."""
    note(log.jsonl())
    match = Match(log.start)
    kept = []  # for each input that changed the state: (state and shot lines before it, whether it began a shot)
    for item in log.items:
        before, lines = match.state, match.shot_lines()
        try:
            match.apply(item)
        except RuleError:
            continue
        if type(item) is Undo:
            kept.pop()
        elif match.state != before:
            shot = match.state.shot
            fresh = shot is not None and len(shot.events) == (0 if type(item) is Strike else 1) and (
                before.shot is None or type(item) is Strike)
            kept.append(((before, lines), fresh or (type(item) is Miss and before.shot is None)))
    while any(began for _, began in kept):
        while not kept[-1][1]:
            kept.pop()
        (state, lines), _ = kept.pop()
        assert len(match.last_shot().inputs) == match.applied_count - len(kept)
        match.apply(UndoShot())
        assert match.state == state and match.shot_lines() == lines
    with pytest.raises(RuleError, match="no shot to take back"):
        match.apply(UndoShot())
    assert match.applied_count == len(kept) and match.last_shot() is None


# --- 4. Balls only leave the table --------------------------------------------------------------

@LOGS
@given(log=match_logs())
def test_balls_only_leave_the_table_but_for_respot_new_rack_undo_and_late_amends(log):
    note(log.jsonl())

    def check(match, outcome):
        if outcome.error is not None or type(outcome.item) is Undo:
            return
        before, after = outcome.before.table, outcome.after.table
        if outcome.step.amends:
            # a late input decides the last shot again from the table before it
            last = outcome.after.last
            if after.rack == last.before.rack:
                assert set(after.on_table) <= set(last.before.on_table)
            else:
                assert after.on_table == FULL_RACK
            return
        if after.rack != before.rack:
            assert after.rack > before.rack
            assert after.on_table == FULL_RACK
            return
        back = set(after.on_table) - set(before.on_table)
        verdict = outcome.step.verdict
        if verdict is not None and verdict.respot_nine:
            assert back <= {9}
        else:
            assert not back, f"{sorted(back)} came back to the table"

    fold(log, check)


# --- 5. Resuming from the accepted inputs is the same as folding in one go ----------------------

@LOGS
@given(log=match_logs(), data=st.data())
def test_resume_from_accepted_prefix_then_rest_equals_one_fold(log, data):
    note(log.jsonl())
    split = data.draw(st.integers(0, len(log.items)), label="split")
    whole, _ = fold(log)
    first, outcomes = fold(Log(log.start, log.items[:split]))
    accepted = [o.item for o in outcomes if o.error is None]
    resumed = Match.resume([log.start, *accepted])
    assert resumed.state == first.state
    assert verdicts(resumed) == verdicts(first)
    for item in log.items[split:]:
        try:
            resumed.apply(item)
        except RuleError:
            pass
    assert resumed.state == whole.state
    assert verdicts(resumed) == verdicts(whole)
    assert resumed.closed() == whole.closed()


# --- 6. Replay prints valid lines of the spec, in log order, that agree with the fold -------------

def _is_int(value, low=None, high=None) -> bool:
    return type(value) is int and (low is None or value >= low) and (high is None or value <= high)


def _is_player(value, nullable=False) -> bool:
    return (nullable and value is None) or _is_int(value, 0, 1)


def _is_balls(value, low=1) -> bool:
    return type(value) is list and all(_is_int(ball, low, 9) for ball in value)


def _is_on_table(value) -> bool:
    return _is_balls(value) and value == sorted(set(value))


def _is_pair(value) -> bool:
    return type(value) is list and len(value) == 2 and all(_is_int(n, 0) for n in value)


SHOT_FIELDS = {
    "rack": lambda v: _is_int(v, 1), "shot": lambda v: _is_int(v, 1), "shooter": _is_player,
    "break": lambda v: type(v) is bool, "push_out": lambda v: type(v) is bool, "pocketed": _is_balls,
    "foul": lambda v: type(v) is bool, "rules": lambda v: type(v) is list and all(type(r) is str for r in v),
    "respot_nine": lambda v: type(v) is bool, "on_table": _is_on_table,
    "next_shooter": lambda v: _is_player(v, nullable=True), "ball_in_hand": lambda v: type(v) is bool,
    "push_out_allowed": lambda v: type(v) is bool, "fouls_in_row": _is_pair, "warning": lambda v: type(v) is bool,
    "rack_winner": lambda v: _is_player(v, nullable=True),
}
STATE_FIELDS = {
    "score": _is_pair, "rack": lambda v: _is_int(v, 1), "breaker": _is_player,
    "match_winner": lambda v: _is_player(v, nullable=True), "on_table": _is_on_table,
    "shooter": lambda v: _is_player(v, nullable=True), "ball_in_hand": lambda v: type(v) is bool,
    "fouls_in_row": _is_pair, "warning": lambda v: type(v) is bool,
}
GARBAGE = [
    "not json", "[]", "{}", '{"type": 5}', '{"type": "teleport"}', '{"type": "pocket", "ball": 12}',
    '{"type": "concede", "player": 3}', '{"type": "foul", "reason": "slow_play"}', '{"type": "settle", "t": "now"}',
    '{"type": "match_start", "v": 2, "players": ["A", "B"], "race": [1, 1], "breaker": 0}',
]
BLANK = ["", "   ", "\t"]
EXTRA_FIELDS = [{}, {"t": 12.5}, {"src": "touch"}, {"t": 3, "src": "gpio"}, {"note": "unknown fields are ignored"}]


@st.composite
def replay_logs(draw):
    """A match log as text: blank and broken lines here and there (and before the match_start), a second
    match_start, and optional or unknown fields on the inputs. Returns the log and, per line, the input
    it holds (None for a blank line, "error" for a line that cannot be applied)."""
    log = draw(match_logs())
    noise = st.sampled_from(BLANK) | st.sampled_from(GARBAGE + [json.dumps(to_json(log.start))])
    before = draw(st.lists(st.sampled_from(BLANK) | st.sampled_from(GARBAGE + ['{"type": "strike"}']), max_size=2))
    inserts = draw(st.lists(st.tuples(st.integers(0, len(log.items)), noise), max_size=4))
    extras = draw(st.lists(st.tuples(st.integers(0, len(log.items)), st.sampled_from(EXTRA_FIELDS)), max_size=4))
    lines, holds = [], []
    for line in before:
        lines.append(line)
        holds.append(None if line in BLANK else "error")
    for index, item in enumerate((log.start, *log.items)):
        raw = to_json(item)
        for at, extra in extras:
            if at == index:
                raw.update(extra)
        lines.append(json.dumps(raw))
        holds.append(item)
        for at, line in inserts:
            if at == index:
                lines.append(line)
                holds.append(None if line in BLANK else "error")
    return lines, holds


@LOGS
@given(case=replay_logs())
def test_replay_lines_follow_the_spec_and_agree_with_the_fold(case):
    text, holds = case
    note("\n".join(text))
    # the fold the spec describes, done here on the inputs the lines were written from
    match, errors = None, []
    for position, item in enumerate(holds, 1):
        if item == "error":
            errors.append(position)
        elif item is None:
            continue
        elif match is None:
            match = Match(item)
        else:
            try:
                match.apply(item, position)
            except RuleError:
                errors.append(position)

    out = replay(text).lines()
    assert json.loads(json.dumps(out)) == out, "replay lines are JSON values"
    assert [line["type"] for line in out].count("state") == 1 and out[-1]["type"] == "state"
    for line in out[:-1]:
        assert line["type"] in ("shot", "error")
        fields = SHOT_FIELDS if line["type"] == "shot" else {"line": lambda v: _is_int(v, 1),
                                                             "error": lambda v: type(v) is str and v}
        for name, valid in fields.items():
            assert name in line and valid(line[name]), (name, line)
    for name, valid in STATE_FIELDS.items():
        assert name in out[-1] and valid(out[-1][name]), (name, out[-1])

    assert [line["line"] for line in out if line["type"] == "error"] == errors
    closed = match.closed()
    expected_shots = [shot_line(v) for v in verdicts(match)]
    if closed.verdict is not None:
        expected_shots.append(shot_line(closed.verdict))
    assert [line for line in out if line["type"] == "shot"] == expected_shots
    assert out[-1] == state_line(closed.state)
    # log order: a shot line stands where the input that ended it stands (the log's end for the last)
    ended = [line.position for line in match.shot_lines()] + ([len(text) + 1] if closed.verdict else [])
    order = sorted([(p, "shot") for p in ended] + [(p, "error") for p in errors], key=lambda e: e[0])
    assert [kind for _, kind in order] == [line["type"] for line in out[:-1]]
    _check_shot_sequence([line for line in out if line["type"] == "shot"])


def _check_shot_sequence(shots: list[dict]) -> None:
    """Rack and shot numbers as the spec counts them: a break opens each rack; a foul between shots
    carries the number of the last shot."""
    previous = None
    for line in shots:
        between = line.get("between_shots", False)
        assert line["break"] == (line["shot"] == 1 and not between), line
        if previous is not None:
            if line["rack"] == previous["rack"]:
                assert line["shot"] == previous["shot"] + (0 if between else 1), (previous, line)
            else:
                assert line["rack"] > previous["rack"] and line["break"], (previous, line)
        previous = line


# --- 7. JSON round trip of every input type -----------------------------------------------------

ROUND_TRIP = input_strategies(t=times, src=sources)


@pytest.mark.parametrize("kind", sorted(INPUT_TYPES))
@settings(deadline=None, max_examples=50)
@given(data=st.data())
def test_json_round_trip_gives_the_input_back(kind, data):
    item = data.draw(ROUND_TRIP[kind])
    assert parse(to_json(item)) == item
    assert parse_line(json.dumps(to_json(item))) == item
    assert to_json(item)["type"] == kind


# --- 8. Determinism -----------------------------------------------------------------------------

@LOGS
@given(log=match_logs())
def test_same_log_folds_to_the_same_state_twice(log):
    note(log.jsonl())
    once, _ = fold(log)
    twice, _ = fold(log)
    assert once.state == twice.state
    assert once.shot_lines() == twice.shot_lines()
    assert once.closed() == twice.closed()


# --- 9. Invariants of every state and every shot verdict ----------------------------------------

BETWEEN_SHOTS = (PushOut, Accept, Pass, Stalemate, Concede, Rerack, Timeout)


def check_state(match: Match) -> None:
    state = match.state
    table, setup = state.table, state.setup
    rule_on = setup.options.three_foul_rule
    if setup.targets is not None:  # APA: points against targets decide, racks are only counted
        sheet = table.sheet
        assert sheet is not None and all(points >= 0 for points in sheet.points)
        reached = [p for p in (0, 1) if sheet.points[p] >= setup.targets[p]]
        assert sum(sheet.points) + sheet.dead_balls <= 10 * table.rack, "more points and dead balls than racks"
    else:
        score, race = table.score, setup.race
        assert all(0 <= score[p] <= race[p] for p in (0, 1)), "score beyond the race"
        reached = [p for p in (0, 1) if score[p] >= race[p]]
    conceded = type(match.undo_target) is Concede and match.undo_target.scope == "match"
    assert (table.match_winner is not None) == (bool(reached) or conceded)
    if reached:
        assert reached == [table.match_winner]
    elif conceded:
        assert table.match_winner == 1 - match.undo_target.player
    if rule_on:
        # 0-2 while the match goes on; a match won on a third foul keeps that rack's count as it ended
        # (docs/match-log.md, Devetka's reading 7)
        over = table.match_winner is not None
        assert all(0 <= n <= (3 if over else 2) for n in table.fouls_in_row), f"fouls_in_row {table.fouls_in_row}"
        if 3 in table.fouls_in_row:
            assert table.match_winner == 1 - table.fouls_in_row.index(3)
    else:
        assert all(n >= 0 for n in table.fouls_in_row)
    assert (table.shooter is None) == (table.match_winner is not None)
    assert list(table.on_table) == sorted(set(table.on_table)) and set(table.on_table) <= set(FULL_RACK)
    if table.match_winner is None:
        assert 9 in table.on_table, "the 9 is off the table while the rack goes on"
        if table.shot_no == 0 and state.shot is None:
            assert table.shooter == table.breaker and table.ball_in_hand  # 5.2
    warning = rule_on and table.shooter is not None and table.fouls_in_row[table.shooter] == 2
    assert state_line(state)["warning"] == warning
    assert state.shot is None or state.last is None
    if table.push_out_allowed:
        assert table.shot_no == 1, "a push out only on the shot after the break (5.6, R2)"
    if table.push_out:
        assert table.push_out_allowed and not table.awaiting_choice
    if table.awaiting_choice:
        assert not table.ball_in_hand and table.shot_no >= 2, "a choice only after a legal push out (5.6)"


def check_step(setup, b: Table, a: Table) -> None:
    """Score and rack only go up, a rack at a time: a rack won scores one and is followed by a rack
    broken as the break order says (R8); a stalemate scores none and the same player breaks again (5.14);
    the rack that wins the match stays the last."""
    racks, scored = a.rack - b.rack, sum(a.score) - sum(b.score)
    assert racks in (0, 1) and scored in (0, 1), (b, a)
    if racks == 0 and scored == 1:
        assert a.match_winner is not None
    if a.match_winner is not None and b.match_winner is None:
        assert racks == 0
    if racks == 1 and scored == 0 and b.break_choice:
        assert a.breaker == b.shooter, "a re-rack is broken by the player who chose it"
    elif racks == 1 and scored == 0:
        assert a.breaker == b.breaker, "a stalemate is broken again by the same player (5.14, R7)"
    if racks == 1 and scored == 1:
        winner = 0 if a.score[0] > b.score[0] else 1
        assert a.breaker == (winner if setup.options.break_order == "winner" else 1 - b.breaker), "R8"


def check_verdict(state: State, verdict: Verdict, ended_by_shot_input: bool) -> None:
    """``ended_by_shot_input``: no between-shot input (push out, concede...) acted after the verdict."""
    rule_on = state.setup.options.three_foul_rule
    fouls = verdict.fouls_in_row
    if rule_on:
        assert all(0 <= n <= 3 for n in fouls)
        if 3 in fouls:
            assert verdict.rack_winner is not None, "three fouls in a row and the rack goes on"
    assert list(verdict.on_table) == sorted(set(verdict.on_table)) and set(verdict.on_table) <= set(FULL_RACK)
    assert len(set(verdict.pocketed)) == len(verdict.pocketed) and set(verdict.pocketed) <= set(FULL_RACK)
    if verdict.respot_nine:
        assert 9 in verdict.on_table and verdict.rack_winner is None
    if verdict.rack_winner is None:
        assert 9 in verdict.on_table
        assert not (set(verdict.pocketed) - {9}) & set(verdict.on_table)
        if verdict.foul:
            assert verdict.next_shooter == 1 - verdict.shooter and verdict.ball_in_hand
    elif verdict.next_shooter is not None:
        assert verdict.ball_in_hand and not verdict.push_out_allowed  # the next break, 5.2
    warning = (rule_on and verdict.rack_winner is None and verdict.next_shooter is not None
               and fouls[verdict.next_shooter] == 2)
    assert verdict.warning == warning
    if verdict.next_shooter is None:
        assert verdict.rack_winner is not None and state.table.match_winner is not None
    elif ended_by_shot_input:
        assert state.table.match_winner is None, "the match is over and the shot line names a next shooter"


@LOGS
@given(log=match_logs())
def test_invariants_hold_in_every_state_and_shot_verdict(log):
    note(log.jsonl())

    def check(match, outcome):
        check_state(match)
        step = outcome.step
        if step is not None and not step.amends and type(outcome.item) is not Undo:
            setup = match.state.setup
            if step.verdict is not None and type(outcome.item) in BETWEEN_SHOTS:
                # the input ended a shot first (which may have won a rack), then acted (reading 8)
                check_step(setup, outcome.before.table, step.verdict.after)
                check_step(setup, step.verdict.after, outcome.after.table)
            else:
                check_step(setup, outcome.before.table, outcome.after.table)
        if outcome.step is not None and outcome.step.verdict is not None:
            check_verdict(match.state, outcome.step.verdict, type(outcome.item) not in BETWEEN_SHOTS)

    match, _ = fold(log, check)
    closed = match.closed()
    if closed.verdict is not None:
        check_verdict(closed.state, closed.verdict, True)


# --- 10. Each applied input does what the spec says it does ---------------------------------------

def check_input(outcome: Outcome) -> None:
    item, before, after, step = outcome.item, outcome.before, outcome.after, outcome.step
    kind = type(item)
    if before.table.match_winner is not None:
        assert kind is Undo or (kind is Foul and step.amends), "only undo or a late foul once the match is won"
    if kind is Undo:
        return
    if kind is Settle and before.shot is None:
        assert after is before, "a settle with no shot in progress is ignored"
    if before.shot is not None:
        events = before.shot.events
        if kind is FirstContact:
            assert not any(type(e) is FirstContact for e in events), "a second first_contact in one shot"
        if kind is Miss:
            assert not any(type(e) is Pocket for e in events), "a miss after a ball was pocketed"
    elif before.table.awaiting_choice and after.shot is not None:
        # a shot that begins while the choice is pending counts as accept: the chooser shoots (5.6)
        assert after.shot.before.shooter == before.table.shooter and not after.shot.before.awaiting_choice
    verdict = step.verdict
    if kind is Foul:
        if verdict is None:  # a foul of the shot in progress
            shot = after.shot
            charged, is_break, push_out, between = shot.shooter, shot.is_break, shot.is_push_out, False
        else:
            assert verdict.foul
            charged, is_break, push_out = verdict.shooter, verdict.is_break, verdict.push_out
            between = verdict.between_shots
        assert item.player in (None, charged), "a foul naming a player must name the one it is charged to"
        assert item.reason != "illegal_break" or is_break
        assert item.reason not in ("bad_hit", "no_rail") or not push_out
        assert item.reason in ("moved_ball", "other") or not between
    table = verdict.after if verdict is not None and kind in BETWEEN_SHOTS else before.table
    if kind is Stalemate:
        assert table.shot_no > 0, "no stalemate before the break (5.15)"
        assert (after.table.rack, after.table.breaker, after.table.score) == (table.rack + 1, table.breaker,
                                                                             table.score)
    if kind is ShotClock and item.on is not None:
        assert after._replace(clock=None) == before._replace(clock=None), "turning the clock changes no ruling"
        assert after.clock is not None and after.clock.on is item.on
    if kind is ShotClock and item.expired:
        assert before.shot is None and before.table.shot_no > 0, "the clock runs between shots, after the break"
        assert verdict is not None and verdict.between_shots and verdict.foul and verdict.rules[0] == clock.TIME_RULE
        assert verdict.shooter == before.table.shooter, "a time foul is charged to the player on the clock"
        assert verdict.rack_winner is not None or after.table.shooter == 1 - verdict.shooter
    if kind is Extension:
        assert after._replace(clock=None) == before._replace(clock=None), "an extension changes no ruling"
        shooter = before.table.shooter
        options = before.setup.options
        was = clock.extensions_left(options, before.clock, before.table.rack)[shooter]
        assert clock.extensions_left(options, after.clock, after.table.rack)[shooter] == was - 1
        assert clock.turn_limit(after) == options.shot_clock_s + options.shot_clock_extension_s
    if kind is Concede:
        score = list(table.score)
        if item.scope == "match":
            assert after.table.match_winner == 1 - item.player and after.table.score == table.score  # R9
        else:
            score[1 - item.player] += 1
            assert list(after.table.score) == score  # R9


@LOGS
@given(log=match_logs())
def test_each_applied_input_does_what_the_spec_says(log):
    note(log.jsonl())

    def check(match, outcome):
        if outcome.error is None:
            check_input(outcome)

    fold(log, check)

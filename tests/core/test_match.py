"""A match as a log: append, unlimited undo across shots and racks, resume."""

import pytest

from scoreboard.core import match as match_module
from scoreboard.core.inputs import (
    Cushion,
    FirstContact,
    Foul,
    MatchStart,
    Miss,
    Pass,
    Pocket,
    PushOut,
    Settle,
    Strike,
    Undo,
    UndoShot,
)
from scoreboard.core.match import Match
from scoreboard.core.rules import RuleError

START = MatchStart(players=("Ana", "Ben"), race=(2, 2), breaker=0)
BREAK = [Strike(), FirstContact(1), Cushion(2), Cushion(3), Cushion(4), Cushion(5), Settle()]
NINE_ON_BREAK = [Strike(), FirstContact(1), Pocket(9), Settle()]


def played(*items):
    match = Match(START)
    for item in items:
        match.apply(item)
    return match


def test_undo_takes_back_the_last_input_that_changed_the_state():
    match = played(*BREAK)
    before = match.state
    match.apply(Settle())
    assert match.state is before
    match.apply(Undo())
    assert match.state.shot is not None and len(match.state.shot.events) == 5


def test_undo_goes_back_across_racks():
    match = played(*NINE_ON_BREAK, *BREAK)
    assert match.state.table.rack == 2
    for _ in BREAK:
        match.apply(Undo())
    assert match.state.table.rack == 2 and match.state.table.shot_no == 0
    match.apply(Undo())
    assert match.state.table.rack == 1 and match.state.table.score == (0, 0)


def test_undo_with_nothing_left_is_an_error_and_never_removes_match_start():
    match = played(Strike())
    match.apply(Undo())
    with pytest.raises(RuleError, match="nothing to undo"):
        match.apply(Undo())
    assert match.match_start == START


def test_undo_target_says_what_undo_would_take_back():
    match = played(Strike(), FirstContact(1))
    assert match.undo_target == FirstContact(1)
    assert Match(START).undo_target is None


BREAK_POCKETING_3_AND_5 = [Strike(), FirstContact(1), Cushion(2), Pocket(3), Pocket(5), Settle()]


def test_undo_shot_after_a_break_with_two_balls_down_gives_the_state_before_the_break():
    match = played(*BREAK_POCKETING_3_AND_5)
    assert match.state.table.on_table == (1, 2, 4, 6, 7, 8, 9)
    match.apply(UndoShot())
    assert match.state == Match(START).state
    assert match.shot_lines() == [] and match.applied_count == 0 and match.undo_target is None


def test_undo_shot_takes_back_what_followed_the_shot_and_single_undos_go_on_from_there():
    match = played(*BREAK, PushOut(), Strike(), Cushion(0), Settle(), Pass())
    assert [type(item) for item in match.last_shot().inputs] == [Strike, Cushion, Settle, Pass]
    match.apply(UndoShot())
    assert match.state == played(*BREAK, PushOut()).state and match.undo_target == PushOut()
    match.apply(Undo())
    assert match.state == played(*BREAK).state and match.shot_lines() == played(*BREAK).shot_lines()


def test_undo_shot_of_a_shot_begun_by_a_strike_brings_back_the_shot_that_strike_ended():
    match = played(*BREAK[:-1], Strike(), FirstContact(1), Cushion(1))
    match.apply(UndoShot())
    assert match.state == played(*BREAK[:-1]).state and match.state.shot is not None
    assert len(match.last_shot().inputs) == len(BREAK) - 1       # the break itself is next


def test_undo_shot_of_a_whole_shot_tapped_as_a_miss():
    match = played(*BREAK, Miss())
    assert match.last_shot().inputs == (Miss(),)
    match.apply(UndoShot())
    assert match.state == played(*BREAK).state


def test_undo_shot_takes_back_the_winning_shot_of_a_match():
    start = MatchStart(players=("Ana", "Ben"), race=(1, 1), breaker=0)
    match = Match(start)
    for item in NINE_ON_BREAK:
        match.apply(item)
    assert match.state.table.match_winner == 0
    match.apply(UndoShot())
    assert match.state == Match(start).state


def test_undo_shot_before_any_shot_is_refused_and_changes_nothing():
    match = played(Strike())
    match.apply(Undo())
    before = match.state
    assert str(match.trial(UndoShot())) == "undo_shot with no shot to take back"
    with pytest.raises(RuleError, match="no shot to take back") as refused:
        match.apply(UndoShot())
    assert str(refused.value.why) == "No shot to take back yet." and match.state is before
    assert match.last_shot() is None


def test_last_shot_gives_the_shots_ruling_with_late_inputs_and_says_when_it_is_still_on():
    match = played(*BREAK, Strike(), FirstContact(1), Pocket(3))
    assert match.last_shot().in_progress and match.last_shot().verdict.pocketed == (3,)
    match.apply(Settle())
    match.apply(Foul("bad_hit"))
    last = match.last_shot()
    assert not last.in_progress and last.verdict.foul and last.verdict == match.last_verdict()


def test_undo_shot_deep_in_a_long_log_refolds_at_most_a_checkpoint_span(monkeypatch):
    match = Match(MatchStart(players=("Ana", "Ben"), race=(99, 99), breaker=0))
    states = [match.state]
    for _ in range(60):
        for item in NINE_ON_BREAK:
            match.apply(item)
        states.append(match.state)
    folds = []
    real = match_module.evolve
    monkeypatch.setattr(match_module, "evolve", lambda s, x: folds.append(x) or real(s, x))
    for expected in reversed(states[:-1]):
        folds.clear()
        match.apply(UndoShot())
        assert match.state == expected
        assert len(folds) < match_module.CHECKPOINT_EVERY


def test_undo_deep_in_a_long_log_refolds_at_most_a_checkpoint_span(monkeypatch):
    log = NINE_ON_BREAK * 60
    match = Match(MatchStart(players=("Ana", "Ben"), race=(99, 99), breaker=0))
    states = [match.state]
    for item in log:
        match.apply(item)
        states.append(match.state)
    folds = []
    real = match_module.evolve
    monkeypatch.setattr(match_module, "evolve", lambda s, x: folds.append(x) or real(s, x))
    for expected in reversed(states[:-1]):
        folds.clear()
        match.apply(Undo())
        assert match.state == expected
        assert len(folds) < match_module.CHECKPOINT_EVERY


def test_append_does_not_refold(monkeypatch):
    match = played(*BREAK)
    calls = []
    real = match_module.evolve
    monkeypatch.setattr(match_module, "evolve", lambda s, x: calls.append(x) or real(s, x))
    match.apply(Strike())
    assert calls == [Strike()]


def test_resume_from_a_log_gives_the_same_match():
    log = [START, *BREAK, Strike(), FirstContact(1), Undo(), FirstContact(1), Cushion(0), Settle()]
    resumed = Match.resume(log)
    assert resumed.state == played(*log[1:]).state
    assert resumed.shot_lines() == played(*log[1:]).shot_lines()


def test_resume_needs_match_start_first():
    with pytest.raises(RuleError, match="begins with match_start"):
        Match.resume([Strike()])


def test_shot_lines_keep_the_position_of_the_input_that_ended_the_shot():
    match = Match(START)
    for position, item in enumerate(BREAK, 2):
        match.apply(item, position)
    assert [line.position for line in match.shot_lines()] == [8]


def test_a_second_match_start_is_an_error():
    with pytest.raises(RuleError, match="second match_start"):
        played().apply(START)


def test_closed_ends_the_shot_in_progress_without_changing_the_match():
    match = played(*BREAK[:-1])
    closed = match.closed()
    assert closed.verdict is not None and closed.state.shot is None and match.state.shot is not None


def test_last_verdict_is_the_last_shot_lines_verdict_amendments_included():
    match = played(*BREAK, Strike(), FirstContact(1), Cushion(0), Settle())
    assert match.last_verdict() == match.shot_lines()[-1].verdict and match.applied_count == 11
    match.apply(Foul("scratch"))
    assert match.last_verdict().foul is True and match.last_verdict() == match.shot_lines()[-1].verdict
    assert Match(START).last_verdict() is None


def test_steps_fold_the_history_again_to_the_state_served_undone_inputs_left_out():
    match = Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0))
    for item in (Strike(), FirstContact(1), Cushion(2), Undo(), Cushion(3), Settle()):
        match.apply(item)
    steps = list(match.steps())
    assert [applied.item for applied, _, _ in steps] == [applied.item for applied in match.history()]
    assert [type(applied.item).__name__ for applied, _, _ in steps] == ["Strike", "FirstContact", "Cushion", "Settle"]
    assert steps[0][1].shot is None and steps[-1][2] == match.state
    assert all(after is nxt for (_, _, after), (_, nxt, _) in zip(steps, steps[1:], strict=False))

"""The facts of a shot: unidentified balls taken in the shooter's favour, identify, balls already down."""

import pytest

from scoreboard.core.inputs import Cushion, FirstContact, Identify, MatchStart, OffTable, Pocket
from scoreboard.core.rules import RuleError, start
from scoreboard.core.rules.facts import NOT_SENSED, check, read
from scoreboard.core.rules.state import Shot
from tests.folding import errors, i, last_shot, legal_break, run, shot

TABLE = start(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0)).table


def facts(*events, on_table=None):
    table = TABLE if on_table is None else TABLE._replace(on_table=on_table)
    return read(Shot(table, events))


def test_an_unidentified_ball_is_taken_as_the_lowest():
    result = facts(Pocket(None), Pocket(None))
    assert result.pocketed == (1, 2) and result.assumed == (1, 2) and result.unidentified == 2


def test_an_unidentified_ball_is_never_the_9_while_another_is_left():
    result = facts(Pocket(None), on_table=(8, 9))
    assert result.pocketed == (8,)
    assert facts(Pocket(8), Pocket(None), on_table=(8, 9)).pocketed == (8, 9)


def test_named_balls_are_not_taken_for_unidentified_ones():
    assert facts(Pocket(None), Pocket(1)).pocketed == (2, 1)


def test_identify_names_the_earliest_unidentified_ball():
    result = facts(Pocket(None), Pocket(None), Identify(5))
    assert result.pocketed == (5, 1) and result.assumed == (1,)


def test_first_contact_not_sensed_and_rails_after_contact():
    assert facts().first_contact is NOT_SENSED
    assert facts(Cushion(0), FirstContact(1)).rail_after_contact is False
    assert facts(FirstContact(1), Cushion(0)).rail_after_contact is True


def test_balls_to_a_rail_count_distinct_named_object_balls_and_unnamed_cushions():
    assert facts(Cushion(2), Cushion(2), Cushion(0), Cushion(None), Cushion(None)).balls_to_rail == 3


@pytest.mark.parametrize(
    "events, event, message",
    [
        ((Pocket(3),), Pocket(3), "ball 3 is already down"),
        ((Pocket(0),), Pocket(0), "the cue ball is already down"),
        ((FirstContact(1),), FirstContact(2), "a second first_contact in one shot"),
        ((OffTable(4),), Pocket(4), "ball 4 is already off the table"),
        ((), Identify(3), "identify with no unidentified ball"),
        ((Pocket(None), Pocket(3)), Identify(3), "ball 3 is already down"),
    ],
)
def test_check_refuses_an_event_that_cannot_be(events, event, message):
    with pytest.raises(RuleError, match=message):
        check(Shot(TABLE, events), event)


def test_a_pocket_with_no_ball_left_to_drop_is_refused():
    table = TABLE._replace(on_table=(9,))
    with pytest.raises(RuleError, match="no object ball left"):
        check(Shot(table, (Pocket(None),)), Pocket(None))


def test_a_ball_down_in_an_earlier_shot_is_already_down():
    out = run(legal_break(pockets=(3,)), shot(1, rails=(3,)))
    assert errors(out)[0]["error"] == "ball 3 is already down"


def test_identify_on_the_last_shot_decides_it_again():
    out = run(legal_break(), shot(1, pockets=(None,)), i("identify", ball=4))
    line = last_shot(out)
    assert line["pocketed"] == [4] and line["assumed"] == [] and line["on_table"] == [1, 2, 3, 5, 6, 7, 8, 9]


def test_identify_with_nothing_unidentified_is_an_error():
    out = run(legal_break(), shot(1, pockets=(2,)), i("identify", ball=4))
    assert "no unidentified ball" in errors(out)[0]["error"]


def test_identify_of_a_ball_already_down_is_an_error():
    out = run(legal_break(pockets=(5,)), shot(1, pockets=(None,)), i("identify", ball=5))
    assert errors(out)[0]["error"] == "ball 5 is already down"


def test_a_called_foul_in_the_shot_does_not_upset_the_checks():
    out = run(legal_break(), shot(1, end=None), i("foul", reason="moved_ball"), i("cushion", ball=2),
              i("pocket", ball=2), i("off_table", ball=3), i("settle"))
    assert errors(out) == []
    assert last_shot(out)["pocketed"] == [2] and last_shot(out)["off_table"] == [3]


def test_the_cue_ball_off_the_table_then_pocketed_is_refused():
    out = run(legal_break(), shot(1, end=None), i("off_table", ball=0), i("pocket", ball=0))
    assert errors(out)[0]["error"] == "the cue ball is already down"

"""What may be tapped now (scoreboard/core/actions.py), tried on a real match: the taps this module adds its own
words to, ``settle`` ("Shot over") and ``undo_shot``."""

from scoreboard.core.actions import NO_SHOT_ON, actions, refused
from scoreboard.core.inputs import Cushion, FirstContact, MatchStart, RuleOptions, Settle, ShotClock, Strike, Undo
from scoreboard.core.match import Match

START = MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0)


def played(*items):
    match = Match(START)
    for item in items:
        match.apply(item)
    return match


def test_shot_over_may_be_tapped_only_while_a_shot_is_in_progress():
    assert actions(played())["settle"] == {"ok": False, "why": str(NO_SHOT_ON)}
    assert actions(played(Strike(), FirstContact(1)))["settle"] == {"ok": True}
    settled = played(Strike(), FirstContact(1), Cushion(2), Settle())
    assert actions(settled)["settle"]["ok"] is False
    settled.apply(Undo())
    assert actions(settled)["settle"] == {"ok": True}  # the shot an undo brought back may be closed by a tap


def test_undo_shot_is_served_once_a_shot_began():
    assert actions(played())["undo_shot"] == {"ok": False, "why": "No shot to take back yet."}
    assert actions(played(Strike()))["undo_shot"] == {"ok": True}


def test_with_no_match_every_tap_is_refused_for_the_same_reason():
    served = refused("No match.")
    assert served["settle"] == served["undo_shot"] == {"ok": False, "why": "No match."}


def test_safety_timeout_and_rerack_are_served_with_why_not():
    served = actions(played())
    assert served["safety"] == {"ok": False, "why": "Safeties are counted only in APA matches."}
    assert served["timeout"] == {"ok": False, "why": "Timeouts are counted only in APA matches."}
    assert served["rerack"] == {"ok": False, "why": "A re-rack may be asked for only after a failed break."}
    assert {"safety", "timeout", "rerack"} <= set(refused("No match."))


def test_the_shot_clock_taps_are_served_from_the_rules():
    clocked = Match(MatchStart(players=("Ana", "Ben"), race=(3, 3), breaker=0, options=RuleOptions(shot_clock=True)))
    served = actions(clocked)
    assert served["shot_clock"] == {"on": {"ok": False, "why": "The shot clock is already on."}, "off": {"ok": True}}
    assert served["extension"] == {"ok": False, "why": "The shot clock does not run for the break."}
    for item in (Strike(), FirstContact(1), Cushion(2), Cushion(3), Cushion(4), Cushion(5), Settle(),
                 Strike(), FirstContact(1), Cushion(1), Settle()):
        clocked.apply(item)
    served = actions(clocked)
    assert served["extension"] == {"ok": True} and served["time_foul"] == {"ok": True}
    clocked.apply(ShotClock(on=False))
    assert actions(clocked)["time_foul"] == {"ok": False, "why": "The shot clock is off."}
    assert refused("No match.")["shot_clock"]["on"] == {"ok": False, "why": "No match."}

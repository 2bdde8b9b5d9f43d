"""The view model (scoreboard/ui/viewmodel.py) on states from the real Referee, driven by real inputs, each checked
against the contract's schema first (``shown``); a state that does not fit, or a later release's, only where a test
says so."""

from __future__ import annotations

import pytest

from scoreboard.contract.read import read_state
from scoreboard.core.inputs import to_json
from scoreboard.referee.referee import Referee
from scoreboard.sensing.interface import Health
from scoreboard.sim.table import SimulatedTable
from scoreboard.ui.viewmodel import BALL_COLOURS, View, match_start, view
from tests.fake_clock import FakeClock, FakeWall
from tests.served import valid

ANA_BEN = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "race": [2, 3], "breaker": 0}
BREAK_POCKETING_3 = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 2},
                     {"type": "pocket", "ball": 3}, {"type": "settle"}]
BREAK_EMPTY = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 2},
               {"type": "cushion", "ball": 3}, {"type": "cushion", "ball": 4}, {"type": "cushion", "ball": 5},
               {"type": "settle"}]
BAD_HIT = [{"type": "strike"}, {"type": "first_contact", "ball": 5}, {"type": "cushion", "ball": 5},
           {"type": "settle"}]


def shown(state: dict, **options) -> View:
    """The view of a state the daemon served, once it fits the contract (docs/schema/state.schema.json)."""
    return view(valid("state", state), **options)


def accepted(referee: Referee, *inputs: dict) -> None:
    """Each input accepted; the state not built (a test about to read it reads it once)."""
    for item in inputs:
        reply = referee.handle(item)
        assert reply.ok, (item, reply.error)


def play(referee: Referee, *inputs: dict) -> dict:
    accepted(referee, *inputs)
    return referee.state()


def started(referee: Referee, **changes) -> dict:
    return play(referee, {"cmd": "new_match", "match_start": dict(ANA_BEN, **changes)})


def test_nothing_heard_from_the_daemon_disables_every_button():
    connecting, lost = view(None), view(None, connected=False)
    assert not connecting.connected and connecting.status_text == "Connecting to the referee…"
    assert not lost.connected and "Waiting for the referee" in lost.status_text and lost.offline_level == "bad"
    assert not any(button.enabled for v in (connecting, lost) for button in v.buttons.values())


def test_no_match_calls_for_the_setup_screen(referee):
    v = shown(referee.state())
    assert v.connected and not v.has_match and v.screen == "setup"
    assert not v.buttons["undo"].enabled and not v.buttons["push_out"].enabled


def test_a_new_match_shows_both_players_the_breaker_and_a_full_rack(referee):
    v = shown(started(referee))
    assert v.screen == "live" and v.rack_text == "Rack 1"
    assert [(p.name, p.score_text, p.shooting) for p in v.players] == [("Ana", "0 of 2", True),
                                                                      ("Ben", "0 of 3", False)]
    assert [b.number for b in v.balls] == list(range(1, 10))
    assert [b.number for b in v.balls if b.on] == [1]
    assert v.balls[2].colour == BALL_COLOURS[3] == "#e0201b" and v.balls[8].striped
    assert v.ball_in_hand and v.status_text == "Ana to break: ball in hand behind the head string (5.2)"
    assert [p.marks for p in v.players] == ["BREAKS", ""] and [p.fouls for p in v.players] == [0, 0]
    assert v.ruling_text == "" and v.warning_text == "" and v.push_out_text == ""
    assert not v.buttons["undo"].enabled and v.undo_text == "Nothing to undo"
    assert not v.buttons["stalemate"].enabled  # the rack is not broken yet (5.15)


def test_a_legal_break_shows_the_ruling_and_push_out_allowed(referee):
    started(referee)
    v = shown(play(referee, *BREAK_POCKETING_3))
    assert v.ruling_text.startswith("Legal break (5.4) by Ana: the 3 down, Ana shoots again.")
    assert [b.number for b in v.balls] == [1, 2, 4, 5, 6, 7, 8, 9] and v.balls[0].on
    assert v.push_out_text == "PUSH OUT ALLOWED" and v.buttons["push_out"].enabled
    assert v.buttons["push_out"].request == {"type": "push_out"}
    assert v.undo_text == "Undo takes back: the end of the shot (the table came to rest)"
    assert not v.ball_in_hand and v.status_text == "Ana to shoot"


def test_a_push_out_asks_the_opponent_to_shoot_or_pass_back(referee):
    started(referee)
    play(referee, *BREAK_POCKETING_3)
    announced = shown(play(referee, {"type": "push_out"}))
    assert not announced.buttons["push_out"].enabled and announced.push_out_text == "PUSH OUT ANNOUNCED (5.6)"
    assert announced.undo_text == "Undo takes back: the push out announced"
    v = shown(play(referee, {"type": "strike"}, {"type": "cushion", "ball": 0}, {"type": "settle"}))
    assert v.screen == "choice" and v.chooser == "Ben"
    assert v.status_text == "Ben: shoot, or pass it back?"
    assert v.buttons["accept"].enabled and v.buttons["pass"].enabled
    assert not v.buttons["push_out"].enabled  # (a miss now would count as accepting, 5.6: the daemon allows it)
    assert "Push out (5.6) by Ana" in v.ruling_text
    after = shown(play(referee, v.buttons["pass"].request))
    assert after.screen == "live" and [p.shooting for p in after.players] == [True, False]
    assert not after.buttons["accept"].enabled and after.undo_text == "Undo takes back: passing the shot back"


def test_a_foul_gives_ball_in_hand_and_two_fouls_raise_the_banner(referee):
    started(referee)
    play(referee, *BREAK_EMPTY)  # Ben to shoot
    first = shown(play(referee, *BAD_HIT))
    assert first.ruling_text.startswith("Foul 5.8: the 5 was hit before the 1.")
    assert first.ball_in_hand and first.status_text == "Ana to shoot: BALL IN HAND"
    assert first.players[1].fouls == 1 and first.warning_text == ""
    play(referee, *BAD_HIT)  # Ana fouls
    v = shown(play(referee, *BAD_HIT))  # Ben's second foul in a row: Ana shoots, Ben warned when back
    assert v.warning_text == ""
    v = shown(play(referee, *BAD_HIT))  # Ana's second: Ben shoots, on two fouls himself
    assert v.warning_text == "TWO FOULS: A THIRD LOSES THE RACK (5.13)"
    assert "is on two fouls" in v.ruling_text


def test_every_foul_menu_entry_sends_a_foul_the_daemon_accepts_after_a_shot(referee):
    started(referee)
    play(referee, *BREAK_EMPTY, {"type": "strike"}, {"type": "first_contact", "ball": 1},
         {"type": "cushion", "ball": 1}, {"type": "settle"})
    v = shown(referee.state())
    for reason, button in v.fouls:
        if reason == "illegal_break":
            assert not button.enabled  # only the break's; the daemon says so (below)
            continue
        assert button.enabled
        reply = referee.handle(button.request)
        assert reply.ok, (reason, reply.error)
        assert shown(referee.state()).ball_in_hand
        play(referee, {"type": "undo"})
    refused = referee.handle(dict(v.fouls)["illegal_break"].request)
    assert not refused.ok and "break" in refused.error


def test_a_ball_off_the_table_is_offered_for_each_ball_left_and_the_cue_ball(referee):
    started(referee)
    v = shown(play(referee, *BREAK_POCKETING_3))
    assert [b.number for b, _ in v.off_table] == [0, 1, 2, 4, 5, 6, 7, 8, 9]
    assert dict((b.number, button.request) for b, button in v.off_table)[5] == {"type": "off_table", "ball": 5}
    after = shown(play(referee, {"type": "off_table", "ball": 5}))
    assert "5.4" in after.ruling_text and 5 not in [b.number for b in after.balls]


def test_an_unnamed_pocketed_ball_offers_the_picker_and_identify_decides_again(referee):
    started(referee)
    play(referee, *BREAK_EMPTY, {"type": "strike"}, {"type": "first_contact", "ball": 1})
    v = shown(play(referee, {"type": "pocket"}, {"type": "settle"}))
    assert v.buttons["pick"].enabled and v.picker is not None
    assert v.picker.assumed == (1,)
    assert v.picker.text == "A ball dropped unseen and was taken as the 1. Which ball was it?"
    assert [b.number for b in v.picker.candidates] == list(range(1, 10))
    assert v.undo_text == "Undo takes back: the end of the shot (the table came to rest)"
    named = shown(play(referee, {"type": "identify", "ball": 4}))
    assert named.picker is None and not named.buttons["pick"].enabled
    assert [b.number for b in named.balls] == [1, 2, 3, 5, 6, 7, 8, 9]
    assert named.undo_text == "Undo takes back: naming the unseen ball as the 4"


def test_a_rack_won_and_the_match_won_give_summaries(referee):
    started(referee, race=[1, 1])
    v = shown(play(referee, {"type": "strike"}, {"type": "first_contact", "ball": 1},
                  {"type": "pocket", "ball": 9}, {"type": "settle"}))
    assert v.screen == "summary" and v.summary.match_over
    assert v.summary.title == "Ana wins the match" and (v.summary.names, v.summary.score) == (("Ana", "Ben"), "1  –  0")
    assert v.status_text == "Ana wins the match" and not v.buttons["miss"].enabled
    assert v.buttons["undo"].enabled and v.buttons["fouls"].enabled  # a late foul reopens the rack
    assert v.summary.rematch  # the loser breaks it


def test_a_called_match_won_offers_no_rematch(referee):
    """The director calls each player's next match: the daemon serves no rematch breaker, and the summary offers
    none (its button reads Done)."""
    call = {"id": "5e1f0a9c3b2d/1/W2-1/7", "match": "W2-1", "round": "W2", "side": "winners",
            "match_start": dict(ANA_BEN, race=[1, 1])}
    accepted(referee, {"cmd": "call", "call": call}, {"cmd": "call_start", "call": call["id"]})
    v = shown(play(referee, {"type": "strike"}, {"type": "first_contact", "ball": 1},
                  {"type": "pocket", "ball": 9}, {"type": "settle"}))
    assert v.screen == "summary" and v.summary.match_over and not v.summary.rematch


def test_a_rack_won_is_summed_up_while_the_next_is_broken(referee):
    started(referee)
    v = shown(play(referee, {"type": "strike"}, {"type": "first_contact", "ball": 1},
                  {"type": "pocket", "ball": 9}, {"type": "settle"}))
    assert v.screen == "live" and v.summary is not None and not v.summary.match_over
    assert v.summary.title == "Ana wins rack 1"
    assert (v.summary.score, v.summary.detail) == ("1  –  0", "Ana breaks rack 2")
    assert v.rack_text == "Rack 2" and len(v.balls) == 9
    nxt = shown(play(referee, *BREAK_EMPTY))
    assert nxt.summary is None


def test_undo_says_what_it_takes_back_for_each_kind_of_input(referee):
    started(referee)
    cases = [({"type": "strike"}, "the strike that began the shot"),
             ({"type": "first_contact", "ball": 1}, "the cue ball hitting the 1 first"),
             ({"type": "cushion", "ball": 2}, "the 2 reaching a cushion"),
             ({"type": "pocket", "ball": 3}, "the 3 pocketed"),
             ({"type": "pocket", "ball": 0}, "the cue ball pocketed"),
             ({"type": "settle"}, "the end of the shot (the table came to rest)"),
             ({"type": "foul", "reason": "moved_ball"}, "the foul called: moved a ball"),
             ({"type": "concede", "player": 1}, "Ben conceding the rack")]
    for item, words in cases:
        assert shown(play(referee, item)).undo_text == "Undo takes back: " + words, item


BEN_BAD_HIT_POCKETING_3 = [{"type": "strike"}, {"type": "first_contact", "ball": 5}, {"type": "pocket", "ball": 3},
                           {"type": "settle"}]


def test_a_disputed_ruling_is_offered_corrections_first_then_the_shot_taken_back_in_words(referee):
    started(referee)
    v = shown(play(referee, *BREAK_EMPTY, *BEN_BAD_HIT_POCKETING_3))
    assert v.ruling_text.startswith("Foul 5.8")
    assert v.buttons["call_foul"].enabled and v.buttons["off_table"].enabled  # a late foul, a ball off the table
    name_ball = v.buttons["name_ball"]
    assert not name_ball.enabled and name_ball.why == "No pocketed ball is waiting to be named."
    assert v.buttons["undo_shot"].enabled and v.buttons["undo_shot"].request == {"type": "undo_shot"}
    assert v.undo_shot_text == "Ben's shot, the 3 pocketed, foul 5.8 (4 sensor readings and taps)"
    assert shown(referee.state(), language="hr").undo_shot_text.endswith("(4 očitanja senzora i dodira)")
    back = shown(play(referee, v.buttons["undo_shot"].request))
    assert back.ruling_text.splitlines() == ["Taken back: Ben's shot, the 3 pocketed, foul 5.8.",
                                             "Legal break (5.4) by Ana. Ben to shoot. Ben may push out (5.5)."]
    assert back.status_text == "Ben to shoot" and [b.number for b in back.balls] == list(range(1, 10))
    assert back.undo_shot_text == "Ana's break (7 sensor readings and taps)" and not back.reopened_text
    assert shown(play(referee, *BEN_BAD_HIT_POCKETING_3[:1])).ruling_text.startswith("Legal break")  # said once


def test_a_shot_reopened_by_undo_says_so_and_offers_shot_over(referee):
    started(referee)
    v = shown(play(referee, *BREAK_EMPTY))
    assert not v.reopened_text and not v.buttons["settle"].enabled
    assert v.buttons["settle"].why == "No shot is in progress: there is nothing to end."
    reopened = shown(play(referee, {"type": "undo"}))
    assert reopened.reopened_text == "SHOT OPEN AGAIN: call a foul or name a ball, then tap Shot over"
    assert reopened.ruling_text == "Taken back: the end of the shot (the table came to rest)."
    assert reopened.buttons["settle"].enabled and reopened.buttons["settle"].request == {"type": "settle"}
    assert reopened.buttons["settle"].text == "Shot over"
    over = shown(play(referee, {"type": "foul", "reason": "bad_hit"}))
    assert not over.reopened_text and over.buttons["settle"].enabled  # put right: the timer runs again
    ended = shown(play(referee, over.buttons["settle"].request))
    assert ended.ruling_text.startswith("Foul 5.4") and not ended.buttons["settle"].enabled


def test_rack_mode_and_a_sensor_down_are_shown(referee):
    started(referee)
    v = shown(play(referee, {"cmd": "rack_mode", "on": True}))
    assert v.rack_mode and v.banner_text == "RACKING: pocket sensors ignored until the next strike"
    assert v.buttons["rack_mode"].request == {"cmd": "rack_mode", "on": False}
    assert not v.health_ok and (v.health_level, v.health_text) == ("warn", "No sensors: taps only")
    referee.sensors = {"gpio": True, "serial": False}
    assert shown(referee.state()).health_text == "Sensors OK"
    referee.health_report(Health("gpio", "pocket:foot_left", "fault", "line active for 5.0 s"))
    v = shown(referee.state())
    assert (v.health_level, v.health_text) == ("bad", "1 sensor line stuck")
    referee.health_report(Health("gpio", "pocket:foot_left", "ok"))
    assert shown(referee.state()).health_ok
    assert shown(referee.state(), connected=False).health_text == "No connection to the referee"


def test_racking_shows_over_the_two_foul_warning_while_it_lasts(referee):
    started(referee)
    play(referee, *BREAK_EMPTY, *BAD_HIT, *BAD_HIT, *BAD_HIT, *BAD_HIT)
    assert shown(referee.state()).banner_text == "TWO FOULS: A THIRD LOSES THE RACK (5.13)"
    v = shown(play(referee, {"cmd": "rack_mode", "on": True}))
    assert v.banner_text.startswith("RACKING") and v.warning_text  # the warning comes back when racking ends


def test_foul_dots_who_broke_and_the_hill(referee):
    started(referee, race=[2, 2])
    v = shown(play(referee, *BREAK_EMPTY, *BAD_HIT))
    assert [(p.fouls, p.marks) for p in v.players] == [(0, "BROKE"), (1, "")]
    nine = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 9},
            {"type": "settle"}]
    v = shown(play(referee, *nine))  # Ana, ball in hand, wins rack 1 and breaks rack 2: on the hill
    assert [p.marks for p in v.players] == ["BREAKS  ·  HILL", ""] and v.hill_text == ""
    v = shown(play(referee, {"type": "concede", "player": 0, "scope": "rack"}))
    assert [p.marks for p in v.players] == ["HILL", "BREAKS  ·  HILL"] and v.hill_text == "HILL-HILL"


def test_once_the_push_out_is_answered_the_ruling_says_what_was_chosen(referee):
    started(referee)
    play(referee, *BREAK_POCKETING_3, {"type": "push_out"}, {"type": "strike"}, {"type": "cushion", "ball": 0},
         {"type": "settle"})
    assert "Ben chooses: shoot from here, or pass it back (5.6)." in shown(referee.state()).ruling_text
    shot = shown(play(referee, {"type": "accept"}))
    assert "Ben chose to shoot from here." in shot.ruling_text and "chooses" not in shot.ruling_text


def test_either_player_may_concede_named(referee):
    started(referee)
    v = shown(play(referee, *BREAK_EMPTY))
    assert (v.buttons["concede0"].text, v.buttons["concede1"].text) == ("Ana concedes…", "Ben concedes…")
    assert v.buttons["concede0_match"].request == {"type": "concede", "player": 0, "scope": "match"}
    assert v.buttons["concede0"].enabled and v.buttons["concede1_rack"].enabled


def test_the_setup_request_starts_the_match_it_shows(referee):
    request = match_start(("Mia ", "Noa"), (4, 2), 1, {"break": "alternate", "three_foul_rule": False})
    v = shown(play(referee, request))
    assert [(p.name, p.score_text, p.shooting) for p in v.players] == [("Mia", "0 of 4", False),
                                                                      ("Noa", "0 of 2", True)]
    assert referee.state()["rules"]["break"] == "alternate"


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_along_simulated_matches_every_enabled_button_is_accepted(referee, seed):
    """A button the screen enables must never be refused: try each at every state, then take it back."""
    table = SimulatedTable(seed=seed, race=(2, 2))
    log = iter(table.play_match())
    start = to_json(next(log))
    play(referee, {"cmd": "new_match", "match_start": start})
    down_in_shot: set | None = set()  # what the shot on (or last) pocketed; None: not known (after an undo)
    settled = False
    for item in log:
        accepted(referee, to_json(item))
        kind = type(item).TYPE
        if kind in ("strike", "first_contact", "cushion", "pocket") and settled:
            down_in_shot, settled = set(), False  # a new shot: the last one can no longer be amended
        if kind == "pocket" and down_in_shot is not None:
            down_in_shot.add(item.ball)
        elif kind in ("settle", "miss"):
            settled = True  # over, but open to a late foul or tap: its balls stay down for it
        elif kind in ("push_out", "accept", "pass", "stalemate", "concede"):
            down_in_shot = set()
        elif kind == "undo":
            down_in_shot = None
        state = referee.state()
        v = shown(state)
        assert v.screen == ("choice" if state["awaiting_choice"] and state["match_winner"] is None
                            else "summary" if state["match_winner"] is not None else "live")
        assert bool(v.warning_text) == (state["warning"] and state["match_winner"] is None)
        taps = [*v.buttons.items(), *v.fouls, *((f"off_table {b.number}", button) for b, button in v.off_table)]
        for name, button in taps:
            if not button.enabled or button.request is None or name in ("undo", "undo_shot"):
                continue  # taken back by an undo, they cannot be tried and put back
            # The state does not show the shot on: the daemon refuses these and the screen shows why.
            if name == "miss" and down_in_shot != set():
                continue
            if name.startswith("off_table") and (down_in_shot is None or button.request["ball"] in down_in_shot):
                continue
            reply = referee.handle(button.request)
            assert reply.ok, (name, button.request, reply.error, state)
            if reply.changed and "cmd" not in button.request:
                accepted(referee, {"type": "undo"})
            elif "cmd" in button.request:
                accepted(referee, {"cmd": "rack_mode", "on": state["rack_mode"]})
            # What the undo that put it back took back, and a shot it reopened, are the only differences.
            after_undo = {k: v for k, v in referee.state().items() if k not in ("seq", "taken_back", "shot_reopened")}
            assert after_undo == {k: v for k, v in state.items() if k not in ("seq", "taken_back", "shot_reopened")}


def test_the_buttons_follow_the_served_actions_alone(referee):
    """The daemon is the only judge: change what a state serves and the buttons follow, whatever else it says."""
    started(referee)
    state = play(referee, *BREAK_POCKETING_3)
    assert shown(state).buttons["push_out"].enabled
    refused = dict(state, actions=dict(state["actions"], push_out={"ok": False, "why": "Not on this table."}))
    button = shown(refused).buttons["push_out"]
    assert not button.enabled and button.why == "Not on this table."
    allowed = dict(state, actions=dict(state["actions"], stalemate={"ok": True},
                                       foul=dict(state["actions"]["foul"], illegal_break={"ok": False, "why": "x"})))
    drawn = shown(allowed)
    assert drawn.buttons["stalemate"].enabled
    assert dict(drawn.fouls)["illegal_break"].why == "x"


APA_START = {"type": "match_start", "v": 1, "players": ["Ana", "Ben"], "breaker": 0, "rules": {"scoring": "apa"},
             "apa_skill": [3, 5]}


def test_an_apa_match_shows_points_against_targets_and_the_score_sheet(referee):
    referee.handle({"cmd": "new_match", "match_start": APA_START})
    state = play(referee, {"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket", "ball": 3},
                 {"type": "pocket", "ball": 9}, {"type": "settle"})
    v = shown(state)
    assert [(p.name, p.score_text) for p in v.players] == [("Ana", "3 of 25"), ("Ben", "0 of 38")]
    assert v.ruling_text.startswith("APA points: 1 a ball, the 9 two. Dead balls 7, innings 0.\n")
    assert v.buttons["timeout"].text == "Timeout (2 left)" and v.buttons["timeout"].enabled
    assert v.buttons["safety"].why == "The break cannot be marked as a safety." and not v.buttons["safety"].enabled


def test_safety_and_timeout_are_refused_in_words_outside_apa(referee):
    state = started(referee)
    v = shown(state)
    assert v.buttons["safety"].why == "Safeties are counted only in APA matches."
    assert v.buttons["timeout"].why == "Timeouts are counted only in APA matches."
    assert [p.score_text for p in v.players] == ["0 of 2", "0 of 3"]


def test_the_setup_screen_picks_among_the_served_profiles(referee):
    from scoreboard.ui.viewmodel import next_profile, profile_choices, profile_scores_points, setup_request
    state = read_state(valid("state", referee.state()))
    assert profile_choices(state) == ["wpa", "apa9", "bar", ""]
    assert next_profile(state, "bar") == "" and next_profile(state, "") == "wpa"
    assert profile_scores_points(state, "apa9") and not profile_scores_points(state, "wpa")
    switches = {"break": "winner", "three_foul_rule": False, "rails_sensed": True}
    request = setup_request(state, "apa9", ("Ana", "Ben"), (3, 12), 0, switches)
    assert request["match_start"]["apa_skill"] == [3, 9]
    assert request["match_start"]["rules"] == {"profile": "apa9"}  # only what the players set: the daemon fills in
    started = referee.handle(request).state
    assert started["targets"] == [25, 75] and started["rules"]["scoring"] == "apa"
    own = setup_request(state, "", ("Ana", "Ben"), (2, 2), 1, {"break": "alternate"})
    assert own["match_start"]["rules"] == {"profile": None, "break": "alternate"}
    assert "apa_skill" not in own["match_start"]
    alternate = setup_request(state, "wpa", ("Ana", "Ben"), (2, 2), 1, {"break": "alternate",
                                                                         "three_foul_rule": False})
    assert alternate["match_start"]["rules"] == {"profile": "wpa", "break": "alternate"}  # 5.13 is WPA's



def test_a_venue_s_locked_profile_is_the_only_one_offered(tmp_path):
    from scoreboard.config.table import parse
    from scoreboard.ui.viewmodel import next_profile, profile_choices, profile_fixes

    config = parse('[match]\nprofile = "apa9"\nlocked = true\napa_skill = [3, 5]\n')
    referee = Referee.open(tmp_path / "devetka.db", defaults=config.match)
    try:
        state = read_state(valid("state", referee.state()))
        assert profile_choices(state) == ["apa9"] and next_profile(state, "") == "apa9"
        assert "push_outs" in profile_fixes(state, "apa9") and profile_fixes(state, "") == []
    finally:
        referee.close()



MISS = [{"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 1}, {"type": "settle"}]


@pytest.fixture
def clocked(tmp_path):
    """A referee on a fake clock, a match on the shot clock: Ana's dry break, Ben's miss: Ana is on the clock."""
    clock = FakeClock()
    referee = Referee.open(tmp_path / "d.db", clock=clock, wall=FakeWall(clock))
    started(referee, rules={"shot_clock": True})
    play(referee, *BREAK_EMPTY, *MISS)
    yield referee, clock
    referee.close()


def test_the_shot_clock_shows_the_seconds_left_rounded_up_amber_from_the_warning_red_for_the_last_5(clocked):
    referee, _ = clocked
    state = referee.state()
    face = shown(state).shot_clock
    deadline = state["shot_clock"]["deadline"]
    assert face.at(deadline - 35_000) == ("35", "")
    assert face.at(deadline - 20_999) == ("21", "")
    assert face.at(deadline - 10_000) == ("10", "warn")
    assert face.at(deadline - 5_001) == ("6", "warn")
    assert face.at(deadline - 5_000) == ("5", "late")
    assert face.at(deadline - 1) == ("1", "late")
    assert face.at(deadline) == ("TIME", "out") == face.at(deadline + 60_000)


def test_no_shot_clock_is_shown_while_no_turn_is_timed_and_time_when_the_foul_is_proposed(clocked):
    referee, clock = clocked
    assert shown(play(referee, {"type": "strike"})).shot_clock is None  # the shot is being played
    play(referee, {"type": "first_contact", "ball": 2}, {"type": "cushion", "ball": 2}, {"type": "settle"})
    assert shown(referee.state()).shot_clock is not None  # Ben's turn
    clock.now += 35
    proposed = referee.shot_clock_if_due().state  # no strike sensor: proposed, not applied
    assert shown(proposed).shot_clock.at(0) == ("TIME", "out")
    assert shown(proposed).buttons["time_foul"].enabled


def test_the_clock_buttons_are_the_served_actions_with_their_requests(clocked):
    referee, _ = clocked
    buttons = shown(referee.state()).buttons
    assert buttons["extension"].text == "Extension\n+25 s" and buttons["extension"].enabled
    assert buttons["extension"].request == {"type": "extension"}
    assert not buttons["time_foul"].enabled and buttons["time_foul"].why == "The shot clock has not run out."
    assert buttons["time_foul"].request == {"type": "shot_clock", "expired": True}
    assert buttons["shot_clock"].text == "Shot clock off"
    assert buttons["shot_clock"].request == {"type": "shot_clock", "on": False}
    off = shown(play(referee, {"type": "shot_clock", "on": False})).buttons["shot_clock"]
    assert off.text == "Shot clock on" and off.request == {"type": "shot_clock", "on": True} and off.enabled
    assert shown(referee.state()).shot_clock is None
def test_the_view_speaks_the_state_s_language_from_the_served_messages(referee):
    import re

    started(referee)
    state = play(referee, *BREAK_POCKETING_3, {"type": "push_out"}, {"type": "strike"}, {"type": "cushion", "ball": 0},
                 {"type": "settle"})
    answered = play(referee, {"type": "pass"})
    croatian = shown(dict(answered, language="hr"))
    assert croatian.ruling_text == "Ana igra push out (5.6). Ben prepušta udarac: igra Ana."
    assert croatian.status_text == "Na potezu: Ana" and croatian.buttons["undo"].text == "Poništi"
    assert croatian.undo_shot_text == "push out (Ana) (4 očitanja senzora i dodira)"
    assert shown(answered).ruling_text == "Push out (5.6) by Ana. Ben passed it back: Ana shoots."
    english = re.compile(r"\b(the|shot|shoots|ball|foul|undo|back|to shoot|passed)\b", re.IGNORECASE)
    texts = [croatian.ruling_text, croatian.status_text, croatian.undo_text, croatian.undo_shot_text,
             *(button.text for button in croatian.buttons.values()), *(button.text for _, button in croatian.fouls)]
    assert [text for text in texts if english.search(text)] == []
    assert shown(state, language="hr").status_text == "Ben: igra ili prepušta?"


def test_a_conceded_rack_is_summarised_and_ruled_by_its_concession_in_the_players_language(referee):
    """Issue 33, 1: the ruling after a concession was the last shot's, and no summary came."""
    started(referee, race=[2, 2])
    play(referee, *BREAK_EMPTY, *BAD_HIT)
    v = shown(play(referee, {"type": "concede", "player": 0, "scope": "rack"}))
    assert v.summary is not None and v.summary.title == "Ben wins rack 1" and not v.summary.match_over
    assert v.ruling_text == "Ana concedes the rack (R9). Score 0-1; Ben breaks rack 2."
    assert v.why_text.startswith("[b]R9 ")
    assert shown(referee.state(), language="hr").ruling_text.startswith("Ana predaje")


def test_an_extension_once_used_is_marked_on_its_button(clocked):
    """Issue 33, 6: the Extension button looked the same before and after the shooter's one extension."""
    referee, _ = clocked
    used = shown(play(referee, {"type": "extension"})).buttons["extension"]
    assert used.text == "Extension used" and not used.enabled


def test_a_match_played_asks_before_a_new_one_leaves_it_unfinished(referee):
    assert shown(started(referee)).abandon_text == ""  # set up, not begun: replaced without a word
    v = shown(play(referee, *BREAK_POCKETING_3))
    assert v.abandon_text == "Ana 0  –  0 Ben, rack 1, is not over."


def test_fields_the_screen_does_not_know_are_ignored_however_deep(referee):
    """docs/mqtt.md, "The contract": a later release may add fields under the same contract."""
    started(referee)
    state = play(referee, *BREAK_POCKETING_3)
    later = dict(state, venue_name="Bar 9", last_verdict=dict(state["last_verdict"], replay_url="x"),
                 actions=dict(state["actions"], push_out=dict(state["actions"]["push_out"], hint="y"),
                              new_tap={"ok": True}),
                 health=[{"type": "health", "source": "gpio", "subject": "link", "status": "ok", "since": 1}])
    assert view(later) == shown(state)  # a later release's state: not this release's schema


def test_a_state_that_does_not_fit_is_not_drawn_the_banner_names_its_field(referee):
    """The screen keeps what it shows (``connected`` false: no screen change, no tones) and offers no tap."""
    from scoreboard.ui.viewmodel import next_screen

    state = play(referee, {"cmd": "new_match", "match_start": ANA_BEN}, *BREAK_POCKETING_3)
    for bad, field in [(dict(state, score=["1", 0]), "`$.score[0]`"),
                       (dict(state, actions=dict(state["actions"], push_out={"why": "x"})), "`ok`"),
                       ({name: value for name, value in state.items() if name != "players"}, "`players`"),
                       (dict(state, rack=-1), "`$.rack`")]:
        v = view(bad)
        assert v.offline_text.startswith("The referee's state cannot be shown: a served State does not fit "
                                         "contract 1: ") and field in v.offline_text, v.offline_text
        assert v.offline_level == "bad" and v.health_level == "bad" and v.health_label == "STATE\nUNREADABLE"
        assert not v.connected and not v.has_match and v.players == ()
        assert not any(button.enabled for button in v.buttons.values())
        assert next_screen("fouls", v) == "fouls" and next_screen("live", v) == "live"
    croatian = view(dict(state, score=["1", 0]), language="hr").offline_text
    assert croatian.startswith("Stanje suca ne može se prikazati: ") and "`$.score[0]`" in croatian


def test_a_state_of_a_later_contract_is_drawn_but_no_tap_is_offered(referee):
    """docs/mqtt.md, "The contract": a field's meaning may have changed, so nothing built from one is sent."""
    started(referee)
    state = play(referee, *BREAK_POCKETING_3)
    known, later = shown(state), view(dict(state, contract=state["contract"] + 1, venue_name="Bar 9"))
    assert (later.players, later.balls, later.ruling_text) == (known.players, known.balls, known.ruling_text)
    assert later.offline_text == "Newer table software: restart this screen to update it"
    assert later.offline_level == "warn" and known.offline_text == ""
    assert known.buttons["push_out"].enabled and known.buttons["undo"].enabled
    assert not any(button.enabled for button in later.buttons.values())
    assert not any(button.enabled for _, button in (*later.fouls, *later.off_table))
    unfit = view(dict(state, contract=state["contract"] + 1, score="1-0"))  # a field whose meaning changed
    assert unfit.offline_text == "Newer table software: restart this screen to update it" and not unfit.players
    assert "`$.score`" in unfit.health_text and not any(button.enabled for button in unfit.buttons.values())

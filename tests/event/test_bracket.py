"""The formats' brackets (scoreboard/event/core/bracket.py), and their invariants over any field, played out
through the fold with random results (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scoreboard.event.core.bracket import Bye, Loser, Seed, Winner, double, positions, round_robin, single
from scoreboard.event.core.fold import Event
from scoreboard.event.core.records import Created, Draw, Result


def test_seeds_are_placed_so_the_top_two_meet_only_in_the_final():
    order = positions(16)
    assert sorted(order) == list(range(1, 17))
    assert order.index(1) < 8 <= order.index(2)
    assert [order[i] + order[i + 1] for i in range(0, 16, 2)] == [17] * 8


def test_byes_go_to_the_top_seeds():
    first_round = [p for p in single(5) if p.round == "W1"]
    byes = [p.feeds[0] for p in first_round if isinstance(p.feeds[1], Bye)]
    assert byes == [Seed(1), Seed(2), Seed(3)]  # 8 places, 5 players: the top three meet a bye


def test_double_elimination_of_eight_has_fourteen_matches_and_a_reset_when_true_double():
    plans = double(8, true_double=True)
    sides = [p.side for p in plans]
    assert (sides.count("winners"), sides.count("losers"), sides.count("final")) == (7, 6, 2)
    assert plans[-1].reset and plans[-1].feeds == plans[-2].feeds == (Winner("W3-1"), Winner("L4-1"))
    losers_round_2 = [p for p in plans if p.round == "L2"]
    assert [p.feeds[1] for p in losers_round_2] == [Loser("W2-2"), Loser("W2-1")]  # the drop-ins crossed


def test_a_round_robin_group_meets_everyone_once_one_match_a_round_each():
    plans = round_robin(5, groups=1, advance=2)
    group = [p for p in plans if p.side == "group"]
    pairs = {frozenset((p.feeds[0].n, p.feeds[1].n)) for p in group}
    assert len(group) == len(pairs) == 10
    for label in {p.round for p in group}:
        seeds = [s.n for p in group if p.round == label for s in p.feeds]
        assert len(seeds) == len(set(seeds))
    assert [p.id for p in plans if p.side == "playoff"] == ["K1-1"]


def _play(spec, order, pick):
    """Play the event to its end, each match's winner chosen by ``pick``; the views seen after each result."""
    event = Event.fold([Created(spec), Draw(tuple(order), seed=1)])
    seen = []
    while True:
        ready = [m for m in event.matches() if m.status == "ready"]
        seen.append(event.matches())
        if not ready:
            return event, seen
        view = ready[0]
        race = view.race
        winner = pick.draw(st.integers(0, 1))
        loser_racks = pick.draw(st.integers(0, race[1 - winner] - 1))
        score = (race[0], loser_racks) if winner == 0 else (loser_racks, race[1])
        assert event.match(view.id).race == race
        assert event.apply(Result(view.id, score))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 16), form=st.sampled_from(["single", "double-single", "double-true", "round_robin",
                                                   "single-handicap"]),
       pick=st.data())
def test_every_bracket_ends_with_one_champion_every_player_placed_once(n, form, pick):
    players = [f"P{i}" for i in range(n)]
    spec = {"name": "prop", "format": form.split("-")[0], "players": players, "race": 2, "seeding": "drawn"}
    if form.startswith("double"):
        spec["final"] = "true_double" if form == "double-true" else "single"
    if form == "round_robin":
        groups = pick.draw(st.integers(1, min(8, n // 2)))
        spec["round_robin"] = {"groups": groups, "advance": pick.draw(st.integers(1, min(2, n // groups)))}
    if form == "single-handicap":
        levels = {p: pick.draw(st.integers(1, 3)) for p in players}
        spec["handicap"] = {"levels": levels, "races": {f"{a}-{b}": [pick.draw(st.integers(1, 3)),
                                                                     pick.draw(st.integers(1, 3))]
                                                        for a in range(1, 4) for b in range(a, 4)}}
    order = pick.draw(st.permutations(players))
    event, seen = _play(spec, order, pick)

    champion = event.champion()
    assert champion in players
    for views in seen:
        assert all(v.status in ("waiting", "ready", "done") for v in views)
        assert not any(v.status == "done" and v.score is None for v in views)
        played = [v for v in views if v.status == "done"]
        assert all(v.winner is not None for v in played)
    final = seen[-1]
    assert all(v.status == "done" for v in final)
    first = [p for v in final if v.round in ("W1", "A1", "L1") or v.side == "group" for p in v.players]
    if spec["format"] != "round_robin":
        placed = [p for plan in event.plans.values() if plan.round == "W1" for p in
                  (event.who(f) for f in plan.feeds) if isinstance(p, str)]
        assert sorted(placed) == sorted(players)
    else:
        assert set(first) == set(players)
    losses = {p: 0 for p in players}
    for v in final:
        losses[v.players[1 - v.winner]] += 1
    if spec["format"] == "single":
        assert [p for p, lost in losses.items() if lost == 0] == [champion]
        assert sum(losses.values()) == n - 1
    if spec["format"] == "double":
        assert losses[champion] <= 1
        runner_up = next(v for v in final if v.id == "GF-1").players
        assert all(lost == 2 for p, lost in losses.items() if p not in runner_up)
        reset = any(v.id == "GF-2" for v in final)
        assert reset == (spec["final"] == "true_double" and losses[champion] == 1 and
                         next(v for v in final if v.id == "GF-1").winner == 1)

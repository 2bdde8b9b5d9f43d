"""Rule profiles: named sets of rule options a venue or the setup screen picks from (docs/rules.md, "Profiles").

A profile only fills in options: the ``match_start`` records every option's value, and the profile's name
only as a label (``rules.profile``), so a log replays the same anywhere, whatever the profiles of the
release that reads it. The table's own hardware (``rails_sensed``, ``strike_sensed``) is not a rule of the
game and no profile sets it.

>>> options("apa9").scoring, options("apa9").push_outs, options("apa9").profile
('apa', False, 'apa9')
>>> options("wpa") == RuleOptions(profile="wpa")
True
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from scoreboard.core.inputs import PROFILE_NAMES, InputError, RuleOptions
from scoreboard.core.messages import msg

#: Each profile's options under the match log's names; an option a profile leaves out keeps its default.
PROFILES: dict[str, dict[str, Any]] = {
    # The WPA rules as Devetka has always applied them: every option at its default.
    "wpa": {},
    # APA 9-ball: points against a skill level's target, no push outs, no three-foul rule, winner breaks.
    "apa9": {"scoring": "apa", "push_outs": False, "three_foul_rule": False, "break": "winner"},
    # A common bar house set: a scratch gives ball in hand behind the head string, no push outs, no
    # three-foul rule, the 9 on the break is spotted and the breaker shoots on, winner breaks.
    "bar": {"ball_in_hand": "behind_head_string", "push_outs": False, "three_foul_rule": False,
            "nine_on_break": "spotted", "break": "winner"},
}
#: The options a profile sets: the rules of the game, not the table's sensors.
GAME_OPTIONS = ("break", "push_out_after_break_foul", "three_foul_rule", "scoring", "ball_in_hand",
                "nine_on_break", "break_requirement", "break_failure", "push_outs", "shot_clock", "shot_clock_s",
                "shot_clock_warning_s", "shot_clock_extension_s", "shot_clock_extensions", "shot_clock_after_break_s",
                "shot_clock_after_push_out_s")

assert tuple(PROFILES) == PROFILE_NAMES  # the log's check (inputs.py) and this table name the same profiles


def options(name: str, base: RuleOptions | None = None) -> RuleOptions:
    """The rule options of profile ``name``: its game options over ``base``'s (the table's sensors kept)."""
    if name not in PROFILES:
        raise InputError(msg("unknown profile {name} (known: {known})", name=repr(name), known=", ".join(PROFILES)))
    start = base or RuleOptions()
    game = {RuleOptions.JSON_NAMES[option]: getattr(RuleOptions(), RuleOptions.JSON_NAMES[option])
            for option in GAME_OPTIONS}
    chosen = RuleOptions.from_json(PROFILES[name])
    game.update({RuleOptions.JSON_NAMES[option]: getattr(chosen, RuleOptions.JSON_NAMES[option])
                 for option in PROFILES[name]})
    return replace(start, profile=name, **game)


def differences(chosen: RuleOptions, locked: RuleOptions) -> list[str]:
    """The game options (log names) where ``chosen`` differs from a ``locked`` set, in the log's order."""
    return [option for option in GAME_OPTIONS
            if getattr(chosen, RuleOptions.JSON_NAMES[option]) != getattr(locked, RuleOptions.JSON_NAMES[option])]

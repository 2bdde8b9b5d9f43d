"""Rule profiles, and the one merge of a match's options: profile, then venue, then request (docs/rules.md,
"Profiles: what each fixes, what each leaves open").

A profile FIXES the options its source decides and leaves the rest OPEN. A match's options are composed key
by key (``compose``): the profile's fixed options, then the venue's ``[match.rules]`` for what the profile
leaves open, then the request for what the venue leaves open. A request may not change a fixed option: it is
refused naming the option (and the profile that fixes it). The table's sensors (``rails_sensed``,
``strike_sensed``) are neither the profile's nor the players': the table's hardware decides them.

The ``match_start`` records every option's value and the profile's name only as a label, so a stored log
replays the same whatever this table says: ``compose`` is the daemon's check of a new match, not the fold's.

>>> options("apa9").scoring, options("apa9").push_outs, options("apa9").profile
('apa', False, 'apa9')
>>> options("wpa") == RuleOptions(profile="wpa")
True
>>> compose({"profile": "bar"}).nine_on_break
'spotted'
>>> compose({"profile": "apa9", "scoring": "racks"})
Traceback (most recent call last):
...
scoreboard.core.profiles.Fixed: rules.scoring: profile "apa9" sets it to "apa": leave it out, or pick another profile
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from scoreboard.core.inputs import PROFILE_NAMES, InputError, RuleOptions, check_option
from scoreboard.core.messages import Message, msg

#: The table's sensors: decided by its hardware, never by a profile, the venue's rules or a request.
SENSED = ("rails_sensed", "strike_sensed")
#: The shot clock's options: no profile fixes them (TR20: the clock may be demanded in any match; its times are
#: the event's). A venue fixes them by writing them in ``[match.rules]`` with ``locked = true``.
CLOCK_OPTIONS = ("shot_clock", "shot_clock_s", "shot_clock_warning_s", "shot_clock_extension_s",
                 "shot_clock_extensions", "shot_clock_after_break_s", "shot_clock_after_push_out_s")
#: APA's timeouts a rack by skill level: APA's allowance by default, but leagues change it, so no profile fixes
#: it (``apa9`` included); a venue fixes its league's by writing it in ``[match.rules]`` with ``locked = true``.
TIMEOUT_OPTIONS = ("timeouts_skill_1_3", "timeouts_skill_4_9")
#: The options of the game: what a profile may fix, the venue set and a request choose.
GAME_OPTIONS = ("break", "push_out_after_break_foul", "three_foul_rule", "scoring", "ball_in_hand",
                "nine_on_break", "break_requirement", "break_failure", "push_outs", *CLOCK_OPTIONS,
                *TIMEOUT_OPTIONS)

# The WPA rules (docs/rules.md, sections 5 and R1-R11): every game option its rules decide, at its default. The
# break order is the event's (R8: winner breaks by default, alternate breaks an option), the clock TR20's.
_WPA = {"push_out_after_break_foul": False, "three_foul_rule": True, "scoring": "racks", "ball_in_hand": "anywhere",
        "nine_on_break": "wins", "break_requirement": "four_rails", "break_failure": "foul", "push_outs": True}

#: The options each profile FIXES, with their values; every other game option it leaves open.
PROFILES: dict[str, dict[str, Any]] = {
    "wpa": _WPA,
    # APA 9-ball: points against a skill level's target, no push outs, no three-foul rule, winner breaks, any
    # foul ball in hand anywhere; APA's own rules fix every game option but the clock (APA plays none).
    "apa9": {**_WPA, "scoring": "apa", "push_outs": False, "three_foul_rule": False, "break": "winner"},
    # A common bar house set: a scratch gives ball in hand behind the head string, no push outs, no three-foul
    # rule, the 9 on the break spotted, winner breaks. Houses differ on the break's requirement and a failed
    # break (3-point rule, the incoming player's option): left open, as the clock.
    "bar": {"scoring": "racks", "ball_in_hand": "behind_head_string", "push_outs": False,
            "push_out_after_break_foul": False, "three_foul_rule": False, "nine_on_break": "spotted",
            "break": "winner"},
}

assert tuple(PROFILES) == PROFILE_NAMES  # the log's check (inputs.py) and this table name the same profiles


class Fixed(InputError):
    """A request that would change an option its profile, its venue or its table fixes: the message names it."""


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def options(name: str, base: RuleOptions | None = None) -> RuleOptions:
    """The rule options of profile ``name`` alone: its fixed options over the defaults (``base``'s sensors kept)."""
    if name not in PROFILES:
        raise InputError(msg("unknown profile {name} (known: {known})", name=repr(name), known=", ".join(PROFILES)))
    sensed = {option: getattr(base or RuleOptions(), option) for option in SENSED}
    return RuleOptions.from_json({**PROFILES[name], **sensed, "profile": name})


def fixes(profile: str | None, written: Mapping[str, Any] | None = None, locked: bool = False) -> list[str]:
    """The game options a request may not change under ``profile`` at a venue that wrote ``written`` (and
    ``locked`` them), in the log's order; the table's sensors are fixed as well, always."""
    fixed = set(PROFILES.get(profile or "", {}))
    if locked:
        fixed |= set(written or {})
    return [option for option in GAME_OPTIONS if option in fixed]


def compose(asked: Any, *, profile: str | None = None, written: Mapping[str, Any] | None = None, locked: bool = False,
            sensed: Mapping[str, bool] | None = None) -> RuleOptions:
    """A new match's options, key by key: ``profile``'s fixed options (the request's ``profile``, else the
    venue's), then the venue's ``written`` ``[match.rules]`` for what it leaves open, then ``asked`` (the
    request's ``rules``) for what the venue leaves open. ``locked``: the venue's profile and written options
    may not change. ``sensed``: the table's sensors (None: not known here, taken from ``asked``).

    Raises ``Fixed`` naming the option a request may not change, ``InputError`` for a bad option."""
    if asked is None:
        asked = {}
    if not isinstance(asked, dict):
        raise InputError(msg("rules must be an object of rule options"))
    for option, value in asked.items():
        if option not in RuleOptions.JSON_NAMES:
            known = ", ".join(RuleOptions.JSON_NAMES)
            raise InputError(msg("unknown rule option {name} (known: {known})", name=repr(option), known=known))
        if not (option == "profile" and value is None):
            check_option(option, value)
    written = written or {}
    label = asked["profile"] if "profile" in asked else profile
    if locked and label != profile:
        raise Fixed(msg('the venue locked the rules to profile "{profile}": rules.profile must be "{profile}"',
                        profile=str(profile)))
    fixed = PROFILES.get(label or "", {})
    composed: dict[str, Any] = dict(fixed)
    composed.update({option: value for option, value in written.items()
                     if option in GAME_OPTIONS and option not in fixed})
    for option, value in asked.items():
        if option == "profile":
            continue
        if option in SENSED:
            if sensed is not None and value != sensed[option]:
                raise Fixed(_sensor_refusal(option, sensed[option]))
        elif option in fixed and value != fixed[option]:
            raise Fixed(msg('rules.{option}: profile "{profile}" sets it to {value}: leave it out, or pick another '
                            'profile', option=option, profile=str(label), value=_shown(fixed[option])))
        elif locked and option in written and value != written[option]:
            raise Fixed(msg('rules.{option}: the venue locked it to {value}', option=option,
                            value=_shown(written[option])))
        composed[option] = value
    if sensed is not None:
        composed.update(sensed)
    if label is not None:
        composed["profile"] = label
    return RuleOptions.from_json(composed)


def _sensor_refusal(option: str, has: bool) -> Message:
    """Why a request may not set a sensed switch: the table's sensors decide it, and a claim names the sensor."""
    if has:
        return msg("rules.{option}: the table's sensors decide it (true at this table): leave it out", option=option)
    if option == "rails_sensed":
        return msg("rules.rails_sensed: this table has no rail sensors: leave it out")
    return msg("rules.strike_sensed: this table has no strike sensor: leave it out")


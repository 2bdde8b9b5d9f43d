"""The rules' texts for "Why?": the seed's own Croatian for 5.1 to 5.15, ours for R1 to R11 and the league rules."""

import re
from pathlib import Path

import pytest

from scoreboard.i18n import build
from scoreboard.i18n.rules import SEED_TYPOS, corrected, seed, text, texts

RULES = [f"5.{n}" for n in range(1, 16)] + [f"R{n}" for n in range(1, 12)] + ["TR20"]
LEAGUE = ["ball_in_hand", "nine_on_break", "break_requirement", "break_failure", "push_outs", "scoring"]


def test_the_croatian_5_x_are_the_seed_s_words_with_its_typos_corrected():
    rule = text("5.8", "hr")
    assert (rule.number, rule.title) == ("5.8", "POGREŠAN UDARAC")
    assert rule.body == "Faul je ako natjecatelj s bijelom kuglom ne pogodi kuglu sa najnižim brojem."
    broken = text("5.4", "hr").body  # broken across two lines in the seed
    assert "vrijede ista pravila kao i za ostale udarce osim što" in broken and broken.endswith("vraća na stol).")
    assert text("5.15", "hr").body.endswith("zbog faulova.")  # the seed's stray last '|' is no rule's


def test_every_rule_and_league_rule_is_there_in_both_languages():
    for language in ("hr", "en"):
        have = texts(language)
        assert set(RULES + LEAGUE) <= set(have), language
        assert all(rule.title and rule.body for rule in have.values())
    assert all(text(number, "hr").body != text(number, "en").body for number in RULES + LEAGUE)


def test_every_rule_the_words_cite_has_a_text():
    cited = set()
    for message in build.extracted():
        for message_id in [message.id] if isinstance(message.id, str) else message.id or ():
            cited |= set(re.findall(r"\b(5\.\d+|R\d+|TR20)\b", message_id))
    assert cited and cited <= set(texts("hr")) and cited <= set(texts("en"))


def test_the_seed_is_a_verbatim_copy_parsed_line_by_line():
    copy = (Path(build.PACKAGE) / "i18n" / "rules" / "devetka-pravila.txt").read_text(encoding="utf-8")
    assert copy.startswith("5.1 PREDMET IGRE Devetka se igra sa devet igraćih kugli")
    assert list(seed(copy)) == [f"5.{n}" for n in range(1, 16)]


def test_the_seed_s_typos_are_shown_corrected_and_kept_in_its_copy():
    """5.1 to 5.15 quote the seed word for word, but not its typos (docs/i18n.md lists each correction)."""
    copy = (Path(build.PACKAGE) / "i18n" / "rules" / "devetka-pravila.txt").read_text(encoding="utf-8")
    shown = " ".join(f"{rule.title} {rule.body}" for number, rule in texts("hr").items() if number.startswith("5."))
    for typo, right in SEED_TYPOS:
        assert typo in copy and typo not in shown and right in shown, typo
    assert text("5.11", "hr").title == "KUGLA IZBAČENA SA STOLA"
    assert "pogoditi jedinicu, a zatim ili ubaciti" in text("5.4", "hr").body
    assert "najmanje četiri igraće kugle moraju" in text("5.4", "hr").body
    assert "u sljedeće tri uzastopne izmjene" in text("5.14", "hr").body
    assert "najaviti (izreći)" in text("5.6", "hr").body and "bijela preskoči ili" in text("5.12", "hr").body


def test_a_typo_no_longer_in_the_seed_is_an_error_not_silently_skipped():
    copy = (Path(build.PACKAGE) / "i18n" / "rules" / "devetka-pravila.txt").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="the seed's typo 'u slijedeće tri' is there 0 times, not once"):
        corrected(copy.replace("u slijedeće tri", "u sljedeće tri"))

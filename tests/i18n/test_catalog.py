"""The catalogs at run time: Croatian with its three plural forms, English as written, the language asked for."""

import pytest

from scoreboard.core.messages import msg_n, render
from scoreboard.i18n.catalog import catalog, environment_language, language_code


@pytest.mark.parametrize(("count", "said"), [(1, "U ovoj partiji je 1 mrtva kugla."),
                                             (2, "U ovoj partiji su 2 mrtve kugle."),
                                             (5, "U ovoj partiji je 5 mrtvih kugli."),
                                             (21, "U ovoj partiji je 21 mrtva kugla."),
                                             (12, "U ovoj partiji je 12 mrtvih kugli.")])
def test_croatian_counts_take_three_forms(count, said):
    dead = msg_n("Dead balls this rack: {n}.", "Dead balls this rack: {n}.", count)
    assert render(dead, catalog("hr")) == said
    assert render(dead, catalog("en")) == f"Dead balls this rack: {count}."


def test_a_language_we_have_not_is_english():
    assert catalog("de") is catalog("en") and catalog(None) is catalog("en")


@pytest.mark.parametrize(("environ", "language"), [
    ({"LANG": "hr_HR.UTF-8"}, "hr"), ({"LANGUAGE": "hr:en", "LANG": "C.UTF-8"}, "hr"),
    ({"LC_ALL": "en_GB.UTF-8", "LANG": "hr_HR.UTF-8"}, "en"), ({"LANG": "C.UTF-8"}, "en"), ({}, "en"),
    ({"LANGUAGE": "de:hr"}, "hr")])
def test_the_environment_s_language_is_read_as_gettext_reads_it(environ, language):
    assert environment_language(environ) == language


def test_language_tags_and_locale_names_are_understood():
    assert [language_code(tag) for tag in ("hr", "HR", "hr-HR", "hr_HR.UTF-8", "en_US", "sr")] == \
        ["hr", "hr", "hr", "hr", "en", "en"]

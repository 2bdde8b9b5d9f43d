"""The command line in the environment's language (scoreboard/i18n/environment.py): the real ``devetka`` console
script in a subprocess, its help, argparse's own words and our errors in Croatian with ``LANG=hr_HR.UTF-8``, and
in English, as before, with ``LANG=C``."""

from __future__ import annotations

import argparse
import os
import subprocess

from babel.messages.extract import extract_python

from scoreboard.i18n.catalog import catalog
from scoreboard.i18n.environment import ARGPARSE, expected_arguments, said, words
from tests.live import DEVETKA, TIMEOUT

#: argparse's errors in a program's own code, a developer's to read: left in English.
DEVELOPERS = {".__call__() not defined", "conflicting subparser: %s", "conflicting subparser alias: %s",
              'argument "-" with mode %r', "cannot merge actions - two groups are named %r",
              "'required' is an invalid argument for positionals",
              "invalid option string %(option)r: must start with a character %(prefix_chars)r",
              "dest= is required for options like %r", "invalid conflict_resolution value: %r",
              "conflicting option string: %s", "mutually exclusive arguments must be optional",
              "cannot have multiple subparser arguments", "%r is not callable"}


def devetka(*args: str, lang: str) -> subprocess.CompletedProcess:
    """The console script with only ``LANG`` saying the language (LANGUAGE, LC_ALL, LC_MESSAGES unset); the help
    laid out 200 columns wide, so that no line of it wraps."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env.update(LANG=lang, COLUMNS="200")
    return subprocess.run([DEVETKA, *args], capture_output=True, text=True, env=env, timeout=TIMEOUT)


def test_the_help_is_croatian_under_a_croatian_locale_and_english_under_c():
    croatian = devetka("--help", lang="hr_HR.UTF-8")
    assert croatian.returncode == 0, croatian.stderr
    assert croatian.stdout.startswith("uporaba: devetka [-h] [-v | -q]")
    for line in ("Semafor koji sudi devetku.", "pozicijski argumenti:", "opcije:",
                 "  -h, --help            prikaži ovu pomoć i izađi",
                 "  -q, --quiet           samo pogreške",
                 "    replay              pročitaj zapis meča i ispiši što su pravila odlučila",
                 "    export              ispiši spremljeni meč kao zapis meča koji čita devetka replay"):
        assert line in croatian.stdout.splitlines(), line
    english = devetka("--help", lang="C")
    assert english.stdout.startswith("usage: devetka [-h] [-v | -q]")
    for line in ("A scoreboard that referees nine-ball.", "positional arguments:", "options:",
                 "  -h, --help            show this help message and exit",
                 "    replay              fold a match log and print what the rules decided"):
        assert line in english.stdout.splitlines(), line
    assert len(croatian.stdout.splitlines()) >= len(english.stdout.splitlines()) > 10


def test_every_subcommand_s_help_is_croatian():
    for command, line in (("replay", "  --explain             jedan redak po udarcu, s odlukom riječima"),
                          ("run", "Sudi uživo: čuva spremište i poslužuje lokalni API do SIGTERM-a."),
                          ("tap", "  JSON                  ulaz ili naredba, npr. '{\"type\": \"strike\"}'"),
                          ("stats", "  --player NAME         samo ovaj natjecatelj"),
                          ("sensors", "--json jedan JSON redak zapisa meča po ulazu, a stanje kao retci tipa health"),
                          ("ui", "  --size WxH            veličina prozora u pikselima (zadano 800x480)"),
                          ("demo", "  --no-mqtt             bez MQTT-a"),
                          ("venue-demo", "  --tables N            koliko stolova (zadano 4, najviše 50)")):
        shown = devetka(command, "--help", lang="hr_HR.UTF-8")
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.startswith(f"uporaba: devetka {command} [-h]"), shown.stdout
        assert " ".join(line.split()) in [" ".join(shown_line.split()) for shown_line in shown.stdout.splitlines()], \
            (command, shown.stdout)


def test_bad_input_is_refused_in_croatian_and_in_english_as_before(tmp_path):
    missing = devetka("replay", lang="hr_HR.UTF-8")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.splitlines() == [
        "uporaba: devetka replay [-h] [--explain] [--lang {en,hr}] [--score-sheet {json,html}] [--rules-version N] log",
        "devetka replay: greška: potrebni su ovi argumenti: log"]
    assert devetka("replay", lang="C").stderr.splitlines()[-1] == \
        "devetka replay: error: the following arguments are required: log"
    choice = devetka("replay", "--lang", "de", "x.jsonl", lang="hr_HR.UTF-8")
    assert choice.stderr.splitlines()[-1] == \
        "devetka replay: greška: argument --lang: neispravan izbor: 'de' (izaberite jedno od: 'en', 'hr')"
    assert devetka("replay", "--lang", "de", "x.jsonl", lang="C").stderr.splitlines()[-1] == \
        "devetka replay: error: argument --lang: invalid choice: 'de' (choose from 'en', 'hr')"
    size = devetka("ui", "--size", "10x10", lang="hr_HR.UTF-8")
    assert size.returncode == 2
    assert size.stderr.splitlines()[-1] == \
        "devetka ui: greška: argument --size: prozor mora biti barem 320x240, a ne '10x10'"
    unknown = devetka("serve", lang="hr_HR.UTF-8")
    assert "devetka: greška: argument command: neispravan izbor: 'serve'" in unknown.stderr
    store = tmp_path / "none.sqlite3"
    absent = devetka("export", "--store", str(store), lang="hr_HR.UTF-8")
    assert (absent.returncode, absent.stderr) == (2, f"devetka export: nema spremišta na {store}\n")
    assert devetka("export", "--store", str(store), lang="C").stderr == f"devetka export: no store at {store}\n"
    tap = devetka("tap", "--socket", str(tmp_path / "api.sock"), "{strike", lang="hr_HR.UTF-8")
    assert tap.returncode == 2 and tap.stderr.startswith("devetka tap: nije valjan JSON: "), tap.stderr


def test_devetka_run_says_what_is_wrong_with_its_config_in_the_environment_s_language(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text('[shots]\nsettle_after_s = 0\n[table]\nlanguage = "hr"\n')
    options = ("run", "--config", str(config), "--store", str(tmp_path / "d.db"), "--socket", str(tmp_path / "s"))
    croatian = devetka(*options, lang="hr_HR.UTF-8")
    assert (croatian.returncode, croatian.stderr) == (
        2, f"devetka run: {config}: shots.settle_after_s: očekuje se broj sekundi > 0, a ne 0\n")
    english = devetka(*options, lang="C")
    assert english.stderr == f"devetka run: {config}: shots.settle_after_s: expected a number of seconds > 0, got 0\n"
    config.write_text("[table\n")
    broken = devetka(*options, lang="hr_HR.UTF-8")
    assert broken.returncode == 2 and broken.stderr.startswith(f"devetka run: {config}: nije valjan TOML: ")
    assert not (tmp_path / "d.db").exists()  # nothing was started


def test_replay_s_lang_still_chooses_the_words_whatever_the_environment(tmp_path):
    from tests.paths import EXAMPLES

    log = str(EXAMPLES / "01-push-out-pass.jsonl")
    english = devetka("replay", "--explain", "--lang", "en", log, lang="hr_HR.UTF-8")
    assert english.returncode == 0 and english.stdout == devetka("replay", "--explain", log, lang="C").stdout
    croatian = devetka("replay", "--explain", log, lang="hr_HR.UTF-8")
    assert croatian.stdout == devetka("replay", "--explain", "--lang", "hr", log, lang="C").stdout
    assert croatian.stdout != english.stdout


def test_every_word_argparse_says_to_a_user_is_in_our_catalog_in_croatian():
    with open(argparse.__file__, "rb") as source:
        said_by_argparse = {message for _line, _function, message, _comments in
                            extract_python(source, ["_", "ngettext"], [], {}) if message}
    singular = {message for message in said_by_argparse if isinstance(message, str)}
    plural = {message[:2] for message in said_by_argparse if not isinstance(message, str)}
    assert singular - DEVELOPERS == set(ARGPARSE)
    assert plural - {("conflicting option string: %s", "conflicting option strings: %s")} == \
        {("expected %s argument", "expected %s arguments")}
    croatian = catalog("hr")
    assert all(croatian.gettext(text) != text for text in ARGPARSE if text != "argument %(argument_name)s: %(message)s")
    assert [expected_arguments(n) for n in (1, 2, 5)] == ["expected %s argument", "expected %s arguments",
                                                           "expected %s arguments"]  # the suite runs in English
    assert [words({"LANG": "hr_HR.UTF-8"}).ngettext("expected %s argument", "expected %s arguments", n)
            for n in (1, 2, 5, 21)] == ["očekuje se %s argument", "očekuju se %s argumenta",
                                        "očekuje se %s argumenata", "očekuje se %s argument"]


def test_the_language_is_the_environment_s_as_gettext_reads_it():
    from scoreboard.core.messages import msg

    wrong = msg("wrong PIN")
    assert said(wrong, {"LANGUAGE": "hr", "LANG": "C"}) == "pogrešan PIN"
    assert said(wrong, {"LC_ALL": "hr_HR.UTF-8", "LANG": "en_GB.UTF-8"}) == "pogrešan PIN"
    assert said(wrong, {"LC_MESSAGES": "en_US.UTF-8", "LANG": "hr_HR.UTF-8"}) == "wrong PIN"
    assert said(wrong, {"LANGUAGE": "de:hr"}) == "pogrešan PIN"
    assert said(wrong, {}) == "wrong PIN"

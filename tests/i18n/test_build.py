"""The catalogs are made from the code and every message a person reads has its Croatian (issue 22)."""

from babel.messages.catalog import Catalog

from scoreboard.i18n import build
from scoreboard.i18n.glossary import misworded


def test_the_catalogs_match_the_code_and_every_message_is_translated():
    """Fails when a string a person reads is new or changed in the code and the catalogs were not rebuilt, when a
    Croatian translation is missing or fuzzy, or when a compiled catalog is older than its .po."""
    assert build.problems() == []


def test_extraction_finds_the_core_s_messages_the_screens_kv_and_the_board_s_javascript(tmp_path):
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "said.py").write_text(
        'from scoreboard.core.messages import msg, msg_n\n'
        'A = msg("{name} to shoot.", name="Ana")\n'
        'B = msg_n("{n} ball", "{n} balls", 3)\n'
        'C = lang.gettext("Settings")\n')
    (tmp_path / "ui" / "kv").mkdir(parents=True)
    (tmp_path / "ui" / "kv" / "live.kv").write_text(
        "#:import tr scoreboard.ui.language.tr\n<LiveScreen>:\n    Button:\n        text: tr._('More…')\n")
    (tmp_path / "venue" / "board").mkdir(parents=True)
    (tmp_path / "venue" / "board" / "board.js").write_text('const words = _("no match");\n')
    ids = {message.id if isinstance(message.id, str) else tuple(message.id)
           for message in build.extracted(tmp_path) if message.id}
    assert ids == {"{name} to shoot.", ("{n} ball", "{n} balls"), "Settings", "More…", "no match"}


def _catalog(*messages):
    catalog = Catalog(locale="hr")
    for message_id, string, fuzzy in messages:
        catalog.add(message_id, string, flags=("fuzzy",) if fuzzy else ())
    return catalog


def test_a_missing_a_fuzzy_or_a_wrongly_placed_translation_is_named():
    catalog = _catalog(("Undo", "", False), ("Shot over", "Kraj udarca", True),
                       ("{name} to shoot.", "Na potezu: {ime}.", False), ("Back", "Natrag", False),
                       (("{n} ball", "{n} balls"), ("{n} kugla", "{n} kugle"), False))
    said = build.untranslated(catalog)
    assert said == ["not translated: 'Undo'", "fuzzy (check it, then drop the flag): 'Shot over'",
                    "the translation's {names} differ from the source's: '{name} to shoot.'",
                    "not translated: '{n} ball'"]


def test_the_board_reads_the_plural_rule_and_the_forms():
    catalog = _catalog((("{n} ball", "{n} balls"), ("{n} kugla", "{n} kugle", "{n} kugli"), False))
    made = build.board_bytes(catalog, "hr").decode()
    assert '"{n} ball": [\n"{n} kugla",\n"{n} kugle",\n"{n} kugli"\n]' in made
    assert "n % 10 == 1 && n % 100 != 11" in made


def test_the_glossary_is_checked_on_every_message_form_and_every_rule_s_text():
    """A wording issue 35 corrected (docs/i18n.md), come back in a plural form or a rule's text, fails the check."""
    catalog = _catalog(("Other foul", "Drugi faul", False),
                       (("{n} input taken back", "{n} inputs taken back"),
                        ("{n} ulaz poništen", "{n} ulaza poništena", "{n} ulaza vraćeno"), False),
                       ("Take back the shot", "Vrati udarac", True))  # fuzzy: not shown, not checked
    pairs = build.said(catalog, "hr")
    assert ("{n} input taken back / {n} inputs taken back", "{n} ulaza vraćeno") in pairs
    assert ("After a pass\nAfter a push out is passed back, the player who pushed out must shoot; a foul on that "
            "shot is an ordinary foul.", "Nakon prepuštenog udarca\nKada protivnik nakon push outa prepusti udarac, "
            "natjecatelj koji je igrao push out mora igrati; faul na tom udarcu običan je faul.") in pairs
    assert [said.split(": ")[0] for said in misworded(pairs, "hr")] == [
        "'Drugi faul' for 'Other foul'", "'{n} ulaza vraćeno' for '{n} input taken back / {n} inputs taken back'"]

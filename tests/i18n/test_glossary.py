"""The glossary kept (scoreboard/i18n/glossary.py): the wordings the Croatian proofread (issue 35) found saying
the wrong thing are named again wherever they come back, and the right ones pass."""

import pytest

from scoreboard.i18n.glossary import misworded

#: (English, what the Croatian said before issue 35, what it says now): the issue's table, row by row.
MEANING = [
    ("Other foul", "Drugi faul", "Neki drugi faul"),
    ("Between shots only a moved ball or another foul can be called (R5).",
     "Između udaraca može se prijaviti samo pomaknuta kugla ili drugi faul (R5).",
     "Između udaraca može se prijaviti samo pomaknuta kugla ili neki drugi faul (R5)."),
    ("After any other foul he has it anywhere on the table (5.7).",
     "Nakon svakog drugog faula ima je bilo gdje na stolu (5.7).",
     "Nakon bilo kojeg drugog faula ima je bilo gdje na stolu (5.7)."),
    ("After a pass", "Nakon vraćenog udarca", "Nakon prepuštenog udarca"),
    ("Take back the shot", "Vrati udarac", "Poništi udarac"),
    ("Take back the whole shot?", "Vratiti cijeli udarac?", "Poništiti cijeli udarac?"),
    ("Take back the shot: {shot}", "Vrati: {shot}", "Poništi: {shot}"),
    ("expected a number of seconds > 0, got {value}", "očekuje se broj sekundi > 0, zadano: {value}",
     "očekuje se broj sekundi > 0, a ne {value}"),
    ("an event needs from 2 to {most} players, got {n}", "natjecanje traži od 2 do {most} natjecatelja, zadano: {n}",
     "natjecanje traži od 2 do {most} natjecatelja, a ima ih {n}"),
    ("offline (seen {time})", "ISKLJUČEN (viđen u {time})", "izvan veze (viđen u {time})"),
]


@pytest.mark.parametrize(("english", "before", "now"), MEANING)
def test_a_wording_that_said_the_wrong_thing_is_named_and_the_right_one_passes(english, before, now):
    assert len(misworded([(english, before)], "hr")) == 1
    assert misworded([(english, now)], "hr") == []


#: (English, a second word for one thing, the glossary's word).
ONE_WORD = [
    ("the director's socket (default: {path})", "socket direktora (zadano: {path})",
     "socket voditelja natjecanja (zadano: {path})"),
    ("venue link down", "veza s dvoranom prekinuta", "veza s lokalom prekinuta"),
    ("Player 1", "Igrač 1", "Natjecatelj 1"),
]


@pytest.mark.parametrize(("english", "before", "now"), ONE_WORD)
def test_a_second_word_for_one_thing_is_named(english, before, now):
    assert len(misworded([(english, before)], "hr")) == 1
    assert misworded([(english, now)], "hr") == []


def test_the_words_are_right_where_the_english_means_something_else():
    """'Vraća' is the 9 respotted (5.4), 'zadano' a default in the help, 'uključen' a setting switched on."""
    assert misworded([("the 9 is spotted", "devetka se vraća na stol"),
                      ("the window size (default 800x480)", "veličina prozora (zadano 800x480)"),
                      ("Shot clock: on", "Sat za udarac: uključen"),
                      ("the second foul", "drugi faul"),
                      ("the player who takes the first shot", "natjecatelj koji odigrava prvi udarac igraćom kuglom")],
                     "hr") == []


def test_what_is_named_says_the_message_and_why():
    said = misworded([("Other foul", "Drugi faul")], "hr")
    assert said == ["'Drugi faul' for 'Other foul': another foul is 'neki drugi faul' ('bilo kojeg drugog faula'): "
                    "'drugi faul' reads as the second foul, 'svakog drugog faula' as every second one"]
    assert misworded([("Other foul", "Drugi faul")], "en") == []

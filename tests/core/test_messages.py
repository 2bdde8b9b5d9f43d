"""Messages: words put together when read, in the catalog's language, and served as ids with their arguments."""

import gettext

from scoreboard.core.messages import Balls, cited, from_json, joined, msg, msg_n, render, to_json


class Pirate(gettext.NullTranslations):
    """A catalog that says everything its own way, to show the arguments are translated too."""

    def gettext(self, message):
        return {"{name} to shoot.": "Yarr, {name} shoots!", "{balls} and {last}": "{balls} an' {last}"}.get(
            message, message)

    def ngettext(self, singular, plural, n):
        return "one ball: {balls}" if n == 1 else "balls: {balls}"


def test_arguments_are_put_in_and_messages_inside_are_translated_too():
    said = joined([msg("{name} to shoot.", name="Ana"), msg_n("x", "y", Balls((2, 3, 5)).n, balls=Balls((2, 3, 5)))])
    assert render(said) == "Ana to shoot. y"
    assert render(said, Pirate()) == "Yarr, Ana shoots! balls: 2, 3 an' 5"


def test_named_balls_are_one_or_several_never_counted():
    assert [Balls(numbers).n for numbers in ((3,), (3, 5), (2, 3, 5, 6, 7))] == [1, 2, 2]
    assert render(Balls((2, 3, 5))) == "2, 3 and 5"


def test_a_message_served_comes_back_the_same():
    said = joined([msg("Foul {rules}: {reasons}.", rules="5.8, 5.9", reasons=joined([msg("a"), msg("b")], "; ")),
                   msg_n("{name} scores {n}", "{name} scores {n}", 2, name="Ben")])
    served = to_json(said)
    assert served["parts"][1] == {"id": "{name} scores {n}", "args": {"n": 2, "name": "Ben"},
                                  "plural": "{name} scores {n}", "n": 2}
    assert from_json(served) == said and render(from_json(served)) == "Foul 5.8, 5.9: a; b. Ben scores 2"


def test_a_player_called_r2_is_no_rule_cited():
    said = joined([msg("Foul {rules}: {reason}.", rules="5.8", reason=msg("the 3")), msg("{name} to shoot.", name="R2"),
                   msg("{name} passes the shot back; {shooter} must shoot (5.6, R3).", name="5.13", shooter="Ben")])
    assert cited(said) == ("5.8", "5.6", "R3")


def test_what_is_not_a_served_message_is_shown_as_it_is():
    assert render(from_json("Ana")) == "Ana" and render(from_json(None)) == "None"

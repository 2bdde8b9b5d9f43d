"""The .kv extractor finds what the touchscreen's screens say, and nothing else."""

import io

from scoreboard.i18n.build import KEYWORDS, PACKAGE
from scoreboard.i18n.kv import extract


def found(text):
    return [(line, message) for line, _, message, _ in extract(io.BytesIO(text.encode()), KEYWORDS, [], {})]


def test_properties_handlers_and_values_over_several_lines():
    kv = ("#:import tr scoreboard.ui.language.tr\n"
          "# text: tr._('not this: a comment')\n"
          "<SetupScreen>:\n"
          "    BigLabel:\n"
          "        text: tr._('Rules: {profile}').format(profile=root.profile)\n"
          "        color: hex('#ffffff')\n"
          "    BigButton:\n"
          "        text: (tr._('Alternate breaks') if root.alternate\n"
          "               else tr._('Winner breaks'))\n"
          "        on_release:\n"
          "            app.say(tr._('Saved'))\n")
    assert found(kv) == [(5, "Rules: {profile}"), (8, "Alternate breaks"), (9, "Winner breaks"), (11, "Saved")]


def test_every_screen_file_reads():
    paths = sorted((PACKAGE / "ui").glob("*/*.kv"))
    assert {path.parent.name for path in paths} == {"kv", "screens"}
    for path in paths:
        list(extract(path.open("rb"), KEYWORDS, [], {}))

"""The touchscreen in the players' language (scoreboard/ui/language.py): every screen in Croatian, looked at, at
800x480 and 1920x1080, with nothing cut and no English left; the language chosen on the setup and settings
screens; a screen built in one language speaking another when the daemon's changes."""

from __future__ import annotations

import re

import pytest

from tests.live import ANA_BEN
from tests.ui.test_app import BAD_HIT, BREAK_POCKETING_3, LEGAL_BREAK, LONG_NAMES, leaving_and_resuming

#: English words of the screens; what is left in a Croatian screen must be none of them (push out is the seed's
#: own word, GPIO, APA, PIN, OK and Broker are names).
ENGLISH = re.compile(r"\b(the|shot|shots|rack|ball|balls|foul|fouls|break|breaks|match|score|shoot|undo|back|"
                     r"settings|new|miss|concede|concedes|hill|racking|sensor|sensors|save|rules|race|skill|winner|"
                     r"alternate|yes|taken|waiting|referee|table|over|take|which|start|next|rematch|call|clear|"
                     r"done|delete|space|player|language|safety|timeout|stalemate)\b", re.IGNORECASE)


@pytest.fixture
def daemon_config():
    """``devetka run`` at a table whose players speak Croatian (``[table] language = "hr"``), PIN 0000."""
    return '[ui]\npin = "0000"\n[table]\nlanguage = "hr"\n'


def english(screen) -> list[str]:
    """The texts shown that hold an English word."""
    from kivy.uix.label import Label

    return [w.text for w in screen.app.root.walk()
            if isinstance(w, Label) and w.text and screen.visible(w) and ENGLISH.search(w.text)]


def looked_at(screen, name: str, shots: list) -> None:
    """The screen shown, saved as docs/screenshots/hr/NAME-WxH.png: nothing cut, nothing in English."""
    shots.append(screen.screenshot(f"hr/{name}"))
    assert screen.cut() == [], name
    assert english(screen) == [], name


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_screenshots_of_every_screen_in_croatian(screen, table, size):
    """docs/screenshots/hr/: each screen at both sizes, reached by touch, with 20-character names."""
    screen.wait_for(lambda: tuple(screen.window.size) == size, f"a {size[0]}x{size[1]} window")
    screen.wait_for(lambda: screen.current == "setup" and screen.text("start") == "Počni meč", "the setup screen")
    shots: list = []
    ana, ben = LONG_NAMES
    screen.tap_id("name0")
    screen.type(ana)
    screen.tap_id("name1")
    screen.type(ben[:-1])
    looked_at(screen, "setup-keyboard", shots)
    screen.tap_key(ben[-1])
    screen.tap_key("Done")
    screen.tap([w for w in screen.widget("race1").children if w.text == "+"][0])
    looked_at(screen, "setup", shots)
    screen.tap_id("start")
    screen.wait_for(lambda: screen.current == "live" and screen.app.view.players, "the new match")
    assert screen.text("status") == f"Razbija {ana}: bijela u ruci ispod head linije (5.2)"
    looked_at(screen, "live-break", shots)
    table.play(*BREAK_POCKETING_3)
    screen.wait_for(lambda: screen.text("push_out") == "PUSH OUT DOPUŠTEN", "push out allowed")
    assert screen.widget("ruling").whole == f"{ana} pravilno razbija (5.4), ubacuje kuglu 3 i nastavlja. " \
                                            f"{ana} smije igrati push out (5.5)."  # at 800x480 cut short, on Why?
    looked_at(screen, "live", shots)
    table.play({"type": "push_out"}, {"type": "strike"}, {"type": "cushion", "ball": 0}, {"type": "settle"})
    screen.wait_for(lambda: screen.current == "choice", "the push-out choice")
    looked_at(screen, "push-out-choice", shots)
    screen.tap_id("accept")
    screen.wait_for(lambda: screen.current == "live" and screen.text("status") == f"Na potezu: {ben}", "Ben shooting")
    assert screen.widget("ruling").whole.endswith(f"{ben} igra s ostavljene pozicije.")
    table.play(*BAD_HIT, *BAD_HIT, *BAD_HIT, *BAD_HIT)
    screen.wait_for(lambda: screen.text("warning") == "UPOZORENJE: DVA UZASTOPNA FAULA (5.13)", "the 5.13 banner")
    assert screen.text("status") == f"Na potezu: {ben} –\nBIJELA U RUCI"
    looked_at(screen, "live-two-fouls", shots)
    screen.tap_id("fouls")
    assert screen.text("foul5") == "Neki drugi faul  5.7"  # not 'Drugi faul': the second foul, under the warning
    looked_at(screen, "foul-menu", shots)
    screen.tap_id("back")
    table.play({"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "pocket"}, {"type": "settle"})
    screen.wait_for(lambda: screen.visible(screen.widget("pick", "live")), "the Koja kugla? button")
    screen.tap_id("pick")
    looked_at(screen, "ball-picker", shots)
    screen.tap_id("back")
    screen.tap_id("undo")
    assert screen.text("take_back").startswith("Poništi: ")  # not 'Vrati', handing the shot back (5.6)
    looked_at(screen, "undo", shots)
    screen.tap_id("take_back")
    assert screen.text("question") == "Poništiti cijeli udarac?"
    looked_at(screen, "take-back-shot", shots)
    screen.tap_id("back")
    screen.tap_id("confirm")
    screen.wait_for(lambda: screen.current == "live" and screen.text("warning").startswith("UDARAC PONOVNO"),
                    "the shot open again")
    looked_at(screen, "live-shot-reopened", shots)
    screen.tap_id("shot_over")
    screen.wait_for(lambda: not screen.text("warning") and screen.text("status") == f"Na potezu: {ben}",
                    "the shot over")
    screen.tap_id("more")
    looked_at(screen, "more", shots)
    screen.tap_id("settings")
    looked_at(screen, "settings", shots)
    screen.type_pin()
    screen.wait_for(lambda: screen.text("table_id") == "table1", "the settings in effect")
    assert screen.text("language") == "Jezik: hrvatski"
    looked_at(screen, "settings-open", shots)
    screen.tap_text("Natrag")
    table.play({"type": "strike"}, {"type": "pocket", "ball": 9}, {"type": "settle"})
    screen.wait_for(lambda: screen.current == "summary", "the rack summary")
    screen.wait_for(lambda: screen.text("stats"), "the rack's counts")
    looked_at(screen, "rack-summary", shots)
    screen.tap_id("next")
    screen.tap_id("more")
    screen.tap_id("concede0")
    looked_at(screen, "concede", shots)
    screen.tap_id("back")
    state = table.play({"cmd": "state"})
    while [r - 1 - s for r, s in zip(state["race"], state["score"], strict=True)] != [0, 0]:  # to hill-hill
        state = table.play({"type": "concede", "player": 0 if state["score"][1] < state["race"][1] - 1 else 1,
                            "scope": "rack"})
    table.play(*LEGAL_BREAK, *BAD_HIT)
    screen.wait_for(lambda: screen.text("hill", "live") == "ODLUČUJUĆA", "hill-hill")
    looked_at(screen, "live-hill-hill", shots)
    table.play({"type": "concede", "player": 0, "scope": "match"})
    screen.wait_for(lambda: screen.current == "summary" and screen.text("title") == f"{ben} osvaja meč",
                    "the match summary")
    screen.wait_for(lambda: screen.text("stats"), "the match's counts")
    looked_at(screen, "match-summary", shots)
    screen.tap_id("results")
    screen.wait_for(lambda: screen.text("note", "results").startswith("Rezultat meča 1 sa svim partijama"),
                    "the match's QR code")
    looked_at(screen, "tonights-results", shots)
    from kivy.core.image import Image

    assert all(Image(str(path)).size == size for path in shots)


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_screenshots_of_an_apa_match_in_croatian(screen, table, size):
    """docs/screenshots/hr/: the profile picker on APA devetka, an APA match's points and its more screen."""
    screen.wait_for(lambda: tuple(screen.window.size) == size, f"a {size[0]}x{size[1]} window")
    screen.wait_for(lambda: screen.current == "setup", "the setup screen")
    shots: list = []
    screen.tap_id("profile")
    screen.tap_id("profile")
    screen.wait_for(lambda: screen.text("profile") == "Pravila: APA devetka", "APA devetka picked")
    looked_at(screen, "setup-profile-apa9", shots)
    screen.tap_id("start")
    screen.wait_for(lambda: screen.current == "live" and screen.app.view.players, "the new match")
    table.play(*BREAK_POCKETING_3)
    screen.wait_for(lambda: screen.app.view.players[0].score_text == "1 od 25", "the first point")
    looked_at(screen, "live-apa", shots)
    screen.tap_id("more")
    screen.wait_for(lambda: screen.text("timeout") == "Time-out (još 2)", "the timeout button")
    looked_at(screen, "more-apa", shots)


def test_the_setup_screen_s_language_button_chooses_the_match_s_words(screen, table):
    screen.wait_for(lambda: screen.current == "setup" and screen.text("language") == "Jezik: hrvatski",
                    "the table's language")
    screen.tap_id("language")
    screen.wait_for(lambda: screen.text("start") == "Start match", "the setup screen in English")
    assert screen.text("language") == "Language: English"
    screen.tap_id("start")
    screen.wait_for(lambda: screen.current == "live" and screen.app.view.players, "the new match")
    screen.wait_for(lambda: screen.text("status").endswith("ball in hand behind the head string (5.2)"), "English")
    state = table.play({"cmd": "state"})
    assert state["language"] == "en" and state["actions"]["pass"]["why"].startswith("There is no push out")
    assert screen.text("more") == "More…"


def test_the_settings_screen_changes_the_table_s_language_and_every_screen_follows(screen, table):
    table.play({"cmd": "new_match", "match_start": ANA_BEN}, *LEGAL_BREAK)
    screen.wait_for(lambda: screen.current == "live" and screen.text("status") == "Na potezu: Ben", "Croatian")
    screen.tap_id("health")
    screen.type_pin()
    screen.wait_for(lambda: screen.text("language") == "Jezik: hrvatski", "the table's language in effect")
    screen.tap_id("settle")
    screen.type("2,5")  # a decimal comma, as Croatian writes it
    screen.tap_key("Done")
    screen.tap_id("language")
    assert screen.text("language") == "Language: English"
    screen.tap_id("save")
    screen.wait_for(lambda: screen.app.message == "Saved", "the settings saved, said in English")
    assert screen.text("save") == "Save" and screen.text("settle") == "2.5"
    assert table.play({"cmd": "settings"})["settings"]["effective"]["shots.settle_after_s"] == 2.5
    screen.tap_id("message")  # the word covers the bottom row until tapped away
    screen.tap_text("Back")
    screen.wait_for(lambda: screen.current == "live" and screen.text("status") == "Ben to shoot", "English")
    assert screen.text("ruling") == "Legal break (5.4) by Ana. Ben to shoot. Ben may push out (5.5)."


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_a_wrong_pin_and_a_refused_setting_are_said_in_croatian(screen, table, size):
    """The daemon's refusals as it words them for the players (``words``), not its English ``error``."""
    screen.wait_for(lambda: tuple(screen.window.size) == size, f"a {size[0]}x{size[1]} window")
    table.play({"cmd": "new_match", "match_start": ANA_BEN})
    screen.wait_for(lambda: screen.current == "live" and screen.app.view.players, "the match")
    screen.tap_id("health")
    for key in "1234":
        screen.tap_text(key)
    screen.tap_text("OK")
    screen.wait_for(lambda: screen.app.message == "pogrešan PIN", "the wrong PIN refused in Croatian")
    assert not screen.visible(screen.widget("opened"))
    screen.tap_id("message")
    for key in "0000":
        screen.tap_text(key)
    screen.tap_text("OK")
    screen.wait_for(lambda: screen.visible(screen.widget("opened")), "the settings opened by the daemon")
    screen.tap_id("settle")
    screen.type("0")
    screen.tap_key("Done")
    screen.tap_id("save")
    refusal = "postavke nisu spremljene: shots.settle_after_s: očekuje se broj sekundi > 0, a ne 0"
    screen.wait_for(lambda: screen.app.message == refusal, "the refused setting said in Croatian")
    screen.wait_for(lambda: screen.text("message") == refusal, "the refusal on the screen")
    shots = [screen.screenshot("hr/settings-refused")]
    assert screen.cut() == [] and [text for text in english(screen) if text != refusal] == [], shots
    assert table.play({"cmd": "settings"})["settings"]["effective"]["shots.settle_after_s"] == 3600


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_screenshots_of_why_in_the_seed_s_words(screen, table, size):
    """"Why?": the rules the ruling cites, in Croatian the seed's own text for 5.x."""
    screen.wait_for(lambda: tuple(screen.window.size) == size, f"a {size[0]}x{size[1]} window")
    shots: list = []
    table.play({"cmd": "new_match", "match_start": ANA_BEN}, *LEGAL_BREAK, {"type": "push_out"}, {"type": "strike"},
               {"type": "cushion", "ball": 0}, {"type": "settle"}, {"type": "pass"})
    screen.wait_for(lambda: screen.current == "live" and "prepušta udarac" in screen.text("ruling"), "the pass")
    screen.tap_id("ruling")
    screen.wait_for(lambda: screen.current == "why", "the Why? screen")
    assert screen.text("rules").startswith("[b]5.6 PUSH OUT[/b]\nNatjecatelj koji odigrava prvi udarac")
    screen.tap_id("back")
    table.play(*BAD_HIT)
    screen.wait_for(lambda: screen.current == "live"
                    and screen.text("ruling").startswith("Faul 5.8: prvo je pogođena kugla 5, a ne 1."), "the bad hit")
    screen.tap_id("ruling")
    screen.wait_for(lambda: screen.current == "why", "the Why? screen")
    assert screen.text("rules") == ("[b]5.8 POGREŠAN UDARAC[/b]\nFaul je ako natjecatelj s bijelom kuglom ne pogodi "
                                    "kuglu sa najnižim brojem.")
    assert screen.text("title") == "Zašto? Pravila na koja se odluka poziva"
    looked_at(screen, "why", shots)
    screen.tap_id("back")
    screen.wait_for(lambda: screen.current == "live", "back to the live screen")


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_screenshots_of_why_with_a_league_profile_s_rule_in_our_words(screen, table, size):
    screen.wait_for(lambda: tuple(screen.window.size) == size, f"a {size[0]}x{size[1]} window")
    bar = table.play({"cmd": "state"})["profiles"]["bar"]
    table.play({"cmd": "new_match", "match_start": dict(ANA_BEN, rules=bar)}, *LEGAL_BREAK,
               {"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 1},
               {"type": "pocket", "ball": 0}, {"type": "settle"})
    screen.wait_for(lambda: screen.current == "live" and "ispod head linije" in screen.text("ruling"),
                    "the scratch under bar rules")
    screen.tap_id("ruling")
    screen.wait_for(lambda: screen.current == "why", "the Why? screen")
    said = screen.text("rules")
    assert "[b]5.7 FAULOVI[/b]" in said
    assert "[b]Bijela u ruci ispod head linije (ligaško pravilo)[/b]\nPo kućnim pravilima, nakon što bijela" in said
    looked_at(screen, "why-league", [])


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_screenshots_of_the_shot_clock_in_croatian(screen, table, size):
    """The live screen on the shot clock: its seconds beside the shooter, the extension and the time foul."""
    screen.wait_for(lambda: tuple(screen.window.size) == size, f"a {size[0]}x{size[1]} window")
    table.play({"cmd": "new_match", "match_start": dict(ANA_BEN, rules={"shot_clock": True})}, *LEGAL_BREAK,
               {"type": "strike"}, {"type": "first_contact", "ball": 1}, {"type": "cushion", "ball": 1},
               {"type": "settle"})
    screen.wait_for(lambda: screen.current == "live" and screen.app.view.shot_clock is not None, "the clock")
    assert screen.text("extension") == "Produženje\n+25 s"
    looked_at(screen, "live-shot-clock", [])
    table.play({"cmd": "clock_pause", "on": True})  # a ruling put right: the clock stands still, in teal, captioned
    screen.wait_for(lambda: screen.app.clock_phase == "paused", "the clock paused")
    looked_at(screen, "live-shot-clock-paused", [])
    table.play({"cmd": "clock_pause", "on": False})
    screen.tap_id("more")
    assert screen.text("shot_clock_switch") == "Isključi sat"
    looked_at(screen, "more-shot-clock", [])


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_screenshots_of_leaving_and_resuming_a_match_in_croatian(screen, table, size):
    """docs/screenshots/hr/: issue 33's screens in Croatian at both sizes: nothing cut, nothing in English."""
    screen.wait_for(lambda: tuple(screen.window.size) == size, f"a {size[0]}x{size[1]} window")
    shots: list = []

    def shoot(name: str) -> None:
        if name == "abandon":  # the rack to come an ordinal, the match not declined as a person (docs/i18n.md)
            ana, ben = LONG_NAMES
            assert (screen.text("score"), screen.text("leave")) == (
                f"{ana} 1  –  0 {ben}, 2. partija: meč nije gotov.", "Ostavi meč nedovršen")
        looked_at(screen, name, shots)

    leaving_and_resuming(screen, table, shoot)
    assert len(shots) == 4


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_screenshots_of_a_director_s_call_in_croatian(screen, daemon, size):
    """docs/screenshots/hr/call: the call over the setup screen in the board's words for the bracket's sides."""
    from tests.ui.test_calls import CALL, called

    screen.wait_for(lambda: tuple(screen.window.size) == size, f"a {size[0]}x{size[1]} window")
    ana, ben = LONG_NAMES
    called(daemon, screen, {**CALL, "match_start": {**CALL["match_start"], "players": [ana, ben]}})
    assert screen.text("call_text") == f"Poziv: {ana} - {ben}, igra se na 7, 2. kolo pobjedničke strane"
    assert (screen.text("call_start"), screen.text("call_decline")) == ("Počni", "Ne sada")
    shots: list = []
    looked_at(screen, "call", shots)

"""One match's result on the venue board (scoreboard/venue/board/result.js, ``?result=``) in real headless Chromium:
the page served by a real Mosquitto's ``http_dir``, opened at the address a real referee serves as ``board`` for
its ``result`` command over a real store, and compared with ``devetka export --result`` of that store: what a
person reads on the card (players, score, winner, table, when, totals), in English and Croatian; and addresses whose
result is missing, cut short or not a result, each saying what is wrong. Screenshots go to
``$DEVETKA_SCREENSHOTS`` when it is set (``scripts/board-screenshots.sh``), else to the test's tmp_path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

import orjson
import pytest

from scoreboard.referee.referee import Referee
from tests.referee.test_results import NINE_ON_THE_BREAK, Evening
from tests.venue.browser import Browser
from tests.venue.test_board import VenueBroker

CARD_JS = ("(() => { const card = document.querySelector('#result .result-card'); if (!card) return null; return {"
           "text: card.innerText, score: card.dataset.score, winner: card.dataset.winner, match: card.dataset.match,"
           "lang: document.documentElement.lang, names: [...card.querySelectorAll('.result-name')]"
           ".map(n => n.textContent), scores: [...card.querySelectorAll('.result-score')].map(n => n.textContent),"
           "won: [...card.querySelectorAll('.result-player.won .result-name')].map(n => n.textContent)}; })()")
ERROR_JS = "document.getElementById('result')?.dataset.error || null"


@pytest.fixture(scope="module")
def browser():
    with Browser() as running:
        yield running


@pytest.fixture(scope="module")
def venue():
    with VenueBroker() as running:
        yield running


class Played:
    """Matches played on a real referee over a real store, the venue board's address in its config."""

    def __init__(self, folder: Path, board_url: str, language: str) -> None:
        self.path = folder / "devetka.db"
        self.referee = Referee.open(self.path, now=Evening("2026-11-29T20:15:00+00:00"), language=language,
                                    venue_url=board_url, table="bar3")

    def play(self, *inputs: dict, **start) -> int:
        start = {"type": "match_start", "v": 1, "breaker": 0, **start}
        assert self.referee.handle({"cmd": "new_match", "match_start": start}).ok
        for item in inputs:
            assert self.referee.handle(item).ok, item
        return self.referee.match_id

    def served(self, match: int) -> dict:
        answer = self.referee.handle({"cmd": "result", "match": match})
        assert answer.ok, answer.error
        return answer.state

    def export(self, match: int) -> dict:
        run = subprocess.run([sys.executable, "-m", "scoreboard.commands.main", "export", "--result", "--store",
                              str(self.path), "--match", str(match)], capture_output=True, check=True)
        return orjson.loads(run.stdout)


@pytest.fixture
def played(tmp_path, venue):
    made = []

    def make(language: str = "en") -> Played:
        made.append(Played(tmp_path, venue.board_url, language))
        return made[-1]
    yield make
    for one in made:
        one.referee.close()


def opened(browser: Browser, url: str) -> dict:
    browser.open(url)
    card = browser.wait_for(CARD_JS)
    assert browser.exceptions() == []
    return card


def test_a_match_s_page_shows_the_exported_result_in_english_and_in_croatian(browser, played, venue):
    table = played("en")
    match = table.play(*NINE_ON_THE_BREAK * 3, players=["Zvonimir Ćosić", "Đurđa Šarić"], race=[3, 3])
    served = table.served(match)
    outcome = table.export(match)
    assert urlsplit(served["board"]).netloc == urlsplit(venue.board_url).netloc
    winner = outcome["players"][outcome["winner"]]
    when = datetime.fromisoformat(outcome["started"]).astimezone().strftime("%Y-%m-%d %H:%M")
    runs, nines = ([sum(1 for rack in outcome["racks"] if rack[flag] and rack["winner"] == side) for side in (0, 1)]
                   for flag in ("break_and_run", "nine_on_break"))
    fouls = [sum(rack["fouls"][side] for rack in outcome["racks"]) for side in (0, 1)]

    card = opened(browser, served["board"])
    assert card["lang"] == "en" and card["names"] == outcome["players"]
    assert card["scores"] == [str(n) for n in outcome["score"]] and card["won"] == [winner]
    assert (card["match"], card["winner"], card["score"]) == (str(match), winner, "-".join(map(str, outcome["score"])))
    text = card["text"]
    assert f"Match {match}" in text and f"Table bar3 · {when}" in text and f"{winner} won" in text
    assert f"Racks played: {len(outcome['racks'])}" in text
    assert f"Break-and-runs\t{runs[0]}\t{runs[1]}" in text and f"Nines on the break\t{nines[0]}\t{nines[1]}" in text
    assert f"Fouls\t{fouls[0]}\t{fouls[1]}" in text and " min" not in text  # no time stamped: no duration

    card = opened(browser, served["board"].replace("lang=en", "lang=hr"))
    assert card["lang"] == "hr" and card["names"] == outcome["players"]
    text = card["text"]
    assert f"Meč {match}" in text and f"Stol bar3 · {when}" in text and f"pobjeda: {winner}" in text
    assert f"Odigrane partije: {len(outcome['racks'])}" in text
    assert f"Devetke pri razbijanju\t{nines[0]}\t{nines[1]}" in text and f"Faulovi\t{fouls[0]}\t{fouls[1]}" in text


def test_an_apa_match_s_page_shows_points_of_the_targets_in_the_table_s_language(browser, played):
    table = played("hr")
    match = table.play(*NINE_ON_THE_BREAK, players=["Ana", "Ben"], apa_skill=[3, 3], rules={"profile": "apa9"})
    served = table.served(match)
    outcome = table.export(match)
    assert "lang=hr" in served["board"]
    card = opened(browser, served["board"])
    assert card["scores"] == [str(n) for n in outcome["points"]]
    assert card["score"] == "-".join(map(str, outcome["points"]))
    text = card["text"]
    assert f"/ {outcome['targets'][0]}" in text and f"/ {outcome['targets'][1]}" in text
    assert f"APA bodovi od ciljanih; partije {outcome['score'][0]}:{outcome['score'][1]}" in text
    assert ("Još nije gotov" in text) == (outcome["winner"] is None)


@pytest.mark.parametrize(("query", "words"), [
    ("result=", "This address holds no result: result= is empty."),
    ("result=%21%21not-base64", "The result in this address is not base64url text."),
    ("result=eyJwbGF5ZXJzIjpbIkFuYSIs", "The result in this address is not a JSON result (cut short when it was "
                                        "copied?)."),
    ("result=eyJwbGF5ZXJzIjpbIkFuYSIsIkJlbiJdfQ", "The result in this address has no score."),
    ("result=WzEsMl0", "The result in this address has no players."),
    ("lang=hr&result=e30", "Rezultatu u ovoj adresi nedostaje players."),
])
def test_an_address_whose_result_cannot_be_read_says_what_is_wrong(browser, venue, query, words):
    browser.open(f"{venue.board_url}?{query}")
    assert browser.wait_for(ERROR_JS) == words
    seen = browser.evaluate("document.body.innerText")
    assert words in seen and ("No result to show" in seen or "Nema rezultata za prikaz" in seen)
    assert browser.exceptions() == []


SIZES = {"1920x1080": (1920, 1080, False), "390x844": (390, 844, True)}


def test_screenshots_of_a_match_s_page_in_english_and_croatian(browser, played, tmp_path):
    folder = Path(os.environ.get("DEVETKA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    table = played("en")
    match = table.play(*NINE_ON_THE_BREAK * 3, players=["Zvonimir Ćosić", "Đurđa Šarić"], race=[3, 3])
    board = table.served(match)["board"]
    for language in ("en", "hr"):
        opened(browser, board.replace("lang=en", f"lang={language}"))
        for size, (width, height, mobile) in SIZES.items():
            shot = browser.screenshot(folder / f"board-result-{language}-{size}.png", width, height, mobile=mobile)
            assert shot.stat().st_size > 10_000
            overflow = browser.evaluate("document.documentElement.scrollWidth > innerWidth")
            assert overflow is False, (language, size)
    browser.open(board.split("result=")[0] + "result=eyJwbGF5ZXJzIjpbIkFuYSIs")  # cut short
    assert browser.wait_for(ERROR_JS)
    browser.screenshot(folder / "board-result-error-en-390x844.png", 390, 844, mobile=True)

"""``devetka event`` (scoreboard/commands/event.py): the worked examples of docs/events.md, run from the doc itself,
each format to its end through ``devetka event result`` alone; refusals in the environment's language."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import orjson
import pytest

from scoreboard.commands.main import main
from tests.paths import REPO

DOC = (REPO / "docs" / "events.md").read_text()
EXAMPLE = re.compile(r"<!-- example: (\w+) -->.*?```toml\n(.*?)```.*?```sh\n(.*?)```.*?```text\n(.*?)```", re.S)
EXAMPLES = {name: (toml, sh, shown) for name, toml, sh, shown in EXAMPLE.findall(DOC)}


def test_the_doc_has_an_example_of_each_format():
    formats = {re.search(r'format = "(\w+)"', toml).group(1) for toml, _, _ in EXAMPLES.values()}
    assert formats == {"single", "double", "round_robin", "apa_team"} and "handicap" in EXAMPLES


def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_a_worked_example_runs_as_the_doc_says(name, tmp_path, capsys, monkeypatch):
    toml, sh, shown = EXAMPLES[name]
    (tmp_path / f"{name}.toml").write_text(toml)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LANGUAGE", "en")
    store = str(tmp_path / "director.sqlite3")
    out = ""
    for line in sh.splitlines():
        argv = shlex.split(line, comments=True)
        assert argv[:2] == ["devetka", "event"]
        code, out, err = run([*argv[1:], "--store", store], capsys)
        refused = line.partition("# refused: ")[2].strip()
        if refused:
            assert (code, err) == (1, f"devetka event {argv[2]}: {refused}\n")
        else:
            assert (code, err) == (0, ""), line
    assert out == shown


def test_the_director_store_is_killed_between_two_results_and_loses_and_doubles_nothing(tmp_path):
    """Each command is its own process; SIGKILL one between two results, send the last result again."""
    toml, sh, shown = EXAMPLES["double"]
    (tmp_path / "double.toml").write_text(toml)
    store = str(tmp_path / "director.sqlite3")
    devetka = [sys.executable, "-m", "scoreboard.commands.main", "event"]
    for line in sh.splitlines():
        argv = shlex.split(line, comments=True)[2:]
        if argv[:2] == ["result", "GF-1"]:
            stuck = subprocess.Popen([sys.executable, "-c", "import time, sqlite3; "
                                      f"db = sqlite3.connect({store!r}); db.execute('BEGIN IMMEDIATE'); "
                                      "print('holding', flush=True); time.sleep(60)"], stdout=subprocess.PIPE)
            assert stuck.stdout.readline() == b"holding\n"
            stuck.kill()
            stuck.wait()
            stuck.stdout.close()
        done = subprocess.run([*devetka, *argv, "--store", store], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode in (0, 1)
    again = subprocess.run([*devetka, "result", "GF-2", "7-6", "--store", store], capture_output=True, text=True)
    assert again.returncode == 1 and "GF-2 has its result already (7-6)" in again.stderr
    rows = [orjson.loads(line) for line in subprocess.run([*devetka, "export", "--json", "--store", store],
                                                          capture_output=True, check=True).stdout.splitlines()]
    assert [(r["match"], r["winner"]) for r in rows] == [
        ("W1-1", "Ana"), ("W1-2", "Cvita"), ("W2-1", "Ana"), ("L1-1", "Dino"), ("L2-1", "Dino"), ("GF-1", "Dino"),
        ("GF-2", "Ana")]


def test_a_refusal_is_said_in_croatian_and_changes_nothing(tmp_path):
    toml, _, _ = EXAMPLES["single"]
    (tmp_path / "single.toml").write_text(toml)
    store = str(tmp_path / "director.sqlite3")
    devetka = [sys.executable, "-m", "scoreboard.commands.main", "event"]
    env = {"LANG": "hr_HR.UTF-8", "PATH": "/usr/bin:/bin"}
    for argv in (["new", "single.toml"], ["draw"]):
        subprocess.run([*devetka, *argv, "--store", store], cwd=tmp_path, env=env, check=True, capture_output=True)
    before = subprocess.run([*devetka, "status", "--json", "--store", store], capture_output=True).stdout
    done = subprocess.run([*devetka, "result", "W1-2", "3-3", "--store", store], env=env, capture_output=True,
                          text=True)
    assert done.returncode == 1
    assert done.stderr == ("devetka event result: 3:3 ne završava meč na 3:3: pobjednik ima svoj broj partija, "
                           "poraženi manje\n")
    assert subprocess.run([*devetka, "status", "--json", "--store", store], capture_output=True).stdout == before


def test_a_wrong_event_file_is_named_with_its_key(tmp_path):
    (tmp_path / "bad.toml").write_text('name = "N"\nformat = "single"\nplayers = ["Ana"]\n')
    said = {}
    for lang in ("C.UTF-8", "hr_HR.UTF-8"):
        done = subprocess.run([sys.executable, "-m", "scoreboard.commands.main", "event", "new",
                               str(tmp_path / "bad.toml"), "--store", str(tmp_path / "d.sqlite3")],
                              capture_output=True, text=True, env={"LANG": lang, "PATH": "/usr/bin:/bin"})
        assert done.returncode == 1
        said[lang] = done.stderr
    assert said["C.UTF-8"] == \
        "devetka event new: the event file: players: an event needs from 2 to 256 players, got 1\n"
    assert said["hr_HR.UTF-8"] == (  # 'got 1' is not 'zadano: 1', the help's 'default: 1' (docs/i18n.md)
        "devetka event new: datoteka natjecanja: players: natjecanje traži od 2 do 256 natjecatelja, a ima ih 1\n")

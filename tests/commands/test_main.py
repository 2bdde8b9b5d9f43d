"""``devetka replay`` (spec: "Output of devetka replay"): in the test's process through ``main(argv)`` (tests/cli.py),
and as the installed console script in a subprocess where the process is what is tested."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli import devetka as in_process
from tests.paths import EXAMPLES as EXAMPLES_DIR

EXAMPLES = EXAMPLES_DIR

MATCH_START = '{"type":"match_start","v":1,"players":["Ana","Ben"],"race":[3,3],"breaker":0}'

# Ana breaks and pockets the 2; her next shot hits the 5 first with the 1 lowest: a bad hit (5.8),
# Ben has ball in hand. The pass has no push out to answer: an error on line 10.
BAD_HIT_LOG = [
    MATCH_START,
    '{"type":"strike"}',
    '{"type":"first_contact","ball":1}',
    '{"type":"pocket","ball":2,"pocket":"foot_left"}',
    '{"type":"settle"}',
    '{"type":"strike"}',
    '{"type":"first_contact","ball":5}',
    '{"type":"cushion","ball":5}',
    '{"type":"settle"}',
    '{"type":"pass"}',
]


def devetka() -> list[str]:
    """The console script installed next to the running interpreter, else the module."""
    bindir = Path(sys.executable).parent
    for name in ("devetka", "devetka.exe"):
        script = bindir / name
        if script.is_file():
            return [str(script)]
    return [sys.executable, "-m", "scoreboard.commands.main"]


def run(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``devetka ARGS`` in this process (tests/cli.py); stdout and stderr come back as bytes. The tests of
    the console script and of the environment's language start a process."""
    return in_process(*args, stdin=stdin, cwd=cwd)


def write_log(path: Path, lines: list[str], end: str = "\n") -> Path:
    path.write_bytes("".join(line + end for line in lines).encode("utf-8"))
    return path


def json_lines(result: subprocess.CompletedProcess) -> list[dict]:
    text = result.stdout.decode("utf-8")
    return [json.loads(line) for line in text.splitlines()]


def assert_clean_failure(result: subprocess.CompletedProcess) -> str:
    """Exit status 2 with a message on stderr and no traceback; returns the message."""
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, err
    assert err.strip()
    assert "Traceback" not in err
    return err


def test_replay_prints_json_lines_in_log_order_ending_with_the_state_line(tmp_path):
    log = write_log(tmp_path / "match.jsonl", BAD_HIT_LOG)
    result = run("replay", str(log))
    assert result.returncode == 0
    assert result.stderr == b""
    lines = json_lines(result)
    assert [line["type"] for line in lines] == ["shot", "shot", "error", "state"]
    brk, bad_hit, error, state = lines
    assert brk["break"] is True and brk["pocketed"] == [2] and brk["foul"] is False
    assert bad_hit["shot"] == 2 and bad_hit["foul"] is True and "5.8" in bad_hit["rules"]
    assert bad_hit["next_shooter"] == 1 and bad_hit["ball_in_hand"] is True
    assert error["line"] == 10 and error["error"]
    assert state["score"] == [0, 0] and state["rack"] == 1 and state["breaker"] == 0
    assert state["shooter"] == 1 and state["ball_in_hand"] is True and state["match_winner"] is None
    assert state["fouls_in_row"] == [1, 0] and state["warning"] is False


def test_replay_works_from_another_directory_with_a_relative_path(tmp_path):
    write_log(tmp_path / "match.jsonl", BAD_HIT_LOG)
    result = run("replay", "match.jsonl", cwd=tmp_path)
    assert result.returncode == 0
    assert json_lines(result)[-1]["type"] == "state"


def test_replay_dash_reads_the_log_from_stdin():
    example = EXAMPLES / "01-push-out-pass.jsonl"
    from_stdin = run("replay", "-", stdin=example.read_bytes())
    from_file = run("replay", str(example))
    assert from_stdin.returncode == 0
    assert from_stdin.stderr == b""
    assert json_lines(from_stdin) == json_lines(from_file)
    lines = json_lines(from_stdin)
    assert lines[-1]["type"] == "state"
    assert lines[-1]["shooter"] == 0  # Ben passed the push out back: Ana shoots


def test_replay_dash_with_errors_reports_their_line_numbers():
    log = "\n".join([MATCH_START, '{"type":"pass"}', "", '{"type":"teleport"}']) + "\n"
    result = run("replay", "-", stdin=log.encode("utf-8"))
    assert result.returncode == 0
    errors = [line for line in json_lines(result) if line["type"] == "error"]
    assert [e["line"] for e in errors] == [2, 4]
    assert errors[1]["error"] == "unknown type 'teleport'"


def test_explain_prints_one_line_per_shot_in_words_with_rule_numbers(tmp_path):
    log = write_log(tmp_path / "match.jsonl", BAD_HIT_LOG[:-1])  # without the erroneous pass
    result = run("replay", "--explain", str(log))
    assert result.returncode == 0
    assert result.stderr == b""
    lines = result.stdout.decode("utf-8").splitlines()
    assert len(lines) == 3  # the break, the bad hit, then a summary of the match
    for line in lines:
        with pytest.raises(ValueError):
            json.loads(line)
    assert "5.4" in lines[0] and "Ana" in lines[0]
    assert "Foul 5.8" in lines[1] and "ball in hand" in lines[1]
    assert "Ben" in lines[1]


def test_explain_reports_inputs_not_applied_with_their_line_number(tmp_path):
    log = write_log(tmp_path / "match.jsonl", BAD_HIT_LOG)
    result = run("replay", "--explain", str(log))
    assert result.returncode == 0
    lines = result.stdout.decode("utf-8").splitlines()
    assert len(lines) == 4
    assert "10" in lines[2]


def test_explain_reads_stdin_too():
    result = run("replay", "--explain", "-", stdin=("\n".join(BAD_HIT_LOG[:-1]) + "\n").encode("utf-8"))
    assert result.returncode == 0
    assert any("Foul 5.8" in line for line in result.stdout.decode("utf-8").splitlines())


@pytest.mark.parametrize("explain", [[], ["--explain"]], ids=["json", "explain"])
def test_missing_file_exits_2_naming_the_file_without_traceback(tmp_path, explain):
    missing = tmp_path / "no-such-match.jsonl"
    result = run("replay", *explain, str(missing))
    err = assert_clean_failure(result)
    assert "no-such-match.jsonl" in err
    assert result.stdout == b""


def test_a_directory_is_not_a_log_exit_2_without_traceback(tmp_path):
    err = assert_clean_failure(run("replay", str(tmp_path)))
    assert str(tmp_path) in err


def test_non_utf8_file_gives_a_clear_message_naming_the_file(tmp_path):
    log = tmp_path / "latin1.jsonl"
    log.write_bytes(
        MATCH_START.encode("utf-8") + b"\n"
        + b'{"type":"match_start","v":1,"players":["Ana","Bor\xe8"],"race":[3,3],"breaker":0}\n'
    )
    result = run("replay", str(log))
    err = assert_clean_failure(result)
    assert "latin1.jsonl" in err
    assert "UTF-8" in err
    assert result.stdout == b""


def test_a_log_with_errors_still_exits_0(tmp_path):
    log = write_log(tmp_path / "errors.jsonl", [
        MATCH_START,
        '{"type":"pass"}',
        '{"type":"teleport"}',
        "this is not json",
        '{"type":"pocket","ball":12}',
        '{"type":"match_start","v":1,"players":["Ana","Ben"],"race":[3,3],"breaker":0}',
    ])
    result = run("replay", str(log))
    assert result.returncode == 0
    lines = json_lines(result)
    assert [line["type"] for line in lines] == ["error"] * 5 + ["state"]
    assert [line["line"] for line in lines[:-1]] == [2, 3, 4, 5, 6]
    assert all(isinstance(line["error"], str) and line["error"] for line in lines[:-1])
    assert lines[1]["error"] == "unknown type 'teleport'"


def test_blank_lines_are_skipped_but_still_count_in_line_numbers(tmp_path):
    log = write_log(tmp_path / "blanks.jsonl", [
        "",                       # 1
        MATCH_START,              # 2
        "",                       # 3
        "   ",                    # 4
        '{"type":"pass"}',        # 5: error
        "\t",                     # 6
        "",                       # 7
        '{"type":"teleport"}',    # 8: error
        "",                       # 9
    ])
    result = run("replay", str(log))
    assert result.returncode == 0
    lines = json_lines(result)
    assert [line["type"] for line in lines] == ["error", "error", "state"]
    assert [line["line"] for line in lines[:2]] == [5, 8]
    assert lines[-1]["rack"] == 1 and lines[-1]["shooter"] == 0  # the match did start on line 2


def test_windows_line_endings_read_like_unix_ones(tmp_path):
    unix = run("replay", str(write_log(tmp_path / "unix.jsonl", BAD_HIT_LOG)))
    dos = run("replay", str(write_log(tmp_path / "dos.jsonl", BAD_HIT_LOG, end="\r\n")))
    assert dos.returncode == 0
    assert json_lines(dos) == json_lines(unix)


def test_a_last_line_without_newline_is_read(tmp_path):
    log = tmp_path / "no-newline.jsonl"
    log.write_text("\n".join(BAD_HIT_LOG), encoding="utf-8")
    result = run("replay", str(log))
    assert result.returncode == 0
    lines = json_lines(result)
    assert lines[-2]["type"] == "error" and lines[-2]["line"] == 10  # the pass on the last line


def test_a_log_without_match_start_prints_error_lines_and_a_state_line(tmp_path):
    log = write_log(tmp_path / "no-start.jsonl", [
        '{"type":"strike"}',
        "",
        '{"type":"pocket","ball":1}',
    ])
    result = run("replay", str(log))
    assert result.returncode == 0
    lines = json_lines(result)
    assert [line["type"] for line in lines] == ["error", "error", "state"]
    assert [line["line"] for line in lines[:2]] == [1, 3]
    assert "match_start" in lines[0]["error"]
    state = lines[-1]
    assert state["score"] == [0, 0] and state["match_winner"] is None
    for field in ("rack", "breaker", "on_table", "shooter", "ball_in_hand", "fouls_in_row", "warning"):
        assert field in state


def test_an_invalid_match_start_leaves_the_match_unstarted(tmp_path):
    log = write_log(tmp_path / "v2.jsonl", [
        '{"type":"match_start","v":2,"players":["Ana","Ben"],"race":[3,3],"breaker":0}',
        '{"type":"strike"}',
    ])
    lines = json_lines(run("replay", str(log)))
    assert [line["type"] for line in lines] == ["error", "error", "state"]
    assert lines[0]["line"] == 1 and "v" in lines[0]["error"]


def test_an_empty_log_prints_only_a_state_line(tmp_path):
    log = tmp_path / "empty.jsonl"
    log.write_bytes(b"")
    result = run("replay", str(log))
    assert result.returncode == 0
    lines = json_lines(result)
    assert len(lines) == 1 and lines[0]["type"] == "state"


def test_non_ascii_player_names_come_out_as_utf8_json(tmp_path):
    log = write_log(tmp_path / "names.jsonl", [
        '{"type":"match_start","v":1,"players":["Đorđe","Šćepan"],"race":[2,2],"breaker":1}',
    ])
    result = run("replay", str(log))
    assert result.returncode == 0
    state = json_lines(result)[-1]
    assert state["players"] == ["Đorđe", "Šćepan"]
    assert state["breaker"] == 1 and state["shooter"] == 1


@pytest.mark.parametrize("args", [[], ["replay"], ["replay", "a.jsonl", "b.jsonl"], ["referee"]],
                         ids=["no command", "no log", "two logs", "unknown command"])
def test_usage_errors_exit_2_with_usage_on_stderr(args):
    result = run(*args)
    err = assert_clean_failure(result)
    assert "usage" in err.lower()


def test_replay_score_sheet_prints_the_apa_sheet_as_json_or_a_page():
    log = str(EXAMPLES_DIR / "11-apa-points.jsonl")
    out = subprocess.run([sys.executable, "-m", "scoreboard.commands.main", "replay", "--score-sheet", "json", log],
                         capture_output=True, text=True, check=True)
    sheet = json.loads(out.stdout)
    assert (sheet["points"], sheet["targets"], sheet["dead_balls"]) == ([3, 2], [25, 38], 5)
    page = subprocess.run([sys.executable, "-m", "scoreboard.commands.main", "replay", "--score-sheet", "html", log],
                          capture_output=True, text=True, check=True).stdout
    assert page.startswith("<!DOCTYPE html>") and "Ana (SL 3, target 25)" in page
    racks = subprocess.run([sys.executable, "-m", "scoreboard.commands.main", "replay", "--score-sheet", "json",
                            str(EXAMPLES_DIR / "01-push-out-pass.jsonl")], capture_output=True, text=True)
    assert racks.returncode == 1 and racks.stdout == ""
    assert racks.stderr == 'devetka replay: no score sheet: a score sheet needs APA scoring (rules.scoring "apa")\n'


def test_replay_score_sheet_page_speaks_the_players_language():
    """Issue 34 item 6: ``--score-sheet html --lang hr`` is the Croatian sheet, every word from the catalog (the
    glossary's: zapisnik, partija, izmjene, obrambeni udarci, mrtve kugle); the numbers and names as they are."""
    log = str(EXAMPLES_DIR / "12-apa-dead-balls-safeties-timeouts.jsonl")
    page = subprocess.run([sys.executable, "-m", "scoreboard.commands.main", "replay", "--score-sheet", "html",
                           "--lang", "hr", log], capture_output=True, text=True, check=True).stdout
    assert "<html lang=hr>" in page and "<title>APA zapisnik (devetka)</title>" in page
    assert "<h1>APA zapisnik (devetka): Ana – Ben</h1>" in page
    assert ("<tr><th>Partija</th><th>Ana (razina 4, cilj 31)</th><th>obrambeni udarci</th><th>Ben (razina 1, cilj "
            "14)</th><th>obrambeni udarci</th><th>izmjene</th><th>mrtve kugle</th></tr>") in page
    assert "<tr class=total><td>Ukupno</td><td>0</td><td>0</td><td>14</td><td>1</td><td>1</td><td>3</td></tr>" in page
    assert "<p>Ben osvaja meč.</p>" in page and "Pobjeda u bliškanju: Ana (gornji redak)" in page
    words = page.split("<style>")[0] + page.split("</style>")[1]
    for english in ("score sheet", "innings", "safeties", "Total", "Rack", "target", "wins", "Lag", "dead balls"):
        assert english not in words, english


# --- the words in the players' language (issue 22) ---------------------------------------------------------

LOGS = sorted(path for path in EXAMPLES.glob("*.jsonl") if not path.name.endswith(".out.jsonl"))
#: English that must not be left in a Croatian line: the words of the rulings, not the log's field names.
ENGLISH_WORDS = re.compile(r"\b(the|ball|balls|shot|shoots|rack|foul|break|breaks|wins|score|pocketed|hand|"
                           r"missed|chooses|push out by|to shoot|line)\b", re.IGNORECASE)


def explained(path: Path, language: str) -> list[str]:
    result = run("replay", "--explain", "--lang", language, str(path))
    assert result.returncode == 0, result.stderr
    return result.stdout.decode("utf-8").splitlines()


@pytest.mark.parametrize("language", ["en", "hr"])
@pytest.mark.parametrize("log", LOGS, ids=lambda path: path.stem)
def test_explain_of_every_worked_example_is_its_committed_text(log, language):
    expected = log.with_name(f"{log.stem}.explain.{language}.txt").read_text(encoding="utf-8").splitlines()
    assert explained(log, language) == expected


@pytest.mark.parametrize("log", [*LOGS, EXAMPLES.parent.parent.parent / "examples" / "match.jsonl"],
                         ids=lambda path: path.stem)
def test_every_english_line_has_a_croatian_line_that_is_not_english(log):
    english, croatian = explained(log, "en"), explained(log, "hr")
    assert len(croatian) == len(english)
    for en, hr in zip(english, croatian, strict=True):
        assert hr != en
        # what is left of English is the log's own field and type names (push out is the seed's own word)
        assert not ENGLISH_WORDS.search(re.sub(r"\b(push out|[a-z_]+_[a-z_]+|undo_shot|type|ball|player)\b", "",
                                               hr.replace("push out", ""))), hr


def test_the_seed_s_words_are_said():
    said = "\n".join(line for log in LOGS for line in explained(log, "hr"))
    for word in ("bijelu u ruci", "razbija", "faul", "devetku", "partij", "mantinel", "push out", "Devetku vratite",
                 "Na potezu:", "predaje meč", "Neriješena partija", "foot točku", "ispod head linije"):
        assert word in said, word


def test_lang_changes_the_words_not_the_json_lines():
    log = str(EXAMPLES / "12-apa-dead-balls-safeties-timeouts.jsonl")
    assert run("replay", "--lang", "hr", log).stdout == run("replay", "--lang", "en", log).stdout


def test_the_language_defaults_to_the_environment_s(tmp_path):
    log = write_log(tmp_path / "m.jsonl", BAD_HIT_LOG)
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("LANG", "LC_"))}
    said = subprocess.run([*devetka(), "replay", "--explain", str(log)], capture_output=True, timeout=60,
                          env={**environ, "LANG": "hr_HR.UTF-8"}).stdout.decode()
    assert said.splitlines()[2] == "Redak 10 nije primijenjen: pass, a nema push outa na koji se odgovara (5.6)."
    missing = subprocess.run([*devetka(), "replay", str(tmp_path / "none.jsonl")], capture_output=True, timeout=60,
                             env={**environ, "LANGUAGE": "hr"})
    assert missing.returncode == 2
    assert missing.stderr.decode().startswith(f"devetka replay: ne mogu pročitati {tmp_path / 'none.jsonl'}: ")

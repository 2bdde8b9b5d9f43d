"""Reading match-log lines: JSON text to typed inputs, every bad line an InputError."""


import pytest

from scoreboard.core.inputs import InputError, Pocket
from scoreboard.matchlog.jsonl import parse_line


def test_parse_line_reads_one_json_line():
    assert parse_line('{"type":"pocket","ball":3,"pocket":"foot_left"}\n') == Pocket(ball=3, pocket="foot_left")


@pytest.mark.parametrize("text", ["{", "", "not json", "{'type': 'strike'}", '{"type":"strike"} extra',
                                  '{"type":"strike",}'],
                         ids=["open brace", "empty", "words", "single quotes", "extra data", "trailing comma"])
def test_parse_line_rejects_text_that_is_not_json(text):
    with pytest.raises(InputError) as caught:
        parse_line(text)
    assert "not valid JSON" in str(caught.value)


@pytest.mark.parametrize("text", ["[]", "42", '"strike"', "null", "true"])
def test_parse_line_rejects_json_that_is_not_an_object(text):
    with pytest.raises(InputError) as caught:
        parse_line(text)
    assert "object" in str(caught.value)


@pytest.mark.parametrize("text", ['{"type":"strike","t":NaN}', '{"type":"strike","t":Infinity}',
                                  '{"type":"strike","t":1e999}'])
def test_parse_line_rejects_t_that_is_not_finite(text):
    """NaN and Infinity are not JSON, and 1e999 does not fit a double: the line is refused as such."""
    with pytest.raises(InputError) as caught:
        parse_line(text)
    assert str(caught.value).startswith("not valid JSON") and "column 22" in str(caught.value)


def test_parse_line_json_true_is_not_ball_1():
    with pytest.raises(InputError) as caught:
        parse_line('{"type":"identify","ball":true}')
    assert "ball" in str(caught.value) and "1-9" in str(caught.value)

"""Match-log lines as JSON text, read with orjson.

The rules core never sees JSON: it folds the typed inputs of
``scoreboard.core.inputs``. Reading a log is where the text is, and orjson decodes
its short lines five times faster than the standard library (the replay goal
needs it) and refuses deep nesting instead of overflowing the stack.

>>> parse_line('{"type":"pocket","ball":3,"pocket":"foot_left"}')
Pocket(ball=3, pocket='foot_left', t=None, src=None)
"""

from __future__ import annotations

import orjson

from scoreboard.core.inputs import Input, InputError, parse
from scoreboard.core.messages import msg


def parse_line(line: str | bytes) -> Input:
    """Parse one line of a match log (JSON Lines), or raise ``InputError`` naming what is wrong."""
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError as error:
        raise InputError(msg("not valid JSON: {error}", error=str(error))) from None
    return parse(raw)

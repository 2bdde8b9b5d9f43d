"""A Babel extractor for Kivy's ``.kv`` files: the messages of the Python expressions in them.

A kv file is not Python, but each property value and handler in it is: ``text: tr._('New match')``. The
extractor takes each line's value (after the first ``:``; a whole line in a handler's block), joins the lines of
a value whose brackets are still open, and hands it to Babel's own Python extractor, with the kv file's line
numbers. Directives (``#:import``) and comments are skipped. Babel finds it through the method
``scoreboard.i18n.kv:extract`` (``scoreboard/i18n/build.py``).

>>> import io
>>> kv = b"#:import tr scoreboard.ui.language.tr\\n<A>:\\n    text: tr._('New match')\\n    on_release:\\n" \\
...      b"        app.say(tr._('Saved'), (1,\\n            2))\\n"
>>> [(line, text) for line, _, text, _ in extract(io.BytesIO(kv), {"_": None}, [], {})]
[(3, 'New match'), (5, 'Saved')]
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

from babel.messages.extract import extract_python

_RULE_HEAD = re.compile(r"^\s*(<[^>]+>|[A-Za-z_][\w.@+]*)\s*:\s*$")
_PROPERTY = re.compile(r"^\s*[A-Za-z_][\w.]*\s*:\s*(.*)$")


def _expressions(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Each Python expression or statement of the kv file, with the line it begins on (1-based)."""
    index = 0
    while index < len(lines):
        line = lines[index]
        first = index + 1
        index += 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or _RULE_HEAD.match(line):
            continue
        found = _PROPERTY.match(line)
        code = found.group(1) if found else stripped
        if not code:
            continue
        while not _complete(code) and index < len(lines):
            code += "\n" + lines[index].strip()
            index += 1
        yield first, code


def _complete(code: str) -> bool:
    try:
        for _token in tokenize.generate_tokens(io.StringIO(code + "\n").readline):
            pass
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return False
    return True


def extract(fileobj: IO[bytes], keywords: Mapping[str, Any], comment_tags: Collection[str],
            options: Mapping[str, Any]) -> Iterator[tuple[int, Any, Any, Any]]:
    """Babel's extraction method for ``.kv`` files: (line, function, message, comments) per message found."""
    encoding = options.get("encoding", "utf-8")
    lines = fileobj.read().decode(encoding).splitlines()
    for first, code in _expressions(lines):
        found = extract_python(io.BytesIO(code.encode("utf-8")), keywords, comment_tags, {"encoding": "utf-8"})
        for line, funcname, message, comments in found:
            yield first + line - 1, funcname, message, comments

"""A match's result as a QR code a phone reads off the touchscreen: which served text goes in it, and its modules.

The daemon serves a match's result two ways (``{"cmd": "result"}``): the full text ``devetka export --result``
prints, and a compact one with the racks totalled. The code holds the full text while it fits a code whose
modules are still large enough to read off the 7" screen, else the compact one, and the screen says which; if
neither fits it shows no code and says so. segno makes the code (``error="l"``: a screen is not a worn sticker;
segno raises the error correction level anyway where the version allows it).

>>> code = result_code('{"match":1}', '{"match":1,"racks_left_out":true}')
>>> code.text, code.version, len(code.rows), code.compact
('{"match":1}', 1, 29, False)
>>> result_code("x" * 3000, "y" * 3000).rows
()
"""

from __future__ import annotations

from dataclasses import dataclass

import segno

#: The side of the code on the results screen, in design pixels (one ``u``: a pixel of the 800x480 screen) ...
SIDE_U = 420
#: ... the smallest module a phone reads off the 7" Pi screen (3 px there: 0.58 mm) ...
MODULE_MIN_U = 3
#: ... and the quiet zone around the code, in modules, as the QR standard asks.
BORDER = 4
#: The largest version (17 + 4v modules a side) whose modules are still ``MODULE_MIN_U`` or more.
MAX_VERSION = (SIDE_U // MODULE_MIN_U - 2 * BORDER - 17) // 4


@dataclass(frozen=True)
class Code:
    """What the results screen shows for a match: the text the code holds, its modules (True: dark), quiet
    zone included, top row first; no rows when no code could be made."""

    text: str
    rows: tuple[tuple[bool, ...], ...]
    version: int | None
    compact: bool


def modules(text: str, max_version: int = MAX_VERSION) -> tuple[tuple[bool, ...], ...] | None:
    """The QR code of ``text`` (its UTF-8 bytes), quiet zone included; None if it needs a version above
    ``max_version``."""
    try:
        code = segno.make_qr(text, error="l")
    except segno.DataOverflowError:
        return None
    if not isinstance(code.version, int) or code.version > max_version:  # an int: make_qr makes no Micro QR
        return None
    return tuple(tuple(bool(dark) for dark in row) for row in code.matrix_iter(border=BORDER))


def result_code(full: str, compact: str, max_version: int = MAX_VERSION) -> Code:
    """The code of ``full`` if it fits ``max_version``, else of ``compact``, else none."""
    for text, is_compact in ((full, False), (compact, True)):
        rows = modules(text, max_version)
        if rows is not None:
            return Code(text, rows, (len(rows) - 2 * BORDER - 17) // 4, is_compact)
    return Code("", (), None, True)

"""The result's QR code (scoreboard/ui/qr.py): the modules segno made decode to the served text, no code outgrows
what a phone reads off the 7" screen, and a result too long for one falls back to its compact form, then to none."""

from __future__ import annotations

import zxingcpp
from PIL import Image

from scoreboard.ui.qr import BORDER, MAX_VERSION, MODULE_MIN_U, SIDE_U, modules, result_code


def decoded(rows, pixels: int = 3) -> list[str]:
    """The code drawn as on the screen (``pixels`` a module, black on white) and read by zxing-cpp."""
    side = len(rows)
    image = Image.new("L", (side, side))
    image.putdata([0 if dark else 255 for row in rows for dark in row])
    return [found.text for found in zxingcpp.read_barcodes(image.resize((side * pixels, side * pixels),
                                                                         Image.Resampling.NEAREST))]


RESULT = '{"players":["Zvonimir Ćosić-Šarić","Đurđa Žagar"],"score":[3,1],"winner":0,"match":12}'


def test_the_modules_decode_to_the_text_croatian_letters_and_all():
    rows = modules(RESULT)
    assert decoded(rows) == [RESULT]
    assert all(not any(row) for row in rows[:BORDER]) and len({len(row) for row in rows}) == 1  # a quiet zone


def test_the_largest_code_allowed_keeps_every_module_three_design_pixels_wide():
    assert (17 + 4 * MAX_VERSION + 2 * BORDER) * MODULE_MIN_U <= SIDE_U
    assert (17 + 4 * (MAX_VERSION + 1) + 2 * BORDER) * MODULE_MIN_U > SIDE_U


def test_a_result_too_long_for_one_readable_code_gives_its_compact_form_and_then_none():
    long = '{"racks":[' + ",".join('{"rack":%d,"winner":0}' % n for n in range(120)) + "]}"
    assert modules(long) is None and modules(long, max_version=40) is not None  # it fits a code, just too fine
    code = result_code(long, RESULT)
    assert code.compact and code.text == RESULT and decoded(code.rows) == [RESULT]
    assert not result_code(RESULT, "{}").compact and result_code(RESULT, "{}").text == RESULT
    nothing = result_code(long, long)
    assert nothing.rows == () and nothing.text == "" and nothing.version is None

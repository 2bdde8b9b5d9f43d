"""Text that is never cut (scoreboard/ui/fit_text.py), in a real Kivy window under Xvfb: its fitted sizes
remembered. (Text fitted on every screen: tests/ui/test_app.py and test_layout.py.)"""

from __future__ import annotations


def test_a_text_fitted_before_gets_the_size_it_fitted_at_and_one_laid_out_differently_is_fitted_again(
        kivy_window, monkeypatch):
    """The fitted sizes remembered (``FitText``, issue 28): a label with the same text, room and everything Kivy lays
    text out by gets the size found before, drawn whole; a bold one (wider letters) is fitted on its own. The memory
    starts empty: a bold text may well fit at the same step of the way down as a regular one (it did, now and then,
    when this test's text had the clock's digits), so what shows it fitted on its own is its own entry."""
    from collections import OrderedDict

    from kivy.base import EventLoop

    from scoreboard.ui import fit_text
    from scoreboard.ui.fit_text import FitLabel

    monkeypatch.setattr(fit_text, "_FITTED", OrderedDict())
    text = "Zvonimir Ćosić-Šarić to shoot: ball in hand behind the head string"
    box = {"size_hint": (None, None), "size": (300, 90), "max_font": 40}
    first = FitLabel(text=text, **box)
    again = FitLabel(text=text, **box)
    bold = FitLabel(text=text, bold=True, **box)
    assert first.font_size < 40 and again.font_size == first.font_size  # shrunk to fit, and the same again
    assert len(fit_text._FITTED) == 2 and bold.font_size <= first.font_size  # the bold one has a size of its own
    assert list(again.texture_size) == [0, 0] != list(first.texture_size)  # not laid out again until drawn
    kivy_window.size = (800, 480)
    for label in (first, again, bold):
        kivy_window.add_widget(label)
    try:
        EventLoop.idle()  # the remembered size drawn by Kivy's own texture update, before the frame
        for label in (again, bold):
            assert label.texture_size[0] <= label.width - 2 * label.fit_padding + 1
            assert label.texture_size[1] <= label.height
        assert again.texture_size == first.texture_size
    finally:
        for label in (first, again, bold):
            kivy_window.remove_widget(label)

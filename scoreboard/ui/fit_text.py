"""Text that is never cut (``FitText``): as large as its room allows, from the largest size the layout gives it.

The sizes fitted are remembered (``FIT_MEMORY``): a screen laid out again finds its texts' sizes without rendering
each text at every size on the way down.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from kivy.properties import NumericProperty, StringProperty
from kivy.uix.label import Label


class FitText:
    """Text that is never cut: it wraps to the widget's width and shrinks from ``max_font`` until every line fits
    (and no word is broken across two lines).

    Layout says how large text may be (``max_font``, in the kv files); this makes it as large as fits, so a
    20-character name or a longer sentence in another language is smaller rather than clipped.
    """

    max_font = NumericProperty(28)
    min_font = NumericProperty(9)
    fit_padding = NumericProperty(4)
    """Room left on each side, in window pixels."""
    whole = StringProperty(None, allownone=True)
    """Set instead of ``text`` where a text may be cut short rather than set smaller than ``min_font``: ``text``
    is then ``whole``, or as many of its words as fit at ``min_font`` and "…" (the ruling: "Why?" has it whole)."""

    def __init__(self, **kwargs: Any) -> None:
        self._fitting = False
        super().__init__(**kwargs)
        self.bind(text=self._fit, size=self._fit, max_font=self._fit, min_font=self._fit, bold=self._fit,
                  fit_padding=self._fit, whole=self._fit)
        self._fit()

    def _fit(self, *_args: Any) -> None:
        if self._fitting:
            return
        self._fitting = True
        try:
            if self.whole is not None:
                self.text = self.whole
            if not self._fit_size() and self.whole:
                self.text = self._cut_short()
                self._fit_size()
        finally:
            self._fitting = False

    def _fit_size(self) -> bool:
        """The largest size from ``max_font`` down to ``min_font`` at which the text fits: whether one did."""
        width, height = self.width - 2 * self.fit_padding, self.height
        if width < 4 or height < 4 or not self.text:
            self.font_size = self.max_font
            return True
        self.text_size = (width, None)
        key = self._fit_key(width, height)
        known = _FITTED.get(key)
        if known is not None:  # laid out before with everything that decides it the same: the same size fits
            _FITTED.move_to_end(key)
            self.font_size, fitted = known
            return fitted
        size = self.max_font
        while True:
            fitted = self._fits(size)
            if fitted or size <= self.min_font:
                break
            size = max(self.min_font, size * 0.92)
        _FITTED[key] = (size, fitted)
        if len(_FITTED) > FIT_MEMORY:
            _FITTED.popitem(last=False)
        return fitted

    def _fit_key(self, width: float, height: float) -> tuple:
        """Everything the fitted size follows from: the room, the bounds, and every property of the label that
        Kivy lays its text out by (``Label._font_properties``, less the two the fit sets)."""
        font = tuple(_hashable(getattr(self, name)) for name in Label._font_properties
                     if name not in ("font_size", "text_size"))
        return (width, height, self.max_font, self.min_font, self.disabled, *font)

    def _fits(self, size: float) -> bool:
        self.font_size = size
        self.texture_update()
        fits = self.texture_size[0] <= self.width - 2 * self.fit_padding + 1 and self.texture_size[1] <= self.height
        return fits and _laid_out_words(self._label) == self.text.split()  # no word broken across lines

    def _cut_short(self) -> str:
        """``whole``'s most words that fit at ``min_font`` with "…" after them (at least the first word)."""
        words = self.whole.split(" ")
        shown, most = 1, len(words) - 1
        while shown < most:  # the words shown fit; more than ``most`` do not
            middle = (shown + most + 1) // 2
            self.text = _shortened(words, middle)
            if self._fits(self.min_font):
                shown = middle
            else:
                most = middle - 1
        return _shortened(words, shown)


#: How many fitted sizes are remembered (the least recently used go first): a screen built or laid out again at a
#: size seen before (the next rack, the same screen opened again, a test's fresh app) finds its texts' sizes here
#: instead of rendering each text at every size it tries on the way down.
FIT_MEMORY = 4096
_FITTED: OrderedDict[tuple, tuple[float, bool]] = OrderedDict()
"""Fit key -> the size fitted, and whether the text fit at it (else it is ``min_font`` and may be cut short)."""


def _hashable(value: Any) -> Any:
    """A label property as part of a key: lists (colours, padding) as tuples, a dict (``ellipsis_options``) as its
    sorted items."""
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    return value


def _shortened(words: list[str], count: int) -> str:
    """The first ``count`` words and "…", the last word's trailing punctuation dropped, and a bracket left open
    dropped with what follows it.

    >>> _shortened(["Ana", "fouled.", "Ben", "has", "ball", "in", "hand."], 2)
    'Ana fouled…'
    >>> _shortened("Taken back: the end of the shot (the table came to rest).".split(), 8)
    'Taken back: the end of the shot…'
    """
    text = " ".join(words[:count])
    if text.count("(") > text.count(")") and text.rindex("(") > 0:
        text = text[:text.rindex("(")]
    return text.rstrip(",.;: ") + "…"


def _laid_out_words(label: Any) -> list[str]:
    """The words as the label laid them out: a word broken across two lines comes back as two. (Counting lines
    against words missed that where the text has a line break of its own: "Extension\n+25 s" in three lines.)"""
    return " ".join(word.text for line in label._cached_lines for word in line.words).split()


class FitLabel(FitText, Label):
    """A label whose text always fits (``FitText``)."""


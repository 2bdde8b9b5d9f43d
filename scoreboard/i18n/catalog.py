"""The catalogs at run time: the compiled ``.mo`` of each language, read with the standard library's gettext.

The compiled catalogs are committed beside their ``.po`` (docs/i18n.md says why), so a fresh checkout, an
editable install and a wheel all have them with no build step; a test fails when one is older than its ``.po``.

>>> from scoreboard.core.messages import msg, render
>>> render(msg("{name} has ball in hand.", name="Ana"), catalog("hr"))
'Ana ima bijelu u ruci.'
>>> catalog("xx") is catalog("en")
True
"""

from __future__ import annotations

import functools
import gettext
import os
import re
from pathlib import Path

from scoreboard.core.messages import ENGLISH, LANGUAGES, Catalog

DOMAIN = "devetka"
LOCALE_DIR = Path(__file__).with_name("locale")
__all__ = ["LANGUAGES", "NAMES", "catalog", "environment_language", "language_code"]
#: Each language's name in itself, for the buttons that choose it.
NAMES = {"en": "English", "hr": "hrvatski"}


@functools.cache
def catalog(language: str | None) -> Catalog:
    """The catalog of ``language`` ("hr", "hr_HR.UTF-8"); English (the source text) for any other."""
    code = language_code(language)
    if code == "en":
        return ENGLISH
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[code])


def language_code(language: str | None) -> str:
    """The language of a tag or locale name ("hr_HR.UTF-8", "hr-HR", "HR"), if it is one of ours; else "en".

    >>> language_code("hr_HR.UTF-8"), language_code("de"), language_code(None)
    ('hr', 'en', 'en')
    """
    code = re.split(r"[_.@-]", (language or "").strip().lower(), maxsplit=1)[0]
    return code if code in LANGUAGES else "en"


def environment_language(environ: dict[str, str] | None = None) -> str:
    """The language the environment asks for, as gettext reads it (LANGUAGE, LC_ALL, LC_MESSAGES, LANG); "en"
    where none of ours is asked for."""
    environ = dict(os.environ) if environ is None else environ
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable)
        if value:
            for wanted in value.split(":"):
                if language_code(wanted) != "en" or wanted.lower().startswith("en"):
                    return language_code(wanted)
            return "en"
    return "en"

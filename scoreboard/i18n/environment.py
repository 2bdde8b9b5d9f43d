"""The command line in the environment's language: our messages, and argparse's own words from our catalog.

The language is the environment's, as gettext reads it (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), English where it
asks for none of ours. ``speak_environment`` is what the ``devetka`` command calls first: it makes Devetka's
catalog the program's gettext domain (``gettext.textdomain``, the standard library's way for a program to
give its libraries its translations), so argparse's "usage:", "error:", "show this help message and exit" and
"the following arguments are required" are said from it. It is called by the program, never on an import.

``_`` says one of our messages in that language (the extraction of the catalogs finds every call);
``said`` puts a message of the core's (a ``ConfigError``'s, a ``StoreError``'s) into it.

>>> from scoreboard.core.messages import msg
>>> said(msg("no match {match} in the store", match=3), {"LANG": "hr_HR.UTF-8"})
'u spremištu nema meča 3'
>>> said(msg("no match {match} in the store", match=3), {"LANG": "C.UTF-8"})
'no match 3 in the store'
"""

from __future__ import annotations

import gettext

from scoreboard.core.messages import Arg, Catalog, render
from scoreboard.i18n.catalog import DOMAIN, LOCALE_DIR, catalog, environment_language

__all__ = ["ARGPARSE", "N_", "_", "ngettext", "said", "speak_environment", "words"]


def N_(text: str) -> str:  # noqa: N802 (gettext's name for a message marked, said later)
    return text


#: argparse's words a person reads (Python 3.11's ``argparse``), each marked here so that our catalog has them;
#: tests/i18n/test_environment.py fails when argparse says one that is not here. Its errors in a program's own
#: code (a conflicting option string, ``dest=`` required) are a developer's, and left in English.
ARGPARSE = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
)


def speak_environment() -> None:
    """Give argparse (and any library that asks gettext) Devetka's catalog in the environment's language."""
    gettext.bindtextdomain(DOMAIN, str(LOCALE_DIR))
    gettext.textdomain(DOMAIN)


def words(environ: dict[str, str] | None = None) -> Catalog:
    """The catalog of the environment's language."""
    return catalog(environment_language(environ))


def _(text: str) -> str:
    """One of our messages in the environment's language."""
    return words().gettext(text)


def ngettext(singular: str, plural: str, n: int) -> str:
    """One of our messages with plural forms, in the environment's language (Croatian has three)."""
    return words().ngettext(singular, plural, n)


def expected_arguments(n: int) -> str:
    """argparse's one message with plural forms ("expected 2 arguments"), as our catalog says it."""
    return ngettext("expected %s argument", "expected %s arguments", n)


def said(message: Arg, environ: dict[str, str] | None = None) -> str:
    """A message (an error's) in the environment's language."""
    return render(message, words(environ))

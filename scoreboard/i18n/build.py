"""Build the catalogs from the code, with Babel: ``python -m scoreboard.i18n.build [--check]``.

A developer's tool (Babel is a test dependency, not a run-time one). It extracts every message a person reads
from the code: ``msg``/``msg_n`` in the core, ``_``/``gettext``/``ngettext``/``N_`` elsewhere in Python, ``tr._``
in the touchscreen's ``.kv`` files (``scoreboard.i18n.kv``) and ``_``/``ngettext`` in the venue board's
JavaScript, into ``locale/devetka.pot``; brings each language's ``.po`` up to date with it (new messages come in
untranslated, a changed one fuzzy, a gone one leaves); and compiles each ``.po`` to the ``.mo`` Python reads
and to the script the venue board reads (``scoreboard/venue/board/i18n/LANG.js``: a classic script, as the
board's own, which Mosquitto's http_dir serves without a content type and a page opened from a file still
loads). ``--check`` writes nothing and says what is out of date, untranslated or in a wording the glossary avoids
(``scoreboard.i18n.glossary``; the test suite runs it: tests/i18n/test_build.py).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from scoreboard.i18n.catalog import DOMAIN, LANGUAGES, LOCALE_DIR
from scoreboard.i18n.glossary import misworded
from scoreboard.i18n.rules import board_rules, texts

PACKAGE = Path(__file__).resolve().parents[1]
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
BOARD_DIR = PACKAGE / "venue" / "board" / "i18n"
KEYWORDS = {**DEFAULT_KEYWORDS, "msg": None, "msg_n": (1, 2)}
METHODS = [
    ("ui/kv/*.kv", "scoreboard.i18n.kv:extract"),
    ("ui/screens/*.kv", "scoreboard.i18n.kv:extract"),
    ("venue/board/*.js", "javascript"),
    ("**.py", "python"),
]
TRANSLATED = tuple(code for code in LANGUAGES if code != "en")


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(language: str) -> Path:
    return po_path(language).with_suffix(".mo")


def board_path(language: str) -> Path:
    return BOARD_DIR / f"{language}.js"


def _directories(path: str) -> bool:
    return not any(part in ("__pycache__", "vendor", "locale") for part in Path(path).parts)


def extracted(package: Path = PACKAGE) -> Catalog:
    """Every message of the code, as a template (file names, no line numbers: moving code changes nothing)."""
    template = Catalog(project="Devetka", domain=DOMAIN, fuzzy=False)
    for filename, _lineno, message, comments, context in extract_from_dir(
            package, METHODS, keywords=KEYWORDS, directory_filter=_directories):
        where: list[tuple[str, Any]] = [(f"scoreboard/{filename}", None)]  # Babel writes None as no line number
        template.add(message, None, where, auto_comments=comments, context=context)
    return template


def _ids(catalog: Catalog) -> set[str | tuple[str, ...]]:
    return {message.id if isinstance(message.id, str) else tuple(message.id) for message in catalog if message.id}


def _read(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as stream:
        return read_po(stream, locale=language)


def _po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=120, include_lineno=False, ignore_obsolete=True, omit_header=False)
    return out.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def board_bytes(catalog: Catalog | None, language: str) -> bytes:
    """What the venue board reads for ``language``: its plural rule, every message (a string, or the list of
    plural forms under the singular id) and the rules' texts for "Why?"."""
    messages: dict[str, object] = {}
    plural = "n != 1"
    if catalog is not None:
        plural = catalog.plural_expr
        for message in catalog:
            if not message.id or message.fuzzy:
                continue
            if isinstance(message.id, str):
                messages[message.id] = message.string
            else:
                messages[message.id[0]] = list(message.string or ())
    data = {"language": language, "plural": plural, "messages": messages, "rules": board_rules(language)}
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, indent=0)
    return (f"// Made by python -m scoreboard.i18n.build from the catalog: do not edit.\n"
            f"(window.devetkaCatalogs = window.devetkaCatalogs || {{}})[{json.dumps(language)}] = {text};\n").encode()


_FIELD = re.compile(r"\{(\w*)\}")


def _fields(text: str) -> set[str]:
    return set(_FIELD.findall(text))


def untranslated(catalog: Catalog) -> list[str]:
    """Each message of ``catalog`` with no translation, a fuzzy one, or one whose {names} are not the source's."""
    wrong = []
    for message in catalog:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string or ())
        source = set().union(*(_fields(text) for text in ids))
        if message.fuzzy:
            wrong.append(f"fuzzy (check it, then drop the flag): {ids[0]!r}")
        elif not all(strings) or len(strings) != (1 if isinstance(message.id, str) else catalog.num_plurals):
            wrong.append(f"not translated: {ids[0]!r}")
        elif any(_fields(text) - source or (source - {"n"}) - _fields(text) for text in strings):
            wrong.append(f"the translation's {{names}} differ from the source's: {ids[0]!r}")
    return wrong


def said(catalog: Catalog, language: str) -> list[tuple[str, str]]:
    """Every (English, translation) of ``language``: the catalog's messages (each plural form) and the rules'
    texts for "Why?", the glossary's to check."""
    pairs = []
    for message in catalog:
        if message.id and not message.fuzzy:
            ids = [message.id] if isinstance(message.id, str) else list(message.id)
            strings = [message.string] if isinstance(message.string, str) else list(message.string or ())
            pairs += [(" / ".join(ids), string) for string in strings if string]
    english = texts("en")
    pairs += [(f"{english[number].title}\n{english[number].body}", f"{rule.title}\n{rule.body}")
              for number, rule in texts(language).items() if number in english]
    return pairs


def problems() -> list[str]:
    """What is out of date or missing, each in a sentence; none when the catalogs match the code."""
    found = []
    fresh = extracted()
    if not TEMPLATE.exists() or _ids(_read(TEMPLATE)) != _ids(fresh):
        committed = _ids(_read(TEMPLATE)) if TEMPLATE.exists() else set()
        new = sorted(map(str, _ids(fresh) - committed))
        gone = sorted(map(str, committed - _ids(fresh)))
        found.append(f"{TEMPLATE.name} is out of date with the code (new: {new}, gone: {gone}): "
                     "run python -m scoreboard.i18n.build")
    for language in TRANSLATED:
        po = _read(po_path(language), language)
        if _ids(po) != _ids(fresh):
            found.append(f"{language}: {po_path(language).name} is out of date with the code: "
                         "run python -m scoreboard.i18n.build, then translate what it adds")
        found += [f"{language}: {problem}" for problem in untranslated(po) + misworded(said(po, language), language)]
        if not mo_path(language).exists() or mo_path(language).read_bytes() != mo_bytes(po):
            found.append(f"{language}: {mo_path(language).name} is not compiled from its .po: "
                         "run python -m scoreboard.i18n.build")
    for language in LANGUAGES:
        translated = _read(po_path(language), language) if language in TRANSLATED else None
        if not board_path(language).exists() or board_path(language).read_bytes() != board_bytes(translated,
                                                                                                  language):
            found.append(f"{language}: the venue board's {board_path(language).name} is not made from the catalog: "
                         "run python -m scoreboard.i18n.build")
    return found


def build() -> list[str]:
    """Write the template, update each ``.po`` and compile it; returns what is still to translate."""
    fresh = extracted()
    if TEMPLATE.exists():
        before = _read(TEMPLATE)
        if _ids(before) == _ids(fresh):
            fresh.creation_date = before.creation_date
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_bytes(_po_bytes(fresh))
    left = []
    BOARD_DIR.mkdir(parents=True, exist_ok=True)
    for language in TRANSLATED:
        path = po_path(language)
        if path.exists():
            po = _read(path, language)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            po = Catalog(locale=language, project="Devetka", domain=DOMAIN, fuzzy=False)
        po.update(fresh, update_creation_date=True)
        path.write_bytes(_po_bytes(po))
        po = _read(path, language)
        mo_path(language).write_bytes(mo_bytes(po))
        board_path(language).write_bytes(board_bytes(po, language))
        left += [f"{language}: {problem}" for problem in untranslated(po) + misworded(said(po, language), language)]
    board_path("en").write_bytes(board_bytes(None, "en"))
    return left


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoreboard.i18n.build", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; say what is out of date (exit 1)")
    args = parser.parse_args(argv)
    said = problems() if args.check else build()
    for line in said:
        print(line, file=sys.stderr)
    return 1 if said else 0


if __name__ == "__main__":
    sys.exit(main())

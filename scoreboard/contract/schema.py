"""The served records' JSON Schemas, generated from ``scoreboard.contract.records``, committed in docs/schema/.

``python -m scoreboard.contract.schema --write`` writes them again after a record changed; ``--check`` (and
tests/contract/test_schema.py) fails while the committed files and the records differ.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from scoreboard.contract.records import Actions, Answer, Event, Refusal, Ruling, State

#: Each schema file's name (``<name>.schema.json``), its title and the record it describes (records: one of them).
SCHEMAS: dict[str, tuple[str, Any]] = {
    "state": ("devetka/<table>/state: the state, retained", State),
    "actions": ("the state's actions: what may be tapped now", Actions),
    "ruling": ("a ruling: the state's last_verdict and a verdict event's verdict", Ruling),
    "event": ("devetka/<table>/event: a stored input, or the ruling it gave", Event),
    "refusal": ("a refused request's answer (cmd/result, the local API)", Refusal),
    "result": ("devetka/<table>/cmd/result: a request's answer, taken or refused", (Answer, Refusal)),
}

#: Where the committed schemas are, in a checkout.
FOLDER = Path(__file__).resolve().parents[2] / "docs" / "schema"


def schema(name: str) -> dict[str, Any]:
    """One record's JSON Schema (draft 2020-12), its definitions inline."""
    title, record = SCHEMAS[name]
    if isinstance(record, tuple):
        refs, defs = msgspec.json.schema_components(record, ref_template="#/$defs/{name}")
        generated: dict[str, Any] = {"oneOf": list(refs), "$defs": defs}
    else:
        generated = msgspec.json.schema(record)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"devetka/{name}", "title": title,
            **generated}


def text(name: str) -> str:
    return json.dumps(schema(name), indent=2, ensure_ascii=False) + "\n"


def stale(folder: Path = FOLDER) -> list[str]:
    """The schema files that differ from the records (or are missing)."""
    return [name for name in SCHEMAS
            if not (folder / f"{name}.schema.json").is_file()
            or (folder / f"{name}.schema.json").read_text(encoding="utf-8") != text(name)]


def write(folder: Path = FOLDER) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SCHEMAS:
        path = folder / f"{name}.schema.json"
        path.write_text(text(name), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoreboard.contract.schema", description=__doc__.split("\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="write the schemas from the records")
    action.add_argument("--check", action="store_true", help="fail while a committed schema differs")
    parser.add_argument("--folder", type=Path, default=FOLDER, help="where the schemas are (docs/schema)")
    options = parser.parse_args(argv)
    if options.write:
        for path in write(options.folder):
            print(path)
        return 0
    differing = stale(options.folder)
    for name in differing:
        print(f"{options.folder / name}.schema.json differs from scoreboard.contract.records: run "
              "python -m scoreboard.contract.schema --write", file=sys.stderr)
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())

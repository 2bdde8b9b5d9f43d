"""What a client receives, checked against the committed contract (docs/schema/*.schema.json), as any client would.

Every test that receives states, events or answers (the touchscreen's, the board's, MQTT's) checks them with
``valid``: a field served but not declared, a missing one or a wrong type fails there, naming the field.

Two validators of the same schema: jsonschema-rs decides (a served state took jsonschema 10 ms, thousands of times
a run; the Rust one about 10 µs), and jsonschema, the reference implementation, names what is wrong when it says no.
"""

import json
from functools import cache
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator

from tests.paths import REPO


def _schema(kind: str) -> dict:
    return json.loads((REPO / "docs" / "schema" / f"{kind}.schema.json").read_text(encoding="utf-8"))


@cache
def validator(kind: str) -> Draft202012Validator:
    schema = _schema(kind)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@cache
def _quick(kind: str) -> jsonschema_rs.Draft202012Validator:
    return jsonschema_rs.Draft202012Validator(_schema(kind))


def problems(kind: str, payload: Any) -> list[str]:
    """Every field of ``payload`` that does not fit ``docs/schema/<kind>.schema.json``, named (empty: it fits)."""
    if _quick(kind).is_valid(payload):
        return []
    found = [f"{'.'.join(map(str, error.absolute_path)) or '(the object)'}: {error.message}"
             for error in validator(kind).iter_errors(payload)]
    return found or ["(the object): refused by jsonschema-rs, though jsonschema lets it through"]


def valid(kind: str, payload: Any) -> Any:
    """``payload`` as received, once it fits ``docs/schema/<kind>.schema.json`` (else an AssertionError naming
    every field that does not)."""
    found = problems(kind, payload)
    assert not found, f"a served {kind} does not fit docs/schema/{kind}.schema.json:\n" + "\n".join(found)
    return payload

"""What a client receives, checked against the committed contract (docs/schema/*.schema.json), as any client would.

Every test that receives states, events or answers (the touchscreen's, the board's, MQTT's) checks them with
``valid``: a field served but not declared, a missing one or a wrong type fails there, naming the field.
"""

import json
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from tests.paths import REPO


@cache
def validator(kind: str) -> Draft202012Validator:
    schema = json.loads((REPO / "docs" / "schema" / f"{kind}.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def valid(kind: str, payload: Any) -> Any:
    """``payload`` as received, once it fits ``docs/schema/<kind>.schema.json`` (else an AssertionError naming
    every field that does not)."""
    problems = [f"{'.'.join(map(str, error.absolute_path)) or '(the object)'}: {error.message}"
                for error in validator(kind).iter_errors(payload)]
    assert not problems, f"a served {kind} does not fit docs/schema/{kind}.schema.json:\n" + "\n".join(problems)
    return payload

"""A pytest plugin: each test's CPU time by phase (set-up, call, tear-down in pytest's process, and the children it
reaped: a ``devetka run``, a broker), summed and the costliest set-ups listed at the end. One process only (without
pytest-xdist's workers: their hooks run where the controller cannot add them up).

    PYTHONPATH=bench .venv/bin/python -m pytest tests/ui -p phases -p no:xdist [-q]

What it measured for issue 28 (the touchscreen fixture's set-up before and after the fitted sizes were remembered):
bench/README.md, "The suite"."""

from __future__ import annotations

import resource

import pytest

_PHASES = ("setup", "call", "teardown", "children")
_tests: list[dict] = []
_open: dict[str, dict] = {}


def _own() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    record = _open[item.nodeid] = {"id": item.nodeid, "children": -_children()}
    start = _own()
    yield
    record["setup"] = _own() - start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    start = _own()
    yield
    _open[item.nodeid]["call"] = _own() - start


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    start = _own()
    yield
    record = _open.pop(item.nodeid)
    record["teardown"] = _own() - start
    record["children"] += _children()
    _tests.append(record)


def pytest_terminal_summary(terminalreporter):
    write = terminalreporter.write_line
    totals = {phase: sum(record.get(phase, 0.0) for record in _tests) for phase in _PHASES}
    write(f"phases: {len(_tests)} tests, CPU s: " + ", ".join(f"{p} {t:.1f}" for p, t in totals.items()))
    for record in sorted(_tests, key=lambda r: -r.get("setup", 0.0))[:15]:
        write(f"phases:   set-up {record.get('setup', 0.0):5.2f} s, call {record.get('call', 0.0):5.2f} s, "
              f"children {record['children']:5.2f} s  {record['id']}")

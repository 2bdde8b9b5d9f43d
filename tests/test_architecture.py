"""The house keeps its shape (docs/architecture.md): no import circle, the import contracts, a typed core.

Every import counts, also one made inside a function: grimp, import-linter's own graph, sees them all.
"""

import subprocess
import sys
from pathlib import Path

import grimp

from tests.paths import REPO

PACKAGES = ("scoreboard", "hardware", "firmware_bridge")
BIN = Path(sys.executable).parent


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import circles among modules: Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def product_graph() -> grimp.ImportGraph:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)  # no cache file in the checkout
    for package in PACKAGES:  # a package's __init__ importing its own modules is not a circle between rooms
        graph.remove_module(package)
    return graph


def test_circles_finds_a_circle_it_is_shown():
    graph = grimp.ImportGraph()
    for module in ("a", "b", "c"):
        graph.add_module(module)
    graph.add_import(importer="a", imported="b")
    graph.add_import(importer="b", imported="c")
    graph.add_import(importer="c", imported="a")
    assert circles(graph) == [["a", "b", "c"]]


def test_no_import_circle_among_the_products_modules():
    assert circles(product_graph()) == []


def test_the_import_contracts_are_kept():
    out = subprocess.run([str(BIN / "lint-imports"), "--no-cache"], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout


def test_the_core_is_typed_strictly():
    out = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", "/dev/null"],
                         cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-6000:]

"""The layout stays true: the import graph, built from the source, has no cycle and points one way.

Every ``import`` and ``from ... import`` counts, nested ones (inside functions, under
``TYPE_CHECKING``) included. Dependencies run from values up to the front-ends:

values (words and errors -> rules -> tiles -> sets -> positions -> answers -> files and workers)
-> validator -> tables made legal -> integer programs as data -> models -> backends -> solve
-> one-turn services
-> game and puzzles -> front-ends (web, then cli, which may start the web app).

A module may import its own layer or a lower one, never a higher one, and never its own package's
``__init__`` (a dispatcher imports its variants; the variants never import it back).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import ROOT

PACKAGES = ("solver", "puzzles", "cli", "web")

# Layers, lowest first; a module belongs to the first layer one of whose prefixes it matches.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("words and errors", ("solver.errors", "solver.wording")),
    ("reading and writing files", ("solver.file_io",)),
    ("rules", ("solver.rules",)),
    ("tiles", ("solver.tiles",)),
    ("sets", ("solver.melds", "solver.jokers")),
    ("positions", ("solver.position", "solver.initial_meld")),
    ("answers", ("solver.joker_account", "solver.solution")),
    ("files and workers", ("solver.files", "solver.executors")),
    ("validator", ("solver.validator",)),
    ("tables made legal", ("solver.joker_swaps",)),
    ("integer programs as data", ("solver.lp",)),
    ("models", ("solver.model",)),
    ("backends", ("solver.backends",)),
    ("solve", ("solver.solve",)),
    (
        "one-turn services",
        (
            "solver.least_moves",
            "solver.steps",
            "solver.check",
            "solver.hint",
            "solver.arrange",
            "solver.batch",
            "solver.svg",
        ),
    ),
    ("game and puzzles", ("solver.game", "puzzles")),
    ("library front door", ("solver",)),
    ("web front-end", ("web",)),
    ("command line", ("cli",)),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py*")):
            if path.suffix in (".py", ".pyi"):
                found.setdefault(module_name(path), path)
    return found


MODULES = source_modules()


def imports(path: Path) -> Iterator[tuple[str, int]]:
    """The project modules ``path`` imports, with the line of each import."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: relative import; write the module's full name"
            base = node.module or ""
            if base.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub if sub in MODULES else base), node.lineno


def graph() -> dict[str, list[tuple[str, int]]]:
    return {name: [(m, line) for m, line in imports(path) if m != name] for name, path in MODULES.items()}


def layer(module: str) -> int:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"module {module} is in no layer: add it to LAYERS")


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        layer(name)


def test_no_import_cycles() -> None:
    edges = {name: sorted({m for m, _ in targets}) for name, targets in graph().items()}
    # Tarjan's strongly connected components, iteratively.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, [])
            if i < len(targets):
                work.append((node, i + 1))
                nxt = targets[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    assert not cycles, f"import cycles: {cycles}"


def test_imports_point_down_the_layers() -> None:
    wrong = []
    for name, targets in graph().items():
        for target, line in targets:
            if layer(target) > layer(name):
                wrong.append(
                    f"{MODULES[name].relative_to(ROOT)}:{line}: {name} ({LAYERS[layer(name)][0]})"
                    f" imports {target} ({LAYERS[layer(target)][0]})"
                )
    assert not wrong, "\n".join(wrong)


def test_no_module_imports_its_own_dispatcher() -> None:
    wrong = []
    for name, targets in graph().items():
        parent = name.rsplit(".", 1)[0]
        if "." not in name or MODULES[name].name == "__init__.py":
            continue
        wrong += [f"{name} imports {parent}" for target, _ in targets if target == parent and parent != "solver"]
    assert not wrong, wrong


def test_only_the_game_imports_the_game() -> None:
    wrong = [
        f"{name} imports {target}"
        for name, targets in graph().items()
        for target, _ in targets
        if target.startswith("solver.game")
        and name.startswith(("solver.", "puzzles"))
        and not name.startswith("solver.game")
    ]
    assert not wrong, wrong


def test_nothing_inside_the_library_imports_its_front_door() -> None:
    """``solver/__init__`` re-exports the front door; a module inside importing it would loop."""
    wrong = [
        f"{name} imports solver"
        for name, targets in graph().items()
        for target, _ in targets
        if target == "solver" and name != "solver"
    ]
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [("solver.validator", "solver.model"), ("solver.validator", "solver.backends"), ("solver.validator", "solver.solve")],
)
def test_validator_is_independent_of_the_models(module: str, forbidden: str) -> None:
    reached: set[str] = set()
    todo = [module]
    edges = graph()
    while todo:
        current = todo.pop()
        for target, _ in edges.get(current, []):
            if target not in reached:
                reached.add(target)
                todo.append(target)
    assert not [m for m in reached if m == forbidden or m.startswith(forbidden + ".")]


def test_the_front_door_solves_a_position() -> None:
    """What a user of the library finds without the tree: the names the package re-exports."""
    import solver

    position = solver.Position.from_strings("R5 B7 O7", ["R4 J R6", "K1 K2 K3"])
    answer = solver.solve(position, solver.SolveOptions(objective=solver.Objective.TILES))
    assert isinstance(answer, solver.Solution) and answer.tiles_played == 3
    assert solver.validate(position, [s.tiles for s in answer.table]) == []
    assert isinstance(position.rules, solver.RuleSet)

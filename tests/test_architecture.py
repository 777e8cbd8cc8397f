"""The shape of ``src/nimmt``: which package may import which, no import cycles, no huge modules.

Imports are read with :mod:`ast` from every ``.py`` file under ``src/nimmt``, wherever they are:
at the top of a module, inside functions (the lazy imports that keep ``nimmt --help`` fast) and
under ``if TYPE_CHECKING:``. Nothing is imported or run. A relative import is resolved against
the importing module, and ``from nimmt.x import y`` is an import of the module ``nimmt.x.y``
when ``y`` is a submodule, else of ``nimmt.x``. Importing ``nimmt.x.y`` is an edge to
``nimmt.x.y`` only: the package ``nimmt.x`` that Python initializes on the way is not counted,
so a package's ``__init__`` importing its own submodules is not a cycle by itself (but a
submodule importing ``from nimmt.x import Name`` back from that ``__init__`` is). Modules loaded
by name from strings (uvicorn's ``"nimmt.server:create_app"``, gymnasium's entry points) are not
imports here.

There are no exceptions to list: a violation fails its test, naming the importing module, the
imported module and the line (docs/architecture.md states the rules for the reader).
"""

from __future__ import annotations

import ast
import textwrap
from collections import deque
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "nimmt"
STATIC = PACKAGE / "web" / "static"

PYTHON_MAX_LINES = 600
JS_MAX_LINES = 450

# -- Layering rules: one test row each. --


@dataclass(frozen=True)
class Rule:
    """Modules within ``importers`` (but not within ``exempt``) may import, of ours, only modules
    within ``may_import`` (when given) and none within ``may_not_import``. "Within" a name is
    that module or anything below it."""

    id: str
    importers: tuple[str, ...]
    may_import: tuple[str, ...] | None = None
    may_not_import: tuple[str, ...] = ()
    exempt: tuple[str, ...] = ()

    def applies_to(self, module: str) -> bool:
        return within(module, self.importers) and not within(module, self.exempt)

    def allows(self, imported: str) -> bool:
        if within(imported, self.may_not_import):
            return False
        return self.may_import is None or within(imported, self.may_import)


RULES = (
    # The rules of the game stand alone.
    Rule("engine", importers=("nimmt.engine",), may_import=("nimmt.engine",)),
    # The bots and the game records are the layer on top of the engine, side by side.
    Rule("bots", importers=("nimmt.bots",), may_import=("nimmt.engine", "nimmt.bots")),
    Rule("records", importers=("nimmt.records",), may_import=("nimmt.engine", "nimmt.records")),
    # The arena and the learning environments use that layer (the arena writes the records of
    # the games it plays) and nothing above it: no server, terminal, client, assistant or CLI.
    Rule(
        "arena",
        importers=("nimmt.arena",),
        may_import=("nimmt.engine", "nimmt.bots", "nimmt.records", "nimmt.arena"),
    ),
    Rule(
        "env",
        importers=("nimmt.env",),
        may_import=("nimmt.engine", "nimmt.bots", "nimmt.records", "nimmt.env"),
    ),
    # The server is the top of its own stack. Its one importer outside is the command that
    # starts it, `nimmt serve` (nimmt.cli.serve: create_app, Settings and SqlStorage).
    Rule(
        "server",
        importers=("nimmt",),
        may_not_import=("nimmt.server",),
        exempt=("nimmt.server", "nimmt.cli.serve", "nimmt.cli.admin"),
    ),
)


# -- The module graph, read from the source. --


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int

    def __str__(self) -> str:
        return f"{self.importer} imports {self.imported} (line {self.line})"


def within(module: str, names: Iterable[str]) -> bool:
    return any(module == name or module.startswith(f"{name}.") for name in names)


def modules_under(src: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` (a folder in ``src``) by dotted name, packages included."""
    modules = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imports_in(module: str, path: Path, modules: Collection[str], ours: str) -> Iterator[Import]:
    """The imports of package ``ours`` in one module's source, anywhere in it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package, one level up per extra dot
                package = module if path.name == "__init__.py" else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            submodules = (f"{base}.{alias.name}" for alias in node.names)
            targets = [name if name in modules else base for name in submodules]
        else:
            continue
        for target in targets:
            if within(target, [ours]):
                yield Import(module, target, node.lineno)


def import_graph(src: Path = SRC, package: str = "nimmt") -> tuple[list[str], list[Import]]:
    """The modules of ``package`` and every import among them, in a stable order."""
    modules = modules_under(src, package)
    found = [
        found
        for module, path in modules.items()
        for found in imports_in(module, path, modules, package)
    ]
    return list(modules), sorted(set(found), key=lambda i: (i.importer, i.line, i.imported))


def violations(rule: Rule, imports: Iterable[Import]) -> list[Import]:
    return [i for i in imports if rule.applies_to(i.importer) and not rule.allows(i.imported)]


def strongly_connected(graph: Mapping[str, Collection[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of ``graph`` (iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


def cycles(modules: Iterable[str], imports: Iterable[Import]) -> dict[tuple[str, ...], str]:
    """Each import cycle (its strongly connected component) and one way round it, in words."""
    graph: dict[str, set[str]] = {module: set() for module in modules}
    lines: dict[tuple[str, str], int] = {}
    for found in imports:
        if found.imported in graph:
            graph[found.importer].add(found.imported)
            lines.setdefault((found.importer, found.imported), found.line)
    found_cycles = {}
    for component in strongly_connected(graph):
        start = component[0]
        if len(component) == 1 and start not in graph[start]:
            continue
        # The shortest way from the component's first module back to it, within the component.
        came_from: dict[str, str] = {}
        queue = deque([start])
        while start not in came_from:
            node = queue.popleft()
            for successor in sorted(graph[node] & set(component)):
                if successor not in came_from:
                    came_from[successor] = node
                    queue.append(successor)
        way = [start]
        while len(way) == 1 or way[-1] != start:
            way.append(came_from[way[-1]])
        way.reverse()
        steps = [f"{a} (line {lines[a, b]})" for a, b in pairwise(way)]
        found_cycles[tuple(component)] = " -> ".join([*steps, start])
    return found_cycles


@cache
def our_graph() -> tuple[list[str], list[Import]]:
    return import_graph()


def lines_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def sizes(package: Path = PACKAGE, static: Path = STATIC) -> dict[str, tuple[int, int]]:
    """Each Python module and JS module by path (relative to ``package``): lines and limit."""
    files = [(path, PYTHON_MAX_LINES) for path in package.rglob("*.py")]
    files += [(path, JS_MAX_LINES) for path in static.rglob("*.js")]
    files += [(path, JS_MAX_LINES) for path in static.rglob("*.mjs")]
    return {
        path.relative_to(package).as_posix(): (lines_of(path), limit)
        for path, limit in sorted(files)
    }


def oversize(found: Mapping[str, tuple[int, int]]) -> list[str]:
    return [
        f"{path}: {lines} lines, over its limit of {limit}"
        for path, (lines, limit) in found.items()
        if lines > limit
    ]


# -- The tests. --


@pytest.mark.parametrize("rule", RULES, ids=[rule.id for rule in RULES])
def test_layering(rule: Rule) -> None:
    modules, imports = our_graph()
    assert any(rule.applies_to(module) for module in modules), f"no module in {rule.importers}"
    for name in rule.exempt:
        assert any(within(module, [name]) for module in modules), f"no module {name} to exempt"
    found = [str(i) for i in violations(rule, imports)]
    assert found == [], f"rule {rule.id!r} broken:\n" + "\n".join(found)


def test_no_import_cycles() -> None:
    found = list(cycles(*our_graph()).values())
    assert found == [], "import cycles:\n" + "\n".join(found)


def test_no_module_over_its_size_limit() -> None:
    found = oversize(sizes())
    assert found == [], "too long:\n" + "\n".join(found)


# -- The checks themselves, on a made-up package: each kind of import, and what they report. --


def write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


MADE_UP = {
    "pkg/__init__.py": """\
        from pkg.a import A
        from . import b
        """,
    "pkg/a.py": """\
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .sub.c import C
        A = 1
        """,
    "pkg/b.py": """\
        def f():
            import pkg.sub.c
            from pkg import A
        """,
    "pkg/sub/__init__.py": "",
    "pkg/sub/c.py": """\
        from .. import a
        from ..a import A
        import os
        import pkgother.a
        C = 1
        """,
}


def test_imports_are_read_anywhere_and_resolved_to_modules(tmp_path: Path) -> None:
    write(tmp_path, MADE_UP)
    modules, imports = import_graph(tmp_path, "pkg")
    assert modules == ["pkg", "pkg.a", "pkg.b", "pkg.sub", "pkg.sub.c"]
    assert [(i.importer, i.imported, i.line) for i in imports] == [
        ("pkg", "pkg.a", 1),
        ("pkg", "pkg.b", 2),  # from a package, a submodule
        ("pkg.a", "pkg.sub.c", 3),  # relative, under TYPE_CHECKING
        ("pkg.b", "pkg.sub.c", 2),  # in a function, not pkg.sub (nor pkg) on the way
        ("pkg.b", "pkg", 3),  # from a package, a name of its __init__
        ("pkg.sub.c", "pkg.a", 1),
        ("pkg.sub.c", "pkg.a", 2),
    ]


def test_cycles_are_named_by_one_way_round(tmp_path: Path) -> None:
    write(tmp_path, MADE_UP)
    assert cycles(*import_graph(tmp_path, "pkg")) == {
        ("pkg", "pkg.b"): "pkg (line 2) -> pkg.b (line 3) -> pkg",
        ("pkg.a", "pkg.sub.c"): "pkg.a (line 3) -> pkg.sub.c (line 1) -> pkg.a",
    }
    write(tmp_path, {"pkg/b.py": "", "pkg/a.py": "", "pkg/sub/c.py": "from pkg.sub.c import C"})
    assert cycles(*import_graph(tmp_path, "pkg")) == {
        ("pkg.sub.c",): "pkg.sub.c (line 1) -> pkg.sub.c"
    }
    write(tmp_path, {"pkg/sub/c.py": ""})
    assert cycles(*import_graph(tmp_path, "pkg")) == {}


def test_rules_report_importer_imported_and_line(tmp_path: Path) -> None:
    write(tmp_path, MADE_UP)
    _, imports = import_graph(tmp_path, "pkg")
    alone = Rule("sub", importers=("pkg.sub",), may_import=("pkg.sub",))
    assert [str(i) for i in violations(alone, imports)] == [
        "pkg.sub.c imports pkg.a (line 1)",
        "pkg.sub.c imports pkg.a (line 2)",
    ]
    private = Rule("a", importers=("pkg",), may_not_import=("pkg.a",), exempt=("pkg.sub",))
    assert [str(i) for i in violations(private, imports)] == ["pkg imports pkg.a (line 1)"]


def test_sizes_are_checked_against_each_language_limit(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/big.py": "x = 1\n" * (PYTHON_MAX_LINES + 1),
            "pkg/fits.py": "x = 1\n" * PYTHON_MAX_LINES,
            "pkg/static/big.js": "x;\n" * (JS_MAX_LINES + 1),
            "pkg/static/fits.mjs": "x;\n" * JS_MAX_LINES,
            "pkg/not-static.js": "x;\n" * (JS_MAX_LINES + 1),
        },
    )
    assert oversize(sizes(tmp_path / "pkg", tmp_path / "pkg" / "static")) == [
        f"big.py: {PYTHON_MAX_LINES + 1} lines, over its limit of {PYTHON_MAX_LINES}",
        f"static/big.js: {JS_MAX_LINES + 1} lines, over its limit of {JS_MAX_LINES}",
    ]

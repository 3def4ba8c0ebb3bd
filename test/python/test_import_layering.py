"""lumir's modules form layers: no import cycles, and the tools sit on top of everything.

The import graph is read from the source (every `import` and `from ... import`, at
module level or inside a function, since a function-level import is still a
dependency), so the test sees what runs, not only what loads first. An edge from
`lumir.runtime` or `lumir.passes` into `lumir.tools` inverts the layering: the tools
are drivers over the library, never a part of it.
"""

from __future__ import annotations

import ast
from pathlib import Path

LUMIR = Path(__file__).resolve().parents[2] / "lumir"


def _module_name(path: Path) -> str:
    parts = path.relative_to(LUMIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(LUMIR.rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The lumir modules `name` imports (a `from pkg import mod` counts as pkg.mod)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {target for target in found if target in known and target != name}


def import_graph() -> dict[str, set[str]]:
    """Every lumir module -> the lumir modules it imports."""
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _is_package_edge(source: str, target: str) -> bool:
    """A package importing its own submodules (or a submodule its package) is no layer cut."""
    return target.startswith(source + ".") or source.startswith(target + ".")


def test_the_import_graph_is_read() -> None:
    """The reader finds real edges, so an empty graph cannot pass the cycle test."""
    graph = import_graph()
    assert "lumir.cublaslt_enums" in graph["lumir.verifier.invariants"]
    assert "lumir.egraph_bridge.terms" in graph["lumir.egraph_bridge.provenance"]


def test_no_import_cycles() -> None:
    graph = import_graph()
    layered = {
        source: {t for t in targets if not _is_package_edge(source, t)}
        for source, targets in graph.items()
    }
    assert _cycles(layered) == []


def test_runtime_and_passes_never_import_tools() -> None:
    inverted = sorted(
        (source, target)
        for source, targets in import_graph().items()
        if source.startswith(("lumir.runtime", "lumir.passes"))
        for target in targets
        if target.startswith("lumir.tools")
    )
    assert inverted == []

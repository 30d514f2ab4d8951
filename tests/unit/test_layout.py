"""The layout holds: no module imports back into itself through others (type-only
imports counted), the pure core never imports a service, and a service's pure package
under `okey101.app` never imports another service's."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICES_APP = ("processor", "views", "gateway", "replays", "timers", "matchmaker")


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT / "libs" if path.is_relative_to(ROOT / "libs") else ROOT)
    parts = list(rel.with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    files = [*(ROOT / "libs" / "okey101").rglob("*.py"), *(ROOT / "services").rglob("*.py")]
    modules = {_module(f): f for f in files}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    out.add(target)
        graph[name] = out
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            # a package's __init__ re-exporting its modules is not a cycle of imports
            if nxt.startswith(node + ".") or node.startswith(nxt + "."):
                continue
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_module_imports_back_into_itself() -> None:
    assert _cycle(_graph()) is None


def test_the_pure_core_never_imports_a_service() -> None:
    graph = _graph()
    assert {(m, t) for m, ts in graph.items() if m.startswith("okey101")
            for t in ts if t.startswith("services")} == set()


def test_a_services_pure_package_never_imports_another_services() -> None:
    """Except another's `records`: the schema of the topics it writes to or reads from."""
    graph = _graph()
    crossing = set()
    for m, ts in graph.items():
        own = m.split(".")
        if len(own) < 3 or own[:2] != ["okey101", "app"] or own[2] not in SERVICES_APP:
            continue
        for t in ts:
            other = t.split(".")
            if len(other) == 3 or other[3:] == ["records"]:
                continue  # the package itself (its docstring) or its published records
            if len(other) > 2 and other[:2] == ["okey101", "app"] and \
                    other[2] in SERVICES_APP and other[2] != own[2]:
                crossing.add((m, t))
    assert crossing == set()


def test_the_engine_imports_no_player_and_no_service_layer() -> None:
    above = ("okey101.bots", "okey101.simulate", "okey101.audit", "okey101.standings",
             "okey101.app")
    house_data = "okey101.standings.house"  # the houses' standing rules: data on profiles
    graph = _graph()
    assert {(m, t) for m, ts in graph.items() if m.startswith("okey101.table")
            for t in ts if t.startswith(above) and t != house_data} == set()


def test_decide_only_parses_asks_and_emits() -> None:
    """Every rule code comes from `okey101.table.rules`: decide raises only malformed
    input of its own (a field missing, a seed not hex), never an `IllegalMove`."""
    tree = ast.parse((ROOT / "libs/okey101/table/decide.py").read_text(encoding="utf-8"))
    own = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
           and isinstance(node.func, ast.Name) and node.func.id in ("fail", "IllegalMove")]
    assert own == []

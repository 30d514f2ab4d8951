"""What a PromQL expression reads: the metric names of its selectors (promql-parser)."""

from __future__ import annotations

import promql_parser


def metric_names(expr: str) -> set[str]:
    """Every metric name a selector of `expr` names (by name or by a `__name__` matcher);
    ValueError when `expr` does not parse."""
    try:
        tree = promql_parser.parse(expr)
    except Exception as exc:  # the parser raises its own types: say which expression
        raise ValueError(f"{expr!r} does not parse: {exc}") from None
    names: set[str] = set()

    def visit(node: object) -> bool:
        if isinstance(node, promql_parser.VectorSelector):
            if node.name:
                names.add(node.name)
            for matcher in node.matchers.matchers:
                if matcher.name == "__name__":
                    names.add(matcher.value)
        return True

    promql_parser.walk(tree, visit)
    return names

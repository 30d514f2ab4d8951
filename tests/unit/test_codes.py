"""Every code a client can be answered with is in one registry (okey101.codes), with its
meaning: this test reads the source, so a new code anywhere tells its author to add it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from okey101 import codes

ROOT = Path(__file__).resolve().parents[2]
# calls whose code is their first argument, or their `code=` keyword
FIRST_ARGUMENT = {"fail", "Refusal", "refuse", "_refuse", "_refuse_and_close", "TokenRefused",
                  "RulesRefused"}
CODE_KEYWORD = {"Rejection", "Outcome", "ErrorReply", "CommandOutcome", "IllegalMove",
                "TokenRefused", "OptionRefused"}


def _name(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def raised_codes() -> Iterator[tuple[str, str]]:
    """(code, where) for every literal code the source raises or answers with."""
    for folder in ("libs", "services"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                name, where = _name(node), f"{path.relative_to(ROOT)}:{node.lineno}"
                args = node.args
                if name == "_refuse_and_close":
                    args = args[1:]  # (ws, code, message)
                elif name == "_refuse":
                    args = args[1:]  # (conn, code, message)
                elif name == "_problem":
                    args = args[1:]  # (status, code, message)
                elif name == "drop":
                    args = args[2:]  # (conn, close code, code)
                literal: list[ast.expr] = []
                if name in FIRST_ARGUMENT | {"_problem", "drop"} and args:
                    literal.append(args[0])
                if name == "IllegalMove":
                    literal += node.args[1:2]
                    if len(node.args) < 2 and not node.keywords:
                        yield "illegal_move", where  # its default code
                if name in CODE_KEYWORD:
                    literal += [k.value for k in node.keywords if k.arg == "code"]
                for expr in literal:
                    if isinstance(expr, ast.Constant) and isinstance(expr.value, str) \
                            and expr.value:
                        yield expr.value, where


def test_every_code_raised_in_the_source_is_registered_with_its_meaning() -> None:
    known = codes.REJECTIONS.keys() | codes.GATEWAY.keys() | codes.MATCHMAKING.keys() | \
        codes.OPERATOR.keys()
    missing = sorted({f"{code} ({where})" for code, where in raised_codes() if code not in known})
    assert not missing, "add these codes to libs/okey101/codes.py (then `make proto`): " + \
        ", ".join(missing)


def test_every_registered_code_is_raised_somewhere() -> None:
    raised = {code for code, _ in raised_codes()}
    stale = sorted((codes.REJECTIONS.keys() | codes.GATEWAY.keys()
                    | codes.MATCHMAKING.keys() | codes.OPERATOR.keys()) - raised)
    assert not stale, f"registered but never raised (remove them): {stale}"


def test_the_scan_finds_the_codes_of_every_kind_of_raise() -> None:
    raised = {code for code, _ in raised_codes()}
    # fail(), IllegalMove(msg, code), IllegalMove(code=...), Rejection(code=...), refuse()
    assert {"not_your_turn", "invalid_meld", "no_void_hand", "seed_forbidden",
            "rate_limited", "token_expired"} <= raised


def test_every_code_is_stable_snake_case_with_a_meaning() -> None:
    for code, meaning in {**codes.REJECTIONS, **codes.GATEWAY, **codes.MATCHMAKING,
                          **codes.OPERATOR}.items():
        assert code.isidentifier() and code == code.lower(), code
        assert len(meaning) > 10, code

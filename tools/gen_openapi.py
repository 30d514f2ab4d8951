"""OpenAPI 3.1 documents for the HTTP APIs, from the structs and routes of
`okey101.app.http_api`: one document a service (and one for the health and metrics port
every service has). `tools.gen_proto` writes them into proto/ and checks them for staleness
with the rest; tests validate them (openapi-spec-validator) and run schemathesis against
the running services."""

from __future__ import annotations

from typing import Any

import msgspec

from okey101.app import http_api as H
from okey101.table import messages as E

REF = "#/components/schemas/{name}"


def _structs(routes: tuple[H.Route, ...]) -> list[Any]:
    found: list[Any] = []
    for route in routes:
        if route.request is not None:
            found.append(route.request)
        for answer in route.answers.values():
            if answer.body is not None:
                found.append(answer.body)
            found += answer.refs
    return list(dict.fromkeys(found))


def _body(answer: H.Answer) -> dict[str, Any]:
    out: dict[str, Any] = {"description": answer.description}
    if answer.headers:
        out["headers"] = {h: {"schema": {"type": "string"}} for h in answer.headers}
    if not answer.media:
        return out
    if answer.body is not None:
        schema: dict[str, Any] = {"$ref": REF.format(name=answer.body.__name__)}
    elif answer.schema is not None:
        schema = answer.schema
    else:
        schema = {"type": "string"}
    out["content"] = {answer.media: {"schema": schema}}
    return out


def document(title: str, description: str, routes: tuple[H.Route, ...]) -> dict[str, Any]:
    _, components = msgspec.json.schema_components(_structs(routes), ref_template=REF)
    paths: dict[str, Any] = {}
    for route in routes:
        op: dict[str, Any] = {
            "operationId": route.method + route.path.replace("/", "_").replace("{", "")
            .replace("}", ""),
            "summary": route.summary,
            "responses": {str(status): _body(a) for status, a in sorted(route.answers.items())},
        }
        if route.params:
            op["parameters"] = [
                {"name": p.name, "in": p.where, "required": p.required, "schema": p.schema,
                 **({"description": p.description} if p.description else {})}
                for p in route.params]
        if route.request is not None:
            op["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": {"$ref": REF.format(name=route.request.__name__)}}}}
        paths.setdefault(route.path, {})[route.method] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": str(E.VERSION), "description": description +
                 " Generated from libs/okey101/app/http_api.py by `python -m tools.gen_proto`."},
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "paths": paths,
        "components": {"schemas": dict(sorted(components.items()))},
    }


def documents() -> dict[str, dict[str, Any]]:
    return {name: document(title, text, routes)
            for name, (title, text, routes) in H.APIS.items()}

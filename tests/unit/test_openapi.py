"""The HTTP APIs' OpenAPI 3.1 documents (proto/openapi-*.json) are valid OpenAPI, and
cover every route the services register. Their responses are checked against the running
services by tests/kafka/test_openapi.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from okey101.app import http_api as H
from services.common.http import HealthServer
from services.gateway.app import Gateway
from services.gateway.settings import Settings
from services.leaderboards import api as leaderboards_api
from services.replays import api as replays_api

PROTO = Path(__file__).resolve().parents[2] / "proto"


@pytest.mark.parametrize("name", sorted(H.APIS))
def test_every_published_openapi_document_is_valid_openapi_3_1(name: str) -> None:
    doc = json.loads((PROTO / name).read_text())
    assert doc["openapi"] == "3.1.0"
    validate(doc)


def test_the_validator_refuses_a_parameter_in_no_place_openapi_has() -> None:
    doc = json.loads((PROTO / "openapi-leaderboards.json").read_text())
    doc["paths"]["/houses/{house}/board"]["get"]["parameters"][1]["in"] = "body"
    with pytest.raises(OpenAPIValidationError):
        validate(doc)


def _routes(app: object) -> set[tuple[str, str]]:
    return {(r.method.lower(), r.resource.canonical)  # type: ignore[attr-defined]
            for r in app.router.routes()  # type: ignore[attr-defined]
            if r.method not in ("HEAD", "*")}


def _documented(routes: tuple[H.Route, ...]) -> set[tuple[str, str]]:
    return {(r.method, r.path) for r in routes}


def test_every_route_of_the_leaderboards_and_replays_is_documented() -> None:
    assert _routes(leaderboards_api.build(None)) == _documented(  # type: ignore[arg-type]
        H.LEADERBOARDS_ROUTES)
    assert _routes(replays_api.build(None)) == _documented(  # type: ignore[arg-type]
        H.REPLAYS_ROUTES)


def test_every_route_of_the_health_port_is_documented() -> None:
    assert _routes(HealthServer(None, None).app) == _documented(H.HEALTH_ROUTES)


def test_every_api_route_of_the_gateway_is_documented() -> None:
    settings = Settings(bootstrap="127.0.0.1:1", secret="s" * 32)
    served = {(m, p) for m, p in _routes(Gateway(settings).web_app())
              if p.startswith("/api/") or p == "/healthz"}
    assert served == _documented(H.GATEWAY_ROUTES)

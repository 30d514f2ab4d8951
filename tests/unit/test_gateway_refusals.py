"""Refusals a client can match (issue 26, item 4), the pure parts: the command id read
from any frame, any depth refused before decoding, the flood guard's bound, the token's
lifetime (the gateway's check and `okey101 token`), and what a command id stands for."""

from __future__ import annotations

import json

import jwt
import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from okey101.app.gateway import identity
from okey101.app.gateway import websocket as W
from okey101.app.gateway.ratelimit import FloodGuard
from okey101.app.jsondepth import MAX_DEPTH, too_deep
from services.cli.main import main

SECRET = "k" * 40
NOW = 1_767_225_600
HOUR = 3600


def nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


# ---------------------------------------------------------------- the command id
@pytest.mark.parametrize("frame", [
    '{"type":"dance","id":"c1"}',  # an unknown message type
    '{"type":"command","id":"c1","command":{"type":"dance"}}',  # an unknown command
    '{"type":"command","id":"c1","command":{"type":"sit","seat":0,"chair":1}}',  # a field
    '{"type":"command","id":"c1","tabel_id":"t","command":{"type":"draw"}}',
    '{"type":"command","command":{"type":"sit","seat":"zero"},"id":"c1"}',  # a wrong type
    '{"type":"command","id":"c1","command":{"type":"create_table","options":{"x":'
    + nested(5000) + '}}}',  # deep inside the options
    '{"type":"command","command":{"type":"create_table","options":' + nested(20_000)
    + '},"id":"c1"}',  # the id after a deep value
    ' {"id" : "c1", "type":"command"',  # cut short after the id
])
def test_the_command_id_at_the_top_level_is_read_from_any_frame(frame: str) -> None:
    with pytest.raises((msgspec.DecodeError, msgspec.ValidationError)):
        W.decode_client(frame)
    assert W.id_of(frame) == "c1"


@pytest.mark.parametrize("frame", [
    '{"type":"command","command":{"id":"inner"}}', '["id","c1"]', '{"id":5}', '{"x":"id"}',
    '{"id":"a" "b"}', "", "id", '{"id":null}',
])
def test_a_frame_without_a_string_id_at_its_top_level_has_none(frame: str) -> None:
    assert W.id_of(frame) is None


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=20),
       st.text(max_size=10))
def test_the_id_read_by_scanning_is_the_one_a_decoder_reads(rest: object, id: str) -> None:
    frame = json.dumps({"type": "command", "rest": rest, "id": id, "more": rest})
    assert W.id_of(frame) == id


# ---------------------------------------------------------------- depth
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 977, 7_000, 20_000, 1_000_000])
def test_any_depth_past_the_bound_is_malformed_never_a_recursion_error(depth: int) -> None:
    frame = ('{"type":"command","id":"c1","command":{"type":"create_table","options":'
             '{"x":' + nested(depth) + '}}}')
    with pytest.raises(msgspec.DecodeError, match="nests deeper"):
        W.decode_client(frame)


def test_a_frame_within_the_bound_decodes_and_brackets_in_strings_do_not_count() -> None:
    inside = MAX_DEPTH - 4  # the frame, the command, the options, "x"
    W.decode_client('{"type":"command","id":"c1","command":{"type":"create_table",'
                    '"options":{"x":' + nested(inside) + '}}}')
    assert not too_deep('{"house":"' + "[{" * 10_000 + '"}')
    assert not too_deep('["\\"' + "[" * 100 + '"]')
    assert too_deep(nested(MAX_DEPTH + 1)) and not too_deep(nested(MAX_DEPTH))


# ---------------------------------------------------------------- floods
def test_a_connection_sending_far_past_its_rate_is_closed_after_the_bounded_refusals() -> None:
    guard = FloodGuard(rate=10, burst=20, strikes=50, now=0.0)
    verdicts = [guard.take(i / 1000) for i in range(5_000)]  # 1,000 a second for 5 s
    assert verdicts[:20] == ["pass"] * 20
    closed = verdicts.index("close")
    assert verdicts[:closed].count("refuse") == 49  # tokens now and then forgive nothing
    assert closed < 100


def test_a_connection_just_over_its_rate_is_closed_too() -> None:
    guard = FloodGuard(rate=10, burst=20, strikes=50, now=0.0)
    verdicts = [guard.take(i / 12) for i in range(2_000)]  # 12 a second, forever
    assert "close" in verdicts


def test_a_pause_that_refills_the_burst_forgives_the_refusals() -> None:
    guard = FloodGuard(rate=10, burst=20, strikes=50, now=0.0)
    t = 0.0
    for _ in range(100):  # a burst of 40 (20 refused), then a 3 s pause: never closed
        verdicts = [guard.take(t + i / 1000) for i in range(40)]
        assert verdicts.count("refuse") == 20 and "close" not in verdicts
        t += 3.0


# ---------------------------------------------------------------- token lifetime
def test_a_token_valid_for_longer_than_the_lifetime_is_refused_with_its_code() -> None:
    ten_years = jwt.encode({"sub": "ayse", "iat": NOW, "exp": NOW + 10 * 365 * 24 * HOUR},
                           SECRET, algorithm="HS256")
    with pytest.raises(identity.TokenRefused) as refused:
        identity.verify(SECRET, ten_years, NOW + 10)
    assert refused.value.code == "token_lifetime"


def test_the_lifetime_is_a_setting_and_a_day_is_the_default() -> None:
    day = identity.mint(SECRET, "ayse", NOW, 24 * HOUR)
    assert identity.verify(SECRET, day, NOW) == "ayse"
    with pytest.raises(identity.TokenRefused, match="at most 1 h"):
        identity.verify(SECRET, day, NOW, max_lifetime=HOUR)


def test_an_iat_in_the_future_does_not_stretch_the_lifetime() -> None:
    later = jwt.encode({"sub": "ayse", "iat": NOW + 1000 * HOUR, "exp": NOW + 1001 * HOUR},
                       SECRET, algorithm="HS256")
    with pytest.raises(identity.TokenRefused) as refused:
        identity.verify(SECRET, later, NOW)
    assert refused.value.code == "token_lifetime"


def test_a_token_without_iat_is_refused_as_bad() -> None:
    bare = jwt.encode({"sub": "ayse", "exp": NOW + HOUR}, SECRET, algorithm="HS256")
    with pytest.raises(identity.TokenRefused) as refused:
        identity.verify(SECRET, bare, NOW)
    assert refused.value.code == "bad_token"


def test_no_token_longer_lived_than_the_lifetime_is_minted() -> None:
    with pytest.raises(ValueError):
        identity.mint(SECRET, "ayse", NOW, 25 * HOUR)


def test_okey101_token_refuses_to_mint_more_than_the_gateway_accepts(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OKEY_GATEWAY_SECRET", SECRET)
    monkeypatch.delenv("OKEY_TOKEN_MAX_HOURS", raising=False)
    assert main(["token", "ayse", "--hours", str(10 * 365 * 24)]) == 2
    assert "at most 24 h" in capsys.readouterr().err
    monkeypatch.setenv("OKEY_TOKEN_MAX_HOURS", "2")
    assert main(["token", "ayse", "--hours", "3"]) == 2
    assert "at most 2 h" in capsys.readouterr().err
    assert main(["token", "ayse"]) == 0  # the default is the most the gateway accepts
    minted = capsys.readouterr().out.strip()
    claims = jwt.decode(minted, SECRET, algorithms=["HS256"])
    assert claims["exp"] - claims["iat"] == 2 * HOUR


# ---------------------------------------------------------------- what an id stands for
def _command(**fields: object) -> W.SendCommand:
    frame = {"type": "command", "id": "c1", "table_id": "t1",
             "command": {"type": "discard", "tile": "R5"}, **fields}
    message = W.decode_client(json.dumps(frame))
    assert isinstance(message, W.SendCommand)
    return message


def test_a_retry_stands_for_the_same_command_and_any_other_body_does_not() -> None:
    first = W.command_digest(_command())
    assert W.command_digest(_command()) == first
    others = [_command(table_id="t2"), _command(seq=4),
              _command(command={"type": "discard", "tile": "R6"}),
              _command(command={"type": "draw"})]
    assert all(W.command_digest(o) != first for o in others)
    options = [W.command_digest(_command(table_id="", command={
        "type": "create_table", "options": dict(items)}))
        for items in ([("a", 1), ("b", 2)], [("b", 2), ("a", 1)])]
    assert options[0] == options[1]  # the options' order is not a different command

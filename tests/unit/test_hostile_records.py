"""Issue 26: no record can stop a consumer. The bounds refuse hostile bytes before any
decoder sees them, a command's options are refused by key with their own codes, the
processor's partition logic turns any failure into a dead letter, and the shared pieces
(dead letters, task watch, the runtime's exit on a failed loop) do what they promise."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import REGISTRY

from okey101.app import bounds
from okey101.app.processor import processing
from okey101.app.processor.processing import PartitionTables
from okey101.app.views.playerviews import PlayerViews
from services.common import runtime, tasks
from services.common.deadletters import DeadLetters
from services.common.http import HealthServer, Readiness

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = "okey.commands"


def _entropy() -> str:
    return "ab" * 32


def _create(options: Any, command_id: str = "c1", table: str = "t1") -> bytes:
    return json.dumps({"type": "create_table", "table_id": table, "command_id": command_id,
                       "player_id": "p0", "options": options}).encode()


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def _deep_create(depth: int) -> bytes:
    return (b'{"type":"create_table","table_id":"t1","command_id":"c1","player_id":"p0",'
            b'"options":{"x":' + b"[" * depth + b"]" * depth + b"}}")


# ---------------------------------------------------------------- the bounds
def test_json_nested_1500_deep_in_the_options_is_refused_before_decoding() -> None:
    with pytest.raises(bounds.HostileRecord) as refused:
        bounds.check(_deep_create(1500), bounds.COMMANDS)
    assert refused.value.kind == "too_deep"


def test_brackets_inside_strings_are_not_nesting() -> None:
    bounds.check(json.dumps({"a": "[" * 400 + "{" * 100}).encode(), bounds.COMMANDS)


@pytest.mark.parametrize(("raw", "kind"), [
    (b'"' + b"x" * 70_000 + b'"', "too_large"),
    (json.dumps({"table_id": "x" * 600}).encode(), "too_long"),
    (b'{"seq": 123456789012345678901234}', "number_range"),
    (b'{"seq": -99999999999999999999}', "number_range"),
    (b'{"seq": 12345678901234567}', "number_range"),
])
def test_a_command_outside_the_bounds_is_refused_with_its_kind(raw: bytes, kind: str) -> None:
    with pytest.raises(bounds.HostileRecord) as refused:
        bounds.check(raw, bounds.COMMANDS)
    assert refused.value.kind == kind


def test_every_published_example_message_is_within_the_bounds() -> None:
    """The bounds refuse nothing we write ourselves: every example of proto/ passes."""
    examples = json.loads((ROOT / "proto" / "examples.json").read_text())
    assert len(examples) > 20
    for name, example in examples.items():
        raw = json.dumps(example).encode()
        bounds.check(raw, bounds.DERIVED)
        if "command" in name and "commands" not in name:
            bounds.check(raw, bounds.COMMANDS)


def test_digits_after_a_point_are_not_an_integer() -> None:
    bounds.check(b'{"rating": 0.30000000000000004, "x": 1.2345678901234567e+30}',
                 bounds.DERIVED)


def test_a_command_with_an_integer_past_2_53_is_a_dead_letter() -> None:
    raw = (b'{"type":"sit","table_id":"t1","command_id":"c","player_id":"p","seat":'
           b'9007199254740992}')
    tables = PartitionTables(0, 1)
    assert tables.handle(b"t1", raw, COMMANDS, 0, _entropy).outcome is not None
    raw = raw.replace(b"9007199254740992", b"9007199254740993")
    out = tables.handle(b"t1", raw, COMMANDS, 1, _entropy)
    assert out.dead_letter is not None and out.dead_letter.kind == "number_range"


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20)
    | st.text(st.characters(codec="utf-8"), max_size=40),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=40)


def _parts(value: Any, depth: int = 0) -> Iterator[tuple[int, Any]]:
    """(depth, part) of `value` and of everything inside it, an object's keys included."""
    yield depth, value
    if isinstance(value, list):
        for v in value:
            yield from _parts(v, depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield depth + 1, k
            yield from _parts(v, depth + 1)


@settings(max_examples=400, deadline=None)
@given(_JSON, st.booleans())
def test_the_bounds_refuse_a_json_value_exactly_when_its_decoded_form_is_outside_them(
        value: Any, ascii_only: bool) -> None:
    """Whatever the escapes: a string token too long, too deep or an integer of 17 digits
    or more, in that order; nothing else."""
    limits = bounds.Limits(max_bytes=1 << 20, max_depth=3, max_string=24)
    raw = json.dumps(value, ensure_ascii=ascii_only).encode()
    parts = list(_parts(value))
    tokens = [len(json.dumps(p, ensure_ascii=ascii_only).encode()) for _, p in parts
              if isinstance(p, str)]
    depth = max((d + 1 for d, p in parts if isinstance(p, (list, dict))), default=0)
    if max(tokens, default=0) > limits.max_string:
        expected = "too_long"
    elif depth > limits.max_depth:
        expected = "too_deep"
    elif any(len(str(abs(p))) >= 17 for _, p in parts if type(p) is int):
        expected = "number_range"
    else:
        expected = ""
    try:
        bounds.check(raw, limits)
        kind = ""
    except bounds.HostileRecord as refused:
        kind = refused.kind
    assert kind == expected, raw


@pytest.mark.parametrize("body", ["x" * 22, "\\" + "x" * 20, '"' + "x" * 20])
def test_a_string_token_of_exactly_the_limit_passes_and_one_byte_more_is_too_long(
        body: str) -> None:
    limits = bounds.Limits(max_bytes=1 << 20, max_depth=3, max_string=24)
    token = json.dumps(body)
    assert len(token) == 24
    bounds.check(f'{{"a":{token},"b":1}}'.encode(), limits)
    with pytest.raises(bounds.HostileRecord) as refused:
        bounds.check(f'{{"a":{json.dumps(body + "x")},"b":1}}'.encode(), limits)
    assert refused.value.kind == "too_long"


def test_an_unclosed_quote_hides_nothing_from_the_depth_count() -> None:
    with pytest.raises(bounds.HostileRecord) as refused:
        bounds.check(b'{"a":' + b"[" * 40 + b'"x', bounds.DERIVED)
    assert refused.value.kind == "too_deep"


def test_kind_of_names_every_exception() -> None:
    assert bounds.kind_of(RecursionError()) == "too_deep"
    assert bounds.kind_of(msgspec.ValidationError()) == "invalid"
    assert bounds.kind_of(msgspec.DecodeError()) == "undecodable"
    assert bounds.kind_of(KeyError("x")) == "failed"


# ---------------------------------------------------------------- the processor's logic
def test_a_create_table_nested_1500_deep_is_a_dead_letter_not_a_recursion_error() -> None:
    tables = PartitionTables(0, 1)
    out = tables.handle(b"t1", _deep_create(1500), COMMANDS, 7, _entropy)
    assert out.dead_letter is not None and out.outcome is None
    assert out.dead_letter.kind == "too_deep"
    assert (out.dead_letter.topic, out.dead_letter.partition, out.dead_letter.offset) == \
        (COMMANDS, 0, 7)
    assert out.dead_letter.service == "processor" and out.dead_letter.error == "HostileRecord"
    after = tables.handle(b"t1", _create({}), COMMANDS, 8, _entropy)  # the partition goes on
    assert after.outcome is not None and after.outcome.accepted


def test_invalid_utf8_and_binary_commands_are_dead_letters() -> None:
    tables = PartitionTables(0, 1)
    for offset, raw in enumerate([b"\xff\xfe{\x00", bytes(range(256)), b'{"type": "\xc3"}']):
        out = tables.handle(b"t1", raw, COMMANDS, offset, _entropy)
        assert out.dead_letter is not None and out.dead_letter.kind == "undecodable"


def test_any_exception_while_applying_a_command_is_a_dead_letter(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> Any:
        raise ZeroDivisionError("a bug")

    tables = PartitionTables(0, 1)
    monkeypatch.setattr(processing, "decide_and_fold", broken)
    out = tables.handle(b"t1", _create({}), COMMANDS, 3, _entropy)
    assert out.dead_letter is not None
    assert (out.dead_letter.kind, out.dead_letter.error) == ("failed", "ZeroDivisionError")
    assert "a bug" in out.dead_letter.reason
    monkeypatch.undo()
    assert tables.handle(b"t1", _create({}), COMMANDS, 4, _entropy).outcome is not None


def test_a_dead_letter_keeps_at_most_64_kib_of_the_value() -> None:
    letter = processing.dead_letter("r", COMMANDS, 0, 1, b"k", b"x" * 200_000, "too_large")
    assert len(letter.value) == processing.DEAD_VALUE_BYTES


@pytest.mark.parametrize(("options", "code", "key"), [
    ({"no_such_option": 1}, "unknown_option", "no_such_option"),
    ({"hands_range": [1, 2]}, "option_locked", "hands_range"),
    ({"turn_seconds": "45"}, "option_type", "turn_seconds"),
    ({"turn_seconds": 45.0}, "option_type", "turn_seconds"),
    ({"hands_per_match": True}, "option_type", "hands_per_match"),
    ({"opening_points": _nested(5)}, "option_type", "opening_points"),
    ({"opening_points": 10**15}, "option_range", "opening_points"),
    ({"finish_score": -10**9}, "option_range", "finish_score"),
    ({"hands_per_match": 500}, "option_range", "hands_per_match"),
    ({"turn_seconds": 1}, "option_range", "turn_seconds"),
])
def test_table_options_are_refused_with_a_code_and_the_key_named(
        options: dict[str, Any], code: str, key: str) -> None:
    out = PartitionTables(0, 1).handle(b"t1", _create(options), COMMANDS, 0, _entropy)
    assert out.outcome is not None and not out.outcome.accepted
    assert out.outcome.code == code, out.outcome.message
    assert key in out.outcome.message


def test_more_options_than_a_profile_has_are_refused() -> None:
    options = {f"o{i}": 1 for i in range(100)}
    out = PartitionTables(0, 1).handle(b"t1", _create(options), COMMANDS, 0, _entropy)
    assert out.outcome is not None and out.outcome.code == "too_many_options"


def test_a_foreign_event_that_does_not_follow_is_skipped_at_a_rebuild() -> None:
    tables = PartitionTables(0, 1)
    created = tables.handle(b"t1", _create({}), COMMANDS, 0, _entropy)
    gap = msgspec.structs.replace(created.events[0], seq=9)
    fresh = PartitionTables(0, 1)
    fresh.restore([*created.events, gap], [])
    assert fresh.unfoldable == 1 and fresh.tables["t1"].seq == 1


# ---------------------------------------------------------------- the views' fold
def test_an_event_that_raises_anything_is_skipped_by_the_views_with_its_place() -> None:
    tables = PartitionTables(0, 1)
    events = tables.handle(b"t1", _create({}), COMMANDS, 0, _entropy).events
    foreign = msgspec.structs.replace(events[0], table_id="t2", seq=5)
    updates, skipped = PlayerViews().publish_each([foreign, *events])
    assert [i for i, _, _ in skipped] == [0] and updates


# ---------------------------------------------------------------- the shared dead letters
class _Record(msgspec.Struct):
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None


def _dead_count(service: str, reason: str) -> float:
    return REGISTRY.get_sample_value("okey_dead_letters_total",
                                     {"service": service, "reason": reason}) or 0.0


@pytest.mark.parametrize(("value", "kind"), [
    (None, "empty"), (_deep_create(1500), "too_deep"), (b"{nope", "undecodable"),
    (b'{"a": 1}', "failed"),
])
def test_dead_letters_take_any_record_a_consumer_cannot_apply(value: bytes | None,
                                                              kind: str) -> None:
    def work(record: Any) -> Any:
        parsed = msgspec.json.decode(record.value)
        raise LookupError(f"cannot apply {parsed}")

    dead = DeadLetters("unit", "okey")
    before = _dead_count("unit", kind)
    record = _Record("okey.events", 2, 40, b"t9", value)
    assert dead.apply(record, work) is None
    (letter,) = dead.pending
    assert (letter.topic, letter.partition, letter.offset, letter.kind) == \
        ("okey.events", 2, 40, kind)
    assert letter.service == "unit" and letter.reason
    assert _dead_count("unit", kind) == before + 1


def test_dead_letters_pass_what_applies() -> None:
    dead = DeadLetters("unit", "okey")
    assert dead.apply(_Record("okey.events", 0, 1, None, b"[1]"), lambda r: 5) == 5
    assert dead.pending == []


# ---------------------------------------------------------------- no silent death
def _failures(task: str) -> float:
    return REGISTRY.get_sample_value("okey_task_failures_total", {"task": task}) or 0.0


async def test_a_watched_task_that_ends_makes_readyz_name_it_and_asks_for_an_exit() -> None:
    tasks.TASKS.reset()
    before = _failures("doomed")

    async def doomed() -> None:
        raise RuntimeError("boom")

    tasks.TASKS.watch("doomed", doomed())
    await asyncio.wait_for(tasks.TASKS.fatal.wait(), 5)
    server = HealthServer(_Ready(), None)
    answer = server.readiness()
    assert not answer.ready and "doomed" in answer.reason and "boom" in answer.reason
    assert _failures("doomed") == before + 1
    tasks.TASKS.reset()
    assert server.readiness().ready


async def test_a_failure_is_shown_for_its_time_then_cleared_by_a_restart() -> None:
    tasks.TASKS.reset()
    tasks.TASKS.failed("partition 0 worker", RuntimeError("x"), label="partition_worker")
    tasks.TASKS.recovered_after("partition 0 worker", 0.2)
    assert tasks.TASKS.unready() is not None
    await asyncio.sleep(0.3)
    assert tasks.TASKS.unready() is None
    tasks.TASKS.reset()


class _Ready:
    def readiness(self) -> Readiness:
        return Readiness(True)


class _Service(_Ready):
    def __init__(self, fail: bool) -> None:
        self.fail = fail
        self.stopped = asyncio.Event()

    async def connect(self) -> None:
        pass

    async def run(self) -> None:
        if self.fail:
            await asyncio.sleep(0.01)
            raise RuntimeError("the consumer loop broke")
        await self.stopped.wait()

    def stop(self) -> None:
        self.stopped.set()


async def test_a_main_loop_that_fails_is_shown_on_readyz_then_the_exit_is_not_zero(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "EXIT_HOLD_S", 0.5)
    tasks.TASKS.reset()
    service = _Service(fail=True)
    server = HealthServer(service, None)
    running = asyncio.create_task(runtime._run_watched(service, asyncio.Event()))
    await asyncio.sleep(0.2)
    answer = server.readiness()
    assert not answer.ready and "main loop" in answer.reason and "broke" in answer.reason
    with pytest.raises(RuntimeError):
        await running  # serve_settings logs it as service_failed: exit status 1
    tasks.TASKS.reset()


async def test_a_watched_task_ending_stops_the_service_with_a_non_zero_exit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "EXIT_HOLD_S", 0.1)
    tasks.TASKS.reset()
    service = _Service(fail=False)

    async def probe() -> None:
        raise OSError("the probe died")

    running = asyncio.create_task(runtime._run_watched(service, asyncio.Event()))
    tasks.TASKS.watch("broker probe", probe())
    assert await asyncio.wait_for(running, 5) == 1
    assert service.stopped.is_set()
    tasks.TASKS.reset()


async def test_a_stopped_service_exits_zero() -> None:
    tasks.TASKS.reset()
    service = _Service(fail=False)
    stopping = asyncio.Event()
    running = asyncio.create_task(runtime._run_watched(service, stopping))
    await asyncio.sleep(0.05)
    stopping.set()
    service.stop()
    assert await asyncio.wait_for(running, 5) == 0


# ---------------------------------------------------------------- snapshot records (issue 41)
def _snapshots() -> tuple[list[tuple[int, bytes | None, bytes | None]], tuple[int, int]]:
    """A partition's snapshot records (its cut last) and its events and outcomes log ends."""
    from tests.unit.test_bounded_memory import _snapshots_run
    log, records, _, _ = _snapshots_run(3)
    assert records[-1][1] == b"~cut:0"
    return records, (len(log.events), len(log.outcomes))


def _replaced(records: list[tuple[int, bytes | None, bytes | None]], key: bytes,
              value: bytes | None) -> list[tuple[int, bytes | None, bytes | None]]:
    return [(o, k, value if k == key else v) for o, k, v in records]


def _live(records: list[tuple[int, bytes | None, bytes | None]]) -> tuple[bytes, bytes]:
    """The key and value of a live table's snapshot record."""
    for _, key, value in records:
        if key is not None and value is not None and b'"state":{' in value:
            return key, value
    raise AssertionError("no live table in the snapshots")


def _cut(records: list[tuple[int, bytes | None, bytes | None]]) -> dict[str, Any]:
    value = records[-1][2]
    assert value is not None
    cut: dict[str, Any] = json.loads(value)
    return cut


def _unusable(records: list[tuple[int, bytes | None, bytes | None]],
              ends: tuple[int, int]) -> str:
    from okey101.app.processor import snapshots as S
    with pytest.raises(S.Unusable) as unusable:
        S.latest(records, 0, ends)
    assert unusable.value.kind in S.KINDS
    return unusable.value.kind


def test_the_snapshots_a_run_writes_are_usable_within_the_logs() -> None:
    from okey101.app.processor import snapshots as S
    records, ends = _snapshots()
    cut, tables = S.latest(records, 0, ends)
    assert cut.tables == len(tables) > 0 and any(t.state is not None for t in tables.values())


@pytest.mark.parametrize(("value", "kind"), [
    (b"{oops", "undecodable"),
    (msgspec.msgpack.encode({"v": 2, "type": "cut", "partition": 0}), "undecodable"),
    (b"\xff\xfe\x00", "undecodable"),
    (b"[2]", "undecodable"),
    (b"null", "undecodable"),
    (b'{"v":2,"type":"cut","partition":0,"events_offset":0}', "undecodable"),
    (b'{"v":2,"type":"cut","partition":0,"events_offset":"0","outcomes_offset":0}',
     "undecodable"),
    (b'{"v":2,"x":' + b"[" * 5000 + b"]" * 5000 + b"}", "too_deep"),
    (b'{"v":2,"x":"' + b"x" * (9 * 1024 * 1024) + b'"}', "too_large"),
    (b'{"v":2,"x":"' + b"x" * (70 * 1024) + b'"}', "too_long"),
    (b'{"v":4,"type":"cut","partition":0,"events_offset":0,"outcomes_offset":0}', "version"),
    (b'{"type":"cut","partition":0,"events_offset":0,"outcomes_offset":0}', "version"),
    (b'{"v":2,"type":"cut","partition":1,"events_offset":0,"outcomes_offset":0}',
     "key_mismatch"),
])
def test_a_hostile_cut_makes_the_snapshots_unusable_with_its_kind(value: bytes,
                                                                   kind: str) -> None:
    records, ends = _snapshots()
    assert _unusable(_replaced(records, b"~cut:0", value), ends) == kind


def test_a_truncated_snapshot_record_is_unusable_at_any_length() -> None:
    records, ends = _snapshots()
    key, value = _live(records)
    for length in range(0, len(value), max(1, len(value) // 97)):
        assert _unusable(_replaced(records, key, value[:length]), ends) == "undecodable"
    cut = records[-1][2]
    assert cut is not None
    for length in range(len(cut)):
        assert _unusable(_replaced(records, b"~cut:0", cut[:length]), ends) == "undecodable"


def test_a_table_record_under_another_tables_key_is_a_key_mismatch() -> None:
    records, ends = _snapshots()
    key, value = _live(records)
    other = json.loads(value)
    other["table_id"] = "elsewhere"
    assert _unusable(_replaced(records, key, json.dumps(other).encode()), ends) == \
        "key_mismatch"


def test_a_live_state_of_another_table_under_the_key_is_a_key_mismatch() -> None:
    records, ends = _snapshots()
    key, value = _live(records)
    other = json.loads(value)
    other["state"]["table_id"] = "elsewhere"
    assert _unusable(_replaced(records, key, json.dumps(other).encode()), ends) == \
        "key_mismatch"


def test_a_cut_under_a_table_key_is_a_key_mismatch() -> None:
    records, ends = _snapshots()
    key, _ = _live(records)
    assert _unusable(_replaced(records, key, records[-1][2]), ends) == "key_mismatch"


@pytest.mark.parametrize("damage", [
    lambda s: s.update(seq="nine"), lambda s: s.update(seq=None),
    lambda s: s.update(players=7), lambda s: s.update(status="exploded"),
    lambda s: s.update(table_id=12), lambda s: s.update(profile=[]),
    lambda s: s.update(seq=2**60),
])
def test_a_state_that_does_not_decode_is_never_loaded(damage: Any) -> None:
    records, ends = _snapshots()
    key, value = _live(records)
    doc = json.loads(value)
    damage(doc["state"])
    assert _unusable(_replaced(records, key, json.dumps(doc).encode()), ends) in (
        "undecodable", "number_range", "key_mismatch")


@pytest.mark.parametrize(("field", "beyond"), [
    ("events_offset", 1), ("outcomes_offset", 1), ("events_offset", 10**9),
    ("events_offset", -1), ("outcomes_offset", -1)])
def test_a_cut_at_offsets_beyond_the_logs_is_unusable(field: str, beyond: int) -> None:
    records, ends = _snapshots()
    cut = _cut(records)
    end = ends[0] if field == "events_offset" else ends[1]
    cut[field] = end + beyond if beyond > 0 else beyond
    assert _unusable(_replaced(records, b"~cut:0", json.dumps(cut).encode()), ends) == \
        "beyond_log"


def test_a_cut_exactly_at_the_logs_ends_is_usable() -> None:
    from okey101.app.processor import snapshots as S
    records, ends = _snapshots()
    cut = _cut(records)
    cut["events_offset"], cut["outcomes_offset"] = ends
    S.latest(_replaced(records, b"~cut:0", json.dumps(cut).encode()), 0, ends)


def test_a_finished_table_of_the_cut_without_its_record_is_unusable_before_loading() -> None:
    records, ends = _snapshots()
    cut = _cut(records)
    assert cut["finished"]
    key, _ = _live(records)
    cut["finished"][0] = key.decode()  # a live table named finished: its record has state
    assert _unusable(_replaced(records, b"~cut:0", json.dumps(cut).encode()), ends) == \
        "incomplete"


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_any_damage_to_a_snapshot_record_is_usable_or_unusable_never_an_error(
        data: st.DataObject) -> None:
    """Flipped, cut or spliced bytes anywhere: `latest` returns a memory or says why not,
    and what it returns holds only tables under their own keys."""
    from okey101.app.processor import snapshots as S
    records, ends = _snapshots()
    at = data.draw(st.sampled_from([i for i, r in enumerate(records) if r[2] is not None]))
    offset, key, value = records[at]
    assert value is not None
    start = data.draw(st.integers(0, len(value)))
    end = data.draw(st.integers(start, min(len(value), start + 64)))
    bad = value[:start] + data.draw(st.binary(max_size=64)) + value[end:]
    damaged = [*records[:at], (offset, key, bad), *records[at + 1:]]
    try:
        _, tables = S.latest(damaged, 0, ends)
    except S.Unusable as exc:
        assert exc.kind in S.KINDS
        return
    assert all(t.state is None or t.state.table_id == i for i, t in tables.items())

"""Hostile records for every input topic (issue 26), the stack they are written at, and the
checks after a burst. Shared by tests/kafka/test_hostile.py and `python -m
tools.bench.hostile`.

Each generated record is one the topic's first reader must dead-letter (never a command
merely rejected, never an event that could belong to a table): bodies are the examples of
proto/examples.json under fresh table ids, mutated at a place drawn from every place a
value sits in them (so nesting reaches every depth of every message): JSON nested 1,000
to 5,000 deep, integers of 17 to 40 digits either sign, a float where an integer belongs,
strings of 300 KB to 0.95 MB, invalid UTF-8, random binary, a null value, a null key, a
key that is not the body's table, any field of any command with a value of another JSON
type, and a body that is not an object; any of them may carry headers. Events are put at
a seq no fresh table has, so that every reader of the events refuses them.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as seed_of
from hypothesis import strategies as st

from okey101.app import topics
from okey101.table import messages as E
from services.common import stack

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES: dict[str, Any] = json.loads((ROOT / "proto" / "examples.json").read_text())
SECRET = "test-secret-" + "0123456789abcdef" * 2
URL = re.compile(r"gateway listening on (http://\S+)")
MAX_RECORD = 1_000_000  # under the broker's message.max.bytes (1 MiB and a little)

# the input topics, each with its first reader (the service that must dead-letter) and the
# examples its records are made from
READERS = {"commands": "processor", "events": "views", "playerviews": "gateway",
           "outcomes": "gateway", "directory": "replays"}
_SPECS = {"commands": topics.COMMANDS, "events": topics.EVENTS,
          "playerviews": topics.PLAYER_VIEWS,
          "outcomes": topics.OUTCOMES, "directory": topics.DIRECTORY}
_BASES = {
    "commands": sorted(k for k in EXAMPLES if k.startswith("command.")),
    "events": sorted(k for k in EXAMPLES if k.startswith("event.")),
    "playerviews": ["player-update"],
    "outcomes": ["outcome.accepted", "outcome.rejected"], "directory": ["directory-entry"],
}
_DEEP, _INT, _STR = "__hostile_deep__", "__hostile_int__", "__hostile_str__"


@dataclass
class Hostile:
    topic: str  # the spec's short name: commands, events, ...
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]]
    why: str
    partition: int = -1  # where it landed
    offset: int = -1


def _paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place a value sits in `value` (the root excluded), containers included."""
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        yield (*at, k)
        yield from _paths(v, (*at, k))


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(doc)
    target = out
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value
    return out


def _typed(topic: str, path: tuple[Any, ...]) -> bool:
    """Does a wrong type here make the record undecodable? Everything but the options
    (any JSON) and, in a player update, what the gateway keeps raw (events, view, patch) or
    does not read (v, bot, bot_level)."""
    if topic == "commands":
        return "options" not in path
    if topic == "playerviews":  # what the gateway decodes of it (`RawPlayerUpdate`)
        return len(path) == 1 and path[0] in ("kind", "table_id", "seat", "version",
                                                     "previous")
    return True


def _body(draw: st.DrawFn, topic: str, table: str) -> dict[str, Any]:
    doc = copy.deepcopy(EXAMPLES[draw(st.sampled_from(_BASES[topic]))])
    if "table_id" in doc:
        doc["table_id"] = table
    if isinstance(doc.get("view"), dict) and "table_id" in doc["view"]:
        doc["view"]["table_id"] = table
    if topic == "events":
        doc["seq"] = 7 + draw(st.integers(0, 50))  # no fresh table is at seq 6
    return doc


def _encode(doc: Any, depth: int = 0, digits: str = "", text: bytes = b"") -> bytes:
    raw = json.dumps(doc, separators=(",", ":")).encode()
    if depth:
        opening = b"[" * depth
        raw = raw.replace(f'"{_DEEP}"'.encode(), opening + b"]" * depth)
    if digits:
        raw = raw.replace(f'"{_INT}"'.encode(), digits.encode())
    if text:
        raw = raw.replace(f'"{_STR}"'.encode(), b'"' + text + b'"')
    return raw


@st.composite
def hostile(draw: st.DrawFn, topic: str, tag: str) -> Hostile:
    """One hostile record for `topic`; `tag` makes its table ids fresh."""
    table = f"h{tag}-{draw(st.integers(0, 10**6))}"
    doc = _body(draw, topic, table)
    places = list(_paths(doc))
    kinds = ["deep", "huge_int", "mega_string", "utf8", "binary", "not_object"]
    if topic != "directory":  # a null there is a compacted topic's tombstone
        kinds.append("null_value")
    if topic in ("commands", "events"):
        kinds += ["null_key", "other_key"]
    typed = [p for p in places if _typed(topic, p)]
    if any(isinstance(_get(doc, p), int) and not isinstance(_get(doc, p), bool)
           for p in typed):
        kinds.append("float_for_int")
    typed = [p for p in typed if _get(doc, p) is not None]  # None: an optional field
    if typed:
        kinds.append("wrong_type")
    kind = draw(st.sampled_from(kinds))
    key: bytes | None = table.encode()
    value: bytes | None
    if kind == "deep":
        where = draw(st.sampled_from(places)) if places else ("x",)
        depth = draw(st.integers(1000, 5000))
        value = _encode(_set(doc, where, _DEEP), depth=depth)
        why = f"nested {depth} deep at {where}"
    elif kind == "huge_int":
        where = draw(st.sampled_from(places))
        digits = draw(st.sampled_from(["", "-"])) + "9" * draw(st.integers(17, 40))
        value = _encode(_set(doc, where, _INT), digits=digits)
        why = f"{len(digits)}-digit integer at {where}"
    elif kind == "mega_string":
        size = draw(st.integers(300_000, 950_000))
        strings = [p for p in places if isinstance(_get(doc, p), str)] or places
        where = draw(st.sampled_from(strings))
        value = _encode(_set(doc, where, _STR), text=b"x" * size)
        why = f"a {size}-byte string at {where}"
    elif kind == "utf8":
        strings = [p for p in places if isinstance(_get(doc, p), str)]
        where = draw(st.sampled_from(strings))
        bad = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xfe\xfe"]))
        value = _encode(_set(doc, where, _STR), text=b"a" + bad)
        why = f"invalid UTF-8 {bad!r} at {where}"
    elif kind == "binary":
        value = b"\x00" + draw(st.binary(min_size=0, max_size=300))
        why = "binary"
    elif kind == "not_object":
        value = draw(st.sampled_from([b"[1,2]", b'"a string"', b"42", b"null", b"true",
                                      b"", b"{", b"{}"]))
        why = f"not a message: {value!r}"
    elif kind == "null_value":
        value = None
        why = "null value"
    elif kind == "null_key":
        key, value = None, _encode(doc)
        why = "null key"
    elif kind == "other_key":
        key, value = f"{table}-other".encode(), _encode(doc)
        why = "a key that is not the body's table"
    elif kind == "float_for_int":
        ints = [p for p in typed if isinstance(_get(doc, p), int)
                and not isinstance(_get(doc, p), bool)]
        where = draw(st.sampled_from(ints))
        value = _encode(_set(doc, where, _get(doc, where) + 0.5))
        why = f"a float for the integer at {where}"
    else:  # wrong_type
        where = draw(st.sampled_from(typed))
        current = _get(doc, where)
        others = [v for v in ("s", 7, True, [1], {"a": 1})
                  if type(v) is not type(current)
                  and not (isinstance(current, (dict, list)) and isinstance(v, type(current)))]
        value = _encode(_set(doc, where, draw(st.sampled_from(others))))
        why = f"a wrong type at {where}"
    if value is not None and len(value) > MAX_RECORD:
        value = value[:MAX_RECORD]  # still hostile: cut mid-structure
        why += " (cut)"
    headers = draw(st.lists(st.tuples(st.text(max_size=20),
                                      st.binary(max_size=40)), max_size=3))
    return Hostile(topic, key, value, headers, f"{kind}: {why}")


def bursts(count: int, size: int, seed: int, topics_: tuple[str, ...] = tuple(READERS)
           ) -> list[list[Hostile]]:
    """`count` bursts of `size` hostile records, spread over `topics_` (hypothesis draws
    them, from `seed`: the same seed draws the same bursts)."""
    out: list[list[Hostile]] = []
    tag = uuid.uuid4().hex[:6]
    per_topic = st.one_of(*(hostile(t, f"{tag}{i}") for i, t in enumerate(topics_)))

    @seed_of(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.lists(per_topic, min_size=size, max_size=size))
    def collect(burst: list[Hostile]) -> None:
        out.append(burst)

    collect()
    return out[:count]


async def write(bootstrap: str, prefix: str, records: list[Hostile]) -> None:
    """Straight to the topics (not through a gateway), each record's place noted."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all",
                                max_request_size=MAX_RECORD + 100_000, linger_ms=2)
    await producer.start()
    try:
        futures = [await producer.send(_SPECS[r.topic].name(prefix), r.value, key=r.key,
                                       headers=r.headers or None) for r in records]
        for record, future in zip(records, futures, strict=True):
            meta = await future
            record.partition, record.offset = meta.partition, meta.offset
    finally:
        await producer.stop()


async def dead_letters(bootstrap: str, prefix: str, wanted: list[Hostile],
                       timeout: float = 60) -> dict[tuple[str, int, int], list[E.DeadLetter]]:
    """The dead letters by (topic, partition, offset), read until every record of `wanted`
    has one from its first reader (or `timeout`)."""
    consumer = AIOKafkaConsumer(topics.DEAD_LETTERS.name(prefix), bootstrap_servers=bootstrap,
                                group_id=None, auto_offset_reset="earliest",
                                enable_auto_commit=False, isolation_level="read_committed",
                                max_partition_fetch_bytes=8 * 1024 * 1024)
    await consumer.start()
    found: dict[tuple[str, int, int], list[E.DeadLetter]] = {}
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=500, max_records=5000)
            for records in batch.values():
                for record in records:
                    letter = E.dead_letter_decoder.decode(record.value)
                    found.setdefault((letter.topic, letter.partition, letter.offset),
                                     []).append(letter)
            if not missing(prefix, wanted, found):
                break
        return found
    finally:
        await consumer.stop()


def missing(prefix: str, wanted: list[Hostile],
            found: dict[tuple[str, int, int], list[E.DeadLetter]]) -> list[Hostile]:
    """The records of `wanted` that their first reader has not dead-lettered with a
    reason and a kind."""
    out = []
    for r in wanted:
        letters = found.get((_SPECS[r.topic].name(prefix), r.partition, r.offset), [])
        if not any(d.service == READERS[r.topic] and d.reason and d.kind for d in letters):
            out.append(r)
    return out


# ---------------------------------------------------------------- the stack
SERVICES = {
    "processor": ("--allow-stacked-deals",),
    "views": (), "timers": (), "bots": ("--no-fill-seats",),
    "gateway": ("--port", "0"),
    "leaderboards": ("--http-port", "0"),
    "replays": ("--http-port", "0"),
    "auditor": (),
}
READY = {"processor": "partition_rebuilt", "views": "views_ready", "timers": "timers_ready",
         "bots": "bots_started", "gateway": "gateway listening", "replays": "replays_started",
         "leaderboards": "leaderboards_ready", "auditor": "auditor_ready"}
FAILED = ("task_failed", "service_failed", "Traceback")


class HostileStack(stack.Stack):
    """Every consumer of ours as a subprocess, as production runs them (started as the demo
    starts them: `services.common.stack`)."""

    def __init__(self, bootstrap: str, prefix: str | None = None) -> None:
        chosen = prefix or f"hx{uuid.uuid4().hex[:8]}"
        super().__init__(bootstrap, chosen, ROOT / ".cache" / "test-logs",
                         log_stem=f"{chosen}-", log_level="info",
                         env={"OKEY_GATEWAY_SECRET": SECRET, "KAFKA_BOOTSTRAP": bootstrap})

    @property
    def procs(self) -> dict[str, subprocess.Popen[bytes]]:
        return {name: s.proc for name, s in self.services.items() if s.proc is not None}

    def log(self, name: str) -> str:
        return self.services[name].text() if name in self.services else ""

    def start(self) -> None:
        self.start_playing(list(SERVICES), SERVICES, dict.fromkeys(SERVICES, 0))

    async def ready(self, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        waiting = dict(READY)
        while waiting and time.monotonic() < deadline:
            for name, marker in list(waiting.items()):
                if marker in self.log(name):
                    del waiting[name]
                elif self.procs[name].poll() is not None:
                    raise AssertionError(f"{name} exited:\n{self.log(name)[-3000:]}")
            await asyncio.sleep(0.2)
        assert not waiting, f"not ready in {timeout} s: {sorted(waiting)}"

    def failures(self) -> dict[str, str]:
        """Services that exited, or logged a failed task, with what they said."""
        out = {}
        for name, proc in self.procs.items():
            text = self.log(name)
            if proc.poll() is not None:
                out[name] = f"exited {proc.returncode}: {text[-2000:]}"
            elif any(word in text for word in FAILED):
                lines = [ln for ln in text.splitlines() if any(w in ln for w in FAILED)]
                out[name] = "\n".join(lines[:5])
        return out


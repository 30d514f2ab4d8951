"""A faust-streaming app in its at-least-once mode, reading one topic: what it is handed.

Run by tests/kafka/test_faust_isolation.py as `faust -A tests.kafka.faust_probe worker`
with FAUST_PROBE_TOPIC and KAFKA_BOOTSTRAP set; it prints every value it is handed.
"""

from __future__ import annotations

import os

import faust

app = faust.App(f"probe-{os.environ['FAUST_PROBE_TOPIC']}",
                broker=f"kafka://{os.environ['KAFKA_BOOTSTRAP']}", store="memory://",
                processing_guarantee="at_least_once", web_enabled=False,
                topic_replication_factor=1)
source = app.topic(os.environ["FAUST_PROBE_TOPIC"], value_serializer="raw",
                   key_serializer="raw", partitions=1)


@app.agent(source)
async def show(stream):  # type: ignore[no-untyped-def]
    async for value in stream:
        print(f"HANDED {value.decode()}", flush=True)

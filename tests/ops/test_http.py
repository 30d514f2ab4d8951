"""The service endpoint: /metrics, /healthz and /readyz (from the service's readiness and
the broker probe), on one aiohttp server."""

from __future__ import annotations

import aiohttp

from services.common.http import BrokerProbe, HealthServer, Readiness
from services.common.ports import free_port


class Fake:
    def __init__(self) -> None:
        self.answer = Readiness(False, "partitions [3] not rebuilt yet")

    def readiness(self) -> Readiness:
        return self.answer


async def test_healthz_answers_while_readyz_says_what_is_missing() -> None:
    service, probe = Fake(), BrokerProbe("127.0.0.1:1")
    probe.reachable = True
    server, port = HealthServer(service, probe), free_port()
    await server.start("127.0.0.1", port)
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
                assert r.status == 200 and await r.json() == {"alive": True}
            async with http.get(f"http://127.0.0.1:{port}/readyz") as r:
                assert r.status == 503
                assert await r.json() == {"ready": False,
                                          "reason": "partitions [3] not rebuilt yet"}
            async with http.get(f"http://127.0.0.1:{port}/metrics") as r:
                assert "okey_ready 0.0" in await r.text()
            service.answer = Readiness(True)
            async with http.get(f"http://127.0.0.1:{port}/readyz") as r:
                assert r.status == 200
            async with http.get(f"http://127.0.0.1:{port}/metrics") as r:
                assert r.headers["Content-Type"].startswith("text/plain; version=")
                assert "okey_ready 1.0" in await r.text()
            probe.reachable, probe.error = False, "KafkaConnectionError()"
            async with http.get(f"http://127.0.0.1:{port}/readyz") as r:
                assert r.status == 503
                assert (await r.json())["reason"] == "broker unreachable: KafkaConnectionError()"
    finally:
        await server.stop()


async def test_the_broker_probe_says_unreachable_when_nothing_listens() -> None:
    probe = BrokerProbe(f"127.0.0.1:{free_port()}", period=0.1, timeout=1)
    probe.start()
    try:
        import asyncio
        for _ in range(50):
            if probe.checked_at:
                break
            await asyncio.sleep(0.1)
    finally:
        await probe.stop()
    assert probe.checked_at and not probe.reachable and probe.error


async def test_okey101_health_exits_0_when_ready_and_1_with_the_reason_when_not(
        capsys: object) -> None:
    import asyncio

    from services.cli.main import main
    service = Fake()
    server, port = HealthServer(service, None), free_port()
    await server.start("127.0.0.1", port)
    try:
        alive = await asyncio.to_thread(main, ["health", str(port)])
        unready = await asyncio.to_thread(main, ["health", f"127.0.0.1:{port}", "--ready"])
        service.answer = Readiness(True)
        ready = await asyncio.to_thread(main, ["health", f"127.0.0.1:{port}", "--ready"])
    finally:
        await server.stop()
    gone = await asyncio.to_thread(main, ["health", str(port)])
    assert (alive, unready, ready, gone) == (0, 1, 0, 1)

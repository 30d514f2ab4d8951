"""What every service's entry point shares: settings, JSON logs, the HTTP endpoint, the
connection to the broker (retried with backoff), signals.

A service's `__main__` is one call: `run(ProcessorSettings, Processor.from_settings)`.
- a bad setting: one line per bad value on stderr, exit status 2;
- the metrics port taken: one JSON line, exit status 1;
- the broker unreachable: a JSON line per attempt and a retry with exponential backoff
  (tenacity) until it answers or SIGTERM;
- the broker refusing the service (wrong credentials, no ACL): one JSON line
  `service_failed` naming the cause and the Kafka user, exit status 1 (no retry: waiting
  would not change the answer);
- SIGTERM or SIGINT: the service's `stop()`, then the end of its `run()`, exit status 0;
  a `run()` that has not ended `--stop-grace-seconds` later is cancelled, exit status 1,
  and a process still there a few seconds after that is ended (`watchdog.exit_later`);
- a main loop without progress for `--stall-seconds` (`services.common.watchdog`):
  /readyz 503 naming it, a stop, exit status 1 (or `os._exit(1)` if it will not stop);
- its `run()` ending otherwise (an exception, a return), or a watched task's end
  (`services.common.tasks`): /readyz 503 naming it for `EXIT_HOLD_S`, exit status 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

import structlog
from aiokafka.errors import KafkaError
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, wait_exponential_jitter

from okey101.errors import MalformedInput
from services.common.http import BrokerProbe, HealthServer, ReportsReadiness
from services.common.kafka import KafkaClientLog, fault_text
from services.common.logs import configure_logging
from services.common.memory import freeze_startup, track_gc_pauses
from services.common.settings import ServiceSettings, load
from services.common.tasks import EXIT_HOLD_S, TASKS
from services.common.watchdog import PROGRESS, Watchdog, exit_later

log = structlog.get_logger("runtime")
S = TypeVar("S", bound=ServiceSettings)
# What "the broker is not there (yet)" looks like at start: worth waiting for.
BROKER_FAULTS: tuple[type[BaseException], ...] = (KafkaError, OSError, TimeoutError)
BACKOFF_FIRST_S = 0.5
BACKOFF_MAX_S = 30.0
# What the client logs when the broker refuses the credentials (aiokafka's exception
# itself only says "Unable to bootstrap").
REFUSED_CAUSES = ("SaslAuthenticationFailed", "Authentication failed")
# after the grace period, the cancelled run() has this long to end before the process is
# ended anyway
CANCEL_HOLD_S = 3.0


def is_refusal(exc: BaseException, cause: str) -> bool:
    """The broker answered, and said no: an authentication or authorization failure."""
    return "AuthorizationFailed" in type(exc).__name__ or \
        any(word in cause for word in REFUSED_CAUSES)


class Service(ReportsReadiness, Protocol):
    async def connect(self) -> None:
        """Provision the topics and start the Kafka clients; raise a `BROKER_FAULTS` error
        (having closed what it opened) when the broker does not answer."""

    async def run(self) -> None:
        """Until `stop()`; connects first when `connect()` has not been called."""

    def stop(self) -> None: ...


def run(settings_class: type[S], build: Callable[[S], Service],
        argv: Sequence[str] | None = None) -> int:
    """Load and check the settings, then serve the service; the process's exit status."""
    loaded = load(settings_class, argv)
    if isinstance(loaded, list):
        for line in loaded:
            print(f"{settings_class.program}: {line}", file=sys.stderr)
        return 2
    configure_logging(loaded.log_level)
    track_gc_pauses()
    freeze_startup()
    return asyncio.run(serve_settings(loaded, build))


async def serve_settings(settings: S, build: Callable[[S], Service]) -> int:
    service = build(settings)
    stopping = asyncio.Event()
    TASKS.reset()
    PROGRESS.reset()
    grace = settings.stop_grace_seconds

    def stop() -> None:
        if not stopping.is_set():
            exit_later(grace + EXIT_HOLD_S + CANCEL_HOLD_S + 1, "the stop did not finish")
        stopping.set()
        service.stop()

    loop = asyncio.get_running_loop()
    on_stop_signals(loop, stop)
    probe = BrokerProbe(settings.bootstrap)
    server = HealthServer(service, probe)
    if settings.metrics_port:
        try:
            await server.start(settings.metrics_addr, settings.metrics_port)
        except OSError as exc:
            log.error("metrics_port_unavailable", addr=settings.metrics_addr,
                      port=settings.metrics_port, error=str(exc))
            return 1
        probe.start()
    client = KafkaClientLog()
    logging.getLogger("aiokafka").addHandler(client)
    try:
        if await connect(service, stopping, settings.bootstrap, client):
            return await _run_watched(service, stopping, grace, settings.stall_seconds)
        return 0
    except MalformedInput as exc:
        log.error("service_failed", error=str(exc))
        return 2
    except Exception as exc:
        if isinstance(exc, BROKER_FAULTS) and is_refusal(exc, client.last_error):
            log.error("service_failed", error=fault_text(exc), cause=client.last_error or None,
                      kafka_user=os.environ.get("OKEY_KAFKA_USERNAME") or None)
        else:
            log.exception("service_failed", error=repr(exc))
        return 1
    finally:
        TASKS.stopping = True
        logging.getLogger("aiokafka").removeHandler(client)
        await probe.stop()
        await server.stop()
        after_stop_signals(loop)


def on_stop_signals(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> None:
    """SIGTERM and SIGINT call `stop` (a graceful stop)."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)


def after_stop_signals(loop: asyncio.AbstractEventLoop) -> None:
    """Once the service has stopped, a SIGTERM is ignored: closing the loop would give it
    back its default action, and a second SIGTERM (a supervisor that signals every process
    again as it waits for each) would kill the interpreter's teardown, exit status -15
    after a clean stop. SIGKILL still ends it; SIGINT (a person's Ctrl-C) is the
    default again."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.remove_signal_handler(sig)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


async def _run_watched(service: Service, stopping: asyncio.Event, grace: float = 20.0,
                       stall_s: float = 0.0) -> int:
    """`service.run()` until it ends; 0 when it ended for a stop. Its end for any other
    reason (an exception, or a return nobody asked for), the end of a task `TASKS`
    watches, or a loop without progress for `stall_s` (the watchdog) is a failure: /readyz
    names it for `EXIT_HOLD_S`, then the exit status is 1 (systemd or Kubernetes restarts
    the service). A `run()` that does not end `grace` seconds after a stop is cancelled:
    exit status 1."""
    main = asyncio.create_task(service.run(), name="main loop")
    fatal = asyncio.create_task(TASKS.fatal.wait())
    stop_asked = asyncio.create_task(stopping.wait())
    dog = _watchdog(grace, stall_s)
    try:
        await asyncio.wait({main, fatal, stop_asked}, return_when=asyncio.FIRST_COMPLETED)
        if not main.done() and not fatal.done():  # a stop was asked for
            await asyncio.wait({main, fatal}, timeout=grace,
                               return_when=asyncio.FIRST_COMPLETED)
            if not main.done() and not fatal.done():
                log.error("stop_timed_out", grace_seconds=grace, task="main loop")
                await _cancel(main)
                return 1
        return await _ended(service, stopping, main, grace)
    finally:
        fatal.cancel()
        stop_asked.cancel()
        if dog is not None:
            dog.stop()


def _watchdog(grace: float, stall_s: float) -> Watchdog | None:
    if stall_s <= 0:
        return None

    def on_stall(loop: str, age: float) -> None:
        TASKS.failed(f"{loop} loop", f"no progress for {age:.0f} s", label="loop_stalled",
                     verb="stalled")
        TASKS.fatal.set()

    dog = Watchdog(asyncio.get_running_loop(), stall_s, EXIT_HOLD_S + grace + CANCEL_HOLD_S,
                   on_stall)
    dog.start()
    return dog


async def _cancel(main: asyncio.Task[None]) -> None:
    main.cancel()
    await asyncio.wait({main}, timeout=CANCEL_HOLD_S)  # one that will not end is left


async def _ended(service: Service, stopping: asyncio.Event, main: asyncio.Task[None],
                 grace: float) -> int:
    if main.done():
        error = None if main.cancelled() else main.exception()
        if stopping.is_set() and error is None:
            return 0
        if isinstance(error, MalformedInput):
            raise error
        TASKS.failed(f"{type(service).__name__} main loop",
                     error if error is not None else "returned", label="main_loop")
        await asyncio.sleep(EXIT_HOLD_S)
        if error is not None:
            raise error  # logged as service_failed (the broker's refusal named), status 1
    else:
        service.stop()
        await asyncio.sleep(EXIT_HOLD_S)
        await asyncio.wait({main}, timeout=grace)
        if not main.done():
            log.warning("service_stop_failed", error=f"the main loop did not stop in {grace} s")
            await _cancel(main)
        elif not main.cancelled() and main.exception() is not None:
            log.warning("service_stop_failed", error=repr(main.exception()))
    log.error("service_failed", error=TASKS.unready())
    return 1


async def connect(service: Service, stopping: asyncio.Event, bootstrap: str,
                  client: KafkaClientLog | None = None) -> bool:
    """`service.connect()` until it succeeds (True) or the service is stopped (False); a
    refusal by the broker (`is_refusal`, read from the client's log) is raised at once."""
    def waiting(state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome is not None else None
        log.warning("broker_unreachable", bootstrap=bootstrap, attempt=state.attempt_number,
                    retry_in_s=round(state.upcoming_sleep, 2), error=repr(error))

    def worth_retrying(exc: BaseException) -> bool:
        cause = client.last_error if client is not None else ""
        return isinstance(exc, BROKER_FAULTS) and not is_refusal(exc, cause)

    retrying = AsyncRetrying(
        wait=wait_exponential_jitter(initial=BACKOFF_FIRST_S, max=BACKOFF_MAX_S),
        retry=retry_if_exception(worth_retrying), before_sleep=waiting, reraise=True)
    # While the broker is awaited, `broker_unreachable` (with the error) is the one line per
    # attempt: aiokafka's own connection errors would only repeat it (they still reach
    # `client`, which keeps the cause of a refusal).
    client_log = logging.getLogger("aiokafka")
    propagate = client_log.propagate
    client_log.propagate = False
    attempt: asyncio.Task[None] = asyncio.create_task(retrying(service.connect))
    stopped = asyncio.create_task(stopping.wait())
    try:
        await asyncio.wait({attempt, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        client_log.propagate = propagate
    stopped.cancel()
    if not attempt.done():
        attempt.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await attempt
        log.info("stopped_before_connecting")
        return False
    attempt.result()  # a fault that is not the broker's: the caller reports it
    return not stopping.is_set()

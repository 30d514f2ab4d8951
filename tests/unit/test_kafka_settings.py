"""The Kafka client settings every service takes from its environment: credentials and
replication. A bad setting is refused in one line naming the variable."""

from __future__ import annotations

import ssl

import pytest

from okey101.errors import InfrastructureFault, MalformedInput
from services.common.kafka import (
    bootstrap_servers,
    client_security,
    fault_text,
    kafka_wait_s,
    rdkafka_security,
    replication_settings,
    wait_for,
)
from services.replays.bulk import BulkReader


def test_no_setting_means_plaintext() -> None:
    assert client_security({}) == {"security_protocol": "PLAINTEXT"}


def test_sasl_takes_the_user_password_and_mechanism_scram_sha_512_by_default() -> None:
    env = {"OKEY_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "OKEY_KAFKA_USERNAME": "processor",
           "OKEY_KAFKA_PASSWORD": "secret"}
    assert client_security(env) == {
        "security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "processor", "sasl_plain_password": "secret"}


def test_sasl_ssl_adds_a_tls_context_that_verifies_the_brokers() -> None:
    env = {"OKEY_KAFKA_SECURITY_PROTOCOL": "sasl_ssl", "OKEY_KAFKA_USERNAME": "bots",
           "OKEY_KAFKA_PASSWORD": "secret", "OKEY_KAFKA_SASL_MECHANISM": "SCRAM-SHA-256"}
    options = client_security(env)
    assert options["security_protocol"] == "SASL_SSL"
    assert options["sasl_mechanism"] == "SCRAM-SHA-256"
    context = options["ssl_context"]
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


@pytest.mark.parametrize(("env", "named"), [
    ({"OKEY_KAFKA_SECURITY_PROTOCOL": "SASL"}, "OKEY_KAFKA_SECURITY_PROTOCOL=SASL: must be"),
    ({"OKEY_KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "OKEY_KAFKA_PASSWORD": "x"},
     "OKEY_KAFKA_USERNAME is not set"),
    ({"OKEY_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "OKEY_KAFKA_USERNAME": "x"},
     "OKEY_KAFKA_PASSWORD is not set"),
    ({"OKEY_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "OKEY_KAFKA_USERNAME": "x",
      "OKEY_KAFKA_PASSWORD": "y", "OKEY_KAFKA_SASL_MECHANISM": "GSSAPI"},
     "OKEY_KAFKA_SASL_MECHANISM=GSSAPI: must be"),
    ({"OKEY_KAFKA_SECURITY_PROTOCOL": "SSL", "OKEY_KAFKA_CA_FILE": "/nonexistent/ca.pem"},
     "OKEY_KAFKA_CA_FILE=/nonexistent/ca.pem"),
])
def test_a_bad_security_setting_is_refused_naming_the_variable(
        env: dict[str, str], named: str) -> None:
    with pytest.raises(MalformedInput, match=named):
        client_security(env)


def test_the_export_reader_takes_the_same_settings_in_librdkafka_names() -> None:
    assert rdkafka_security({}) == {"security.protocol": "PLAINTEXT"}
    env = {"OKEY_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "OKEY_KAFKA_USERNAME": "analyst",
           "OKEY_KAFKA_PASSWORD": "secret"}
    assert rdkafka_security(env) == {
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": "analyst", "sasl.password": "secret"}
    tls = rdkafka_security({**env, "OKEY_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
                            "OKEY_KAFKA_SASL_MECHANISM": "PLAIN"})
    assert tls["sasl.mechanism"] == "PLAIN" and tls["ssl.ca.location"] == "probe"
    assert tls["ssl.endpoint.identification.algorithm"] == "https"


def test_the_export_reader_refuses_a_bad_setting_as_every_client_does() -> None:
    with pytest.raises(MalformedInput, match="OKEY_KAFKA_PASSWORD is not set"):
        rdkafka_security({"OKEY_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
                          "OKEY_KAFKA_USERNAME": "x"})


def test_replication_settings_are_unset_unless_given() -> None:
    assert replication_settings({}) == (None, None)
    assert replication_settings({"OKEY_REPLICATION_FACTOR": "3",
                                 "OKEY_MIN_INSYNC_REPLICAS": " 2 "}) == (3, 2)


def test_a_replication_setting_that_is_not_a_number_is_refused_naming_it() -> None:
    with pytest.raises(MalformedInput, match="OKEY_MIN_INSYNC_REPLICAS='two'"):
        replication_settings({"OKEY_MIN_INSYNC_REPLICAS": "two"})


def test_a_fault_is_one_line_naming_its_kind_once() -> None:
    assert fault_text(TimeoutError()) == "TimeoutError"
    assert fault_text(OSError("refused\n  at x")) == "OSError: refused at x"
    assert fault_text(ValueError("ValueError: twice")) == "ValueError: twice"


def test_the_export_reader_names_why_a_range_could_not_be_read() -> None:
    reader = BulkReader("127.0.0.1:1")  # nothing listens there
    try:
        with pytest.raises(InfrastructureFault, match=r"okey\.events\[0\] offsets 0-10: not "
                           r"read in 2 s \(.*Connection refused"):
            list(reader.read("okey.events", 0, 0, 10, timeout=2))
    finally:
        reader.close()


def _clients_without_credentials(source: str) -> list[int]:
    """Lines of the Kafka clients `source` makes in a function (or module) that never calls
    `client_security()` for their keywords."""
    import ast
    kinds = {"AIOKafkaConsumer", "AIOKafkaProducer", "AIOKafkaAdminClient"}
    tree = ast.parse(source)
    scopes = [n for n in ast.walk(tree)
              if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)] or [tree]
    missing = set()
    for scope in scopes:
        calls = [n for n in ast.walk(scope) if isinstance(n, ast.Call)]
        secured = any(getattr(c.func, "id", None) == "client_security" for c in calls)
        missing |= {c.lineno for c in calls
                    if getattr(c.func, "id", None) in kinds and not secured}
    return sorted(missing)


def test_every_kafka_client_of_every_service_takes_the_credentials_from_the_settings(
        ) -> None:
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    found = {str(p.relative_to(root)): _clients_without_credentials(p.read_text())
             for p in sorted((root / "services").rglob("*.py"))}
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_the_credentials_check_finds_a_client_made_without_them() -> None:
    assert _clients_without_credentials(
        "def a():\n    return AIOKafkaProducer(bootstrap_servers=b)\n"
        "def b():\n    return AIOKafkaConsumer(bootstrap_servers=b, **client_security())\n"
        ) == [2]


def test_kafka_port_alone_names_the_local_broker_the_script_starts() -> None:
    assert bootstrap_servers(env={}) == "127.0.0.1:19092"
    assert bootstrap_servers(env={"KAFKA_PORT": "29092"}) == "127.0.0.1:29092"


def test_kafka_bootstrap_beats_kafka_port_and_an_explicit_address_beats_both() -> None:
    env = {"KAFKA_PORT": "29092", "KAFKA_BOOTSTRAP": "k1:9092"}
    assert bootstrap_servers(env=env) == "k1:9092"
    assert bootstrap_servers("k2:9092", env=env) == "k2:9092"


@pytest.mark.parametrize("port", ["abc", "0", "70000"])
def test_a_kafka_port_that_is_not_a_port_is_refused_naming_it(port: str) -> None:
    with pytest.raises(MalformedInput, match=f"KAFKA_PORT='{port}'"):
        bootstrap_servers(env={"KAFKA_PORT": port})


def test_the_broker_waits_last_minutes_unless_set() -> None:
    assert kafka_wait_s({}) >= 120
    assert kafka_wait_s({"OKEY_KAFKA_WAIT_S": "7.5"}) == 7.5
    for bad in ("soon", "0"):
        with pytest.raises(MalformedInput, match="OKEY_KAFKA_WAIT_S"):
            kafka_wait_s({"OKEY_KAFKA_WAIT_S": bad})


async def test_a_wait_tells_its_progress_and_its_timeout_names_what_and_how_long() -> None:
    heard: list[str] = []

    async def never() -> None:
        return None

    with pytest.raises(InfrastructureFault) as caught:
        await wait_for("the topics x.* to be created", never, 0.3, heard.append,
                       pause=0.01, every=0.1)
    assert "the topics x.* to be created" in str(caught.value)
    assert "OKEY_KAFKA_WAIT_S=0.3" in str(caught.value) and "waited 0 s" in str(caught.value)
    assert heard and all(line.startswith("waiting for the topics x.* to be created: ")
                         for line in heard)


async def test_a_wait_ends_with_the_first_answer_and_asks_a_busy_broker_again() -> None:
    from aiokafka.errors import RequestTimedOutError
    answers: list[object] = [RequestTimedOutError(), None, {"x.events": 8}]

    async def attempt() -> object:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert await wait_for("x", attempt, 5, pause=0.0) == {"x.events": 8}
    assert answers == []

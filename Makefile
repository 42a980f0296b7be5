# Baton: `make run` installs what is missing, builds and opens Baton;
# `make test` installs what is missing and runs every test.

WAILS_VERSION := v2.16.0
# Debian 12 and Ubuntu 22.04+ ship WebKitGTK 4.1; Wails needs the tag to use it.
WAILS_TAGS    := webkit2_41
VERSION       := 0.1.0

GOPATH_BIN := $(shell go env GOPATH 2>/dev/null)/bin
export PATH := $(GOPATH_BIN):$(PATH)
export WAILS_VERSION

COMMIT  := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE    := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildDate=$(DATE)
BIN     := build/bin/baton

.PHONY: all deps test-deps build build-only run test vet go-test frontend-check frontend-test smoke e2e fmt clean bench

all: build

## deps: install what building and running Baton needs (only what is missing)
deps:
	@scripts/deps.sh build

## test-deps: deps plus what the tests need (Xvfb, D-Bus, ImageMagick, xdotool, the pinned Claude Code CLI)
test-deps:
	@scripts/deps.sh test

## build: generate the bindings, build the frontend and the desktop binary
build: deps build-only

build-only:
	wails generate module -tags $(WAILS_TAGS) >/dev/null
	cd frontend && npm run build --silent
	wails build -s -skipbindings -tags $(WAILS_TAGS) -ldflags "$(LDFLAGS)" >/dev/null
	@echo "Built $(BIN)"

## run: build and open Baton
run: build
	@./$(BIN)

## test: every check: go vet, go test -race, svelte-check, Vitest, and the desktop smoke test
test: test-deps
	$(MAKE) --no-print-directory vet go-test frontend-check frontend-test build-only smoke e2e

vet:
	go vet ./...

go-test:
	go test -race ./...

frontend-check:
	cd frontend && npm run --silent check

frontend-test:
	cd frontend && npm test --silent

## smoke: the built binary under Xvfb and D-Bus: its page reaches a binding; it restores a run, finishes it and notifies
smoke:
	BATON_BINARY=$(CURDIR)/$(BIN) go test -tags smoke -count=1 -run '^TestDesktop' -v .

## e2e: the real frontend with the real bindings (wails dev) driven in Chromium: a run from wizard to History
e2e:
	scripts/e2e.sh

fmt:
	gofmt -w $$(git ls-files '*.go' | grep -v '^frontend/wailsjs/')

clean:
	rm -rf build/bin frontend/node_modules
	find frontend/dist -mindepth 1 ! -name .gitkeep -delete

## bench: run the engine on the simulator in headless Chromium (about 2 minutes) and write bench/REPORT.md
bench:
	go run ./bench -out bench/REPORT.md

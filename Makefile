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
# Hardened like Debian's own binaries (lintian checks it): position-independent, full RELRO and
# immediate binding, fortified C (go-sqlite3).
HARDENING := GOFLAGS=-buildmode=pie CGO_CFLAGS="-g -O2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong" \
	CGO_LDFLAGS="-g -O2 -Wl,-z,relro,-z,now"
DIST    := build/dist

.PHONY: all deps test-deps build build-only run test vet vet-windows go-test frontend-check frontend-test smoke e2e remote-e2e fmt clean bench bench-diff \
	package package-only package-check package-windows

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
	$(HARDENING) wails build -s -skipbindings -tags $(WAILS_TAGS) -ldflags "$(LDFLAGS)" >/dev/null
	@echo "Built $(BIN)"

## run: build and open Baton
run: build
	@./$(BIN)

## test: every check: go vet, go test -race, svelte-check, Vitest, the desktop smoke test, the packages, the end-to-end tests
test: test-deps
	$(MAKE) --no-print-directory vet vet-windows go-test frontend-check frontend-test build-only smoke package-only package-check e2e remote-e2e

vet:
	go vet ./...

# vet-windows: the tray, the notifications and the Claude Code host compile for Windows (cheap; make package-windows builds it all)
vet-windows:
	GOOS=windows GOARCH=amd64 go vet ./backend/notify/... ./backend/desktop/... ./backend/claudecode/...

go-test:
	go test -race -timeout 20m ./...

frontend-check:
	cd frontend && npm run --silent check

frontend-test:
	cd frontend && npm test --silent

## smoke: the built binary under Xvfb and D-Bus: its page reaches a binding; it restores a run, finishes it and notifies
smoke:
	BATON_BINARY=$(CURDIR)/$(BIN) go test -tags smoke -count=1 -run '^TestDesktop' -v .

## package: build Baton and write $(DIST)/baton_$(VERSION)_amd64.deb and baton_$(VERSION)_linux_amd64.tar.gz
package:
	@scripts/deps.sh package
	$(MAKE) --no-print-directory build-only package-only

# package-only: package the binary already built in $(BIN)
package-only:
	scripts/package.sh $(VERSION) $(BIN)

## package-check: the .deb and the tarball: contents, desktop-file-validate, appstreamcli, lintian, and the installed binary started from its menu entry under Xvfb
package-check:
	BATON_VERSION=$(VERSION) BATON_DIST=$(CURDIR)/$(DIST) go test -tags package -count=1 -run '^TestPackage' -v .

## package-windows: cross-build build/bin/baton.exe for Windows amd64 (mingw-w64 for cgo) and check it is an amd64 PE executable
package-windows:
	@scripts/deps.sh windows
	wails generate module -tags $(WAILS_TAGS) >/dev/null
	cd frontend && npm run build --silent
	CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc CXX=x86_64-w64-mingw32-g++ \
		wails build -s -skipbindings -platform windows/amd64 -ldflags "$(LDFLAGS)" -o baton.exe >/dev/null
	go run ./tools/pecheck build/bin/baton.exe

## e2e: the real frontend with the real bindings (wails dev) driven in Chromium: a run from wizard to History
e2e:
	scripts/e2e.sh

## remote-e2e: "baton serve" driven in Chromium at a phone's size: the access link, a permission allowed from the Inbox on the Claude Code CLI host, the Origin check, a new link signing browsers out
remote-e2e:
	scripts/remote-e2e.sh

fmt:
	gofmt -w $$(git ls-files '*.go' | grep -v '^frontend/wailsjs/')

clean:
	rm -rf build/bin build/dist frontend/node_modules
	find frontend/dist -mindepth 1 ! -name .gitkeep -delete

## bench: run the engine on the simulator in headless Chromium and on the pinned Claude Code CLI (about 5 minutes) and write bench/REPORT.md
bench:
	go run ./bench -out bench/REPORT.md
	$(MAKE) --no-print-directory bench-diff

## bench-diff: time the run view's diff of 5,000 changed lines in headless Chromium (about a minute) and write its section of bench/REPORT.md
bench-diff:
	cd frontend && node e2e/diff-bench.mjs --out ../bench/REPORT.md

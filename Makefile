# shipd — run `make help` for the targets.
SHELL := /bin/bash
GO ?= go
SPECTRAL_VERSION := 6.16.3
TOOLS := .tools
SPECTRAL := $(TOOLS)/node_modules/.bin/spectral

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: generate
generate: ## Write the carrier registry's parts of openapi.yaml and docs/ (carriers/connectors/gendocs), then gen/ from openapi.yaml
	$(GO) generate ./...

.PHONY: check-generate
check-generate: ## Fail when gen/, or what the carrier registry writes into the contract and the documents, is stale
	$(GO) generate ./...
	@git diff --exit-code -- gen/ openapi/ docs/ || { echo "gen/, openapi/ or docs/ is stale: run 'make generate' and commit"; exit 1; }

# The version stamped into shipd (shipd version): git describe, or "dev"
# outside a checkout. BUILD_DATE is the commit's time, not the clock's, so
# one commit builds the same bytes whenever it is built (make release).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
BUILD_DATE ?= $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ)
VERSION_LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)

.PHONY: build
# A cold build spends most of its minutes in SQLite's C source (cgo,
# github.com/mattn/go-sqlite3): say so first, rather than one silent line.
COLD_BUILD_NOTE = @[ "$$($(GO) list -f '{{.Stale}}' github.com/mattn/go-sqlite3 2>/dev/null)" != true ] || \
	echo "$@: the first build compiles SQLite's C source (github.com/mattn/go-sqlite3): about 5 minutes on 2 cores, once; later builds take seconds. Without building: README, \"Without building\"."

build: ## Build bin/shipd
	$(COLD_BUILD_NOTE)
	$(GO) build -ldflags '$(VERSION_LDFLAGS)' -o bin/shipd ./cmd/shipd

# The static binary of the image and the release: cgo (SQLite) linked
# statically, Go's own DNS resolver and user lookup (netgo, osusergo: no
# glibc NSS to load at run time), SQLite without dlopen'ed extensions (which
# a static glibc cannot do), no paths, build id or symbols that would differ
# between two builds of one commit.
STATIC_TAGS := netgo,osusergo,sqlite_omit_load_extension
STATIC_FLAGS := -trimpath -buildvcs=false -tags $(STATIC_TAGS) \
	-ldflags '-s -w -buildid= $(VERSION_LDFLAGS) -linkmode external -extldflags "-static"'

.PHONY: build-static
build-static: ## Build bin/static/shipd: one static linux binary (the image's and the release's)
	$(COLD_BUILD_NOTE)
	CGO_ENABLED=1 $(GO) build $(STATIC_FLAGS) -o bin/static/shipd ./cmd/shipd

# podman when installed, else docker.
ENGINE ?= $(shell command -v podman >/dev/null 2>&1 && echo podman || echo docker)

.PHONY: image
image: build-static ## Build the container image shipd:VERSION (and shipd:latest) with podman or docker, FROM scratch: nothing is pulled
	ENGINE=$(ENGINE) VERSION=$(VERSION) COMMIT=$(COMMIT) BUILD_DATE=$(BUILD_DATE) scripts/image-build.sh bin/static/shipd

.PHONY: release
release: build-static ## Write dist/shipd_VERSION_linux_amd64.tar.gz (binary, README, contract, licence notices) and dist/SHA256SUMS, byte for byte reproducible
	GO=$(GO) VERSION=$(VERSION) SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) STATIC_TAGS=$(STATIC_TAGS) scripts/release.sh bin/static/shipd

.PHONY: test-image
test-image: ## The image on SQLite and on PostgreSQL (two instances) through podman, the systemd unit, and make release's reproducibility (installs podman, runc and systemd when missing)
	GO=$(GO) scripts/image-test.sh

.PHONY: run
run: build ## Start a server on 127.0.0.1:8080 with ./shipd.db (prints a test token on first start)
	./bin/shipd serve

.PHONY: test
test: ## Run every test (installs Debian's poppler-utils, whose pdftotext reads the customs invoice, when missing)
	@command -v pdftotext >/dev/null || { echo "test: installing Debian's poppler-utils"; export DEBIAN_FRONTEND=noninteractive; apt-get update -qq >/dev/null && apt-get install -y -qq poppler-utils >/dev/null; }
	$(COLD_BUILD_NOTE)
	$(GO) test -count=1 ./...

.PHONY: test-postgres
test-postgres: ## The store's conformance suite, the domain and server tests, several instances and the contract, on a throwaway PostgreSQL (or $$SHIPD_TEST_DATABASE_URL)
	scripts/pg-test.sh bash -c '$(GO) test -count=1 ./store/... ./accounts/ ./shipping/ ./webhooks/ ./idempotency/ ./server/ ./cmd/shipd/ && $(MAKE) --no-print-directory contract'

.PHONY: test-redis
test-redis: ## Rate limits shared through a throwaway Redis (installs Debian's redis-server when missing)
	scripts/redis-test.sh $(GO) test -count=1 -run Redis ./server/

# The settings UI in Debian's headless Chromium (playwright-core) with an
# axe-core check of every page; installs chromium and the npm packages of
# ui/e2e only when they are missing. Screenshots land in ui/e2e/screenshots/.
.PHONY: test-ui
test-ui: ## The settings UI end to end in headless Chromium, with an accessibility check (installs Debian's chromium and ui/e2e's npm packages when missing)
	@test -x /usr/bin/chromium || { echo "test-ui: installing Debian's chromium"; export DEBIAN_FRONTEND=noninteractive; apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null; }
	@test ui/e2e/node_modules/.package-lock.json -nt ui/e2e/package-lock.json || (cd ui/e2e && npm ci --no-audit --no-fund --loglevel=error)
	SHIPD_UI_E2E=1 $(GO) test -count=1 -v -run TestBrowserFlows ./ui/e2e/

# CONTRACT_FLAGS, e.g. "-base-url http://127.0.0.1:8080 -db ./shipd.db", runs the
# scenarios against a running deployment (see contracttest/README.md).
CONTRACT_FLAGS ?=

.PHONY: contract
contract: ## Replay every documented status of every operation against the contract (prints the matrix, writes contracttest/results/contract.xml)
	@set -o pipefail; $(GO) test -count=1 -v -parallel 16 ./contracttest/ $(CONTRACT_FLAGS) \
		| grep -v -E '^ *(=== (RUN|PAUSE|CONT)|--- PASS)'

$(SPECTRAL):
	@mkdir -p $(TOOLS)
	npm install --silent --no-audit --no-fund --prefix $(TOOLS) @stoplight/spectral-cli@$(SPECTRAL_VERSION)

.PHONY: lint-spec
lint-spec: $(SPECTRAL) ## Lint openapi/openapi.yaml with Spectral (fails on errors)
	$(SPECTRAL) lint --fail-severity=error openapi/openapi.yaml

STATICCHECK_VERSION := v0.8.2

.PHONY: lint
lint: lint-spec ## go vet, gofmt, staticcheck and the spec lint
	$(GO) vet ./...
	@! git grep -n -E '^(<<<<<<<|>>>>>>>) ' -- . ':!*.pdf' || { echo "merge conflict markers above"; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

.PHONY: check-tidy
check-tidy: ## Fail when go.mod or go.sum is not tidy
	$(GO) mod tidy
	@git diff --exit-code -- go.mod go.sum || { echo "go.mod/go.sum are not tidy: run 'go mod tidy' and commit"; exit 1; }

.PHONY: sdk-test
sdk-test: ## Clients generated from the contract in Go (oapi-codegen) and TypeScript (openapi-typescript, openapi-fetch), pinned, run one flow against a fresh server (installs sdk/typescript's npm packages when missing; ~1 min)
	GO=$(GO) scripts/sdk-test.sh

.PHONY: check-api
check-api: ## Fail when openapi/openapi.yaml breaks v1 (oasdiff against the first v1 contract and the previous commit), and test the gate itself
	GO=$(GO) scripts/check-api.sh
	$(GO) test -count=1 -run 'TestCheckAPIGate$$' ./openapi/

# The packages where goroutines meet: the HTTP layer, the domain, the store.
RACE_PACKAGES := ./server/ ./store/... ./accounts/ ./shipping/ ./webhooks/... ./idempotency/ ./carriers/oauth/ ./carriers/sandbox/

.PHONY: test-race
test-race: ## Run the concurrent packages' tests under the race detector
	$(GO) test -count=1 -race -timeout 30m $(RACE_PACKAGES)

# FUZZTIME is each fuzz target's time; FUZZTIME_CARRIERS the carriers'
# response parsers' (default: FUZZTIME); FUZZ_MATCH a regex of "./pkg/ FuzzX"
# to run some only. See scripts/fuzz.sh.
FUZZTIME ?= 20s

.PHONY: fuzz
fuzz: ## Run every Go fuzz target (found by grep) one at a time, FUZZTIME each (20s); stops at the first failure and names it (~12 min)
	GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# BENCH_FLAGS, e.g. "-profile-dir /tmp/shipd-prof" (CPU profiles of each
# phase) or "-shipd-flags=--job-poll-interval=10ms"; see bench/README.md.
BENCH_FLAGS ?=

# PostgreSQL runs too when SHIPD_TEST_DATABASE_URL is set or a server is
# installed (scripts/pg-test.sh then starts a throwaway one); else SQLite only.
.PHONY: bench
bench: ## Load-test shipd on 127.0.0.1 beside a bare Echo baseline: SQLite, and PostgreSQL with 1 and 2 instances when at hand (< 6 min); prints the tables, writes bench/results/latest.json
	$(GO) build -o bin/shipd ./cmd/shipd
	$(GO) build -o bin/bench-baseline ./bench/cmd/baseline
	$(GO) build -o bin/bench-load ./bench/cmd/load
	$(if $(SHIPD_TEST_DATABASE_URL)$(wildcard /usr/lib/postgresql/*/bin/initdb),scripts/pg-test.sh) ./bin/bench-load -shipd bin/shipd -baseline bin/bench-baseline -out bench/results/latest.json $(BENCH_FLAGS)

# Not in CI: a shared CI machine's noise is larger than the tolerance.
.PHONY: bench-check
bench-check: ## Regression gate, run by hand on a quiet machine: short read and purchase phases on SQLite; fails when either is >20% below bench/results/latest.json (~20 s)
	$(GO) build -o bin/shipd ./cmd/shipd
	$(GO) build -o bin/bench-baseline ./bench/cmd/baseline
	$(GO) build -o bin/bench-load ./bench/cmd/load
	./bin/bench-load -shipd bin/shipd -baseline bin/bench-baseline -postgres "" -phases read,purchase -small-rows 2000 -read-duration 4s -out bin/bench-check.json -check bench/results/latest.json $(BENCH_FLAGS)

.PHONY: bench-drain
bench-drain: ## How fast queued purchases drain after a restart: 10,000 labels with an instant and a 300 ms carrier, and the old 8 shared workers for comparison (~3 min)
	$(GO) test -run '^$$' -bench BenchmarkPurchaseDrainAfterRestart -benchtime 1x -timeout 20m ./app/

.PHONY: clean
clean: ## Remove build output and local tools
	rm -rf bin dist $(TOOLS) sdk/go/shipd sdk/typescript/node_modules sdk/typescript/build sdk/typescript/generated

# kubectl-crdlint. `make help` lists the targets.
BIN        ?= bin/kubectl-crdlint
PREFIX     ?= $(shell go env GOPATH)
FUZZTIME   ?= 30s
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS    := -s -w -X github.com/kubectl-crdlint/kubectl-crdlint/internal/version.Version=$(VERSION)
GORELEASER := go run github.com/goreleaser/goreleaser/v2@v2.15.1

.PHONY: help build test lint fuzz golden bench bench-go dist validate-krew install clean

help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## Build bin/kubectl-crdlint
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/kubectl-crdlint

test: ## Run the whole test suite (what CI runs)
	go test ./...
	go test -race ./pkg/crd

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...

fuzz: ## Run every fuzz target for FUZZTIME each
	@for pkg in $$(go list ./...); do \
	  for t in $$(go test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$t"; go test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

golden: ## Rewrite golden files from the current output
	go test ./pkg/report -update
	go test ./pkg/lint -run TestRulesDoc -update-rules
	go test ./pkg/lint -run TestGoldenOutputs -update-golden
	go test ./pkg/upgrade -update

bench: ## crdlint vs kubeconform and kubectl-validate, offline (BENCH_RUNS, BENCH_KV_DOCS...; docs/performance.md)
	go run ./hack/bench

bench-go: ## Run the Go benchmarks (compare runs with benchstat)
	go test -run '^$$' -bench . -benchmem ./...

dist: ## Build release archives and the krew manifest locally (goreleaser snapshot)
	$(GORELEASER) release --snapshot --clean

validate-krew: ## Check plugins/crdlint.yaml against krew's manifest rules
	go test ./internal/release -run TestKrewManifest -v

install: build ## Install kubectl-crdlint into $(PREFIX)/bin, where kubectl finds plugins on PATH
	install -d $(PREFIX)/bin
	install -m 0755 $(BIN) $(PREFIX)/bin/kubectl-crdlint
	install -m 0755 kubectl_complete-crdlint $(PREFIX)/bin/kubectl_complete-crdlint

clean: ## Remove build output, bench tools and bench workloads
	rm -rf bin dist .tools .bench

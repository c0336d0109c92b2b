# kubectl-crdlint. `make help` lists the targets.
BIN        ?= bin/kubectl-crdlint
PREFIX     ?= $(shell go env GOPATH)
FUZZTIME   ?= 30s
# The full corpus the differential tests also run on when it is there
# (go test ./... uses testdata/corpus); CORPUS_TESTS are those tests.
SHARED_CORPUS ?= ../shared/corpus
CORPUS_TESTS  := Corpus|^TestAgreement$$|^TestDifferentialFieldSelectors$$|^TestValidateLeavesV1$$|^TestCELCostsFromInternal$$
CORPUS_PKGS   := ./pkg/source ./pkg/lint ./pkg/prune ./pkg/crd ./pkg/engine ./pkg/fields ./test/agreement ./internal/bench ./cmd/kubectl-crdlint/cmd
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS    := -s -w -X github.com/kubectl-crdlint/kubectl-crdlint/internal/version.Version=$(VERSION)
GORELEASER := go run github.com/goreleaser/goreleaser/v2@v2.15.1

.PHONY: help build test test-short test-corpus lint fuzz fuzz-ci golden bench bench-go dist validate-krew install clean

help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## Build bin/kubectl-crdlint
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/kubectl-crdlint

test: ## Run the whole test suite on testdata/corpus, and the corpus tests on ../shared/corpus if it is there (what CI runs)
	go test ./...
	go test -race ./pkg/crd
	@if [ -d "$(SHARED_CORPUS)" ]; then $(MAKE) --no-print-directory test-corpus; \
	else echo "$(SHARED_CORPUS) is absent: the corpus tests ran on testdata/corpus only"; fi

test-short: ## The fast loop: every package's unit tests, without the in-process API servers and huge inputs (about 2 minutes on 2 cores)
	go test -short ./...

test-corpus: ## Run the differential and agreement tests on SHARED_CORPUS (default ../shared/corpus)
	CRDLINT_CORPUS="$(abspath $(SHARED_CORPUS))" go test -run '$(CORPUS_TESTS)' $(CORPUS_PKGS)

lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...

fuzz: ## Run every fuzz target for FUZZTIME each (a crasher is written to the package's testdata/fuzz: commit it)
	bash hack/fuzz.sh $(FUZZTIME)

fuzz-ci: ## Run every fuzz target for 10s (what CI runs)
	@$(MAKE) --no-print-directory fuzz FUZZTIME=10s

golden: ## Rewrite golden files from the current output
	go test ./pkg/report -update
	go test ./pkg/ruleset -run TestRulesDoc -update-rules
	go test ./pkg/lint -run TestGoldenOutputs -update-golden
	go test ./pkg/upgrade/compare -update
	go test ./pkg/fields -run TestListingGolden -update
	go test ./pkg/config -run TestSchemaUpToDate -update

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

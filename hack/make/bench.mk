# The benchmark: included by the Makefile.

##@ Benchmark

# P, F and E size `make bench`: P pods (objects only; nothing runs them) spread over
# namespaces; for each implementation, F Foos of which half name an existing pod, E pod
# creations and deletions that flip them (in rounds alternating between implementations),
# and a burst of BURST pods created, then deleted, at once. P and F may be comma-separated
# lists: every P is run with every F, RUNS times.
P ?= 1000
F ?= 100
E ?= 1000
RUNS ?= 1
BURST ?= 100
# BENCH_RESULTS receives the JSON, the SVG plot and the processes' logs.
BENCH_RESULTS ?= $(CURDIR)/bench-results
BENCH_ARGS ?=

.PHONY: bench
bench: build envtest ## Benchmark the controller against the naive design and the apiserver floor (sizes P, F, E; RUNS, BURST).
	$(GO_ENV) go build -o $(CHECKOUT_BIN)/bench-naive ./test/benchmark/naive
	$(GO_ENV) go build -o $(CHECKOUT_BIN)/bench-floor ./test/benchmark/floor
	$(NODE_ENV) KUSTOMIZE="$(KUSTOMIZE)" $(GO_ENV) go run ./test/benchmark --pods=$(P) --foos=$(F) --events=$(E) \
		--runs=$(RUNS) --burst=$(BURST) \
		--manager=$(CHECKOUT_BIN)/manager --naive=$(CHECKOUT_BIN)/bench-naive --floor=$(CHECKOUT_BIN)/bench-floor \
		--results=$(BENCH_RESULTS) $(BENCH_ARGS)

# bench-in-cluster runs ours as the operator's pod (config/default, the manager image built
# from this checkout for this machine's platform) on a real node of the local cluster, to
# compare with `make bench` of the same sizes; the naive design and the floor stay processes.
# Its results go to BENCH_RESULTS/in-cluster.
.PHONY: bench-in-cluster
bench-in-cluster: node imagebuilder kustomize ## Benchmark with ours as a pod on a real node, its CPU and memory from its cgroup (sizes P, F, E; as root).
	@rm -rf $(BENCH_RESULTS)/in-cluster/images
	@$(IMAGEBUILDER) manager --store $(BENCH_RESULTS)/in-cluster/images --context . --platforms linux/$(GOARCH) --tag foo-operator:bench
	$(MAKE) --no-print-directory bench BENCH_RESULTS=$(BENCH_RESULTS)/in-cluster \
		BENCH_ARGS="--in-cluster --manager-images=$(BENCH_RESULTS)/in-cluster/images $(BENCH_ARGS)"

.PHONY: bench-sweep
bench-sweep: ## Run the benchmark's scale sweep: P in 1k, 10k, 100k with F = P/10, bursts of 1000 (long: the naive design alone takes minutes at 10k).
	$(MAKE) --no-print-directory bench P=1000,10000,100000 E=$(E) BURST=1000 BENCH_ARGS="--foos-per-pod=0.1 $(BENCH_ARGS)"

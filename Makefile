# VERSION is the operator's release version: the image tag, and the version of the bundle.
VERSION ?= 0.3.0

# CHANNELS lists the OLM channels the bundle is published in; DEFAULT_CHANNEL is the one a
# Subscription that names none follows.
CHANNELS ?= stable
DEFAULT_CHANNEL ?= stable
BUNDLE_METADATA_OPTS ?= --channels=$(CHANNELS) --default-channel=$(DEFAULT_CHANNEL)

# IMAGE_TAG_BASE is the image repository the operator's images are pushed to.
IMAGE_TAG_BASE ?= example.com/foo-operator

# IMG is the operator image that `make docker-build`, `docker-push` and `deploy` use.
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)

# BUNDLE_IMG and CATALOG_IMG are the bundle and file-based catalog images for OLM.
BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)
CATALOG_IMG ?= $(IMAGE_TAG_BASE)-catalog:v$(VERSION)

# CONTAINER_TOOL builds and pushes images: docker or podman, or imagebuilder, which needs no
# container engine (it cross-compiles and lays out the images itself; see docs/images.md).
CONTAINER_TOOL ?= docker

# PLATFORMS are the platforms imagebuilder builds the manager image for, as one index.
PLATFORMS ?= linux/amd64,linux/arm64

# IMAGE_STORE is where imagebuilder keeps the images it built until they are pushed.
IMAGE_STORE ?= $(LOCALBIN)/images

# KUBECTL talks to the cluster for install, deploy and their inverses.
KUBECTL ?= kubectl

GOOS ?= $(shell go env GOOS)
GOARCH ?= $(shell go env GOARCH)

# Run recipes with bash in strict mode, so that a failing command in a pipe fails the target.
SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate the CRD and the RBAC role from the markers in api/ and internal/controller/.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate the DeepCopy methods of the API types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."

.PHONY: api-docs
api-docs: crd-ref-docs ## Generate the API reference docs/api.md from the Go types in api/.
	@$(CRD_REF_DOCS) --config hack/api-docs.yaml --source-path api --renderer markdown \
		--output-path docs/api.md --log-level ERROR

.PHONY: fmt
fmt: ## Format the Go code.
	go fmt ./...

.PHONY: vet
vet: ## Report suspicious Go code.
	go vet ./...

.PHONY: lint
lint: golangci-lint ## Run golangci-lint (.golangci.yml) over every package and every suite's build tag.
	$(GOLANGCI_LINT) run ./...

.PHONY: lint-fix
lint-fix: golangci-lint ## Run golangci-lint and fix what it can.
	$(GOLANGCI_LINT) run --fix ./...

.PHONY: tidy
tidy: ## Tidy go.mod of the operator and of every tools module.
	go mod tidy
	@for dir in $(TOOLS_MODULES); do (cd $$dir && go mod tidy); done

# TEST_ENV is what the tests need to find: the control plane, kustomize to render config/,
# the kubectl whose output they check, opm to validate the catalog, operator-sdk to validate
# the OperatorHub submission and to scaffold into a copy of the project (with controller-gen
# to generate what it scaffolded), and the registry the local-cluster library runs.
TEST_ENV = KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" KUSTOMIZE="$(KUSTOMIZE)" TEST_ASSET_KUBECTL="$(KUBECTL_LOCAL)" OPM="$(OPM)" OPERATOR_SDK="$(OPERATOR_SDK)" CONTROLLER_GEN="$(CONTROLLER_GEN)" REGISTRY_SERVER="$(REGISTRY_SERVER)"

.PHONY: test
test: manifests generate fmt vet envtest kustomize kubectl opm operator-sdk stage-bundle registry ## Run all tests but the long reliability ones against a local kube-apiserver and etcd (built on first use).
	$(TEST_ENV) go test $$(go list ./... | grep -v /test/reliability) -coverprofile cover.out

.PHONY: test-reliability
test-reliability: manifests generate fmt vet envtest kustomize ## Run the long tests that kill managers and stop the apiserver under load (a few minutes).
	$(TEST_ENV) go test ./test/reliability/... -timeout 20m -v -ginkgo.no-color

# E2E_DIR holds the OLM suite's local cluster (its logs/ keeps the log of every process)
# and the images it adds to those of test-images: OLM's own and scorecard-test.
E2E_DIR ?= $(LOCALBIN)/e2e
E2E_TEST = $(LOCALBIN)/e2e.test
# E2E_REUSE_IMAGES=1 uses the images test-images built from this checkout instead of building
# them again (as .ci/run does, right after test-images).
E2E_REUSE_IMAGES ?=
# E2E_ARGS are extra flags of the suite, e.g. E2E_ARGS='-ginkgo.focus=scorecard' runs one journey.
E2E_ARGS ?=
E2E_IMAGES = $(E2E_DIR)/images
# The suite's registry serves on this address inside the suite's own network namespace,
# where it is free by construction; quay.io is mirrored there (see test/e2e).
OLM_IMAGE = 127.0.0.1:5000/operator-framework/olm:$(OLM_VERSION)
OLMV1_IMAGES = 127.0.0.1:5000/operator-framework
SCORECARD_TEST_IMAGE = quay.io/operator-framework/scorecard-test:$(OPERATOR_SDK_VERSION)
# OLM_MODULE is OLM's module where Go keeps it: the suite renders OLM's release manifests
# from its chart and values.
OLM_MODULE = $(shell cd hack/tools/olm && go list -m -f '{{.Dir}}' $(OLM_PKG))

# test-e2e runs the three ways users install the operator, with OLM installed from its
# release manifests and running as pods on a local cluster's node, every image from the
# local registry: `operator-sdk run bundle`, a catalog image, and `make deploy`; the
# scorecard; and OLM v1 (catalogd and operator-controller) installing from the catalog image. It runs in a network namespace of its own (the cluster's namespaces nest
# in it), so that the registry's fixed address is free. Needs root. The suite gives the
# tools it runs a HOME of their own (operator-sdk writes there); GOCACHE and GOMODCACHE
# keep `make deploy`'s Go builds on this machine's caches, since there is no route out.
.PHONY: test-e2e
test-e2e: $(if $(E2E_REUSE_IMAGES),,test-images-build) node olm olmv1 scorecard-test operator-sdk opm kustomize kubectl helm imagebuilder ## Install, upgrade and uninstall the operator with OLM running on a local cluster's node: run bundle, catalog, make deploy, scorecard, OLM v1 (as root).
	@rm -rf $(E2E_IMAGES)
	@$(IMAGEBUILDER) olm --store $(E2E_IMAGES) --bin $(OLM_BIN) --busybox $$(command -v busybox) --platform linux/$(GOARCH) --tag $(OLM_IMAGE)
	@$(IMAGEBUILDER) scorecard-test --store $(E2E_IMAGES) --binary $(SCORECARD_TEST) --platform linux/$(GOARCH) --tag $(SCORECARD_TEST_IMAGE)
	@for program in catalogd operator-controller; do \
		$(IMAGEBUILDER) olmv1 --store $(E2E_IMAGES) --binary $(OLMV1_BIN)/$$program --platform linux/$(GOARCH) --tag $(OLMV1_IMAGES)/$$program:$(OLMV1_VERSION) || exit 1; \
	done
	go vet -tags e2e ./test/e2e/...
	go test -c -tags e2e -o $(E2E_TEST) ./test/e2e
	cd test/e2e && $(NODE_ENV) KUSTOMIZE="$(KUSTOMIZE)" OPERATOR_SDK="$(OPERATOR_SDK)" OPM="$(OPM)" IMAGEBUILDER="$(IMAGEBUILDER)" \
		HELM="$(HELM)" OLM_MODULE="$(OLM_MODULE)" OLMV1_MODULE="$(OLMV1_MODULE)" GOCACHE="$$(go env GOCACHE)" GOMODCACHE="$$(go env GOMODCACHE)" \
		KUBECTL="$(KUBECTL_LOCAL)" E2E_DIR="$(E2E_DIR)/cluster" IMAGE_STORES="$(IMAGE_TEST_DIR)/store $(E2E_IMAGES)" \
		IMAGE_CHECKOUT="$(IMAGE_TEST_DIR)/checkout" IMAGE_TAG_BASE="$(IMAGE_TEST_BASE)" OLM_IMAGE="$(OLM_IMAGE)" OPM_IMAGE="$(OPM_IMAGE)" \
		unshare --net -- sh -c 'ip link set lo up && exec "$$0" "$$@"' \
		$(E2E_TEST) -test.v -test.timeout 50m -ginkgo.v -ginkgo.no-color $(E2E_ARGS)

# NODE_TEST_DIR holds the node suite's local cluster (whose logs/ keeps the log of every
# process) and the manager image it deploys.
NODE_TEST_DIR ?= $(LOCALBIN)/node-test

# test-node builds the manager image for this machine's platform into an image layout; the
# suite pushes it to its cluster's registry and deploys config/default with it.
.PHONY: test-node
test-node: node imagebuilder kustomize manifests ## Run the operator as a pod on a local cluster with a real node, and check what only a node shows (as root).
	@rm -rf $(NODE_TEST_DIR)/images
	@$(IMAGEBUILDER) manager --store $(NODE_TEST_DIR)/images --context . --platforms linux/$(GOARCH) --tag foo-operator:test
	go vet -tags node ./test/node
	go test -c -tags node -o $(LOCALBIN)/node.test ./test/node
	cd test/node && $(NODE_ENV) KUSTOMIZE="$(KUSTOMIZE)" NODE_TEST_DIR="$(NODE_TEST_DIR)/cluster" \
		OPERATOR_IMAGES="$(NODE_TEST_DIR)/images" $(LOCALBIN)/node.test -test.v -test.timeout 20m -ginkgo.v -ginkgo.no-color

# IMAGE_TEST_DIR is where the image tests keep their copy of the project, the images they
# built, the registry's storage and the logs.
IMAGE_TEST_DIR ?= $(LOCALBIN)/image-test
# The image tests run in a network namespace of their own (opm serve, which they run from the
# catalog image, listens on every interface), where this loopback address is free by
# construction. The nested path checks that nothing assumes a one-level repository.
IMAGE_TEST_BASE := 127.0.0.1:5000/acme/nested/foo-operator
IMAGE_TEST_ENV = LOCALBIN="$(LOCALBIN)" IMAGE_TAG_BASE="$(IMAGE_TEST_BASE)" IMAGE_STORE="$(IMAGE_TEST_DIR)/store"

# test-images-build builds every image of every release as a user would publish them, in a
# copy of the project (the publishing targets regenerate bundle/ and catalog/ for
# IMAGE_TAG_BASE), into IMAGE_TEST_DIR/store; test-images and test-e2e push them.
.PHONY: test-images-build
test-images-build: registry opm operator-sdk imagebuilder stage-bundle kustomize controller-gen
	@rm -rf $(IMAGE_TEST_DIR) && mkdir -p $(IMAGE_TEST_DIR)/checkout
	@tar -c --exclude=./bin --exclude=./.demo --exclude=./bench-results --exclude=./test/e2e/olm/release . | tar -x -C $(IMAGE_TEST_DIR)/checkout
	@start=$$(date +%s); \
		$(IMAGE_TEST_ENV) $(MAKE) --no-print-directory -C $(IMAGE_TEST_DIR)/checkout images CONTAINER_TOOL=imagebuilder; \
		echo "==> Built every image under $(IMAGE_TEST_BASE) in $$(( $$(date +%s) - start ))s"

# test-images publishes every release to a real registry and checks every image reference
# a cluster would pull. In a network namespace of its own the registry starts and `make
# images-push` pushes the images test-images-build built.
.PHONY: test-images
test-images: test-images-build ## Build, push and check every image of every release against a local registry (needs root).
	go vet -tags images ./test/images
	go test -c -tags images -o $(LOCALBIN)/images.test ./test/images
	cd test/images && $(IMAGE_TEST_ENV) REGISTRY_SERVER="$(REGISTRY_SERVER)" OPM="$(OPM)" OPERATOR_SDK="$(OPERATOR_SDK)" \
		IMAGE_CHECKOUT="$(IMAGE_TEST_DIR)/checkout" IMAGE_TEST_DIR="$(IMAGE_TEST_DIR)" GOPROXY=off \
		unshare --net -- sh -c 'ip link set lo up && exec "$$0" "$$@"' \
		$(LOCALBIN)/images.test -test.v -test.timeout 20m

.PHONY: verify
verify: ## Regenerate every generated file (code, manifests, bundle, catalog) and fail if any was stale.
	@snapshot() { git status --porcelain=v1 --untracked-files=all; git diff --no-ext-diff; }; \
	before=$$(snapshot | sha256sum); \
	$(MAKE) --no-print-directory manifests generate api-docs fmt tidy bundle catalog; \
	if [ "$$(snapshot | sha256sum)" != "$$before" ]; then \
		echo "Generated files were stale and have been regenerated; review and commit:"; \
		git status --short; \
		exit 1; \
	fi; \
	echo "Generated files are up to date"

##@ Try it on this machine

# DEMO_DIR is the scratch folder of the demo and of `make cluster`: their clusters' data,
# kubeconfigs, logs, and the local registry's images.
DEMO_DIR ?= $(CURDIR)/.demo

# DEMO_KUBECTL is the kubectl the demo drives: the one on PATH, or else one built from Go
# modules at the control plane's version.
DEMO_KUBECTL ?= $(or $(shell command -v kubectl 2>/dev/null),$(KUBECTL_LOCAL))

DEMO = $(LOCALBIN)/demo --dir "$(DEMO_DIR)" --kubectl "$(DEMO_KUBECTL)"

.PHONY: demo
demo: build envtest demo-program demo-kubectl ## Show the operator at work on a local kube-apiserver and etcd, then stop everything.
	@KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" $(DEMO) --manager "$(LOCALBIN)/manager"

.PHONY: demo-node
demo-node: node imagebuilder kustomize controller-gen demo-program demo-kubectl ## Play the same story on a local cluster with a real node, the operator deployed as a pod (as root).
	@$(NODE_ENV) $(DEMO) --node

.PHONY: cluster
cluster: node imagebuilder kustomize controller-gen demo-program demo-kubectl ## Leave a local cluster with a real node and an image registry running, for kubectl and make (as root).
	@$(NODE_ENV) $(DEMO) --cluster

.PHONY: cluster-down
cluster-down: demo-program ## Stop what `make cluster` started.
	@$(DEMO) --cluster-down

.PHONY: demo-program
demo-program:
	@go build -o $(LOCALBIN)/demo ./hack/demo

.PHONY: demo-kubectl
demo-kubectl:
	@if [ "$(DEMO_KUBECTL)" = "$(KUBECTL_LOCAL)" ]; then $(MAKE) --no-print-directory kubectl; fi

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary into bin/.
	CGO_ENABLED=0 go build -o $(LOCALBIN)/manager cmd/main.go

.PHONY: run
run: manifests generate fmt vet ## Run the manager on this machine against the cluster of the current kubeconfig.
	go run ./cmd/main.go --metrics-bind-address=0

# An earlier release (one with a folder under releases/) is built from its own sources: the
# commit named in releases/VERSION/source-commit, extracted from git into RELEASE_DIR, and the
# bundle it released, staged there with its images under IMAGE_TAG_BASE. The release in the
# making, VERSION of this Makefile, is built from this tree and bundle/.
RELEASES := $(sort $(patsubst releases/%/source-commit,%,$(wildcard releases/*/source-commit)))
ifneq ($(filter $(VERSION),$(RELEASES)),)
RELEASE_DIR = $(LOCALBIN)/releases/$(VERSION)
MANAGER_SOURCE = $(RELEASE_DIR)/source
BUNDLE_CONTEXT = $(RELEASE_DIR)
else
MANAGER_SOURCE := $(CURDIR)
BUNDLE_CONTEXT := $(CURDIR)
endif
BUNDLE_DIR = $(BUNDLE_CONTEXT)/bundle

# IMAGE_TOOL_DEPS are what CONTAINER_TOOL needs built first.
IMAGE_TOOL_DEPS := $(if $(filter imagebuilder,$(CONTAINER_TOOL)),imagebuilder)

.PHONY: release-source
release-source:
ifneq ($(RELEASE_DIR),)
	@rm -rf $(MANAGER_SOURCE) && mkdir -p $(MANAGER_SOURCE)
	@commit=$$(cat releases/$(VERSION)/source-commit) && \
		git archive "$$commit" | tar -x -C $(MANAGER_SOURCE) && \
		git show "$$commit:bundle.Dockerfile" > $(RELEASE_DIR)/bundle.Dockerfile || \
		{ echo "Release $(VERSION) is built from commit $$commit, which this clone lacks: use a full clone" >&2; exit 1; }
	@echo "==> Extracted the sources of release $(VERSION) into $(MANAGER_SOURCE)"
endif

.PHONY: docker-build
docker-build: release-source $(IMAGE_TOOL_DEPS) ## Build the operator image IMG of VERSION (imagebuilder: for every PLATFORMS).
ifeq ($(CONTAINER_TOOL),imagebuilder)
	$(IMAGEBUILDER) manager --store $(IMAGE_STORE) --context $(MANAGER_SOURCE) --platforms $(PLATFORMS) --tag $(IMG)
else
	$(CONTAINER_TOOL) build -t $(IMG) $(MANAGER_SOURCE)
endif

# docker-buildx builds the builder stage on the build machine's platform (Go cross-compiles
# for TARGETARCH, so nothing is emulated), from a copy of the Dockerfile that says so.
.PHONY: docker-buildx
docker-buildx: release-source ## Build and push the operator image IMG for every PLATFORMS with docker buildx.
	sed -e '1,/^FROM/ s/^FROM /FROM --platform=$${BUILDPLATFORM} /' $(MANAGER_SOURCE)/Dockerfile > $(MANAGER_SOURCE)/Dockerfile.cross
	$(CONTAINER_TOOL) buildx build --push --platform=$(PLATFORMS) -f $(MANAGER_SOURCE)/Dockerfile.cross -t $(IMG) $(MANAGER_SOURCE)
	rm -f $(MANAGER_SOURCE)/Dockerfile.cross

.PHONY: docker-push
docker-push: $(IMAGE_TOOL_DEPS) ## Push the operator image IMG.
ifeq ($(CONTAINER_TOOL),imagebuilder)
	$(IMAGEBUILDER) push --store $(IMAGE_STORE) --tag $(IMG)
else
	$(CONTAINER_TOOL) push $(IMG)
endif

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
	go build -o $(LOCALBIN)/bench-naive ./test/benchmark/naive
	go build -o $(LOCALBIN)/bench-floor ./test/benchmark/floor
	$(NODE_ENV) KUSTOMIZE="$(KUSTOMIZE)" go run ./test/benchmark --pods=$(P) --foos=$(F) --events=$(E) \
		--runs=$(RUNS) --burst=$(BURST) \
		--manager=$(LOCALBIN)/manager --naive=$(LOCALBIN)/bench-naive --floor=$(LOCALBIN)/bench-floor \
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

##@ OLM bundle and catalog

# The bundle's ClusterServiceVersion and the catalog's entries are named after the package.
PACKAGE := foo-operator
BUNDLE_CSV := bundle/manifests/$(PACKAGE).clusterserviceversion.yaml
CSV_BASE := config/manifests/bases/$(PACKAGE).clusterserviceversion.yaml
CATALOG_DIR := catalog
PACKAGE_CATALOG := $(CATALOG_DIR)/$(PACKAGE)

# createdAt is when the release was cut. operator-sdk stamps the time of every run instead,
# so the bundle takes it from the CSV base, which `make release` sets.
CREATED_AT = $(shell awk '$$1 == "createdAt:" { print $$2; exit }' $(CSV_BASE))

.PHONY: bundle
bundle: manifests kustomize operator-sdk stage-bundle ## Generate the OLM bundle of VERSION running IMG (bundle/, or an earlier release's under bin/releases), then validate it.
ifneq ($(RELEASE_DIR),)
	@$(STAGE_BUNDLE) --from releases/$(VERSION) --image $(IMG) --out $(BUNDLE_DIR)
	@echo "==> Staged the bundle of release $(VERSION), running $(IMG), in $(BUNDLE_DIR)"
else
	$(OPERATOR_SDK) generate kustomize manifests -q --interactive=false
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(IMG)
	$(KUSTOMIZE) build config/manifests | $(OPERATOR_SDK) generate bundle -q --overwrite --version $(VERSION) $(BUNDLE_METADATA_OPTS)
	sed -e 's|^    createdAt: .*|    createdAt: $(CREATED_AT)|' \
		-e 's|^    containerImage: .*|    containerImage: $(IMG)|' $(BUNDLE_CSV) > $(BUNDLE_CSV).tmp
	mv $(BUNDLE_CSV).tmp $(BUNDLE_CSV)
endif
	$(OPERATOR_SDK) bundle validate $(BUNDLE_DIR) --select-optional suite=operatorframework

.PHONY: bundle-build
bundle-build: release-source bundle $(IMAGE_TOOL_DEPS) ## Build the bundle image BUNDLE_IMG of VERSION, its CSV running IMG.
ifeq ($(CONTAINER_TOOL),imagebuilder)
	$(IMAGEBUILDER) bundle --store $(IMAGE_STORE) --dir $(BUNDLE_DIR) --tag $(BUNDLE_IMG)
else
	$(CONTAINER_TOOL) build -f $(BUNDLE_CONTEXT)/bundle.Dockerfile -t $(BUNDLE_IMG) $(BUNDLE_CONTEXT)
endif

.PHONY: bundle-push
bundle-push: $(IMAGE_TOOL_DEPS) ## Push the bundle image BUNDLE_IMG.
ifeq ($(CONTAINER_TOOL),imagebuilder)
	$(IMAGEBUILDER) push --store $(IMAGE_STORE) --tag $(BUNDLE_IMG)
else
	$(CONTAINER_TOOL) push $(BUNDLE_IMG)
endif

# OPM_IMAGE serves the catalog image; pinned to the opm that renders and validates the catalog.
OPM_IMAGE ?= quay.io/operator-framework/opm:$(OPM_VERSION)

# catalog renders the bundle of every release, earlier ones staged with their images under
# IMAGE_TAG_BASE, into the file-based catalog: each entry names its bundle image and carries
# olm.csv.metadata rather than the bundle's objects (which OpenShift's community catalogs
# refuse since 4.17; OLM unpacks the bundle image instead). opm migrates only entries that name
# their image, so each is rendered from its folder, named, then migrated. The graph is the
# committed channel file, which `make release` extends.
.PHONY: catalog
catalog: bundle opm ## Render every release's bundle into the file-based catalog for IMAGE_TAG_BASE, then validate the catalog.
	@for version in $(RELEASES); do \
		$(MAKE) --no-print-directory bundle VERSION=$$version IMG=$(IMAGE_TAG_BASE):v$$version >/dev/null || exit 1; \
	done
	@for version in $(RELEASES) $(VERSION); do \
		dir=bundle; [ "$$version" = "$(VERSION)" ] || dir=$(LOCALBIN)/releases/$$version/bundle; \
		named=$(LOCALBIN)/catalog-render/$$version; rm -rf $$named; mkdir -p $$named; \
		$(OPM) render $$dir --output yaml \
			| sed -e "s|^image: \"\"$$|image: $(IMAGE_TAG_BASE)-bundle:v$$version|" > $$named/bundle.yaml || exit 1; \
		$(OPM) render $$named --migrate-level=bundle-object-to-csv-metadata --output yaml \
			> $(PACKAGE_CATALOG)/$(PACKAGE).v$$version.yaml || exit 1; \
		echo "==> Rendered $(PACKAGE).v$$version, bundle image $(IMAGE_TAG_BASE)-bundle:v$$version"; \
	done
	$(OPM) validate $(CATALOG_DIR)
	rm -f $(CATALOG_DIR).Dockerfile
	$(OPM) generate dockerfile $(CATALOG_DIR) --builder-image $(OPM_IMAGE) --base-image $(OPM_IMAGE)

.PHONY: catalog-build
catalog-build: catalog $(IMAGE_TOOL_DEPS) $(if $(filter imagebuilder,$(CONTAINER_TOOL)),opm-image) ## Build the catalog image CATALOG_IMG from catalog.Dockerfile.
ifeq ($(CONTAINER_TOOL),imagebuilder)
	$(IMAGEBUILDER) catalog --store $(IMAGE_STORE) --configs $(CATALOG_DIR) --base $(OPM_IMAGE) --opm $(OPM) --tag $(CATALOG_IMG)
else
	$(CONTAINER_TOOL) build -f $(CATALOG_DIR).Dockerfile -t $(CATALOG_IMG) .
endif

.PHONY: catalog-push
catalog-push: $(IMAGE_TOOL_DEPS) ## Push the catalog image CATALOG_IMG.
ifeq ($(CONTAINER_TOOL),imagebuilder)
	$(IMAGEBUILDER) push --store $(IMAGE_STORE) --tag $(CATALOG_IMG)
else
	$(CONTAINER_TOOL) push $(CATALOG_IMG)
endif

# opm-image builds, for imagebuilder, the opm base image under the reference that
# catalog.Dockerfile names, from the pinned opm: so the catalog image is built FROM the same
# reference whichever CONTAINER_TOOL builds it. Its binaries are static, for this machine's
# architecture.
.PHONY: opm-image
opm-image: imagebuilder opm-static grpc-health-probe
	@$(IMAGEBUILDER) opm --store $(IMAGE_STORE) --opm $(OPM_STATIC) --health-probe $(GRPC_HEALTH_PROBE) --busybox $$(command -v busybox) \
		--platform $(OPM_IMAGE_PLATFORM) --tag $(OPM_IMAGE)

# images builds every image of every release (manager, bundle), then the catalog image;
# images-push pushes them; publish does both. The catalog names the bundles of every release
# under IMAGE_TAG_BASE, so all of them are published together.
.PHONY: images
images: ## Build the manager and bundle images of every release and the catalog image, all under IMAGE_TAG_BASE.
	@for version in $(RELEASES) $(VERSION); do \
		$(MAKE) --no-print-directory docker-build bundle-build VERSION=$$version \
			IMG=$(IMAGE_TAG_BASE):v$$version BUNDLE_IMG=$(IMAGE_TAG_BASE)-bundle:v$$version || exit 1; \
	done
	@$(MAKE) --no-print-directory catalog-build

.PHONY: images-push
images-push: ## Push what `make images` built.
	@for version in $(RELEASES) $(VERSION); do \
		$(MAKE) --no-print-directory docker-push bundle-push VERSION=$$version \
			IMG=$(IMAGE_TAG_BASE):v$$version BUNDLE_IMG=$(IMAGE_TAG_BASE)-bundle:v$$version || exit 1; \
	done
	@$(MAKE) --no-print-directory catalog-push

.PHONY: publish
publish: images images-push ## Build and push every image a cluster installing the operator pulls, under IMAGE_TAG_BASE.

# OPERATORHUB_DIR receives the community-operators submission of every release.
OPERATORHUB_DIR ?= $(LOCALBIN)/operatorhub

# operatorhub writes every release in the layout of a community-operators pull request:
# operators/foo-operator/VERSION/{manifests,metadata} and ci.yaml. Those catalogs are built
# from the bundles alone (replaces mode), so each CSV carries its entry of the stable
# channel as spec.replaces and olm.skipRange.
.PHONY: operatorhub
operatorhub: stage-bundle ## Write every release in the community-operators layout into OPERATORHUB_DIR.
	@rm -rf $(OPERATORHUB_DIR) && mkdir -p $(OPERATORHUB_DIR)/operators/$(PACKAGE)
	@for version in $(RELEASES) $(VERSION); do \
		from=releases/$$version; [ "$$version" = "$(VERSION)" ] && from=bundle; \
		out=$(OPERATORHUB_DIR)/operators/$(PACKAGE)/$$version; \
		$(STAGE_BUNDLE) --from $$from --image $(IMAGE_TAG_BASE):v$$version --out $$out \
			--channel $(PACKAGE_CATALOG)/channel-stable.yaml || exit 1; \
		rm -rf $$out/tests; \
	done
	@printf '%s\n' '# The upgrade graph comes from each CSV'"'"'s spec.replaces and olm.skipRange.' \
		'updateGraph: replaces-mode' > $(OPERATORHUB_DIR)/operators/$(PACKAGE)/ci.yaml
	@echo "==> Wrote releases $(RELEASES) $(VERSION) for community-operators into $(OPERATORHUB_DIR)"

.PHONY: release
release: opm ## Cut release VERSION: add it to the stable channel after the newest release, then regenerate the bundle and catalog.
	hack/release.sh $(VERSION) $(PACKAGE_CATALOG) $(CSV_BASE)
	$(MAKE) --no-print-directory catalog VERSION=$(VERSION)

##@ Deployment

ifndef ignore-not-found
  ignore-not-found = false
endif

.PHONY: install
install: manifests kustomize ## Install the CRD into the cluster of the current kubeconfig.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply -f -

.PHONY: uninstall
uninstall: manifests kustomize ## Remove the CRD (and every Foo) from the cluster. Call with ignore-not-found=true to ignore missing resources.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

# deploy renders config/default through an overlay of its own under bin/, which sets the
# manager's image to IMG: deploying never edits a tracked file.
DEPLOY_OVERLAY = $(LOCALBIN)/deploy

.PHONY: deploy
deploy: manifests kustomize ## Deploy the operator with image IMG into the cluster of the current kubeconfig.
	@rm -rf $(DEPLOY_OVERLAY) && mkdir -p $(DEPLOY_OVERLAY)
	@printf '%s\n' 'resources:' "- $$(realpath --relative-to=$(DEPLOY_OVERLAY) config/default)" 'patches:' '- target:' \
		'    kind: Deployment' '    labelSelector: control-plane=controller-manager' '  patch: |-' \
		'    - op: replace' '      path: /spec/template/spec/containers/0/image' '      value: $(IMG)' \
		> $(DEPLOY_OVERLAY)/kustomization.yaml
	$(KUSTOMIZE) build $(DEPLOY_OVERLAY) | $(KUBECTL) apply -f -

.PHONY: undeploy
undeploy: kustomize ## Remove the operator from the cluster. Call with ignore-not-found=true to ignore missing resources.
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

##@ Tools

# Every tool is built from a pinned Go module under hack/tools into LOCALBIN, named with its
# version so that a version bump in a tools go.mod builds the new one.
LOCALBIN ?= $(CURDIR)/bin
TOOLS_MODULES := hack/tools hack/tools/kubernetes hack/tools/etcd hack/tools/operator-sdk hack/tools/olm hack/tools/registry \
	hack/tools/containerd hack/tools/coredns hack/tools/golangci-lint

# mod-version prints the version at which the go.mod in folder $(1) requires module $(2).
mod-version = $(shell awk '$$1 == "require" { $$1 = ""; $$0 = $$0 } $$1 == "$(2)" { print $$2; exit }' $(1)/go.mod)

CONTROLLER_TOOLS_VERSION := $(call mod-version,hack/tools,sigs.k8s.io/controller-tools)
KUSTOMIZE_VERSION := $(call mod-version,hack/tools,sigs.k8s.io/kustomize/kustomize/v5)
CRD_REF_DOCS_VERSION := $(call mod-version,hack/tools,github.com/elastic/crd-ref-docs)
GOLANGCI_LINT_VERSION := $(call mod-version,hack/tools/golangci-lint,github.com/golangci/golangci-lint/v2)
KUBE_VERSION := $(patsubst v%,%,$(call mod-version,hack/tools/kubernetes,k8s.io/kubernetes))
ETCD_VERSION := $(call mod-version,hack/tools/etcd,go.etcd.io/etcd/server/v3)
OPERATOR_SDK_VERSION := $(call mod-version,hack/tools/operator-sdk,github.com/operator-framework/operator-sdk)
OPM_VERSION := $(call mod-version,hack/tools/olm,github.com/operator-framework/operator-registry)
OLM_VERSION := $(call mod-version,hack/tools/olm,github.com/operator-framework/operator-lifecycle-manager)
REGISTRY_VERSION := $(call mod-version,hack/tools/registry,github.com/distribution/distribution/v3)
GRPC_HEALTH_PROBE_VERSION := $(call mod-version,hack/tools/olm,github.com/grpc-ecosystem/grpc-health-probe)
CONTAINERD_VERSION := $(call mod-version,hack/tools/containerd,github.com/containerd/containerd/v2)
COREDNS_VERSION := $(call mod-version,hack/tools/coredns,github.com/coredns/coredns)
HELM_VERSION := $(call mod-version,hack/tools/operator-sdk,helm.sh/helm/v3)
OLMV1_VERSION := $(call mod-version,hack/tools/operator-sdk,github.com/operator-framework/operator-controller)

CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
KUSTOMIZE ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)
OPERATOR_SDK ?= $(LOCALBIN)/operator-sdk-$(OPERATOR_SDK_VERSION)
OPM ?= $(LOCALBIN)/opm-$(OPM_VERSION)
CRD_REF_DOCS ?= $(LOCALBIN)/crd-ref-docs-$(CRD_REF_DOCS_VERSION)
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
REGISTRY_SERVER ?= $(LOCALBIN)/registry-$(REGISTRY_VERSION)
# The binaries of the opm base image: static, for the image's platform.
# opm is built without cgo (none of what this project runs needs its SQLite), so on Linux the
# opm of this machine is static and serves as the image's; elsewhere one is cross-compiled.
OPM_IMAGE_PLATFORM := linux/$(GOARCH)
OPM_STATIC ?= $(if $(filter linux,$(GOOS)),$(OPM),$(LOCALBIN)/linux-$(GOARCH)/opm-$(OPM_VERSION))
GRPC_HEALTH_PROBE ?= $(LOCALBIN)/linux-$(GOARCH)/grpc_health_probe-$(GRPC_HEALTH_PROBE_VERSION)
# This project's own build tools, rebuilt when their source changes.
IMAGEBUILDER ?= $(LOCALBIN)/imagebuilder
STAGE_BUNDLE ?= $(LOCALBIN)/stage-bundle

# KUBECTL_LOCAL is a kubectl built from Go modules: the tests use it, so that what they
# check of kubectl's output does not depend on the machine; so does the demo, on machines
# without a kubectl.
KUBECTL_VERSION := $(patsubst v%,%,$(call mod-version,hack/tools/kubernetes,k8s.io/kubernetes))
KUBECTL_LOCAL ?= $(LOCALBIN)/kubectl-v$(KUBECTL_VERSION)
OLM_BIN ?= $(LOCALBIN)/olm-$(OLM_VERSION)
OLMV1_BIN ?= $(LOCALBIN)/olmv1-$(OLMV1_VERSION)
SCORECARD_TEST ?= $(LOCALBIN)/scorecard-test-$(OPERATOR_SDK_VERSION)
HELM ?= $(LOCALBIN)/helm-$(HELM_VERSION)

# ENVTEST_ASSETS holds the control plane the tests run against (KUBEBUILDER_ASSETS).
ENVTEST_ASSETS ?= $(LOCALBIN)/k8s/$(KUBE_VERSION)-etcd-$(ETCD_VERSION)-$(GOOS)-$(GOARCH)

# kube-apiserver reports the version it is linked with; unlinked, it says v0.0.0 and
# clients that check a minimum Kubernetes version refuse it.
KUBE_APISERVER_LDFLAGS := -s -w \
	-X k8s.io/component-base/version.gitVersion=v$(KUBE_VERSION) \
	-X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(KUBE_VERSION))) \
	-X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBE_VERSION)))

# kubectl, likewise, so that `kubectl version` tells which one it is.
KUBECTL_LDFLAGS := -s -w \
	-X k8s.io/component-base/version.gitVersion=v$(KUBECTL_VERSION) \
	-X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(KUBECTL_VERSION))) \
	-X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBECTL_VERSION)))

# go-build-tool builds package $(3) of the tools module in folder $(2) into the binary $(1),
# with extra `go build` flags $(4) and environment $(5), printing one line when it starts and
# one when it is done.
define go-build-tool
@mkdir -p $(dir $(1))
@echo "==> Building $(notdir $(1)) from $(3) (first use only)"
@start=$$(date +%s); \
	cd $(2) && $(5) go build $(4) -o $(1).tmp $(3) && mv $(1).tmp $(1) || exit 1; \
	echo "==> Built $(notdir $(1)) in $$(( $$(date +%s) - start ))s"
endef

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Build controller-gen.
$(CONTROLLER_GEN):
	$(call go-build-tool,$@,hack/tools,sigs.k8s.io/controller-tools/cmd/controller-gen)

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Build kustomize.
$(KUSTOMIZE):
	$(call go-build-tool,$@,hack/tools,sigs.k8s.io/kustomize/kustomize/v5)

.PHONY: crd-ref-docs
crd-ref-docs: $(CRD_REF_DOCS) ## Build crd-ref-docs.
$(CRD_REF_DOCS):
	$(call go-build-tool,$@,hack/tools,github.com/elastic/crd-ref-docs)

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint (a few minutes the first time).
$(GOLANGCI_LINT):
	$(call go-build-tool,$@,hack/tools/golangci-lint,github.com/golangci/golangci-lint/v2/cmd/golangci-lint,-ldflags "-s -w -X main.version=$(patsubst v%,%,$(GOLANGCI_LINT_VERSION))")

.PHONY: kubectl
kubectl: $(KUBECTL_LOCAL) ## Build kubectl (about a minute the first time).
$(KUBECTL_LOCAL):
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kubectl,-ldflags "$(KUBECTL_LDFLAGS)")

.PHONY: envtest
envtest: $(ENVTEST_ASSETS)/kube-apiserver $(ENVTEST_ASSETS)/etcd ## Build the tests' control plane: kube-apiserver and etcd (about 10 minutes the first time).
$(ENVTEST_ASSETS)/kube-apiserver:
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kube-apiserver,-ldflags "$(KUBE_APISERVER_LDFLAGS)")
$(ENVTEST_ASSETS)/etcd:
	$(call go-build-tool,$@,hack/tools/etcd,go.etcd.io/etcd/server/v3,-ldflags "-s -w")

# KUBE_CONTROLLER_MANAGER runs beside the apiserver wherever the tests need its controllers
# (the garbage collector, ServiceAccounts, Deployments), and always with a node.
KUBE_CONTROLLER_MANAGER ?= $(ENVTEST_ASSETS)/kube-controller-manager

.PHONY: kube-controller-manager
kube-controller-manager: $(KUBE_CONTROLLER_MANAGER) ## Build kube-controller-manager.
$(KUBE_CONTROLLER_MANAGER):
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kube-controller-manager,-ldflags "$(KUBE_APISERVER_LDFLAGS)")

# The local cluster's node: kube-scheduler, kubelet and kube-proxy of the apiserver's
# Kubernetes release, beside it in ENVTEST_ASSETS; containerd and its runc shim; the node's
# images. runc, the CNI plugins, tini and the netfilter tools come from Debian (NODE_PACKAGES).
KUBE_SCHEDULER ?= $(ENVTEST_ASSETS)/kube-scheduler
KUBELET ?= $(ENVTEST_ASSETS)/kubelet
KUBE_PROXY ?= $(ENVTEST_ASSETS)/kube-proxy
CONTAINERD ?= $(LOCALBIN)/containerd-$(CONTAINERD_VERSION)
COREDNS ?= $(LOCALBIN)/coredns-$(COREDNS_VERSION)
# NODE_IMAGES is the OCI image layout of the images the node pulls from the local registry:
# pause, coredns, and the tests' busybox and httpget.
NODE_IMAGES ?= $(LOCALBIN)/node-images
NODE_PACKAGES := runc containernetworking-plugins tini iptables nftables conntrack busybox-static
NODE_ENV = KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" CONTAINERD="$(CONTAINERD)" REGISTRY_SERVER="$(REGISTRY_SERVER)" NODE_IMAGES="$(NODE_IMAGES)"

.PHONY: node
node: envtest kube-controller-manager registry $(KUBE_SCHEDULER) $(KUBELET) $(KUBE_PROXY) $(CONTAINERD)/containerd node-images node-packages ## Build the local cluster's node (about 10 minutes the first time).

.PHONY: node-packages
node-packages:
	@missing=""; for tool in runc tini nft iptables conntrack busybox; do command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
		[ -x /usr/lib/cni/bridge ] || missing="$$missing cni-plugins"; \
		if [ -n "$$missing" ]; then echo "The node needs$$missing: apt-get install $(NODE_PACKAGES)" >&2; exit 1; fi

$(KUBE_SCHEDULER):
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kube-scheduler,-ldflags "$(KUBE_APISERVER_LDFLAGS)")
$(KUBELET):
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kubelet,-ldflags "$(KUBE_APISERVER_LDFLAGS)")
$(KUBE_PROXY):
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kube-proxy,-ldflags "$(KUBE_APISERVER_LDFLAGS)")

# containerd, its client ctr and its runc shim, without the snapshotters that need C
# libraries this machine does not have (the node uses overlayfs).
CONTAINERD_PKG := github.com/containerd/containerd/v2
CONTAINERD_FLAGS := -tags "no_btrfs no_devmapper no_zfs" -ldflags "-s -w -X $(CONTAINERD_PKG)/version.Version=$(CONTAINERD_VERSION)"
$(CONTAINERD)/containerd:
	@mkdir -p $(CONTAINERD)
	@echo "==> Building containerd $(CONTAINERD_VERSION), ctr and containerd-shim-runc-v2 (first use only)"
	@start=$$(date +%s); \
		cd hack/tools/containerd && go build $(CONTAINERD_FLAGS) -o $(CONTAINERD).tmp/ \
			$(CONTAINERD_PKG)/cmd/containerd $(CONTAINERD_PKG)/cmd/ctr $(CONTAINERD_PKG)/cmd/containerd-shim-runc-v2 && \
		mv $(CONTAINERD).tmp/* $(CONTAINERD)/ && rmdir $(CONTAINERD).tmp || exit 1; \
		echo "==> Built containerd in $$(( $$(date +%s) - start ))s"

# CoreDNS runs as a pod, from an image holding this static binary: CoreDNS with the
# plugins the cluster uses (hack/tools/coredns/main.go).
$(COREDNS):
	$(call go-build-tool,$@,hack/tools/coredns,github.com/example/foo-operator/hack/tools/coredns,-ldflags "-s -w",CGO_ENABLED=0)

NODE_IMAGE_SOURCES := $(wildcard test/localcluster/images/*/*.go)

.PHONY: node-images
node-images: $(NODE_IMAGES)/index.json ## Build the images the local node pulls: pause, coredns, busybox, httpget.
$(NODE_IMAGES)/index.json: $(COREDNS) $(NODE_IMAGE_SOURCES) $(IMAGEBUILDER) | node-packages
	@rm -rf $(NODE_IMAGES)
	@$(IMAGEBUILDER) node --store $(NODE_IMAGES) --coredns $(COREDNS) --coredns-tag $(COREDNS_VERSION) --busybox $$(command -v busybox)

# operator-sdk stamps its version into the bundles it generates (builder annotation,
# scorecard image tags); the openpgp tag avoids a C dependency on gpgme.
OPERATOR_SDK_PKG := github.com/operator-framework/operator-sdk
OPERATOR_SDK_FLAGS := -tags containers_image_openpgp -ldflags "-s -w \
	-X $(OPERATOR_SDK_PKG)/internal/version.Version=$(OPERATOR_SDK_VERSION) \
	-X $(OPERATOR_SDK_PKG)/internal/version.GitVersion=$(OPERATOR_SDK_VERSION) \
	-X $(OPERATOR_SDK_PKG)/internal/version.ImageVersion=$(OPERATOR_SDK_VERSION) \
	-X $(OPERATOR_SDK_PKG)/internal/version.KubernetesVersion=v$(KUBE_VERSION)"

.PHONY: operator-sdk
operator-sdk: $(OPERATOR_SDK) ## Build operator-sdk.
$(OPERATOR_SDK):
	$(call go-build-tool,$@,hack/tools/operator-sdk,$(OPERATOR_SDK_PKG)/cmd/operator-sdk,$(OPERATOR_SDK_FLAGS),CGO_ENABLED=0)

OPM_PKG := github.com/operator-framework/operator-registry
OPM_FLAGS := -tags json1,containers_image_openpgp -ldflags "-s -w -X $(OPM_PKG)/cmd/opm/version.opmVersion=$(OPM_VERSION)"

.PHONY: opm
opm: $(OPM) ## Build opm.
# Without cgo, opm has no SQLite: rendering, validating and serving file-based catalogs, all
# that this project and the opm image do, need none.
$(OPM):
	$(call go-build-tool,$@,hack/tools/olm,$(OPM_PKG)/cmd/opm,$(OPM_FLAGS),CGO_ENABLED=0)
.PHONY: opm-static grpc-health-probe
opm-static: $(OPM_STATIC)
grpc-health-probe: $(GRPC_HEALTH_PROBE)
ifneq ($(OPM_STATIC),$(OPM))
$(OPM_STATIC):
	$(call go-build-tool,$@,hack/tools/olm,$(OPM_PKG)/cmd/opm,$(OPM_FLAGS),CGO_ENABLED=0 GOOS=linux GOARCH=$(GOARCH))
endif
$(GRPC_HEALTH_PROBE):
	$(call go-build-tool,$@,hack/tools/olm,github.com/grpc-ecosystem/grpc-health-probe,-ldflags "-s -w",CGO_ENABLED=0 GOOS=linux GOARCH=$(GOARCH))

.PHONY: registry
registry: $(REGISTRY_SERVER) ## Build the container registry (distribution) the image tests and the local cluster run.
$(REGISTRY_SERVER):
	$(call go-build-tool,$@,hack/tools/registry,github.com/distribution/distribution/v3/cmd/registry,-ldflags "-s -w -X github.com/distribution/distribution/v3/version.version=$(REGISTRY_VERSION)")

.PHONY: imagebuilder
imagebuilder: $(IMAGEBUILDER) ## Build imagebuilder, which builds the images without a container engine.
$(IMAGEBUILDER): $(wildcard hack/imagebuilder/*.go) go.mod go.sum
	@go build -o $@ ./hack/imagebuilder

.PHONY: stage-bundle
stage-bundle: $(STAGE_BUNDLE)
$(STAGE_BUNDLE): $(wildcard hack/stage-bundle/*.go) go.mod go.sum
	@go build -o $@ ./hack/stage-bundle

# OLM's binaries, static (CGO_ENABLED=0: they run in OLM's distroless-like image), into one
# folder: the olm, catalog and package-server operators, and cpb and copy-content, the
# utilities bundle unpack Jobs run.
OLM_PKG := github.com/operator-framework/operator-lifecycle-manager
OLM_FLAGS := -ldflags "-s -w -X $(OLM_PKG)/pkg/version.OLMVersion=$(patsubst v%,%,$(OLM_VERSION))"

.PHONY: olm
olm: $(OLM_BIN)/olm ## Build OLM's binaries (about 5 minutes the first time).
$(OLM_BIN)/olm:
	@mkdir -p $(OLM_BIN)
	@echo "==> Building OLM $(OLM_VERSION): olm, catalog, package-server, cpb, copy-content (first use only)"
	@start=$$(date +%s); \
		cd hack/tools/olm && CGO_ENABLED=0 go build $(OLM_FLAGS) -o $(OLM_BIN).tmp/ $(OLM_PKG)/cmd/olm $(OLM_PKG)/cmd/catalog \
			$(OLM_PKG)/cmd/package-server $(OLM_PKG)/cmd/copy-content $(OLM_PKG)/util/cpb && \
		mv $(OLM_BIN).tmp/* $(OLM_BIN)/ && rmdir $(OLM_BIN).tmp || exit 1; \
		echo "==> Built OLM in $$(( $$(date +%s) - start ))s"

# OLM v1's catalogd and operator-controller, static (they run in distroless images). They
# are built from operator-sdk's tools module: their release is on the Kubernetes libraries,
# controller-runtime and Helm operator-sdk links, so most of what they need is compiled once.
OLMV1_PKG := github.com/operator-framework/operator-controller
OLMV1_FLAGS := -tags containers_image_openpgp -ldflags "-s -w -X $(OLMV1_PKG)/internal/shared/version.version=$(OLMV1_VERSION)"
OLMV1_MODULE = $(shell cd hack/tools/operator-sdk && go list -m -f '{{.Dir}}' $(OLMV1_PKG))

.PHONY: olmv1
olmv1: $(OLMV1_BIN)/operator-controller ## Build OLM v1's binaries: catalogd and operator-controller.
$(OLMV1_BIN)/operator-controller:
	@mkdir -p $(OLMV1_BIN)
	@echo "==> Building OLM v1 $(OLMV1_VERSION): catalogd, operator-controller (first use only)"
	@start=$$(date +%s); \
		cd hack/tools/operator-sdk && CGO_ENABLED=0 go build $(OLMV1_FLAGS) -o $(OLMV1_BIN).tmp/ \
			$(OLMV1_PKG)/cmd/catalogd $(OLMV1_PKG)/cmd/operator-controller && \
		mv $(OLMV1_BIN).tmp/* $(OLMV1_BIN)/ && rmdir $(OLMV1_BIN).tmp || exit 1; \
		echo "==> Built OLM v1 in $$(( $$(date +%s) - start ))s"

# cluster-tools builds what only the local node and the OLM suite need, and nothing that
# `make test` or `make test-images` builds too, so that CI can build it in the background
# while those run (two builds of the same file would race). Modules other than Kubernetes'
# come first: the Kubernetes ones then find the packages the apiserver's build compiled.
.PHONY: cluster-tools
# OLM v1 comes last: by then the foreground has built operator-sdk, whose packages it reuses.
cluster-tools: $(CONTAINERD)/containerd $(COREDNS) olm scorecard-test kube-controller-manager $(KUBE_SCHEDULER) $(KUBELET) $(KUBE_PROXY) olmv1

# helm renders OLM's release manifests from its chart, as OLM's release does. It is the Helm
# operator-sdk links, built from operator-sdk's tools module with operator-sdk's flags, so
# that it reuses the packages operator-sdk's build compiled: a link, not another build.
.PHONY: helm
helm: $(HELM) ## Build Helm.
$(HELM): | $(OPERATOR_SDK)
	$(call go-build-tool,$@,hack/tools/operator-sdk,helm.sh/helm/v3/cmd/helm,-tags containers_image_openpgp -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION)",CGO_ENABLED=0)

# scorecard-test runs operator-sdk's scorecard tests in pods, from an image built here.
.PHONY: scorecard-test
scorecard-test: $(SCORECARD_TEST)
$(SCORECARD_TEST):
	$(call go-build-tool,$@,hack/tools/operator-sdk,$(OPERATOR_SDK_PKG)/images/scorecard-test,-ldflags "-s -w",CGO_ENABLED=0)

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
# RELEASES_PLATFORMS are those of the manager images of the earlier releases (rebuilt from
# their sources by `make images` and `make publish`): PLATFORMS unless set. The image tests
# set it to this machine's platform only, which all their clusters run.
RELEASES_PLATFORMS ?= $(PLATFORMS)

# CHECKOUT_BIN holds what this checkout makes for itself (staged releases, built images,
# rendered catalogs, the deploy overlay): its own bin/, even when LOCALBIN names the tools of
# another checkout, so that two checkouts sharing those tools never write the same file.
CHECKOUT_BIN := $(CURDIR)/bin

# IMAGE_STORE is where imagebuilder keeps the images it built until they are pushed.
IMAGE_STORE ?= $(CHECKOUT_BIN)/images

# KUBECTL talks to the cluster for install, deploy and their inverses.
KUBECTL ?= kubectl

# The platform the Go toolchain builds for, unless given. Read once: a `?=` default is
# expanded again, `go env` with it, wherever it is used (about 1900 times in one CI run).
GOOS ?= $(shell go env GOOS)
GOOS := $(GOOS)
GOARCH ?= $(shell go env GOARCH)
GOARCH := $(GOARCH)

# GO_ENV is how every target compiles the operator's module (tests, vet, the project's own
# programs): as its image is built, static and with paths trimmed. Both settings are part of
# the Go build cache's key for every package, so the tests then reuse what the image builds
# compiled instead of compiling each dependency a second time (minutes on a cold machine).
GO_ENV = CGO_ENABLED=0 GOFLAGS="-trimpath $(GOFLAGS)"

# Run recipes with bash in strict mode, so that a failing command in a pipe fails the target.
SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Show this help.
	@awk -v WIDTH=100 -v SECTIONS='$(HELP_SECTIONS)' -f hack/make/help.awk $(MAKEFILE_LIST)

# HELP_SECTIONS is the order `make help` shows its sections in: trying it and installing it
# first, then building, testing and the rest.
HELP_SECTIONS := Try it on this machine|Install on a cluster|Local cluster (Linux, as root)|Without OLM: install.yaml and the Helm chart|OLM bundle and catalog|Build|Development|Test|Benchmark|Tools|General

##@ Development

# controller-gen reads the markers of the packages the operator is made of: api/ (the CRD and
# DeepCopy) and internal/ (the RBAC of the controllers). Not ./... as the scaffold has it: that
# would type-check the test suites too, whose dependencies (OLM, operator-registry, Kubernetes)
# take controller-gen about 15 s on every call instead of 1, and the bundle and catalog targets
# call it once per release.
MARKER_PATHS := ./api/...;./internal/...
API_PATHS := ./api/...

.PHONY: manifests
manifests: controller-gen ## Generate the CRD and the RBAC role from the markers in api/ and internal/.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="$(MARKER_PATHS)" output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate the DeepCopy methods of the API types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="$(API_PATHS)"

.PHONY: api-docs
api-docs: crd-ref-docs ## Generate the API reference docs/api.md from the Go types in api/.
	@$(CRD_REF_DOCS) --config hack/api-docs.yaml --source-path api --renderer markdown \
		--output-path docs/api.md --log-level ERROR

.PHONY: fmt
fmt: ## Format the Go code.
	go fmt ./...

.PHONY: vet
vet: ## Report suspicious Go code.
	$(GO_ENV) go vet ./...

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

# import-graph draws docs/architecture.md's drawing of the packages from `go list`, so that
# it shows the tree as it is.
.PHONY: import-graph
import-graph: ## Draw the import graph in docs/architecture.md from the tree.
	$(GO_ENV) go run ./hack/importgraph --page docs/architecture.md

# first-run-times measures the README's quick start on empty Go caches and records it
# (hack/first-run-times.sh); `make verify` fails when a page's figure is not what its command
# measured (hack/figures).
.PHONY: first-run-times
first-run-times: ## Measure make demo and make test in a fresh clone on empty Go caches; record them in the README.
	hack/first-run-times.sh

.PHONY: verify
verify: ## Regenerate every generated file and fail if any was stale; check the docs' figures and the CRD.
	@snapshot() { git status --porcelain=v1 --untracked-files=all; git diff --no-ext-diff; }; \
	before=$$(snapshot | sha256sum); \
	$(MAKE) --no-print-directory manifests generate api-docs import-graph fmt tidy bundle catalog helm-chart; \
	if [ "$$(snapshot | sha256sum)" != "$$before" ]; then \
		echo "Generated files were stale and have been regenerated; review and commit:"; \
		git status --short; \
		exit 1; \
	fi; \
	echo "Generated files are up to date"
	@$(GO_ENV) go run ./hack/figures check
	@$(MAKE) --no-print-directory crd-upgrade-safety

# The targets of each other concern live in hack/make/, included here in the order they were
# written in: tests, the demo and local cluster, the benchmark, OLM packaging, and the tools.
include hack/make/test.mk

include hack/make/demo.mk

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary into bin/.
	$(GO_ENV) go build -ldflags="-s -w" -o $(CHECKOUT_BIN)/manager cmd/main.go

.PHONY: run
run: manifests generate fmt vet ## Run the manager on this machine against the cluster of the current kubeconfig.
	$(GO_ENV) go run ./cmd/main.go --metrics-bind-address=0

# An earlier release (one with a folder under releases/) is built from its own sources: the
# commit named in releases/VERSION/source-commit, extracted from git into RELEASE_DIR, and the
# bundle it released, staged there with its images under IMAGE_TAG_BASE. The release in the
# making, VERSION of this Makefile, is built from this tree and bundle/.
RELEASES := $(sort $(patsubst releases/%/source-commit,%,$(wildcard releases/*/source-commit)))
RELEASES_BUILD_DIR := $(CHECKOUT_BIN)/releases
ifneq ($(filter $(VERSION),$(RELEASES)),)
RELEASE_DIR = $(RELEASES_BUILD_DIR)/$(VERSION)
MANAGER_SOURCE = $(RELEASE_DIR)/source
MANAGER_PLATFORMS = $(RELEASES_PLATFORMS)
BUNDLE_CONTEXT = $(RELEASE_DIR)
else
MANAGER_SOURCE := $(CURDIR)
MANAGER_PLATFORMS = $(PLATFORMS)
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
docker-build: release-source $(IMAGE_TOOL_DEPS) ## Build the operator image IMG of VERSION (imagebuilder: for every PLATFORMS, or RELEASES_PLATFORMS for an earlier release).
ifeq ($(CONTAINER_TOOL),imagebuilder)
	$(IMAGEBUILDER) manager --store $(IMAGE_STORE) --context $(MANAGER_SOURCE) --platforms $(MANAGER_PLATFORMS) --tag $(IMG)
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

include hack/make/bench.mk

include hack/make/olm.mk

include hack/make/installers.mk

include hack/make/supplychain.mk

##@ Install on a cluster

ifndef ignore-not-found
  ignore-not-found = false
endif

.PHONY: install
install: manifests kustomize ## Install the CRD only, for make run (into the cluster of the current kubeconfig).
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply -f -

.PHONY: uninstall
uninstall: manifests kustomize ## Remove the CRD and every Foo (ignore-not-found=true: skip what is missing).
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

# deploy renders DEPLOY_CONFIG through an overlay of its own under bin/, which sets the
# manager's image to IMG: deploying never edits a tracked file. DEPLOY_CONFIG is config/default,
# or config/metrics-certs to serve the metrics under a certificate of your issuer.
DEPLOY_OVERLAY = $(CHECKOUT_BIN)/deploy
DEPLOY_CONFIG ?= config/default

.PHONY: deploy
deploy: manifests kustomize ## Deploy the operator, its CRD and RBAC, running image IMG, into the current kubeconfig's cluster.
	@rm -rf $(DEPLOY_OVERLAY) && mkdir -p $(DEPLOY_OVERLAY)
	@$(call write-image-overlay,$(DEPLOY_OVERLAY),$$(realpath --relative-to=$(DEPLOY_OVERLAY) $(DEPLOY_CONFIG)),$(IMG))
	$(KUSTOMIZE) build $(DEPLOY_OVERLAY) | $(KUBECTL) apply -f -

.PHONY: undeploy
undeploy: kustomize ## Remove the operator, the CRD and every Foo: all that deploy applied (ignore-not-found=true).
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

include hack/make/tools.mk

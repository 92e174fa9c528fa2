# VERSION is the operator's release version, used for the image tag and, later, the bundle.
VERSION ?= 0.0.1

# IMAGE_TAG_BASE is the image repository the operator's images are pushed to.
IMAGE_TAG_BASE ?= example.com/foo-operator

# IMG is the operator image that `make docker-build`, `docker-push` and `deploy` use.
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)

# CONTAINER_TOOL builds and pushes images (docker or podman).
CONTAINER_TOOL ?= docker

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
manifests: controller-gen ## Generate the CRD and the RBAC role from the markers in api/ and controllers/.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate the DeepCopy methods of the API types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."

.PHONY: fmt
fmt: ## Format the Go code.
	go fmt ./...

.PHONY: vet
vet: ## Report suspicious Go code.
	go vet ./...

.PHONY: tidy
tidy: ## Tidy go.mod of the operator and of every tools module.
	go mod tidy
	@for dir in $(TOOLS_MODULES); do (cd $$dir && go mod tidy); done

# TEST_ENV is what the tests need to find: the control plane, and kustomize to render config/.
TEST_ENV = KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" KUSTOMIZE="$(KUSTOMIZE)"

.PHONY: test
test: manifests generate fmt vet envtest kustomize ## Run all tests but the long reliability ones against a local kube-apiserver and etcd (built on first use).
	$(TEST_ENV) go test $$(go list ./... | grep -v /test/reliability) -coverprofile cover.out

.PHONY: test-reliability
test-reliability: manifests generate fmt vet envtest kustomize ## Run the long tests that kill managers and stop the apiserver under load (a few minutes).
	$(TEST_ENV) go test ./test/reliability/... -timeout 20m -v -ginkgo.no-color

.PHONY: verify
verify: ## Regenerate every generated file and fail if any of them was stale.
	@snapshot() { git status --porcelain=v1 --untracked-files=all; git diff --no-ext-diff; }; \
	before=$$(snapshot | sha256sum); \
	$(MAKE) --no-print-directory manifests generate fmt tidy; \
	if [ "$$(snapshot | sha256sum)" != "$$before" ]; then \
		echo "Generated files were stale and have been regenerated; review and commit:"; \
		git status --short; \
		exit 1; \
	fi; \
	echo "Generated files are up to date"

##@ Build

.PHONY: build
build: manifests generate fmt vet ## Build the manager binary into bin/.
	go build -o $(LOCALBIN)/manager main.go

.PHONY: run
run: manifests generate fmt vet ## Run the manager on this machine against the cluster of the current kubeconfig.
	go run ./main.go --metrics-bind-address=0

.PHONY: docker-build
docker-build: ## Build the operator image IMG.
	$(CONTAINER_TOOL) build -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the operator image IMG.
	$(CONTAINER_TOOL) push $(IMG)

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

.PHONY: deploy
deploy: manifests kustomize ## Deploy the operator with image IMG into the cluster of the current kubeconfig.
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(IMG)
	$(KUSTOMIZE) build config/default | $(KUBECTL) apply -f -

.PHONY: undeploy
undeploy: kustomize ## Remove the operator from the cluster. Call with ignore-not-found=true to ignore missing resources.
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found=$(ignore-not-found) -f -

##@ Tools

# Every tool is built from a pinned Go module under hack/tools into LOCALBIN, named with its
# version so that a version bump in a tools go.mod builds the new one.
LOCALBIN ?= $(CURDIR)/bin
TOOLS_MODULES := hack/tools hack/tools/kube-apiserver hack/tools/etcd

# mod-version prints the version at which the go.mod in folder $(1) requires module $(2).
mod-version = $(shell awk '$$1 == "require" { $$1 = ""; $$0 = $$0 } $$1 == "$(2)" { print $$2; exit }' $(1)/go.mod)

CONTROLLER_TOOLS_VERSION := $(call mod-version,hack/tools,sigs.k8s.io/controller-tools)
KUSTOMIZE_VERSION := $(call mod-version,hack/tools,sigs.k8s.io/kustomize/kustomize/v5)
KUBE_VERSION := $(patsubst v%,%,$(call mod-version,hack/tools/kube-apiserver,k8s.io/kubernetes))
ETCD_VERSION := $(call mod-version,hack/tools/etcd,go.etcd.io/etcd/server/v3)

CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
KUSTOMIZE ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)

# ENVTEST_ASSETS holds the control plane the tests run against (KUBEBUILDER_ASSETS).
ENVTEST_ASSETS ?= $(LOCALBIN)/k8s/$(KUBE_VERSION)-etcd-$(ETCD_VERSION)-$(GOOS)-$(GOARCH)

# kube-apiserver reports the version it is linked with; unlinked, it says v0.0.0 and
# clients that check a minimum Kubernetes version refuse it.
KUBE_APISERVER_LDFLAGS := -s -w \
	-X k8s.io/component-base/version.gitVersion=v$(KUBE_VERSION) \
	-X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(KUBE_VERSION))) \
	-X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBE_VERSION)))

# go-build-tool builds package $(3) of the tools module in folder $(2) into the binary $(1),
# with extra `go build` flags $(4), printing one line when it starts and one when it is done.
define go-build-tool
@mkdir -p $(dir $(1))
@echo "==> Building $(notdir $(1)) from $(3) (first use only)"
@start=$$(date +%s); \
	cd $(2) && go build $(4) -o $(1).tmp $(3) && mv $(1).tmp $(1); \
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

.PHONY: envtest
envtest: $(ENVTEST_ASSETS)/kube-apiserver $(ENVTEST_ASSETS)/etcd ## Build the tests' control plane: kube-apiserver and etcd (about 10 minutes the first time).
$(ENVTEST_ASSETS)/kube-apiserver:
	$(call go-build-tool,$@,hack/tools/kube-apiserver,k8s.io/kubernetes/cmd/kube-apiserver,-ldflags "$(KUBE_APISERVER_LDFLAGS)")
$(ENVTEST_ASSETS)/etcd:
	$(call go-build-tool,$@,hack/tools/etcd,go.etcd.io/etcd/server/v3,-ldflags "-s -w")

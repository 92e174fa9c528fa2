# Every tool the targets use, built from a pinned Go module under hack/tools: included by
# the Makefile.

##@ Tools

# Every tool is built from a pinned Go module under hack/tools into LOCALBIN, named with its
# version so that a version bump in a tools go.mod builds the new one.
LOCALBIN ?= $(CURDIR)/bin
TOOLS_MODULES := hack/tools hack/tools/kubernetes hack/tools/etcd hack/tools/operator-sdk hack/tools/olm hack/tools/registry \
	hack/tools/containerd hack/tools/coredns hack/tools/golangci-lint hack/tools/helm hack/tools/prometheus \
	hack/tools/cosign hack/tools/syft

# mod-version prints the version at which the go.mod in folder $(1) requires module $(2).
mod-version = $(shell awk '$$1 == "require" { $$1 = ""; $$0 = $$0 } $$1 == "$(2)" { print $$2; exit }' $(1)/go.mod)

CONTROLLER_TOOLS_VERSION := $(call mod-version,hack/tools,sigs.k8s.io/controller-tools)
KUSTOMIZE_VERSION := $(call mod-version,hack/tools,sigs.k8s.io/kustomize/kustomize/v5)
CRD_REF_DOCS_VERSION := $(call mod-version,hack/tools,github.com/elastic/crd-ref-docs)
CRANE_VERSION := $(call mod-version,hack/tools,github.com/google/go-containerregistry)
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
HELM_VERSION := $(call mod-version,hack/tools/helm,helm.sh/helm/v4)
HELM3_VERSION := $(call mod-version,hack/tools/operator-sdk,helm.sh/helm/v3)
OLMV1_VERSION := $(call mod-version,hack/tools/operator-sdk,github.com/operator-framework/operator-controller)
PROMETHEUS_VERSION := $(call mod-version,hack/tools/prometheus,github.com/prometheus/prometheus)
COSIGN_VERSION := $(call mod-version,hack/tools/cosign,github.com/sigstore/cosign/v3)
SYFT_VERSION := $(call mod-version,hack/tools/syft,github.com/anchore/syft)

CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
KUSTOMIZE ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)
OPERATOR_SDK ?= $(LOCALBIN)/operator-sdk-$(OPERATOR_SDK_VERSION)
OPM ?= $(LOCALBIN)/opm-$(OPM_VERSION)
CRD_REF_DOCS ?= $(LOCALBIN)/crd-ref-docs-$(CRD_REF_DOCS_VERSION)
CRANE ?= $(LOCALBIN)/crane-$(CRANE_VERSION)
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
SUPPLYCHAIN ?= $(LOCALBIN)/supplychain
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
HELM3 ?= $(LOCALBIN)/helm-$(HELM3_VERSION)
PROMTOOL ?= $(LOCALBIN)/promtool-$(PROMETHEUS_VERSION)
PROMETHEUS ?= $(LOCALBIN)/prometheus-$(PROMETHEUS_VERSION)
COSIGN ?= $(LOCALBIN)/cosign-$(COSIGN_VERSION)
SYFT ?= $(LOCALBIN)/syft-$(SYFT_VERSION)
# comma is a comma, for an argument of $(call) that holds one.
comma := ,
# PROMETHEUS_IMAGES is the OCI image layout of the Prometheus image the node suite runs.
PROMETHEUS_IMAGES ?= $(LOCALBIN)/prometheus-images

# ENVTEST_ASSETS holds the control plane the tests run against (KUBEBUILDER_ASSETS).
ENVTEST_ASSETS ?= $(LOCALBIN)/k8s/$(KUBE_VERSION)-etcd-$(ETCD_VERSION)-$(GOOS)-$(GOARCH)

# The Kubernetes components are built static and with paths trimmed, as the operator's module
# is (GO_ENV) and as Kubernetes releases its servers: their libraries (k8s.io/api,
# apimachinery, client-go, at the operator's versions) then compile once for both, instead
# of once per setting (both settings are part of every package's build cache key).
KUBE_BUILD_FLAGS := -trimpath
KUBE_BUILD_ENV := CGO_ENABLED=0

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
# one when it is done. It builds into a file of its own, then renames it: two makes that
# build the same tool at once (CI's two lanes) each write the same binary whole.
define go-build-tool
@mkdir -p $(dir $(1))
@echo "==> Building $(notdir $(1)) from $(3) (first use only)"
@start=$$(date +%s); \
	cd $(2) && $(5) go build $(4) -o $(1).tmp.$$$$ $(3) && mv -f $(1).tmp.$$$$ $(1) || exit 1; \
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

# crane is go-containerregistry's registry client: `make publish` reads the bundles' digests
# with it, and it mirrors images for a disconnected cluster.
.PHONY: crane
crane: $(CRANE) ## Build crane.
$(CRANE):
	$(call go-build-tool,$@,hack/tools,github.com/google/go-containerregistry/cmd/crane,-ldflags "-s -w")

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint (a few minutes the first time).
$(GOLANGCI_LINT):
	$(call go-build-tool,$@,hack/tools/golangci-lint,github.com/golangci/golangci-lint/v2/cmd/golangci-lint,-ldflags "-s -w -X main.version=$(patsubst v%,%,$(GOLANGCI_LINT_VERSION))")

.PHONY: kubectl
kubectl: $(KUBECTL_LOCAL) ## Build kubectl (about a minute the first time).
$(KUBECTL_LOCAL):
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kubectl,$(KUBE_BUILD_FLAGS) -ldflags "$(KUBECTL_LDFLAGS)",$(KUBE_BUILD_ENV))

.PHONY: envtest
envtest: $(ENVTEST_ASSETS)/kube-apiserver $(ENVTEST_ASSETS)/etcd ## Build the tests' control plane: kube-apiserver and etcd (about 10 minutes the first time).
$(ENVTEST_ASSETS)/kube-apiserver:
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kube-apiserver,$(KUBE_BUILD_FLAGS) -ldflags "$(KUBE_APISERVER_LDFLAGS)",$(KUBE_BUILD_ENV))
$(ENVTEST_ASSETS)/etcd:
	$(call go-build-tool,$@,hack/tools/etcd,go.etcd.io/etcd/server/v3,-ldflags "-s -w")

# KUBE_CONTROLLER_MANAGER runs beside the apiserver wherever the tests need its controllers
# (the garbage collector, ServiceAccounts, Deployments), and always with a node.
KUBE_CONTROLLER_MANAGER ?= $(ENVTEST_ASSETS)/kube-controller-manager

.PHONY: kube-controller-manager
kube-controller-manager: $(KUBE_CONTROLLER_MANAGER) ## Build kube-controller-manager.
$(KUBE_CONTROLLER_MANAGER):
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kube-controller-manager,$(KUBE_BUILD_FLAGS) -ldflags "$(KUBE_APISERVER_LDFLAGS)",$(KUBE_BUILD_ENV))

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
NODE_ENV = KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" CONTAINERD="$(CONTAINERD)" REGISTRY_SERVER="$(REGISTRY_SERVER)" NODE_IMAGES="$(NODE_IMAGES)"

# check-packages fails at once, naming what to install, unless every command=package pair
# of $(1) has its command (a name on PATH, or a path): a target that needs Debian packages
# checks them before it builds anything, so a missing one costs no minutes of builds.
define check-packages
@missing=""; for pair in $(1); do command -v "$${pair%%=*}" >/dev/null || \
		case " $$missing " in *" $${pair#*=} "*) ;; *) missing="$$missing $${pair#*=}" ;; esac; done; \
	if [ -n "$$missing" ]; then echo "make $(MAKECMDGOALS) needs the Debian packages$$missing: apt-get install$$missing" >&2; exit 1; fi
endef

# IMAGE_PACKAGES are what imagebuilder takes from this machine for the opm and OLM images:
# busybox's static binary, the shell the opm image keeps as upstream's does.
IMAGE_PACKAGES := busybox=busybox-static
# NETNS_PACKAGES make and enter the network namespaces the image tests and the local
# cluster run in.
NETNS_PACKAGES := ip=iproute2 unshare=util-linux nsenter=util-linux
# NODE_PACKAGES are what the local cluster's node runs besides what is built here: runc,
# the CNI plugins, tini, the netfilter tools and busybox.
NODE_PACKAGES := runc=runc /usr/lib/cni/bridge=containernetworking-plugins tini=tini iptables=iptables \
	nft=nftables conntrack=conntrack $(IMAGE_PACKAGES) $(NETNS_PACKAGES)

##@ Local cluster (Linux, as root)

.PHONY: node-packages image-packages image-test-packages
node-packages: ## Check that the Debian packages the local cluster's node needs are installed.
	$(call check-packages,$(NODE_PACKAGES))
image-packages:
	$(call check-packages,$(IMAGE_PACKAGES))
image-test-packages:
	$(call check-packages,$(IMAGE_PACKAGES) $(NETNS_PACKAGES))

##@ Tools

.PHONY: node
node: node-packages envtest kube-controller-manager registry $(KUBE_SCHEDULER) $(KUBELET) $(KUBE_PROXY) $(CONTAINERD)/containerd node-images ## Build the local cluster's node (about 10 minutes the first time).

$(KUBE_SCHEDULER):
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kube-scheduler,$(KUBE_BUILD_FLAGS) -ldflags "$(KUBE_APISERVER_LDFLAGS)",$(KUBE_BUILD_ENV))
$(KUBELET):
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kubelet,$(KUBE_BUILD_FLAGS) -ldflags "$(KUBE_APISERVER_LDFLAGS)",$(KUBE_BUILD_ENV))
$(KUBE_PROXY):
	$(call go-build-tool,$@,hack/tools/kubernetes,k8s.io/kubernetes/cmd/kube-proxy,$(KUBE_BUILD_FLAGS) -ldflags "$(KUBE_APISERVER_LDFLAGS)",$(KUBE_BUILD_ENV))

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

NODE_IMAGE_SOURCES := $(wildcard hack/localcluster/images/*/*.go)

.PHONY: node-images
node-images: $(NODE_IMAGES)/index.json ## Build the images the local node pulls: pause, coredns, busybox, httpget.
$(NODE_IMAGES)/index.json: $(COREDNS) $(NODE_IMAGE_SOURCES) $(IMAGEBUILDER) | image-packages
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
	@$(GO_ENV) go build -o $@ ./hack/imagebuilder

.PHONY: supplychain
supplychain: $(SUPPLYCHAIN) ## Build supplychain, which signs and attests what make publish pushed and verifies it.
$(SUPPLYCHAIN): $(wildcard hack/supplychain/*.go) go.mod go.sum
	@$(GO_ENV) go build -o $@ ./hack/supplychain

.PHONY: stage-bundle
stage-bundle: $(STAGE_BUNDLE)
$(STAGE_BUNDLE): $(wildcard hack/stage-bundle/*.go) go.mod go.sum
	@$(GO_ENV) go build -o $@ ./hack/stage-bundle

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
# OLMV1_MODULE is operator-controller's module where Go keeps it. Like OLM_MODULE, it is read
# when a recipe runs, after that recipe's prerequisite olm-modules has downloaded both: on a
# fresh machine no other target may have.
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

# OLM_IMAGES is the OCI image layout of the images a local cluster with OLM publishes in its
# registry: OLM's (built from its module's binaries as its Dockerfile builds it), opm's (the
# catalog operator unpacks bundles with it), catalogd's and operator-controller's, under the
# quay.io names their releases use, which the cluster's node mirrors to its registry;
# operator-sdk's scorecard-test image, which scorecard runs; and an empty file-based catalog
# image, the index operator-sdk run bundle adds a bundle to.
OLM_IMAGES ?= $(LOCALBIN)/olm-images
OLM_IMAGE_REPOSITORY := quay.io/operator-framework
# OLM_ENV tells the local-cluster library what installing OLM needs.
OLM_ENV = OLM_MODULE="$(OLM_MODULE)" OLMV1_MODULE="$(OLMV1_MODULE)" HELM="$(HELM)" KUSTOMIZE="$(KUSTOMIZE)" OLM_IMAGES="$(OLM_IMAGES)"
# OLM_MODULE is OLM's module where Go keeps it: the library renders OLM's release manifests
# from its chart and values.
OLM_MODULE = $(shell cd hack/tools/olm && go list -m -f '{{.Dir}}' $(OLM_PKG))

.PHONY: olm-modules
olm-modules: ## Download the modules of OLM and OLM v1, whose files the local cluster and crd-upgrade-safety read.
	@cd hack/tools/olm && go mod download $(OLM_PKG)
	@cd hack/tools/operator-sdk && go mod download $(OLMV1_PKG)

.PHONY: olm-images
olm-images: image-packages $(OLM_IMAGES)/index.json helm kustomize ## Build the images a local cluster with OLM publishes: OLM v0's and v1's, opm's, scorecard-test, an empty index.
$(OLM_IMAGES)/index.json: $(OLM_BIN)/olm $(OLMV1_BIN)/operator-controller $(SCORECARD_TEST) $(OPM) $(IMAGEBUILDER) | image-packages
	@start=$$(date +%s); store=$(OLM_IMAGES).tmp; rm -rf $$store $(OLM_IMAGES).empty-configs; \
		$(IMAGEBUILDER) olm --store $$store --bin $(OLM_BIN) --busybox $$(command -v busybox) --platform linux/$(GOARCH) \
			--tag $(OLM_IMAGE_REPOSITORY)/olm:$(OLM_VERSION) && \
		for program in catalogd operator-controller; do \
			$(IMAGEBUILDER) olmv1 --store $$store --binary $(OLMV1_BIN)/$$program --platform linux/$(GOARCH) \
				--tag $(OLM_IMAGE_REPOSITORY)/$$program:$(OLMV1_VERSION) || exit 1; \
		done && \
		$(IMAGEBUILDER) scorecard-test --store $$store --binary $(SCORECARD_TEST) --platform linux/$(GOARCH) \
			--tag $(OLM_IMAGE_REPOSITORY)/scorecard-test:$(OPERATOR_SDK_VERSION) && \
		$(MAKE) --no-print-directory opm-image IMAGE_STORE=$$store && \
		mkdir -p $(OLM_IMAGES).empty-configs && \
		$(IMAGEBUILDER) catalog --store $$store --configs $(OLM_IMAGES).empty-configs --base $(OPM_IMAGE) --opm $(OPM) --tag empty-index:latest && \
		rm -rf $(OLM_IMAGES) && mv $$store $(OLM_IMAGES) || exit 1; \
		echo "==> Built OLM's images into $(OLM_IMAGES) in $$(( $$(date +%s) - start ))s"

# crd-upgrade-safety-tool builds hack/crd-upgrade-safety, which calls OLM v1's CRD upgrade
# safety preflight: an internal package of operator-controller, which only operator-controller's
# own module may import. So the command is built inside a copy of that module (at the version
# the tests' OLM v1 runs) in a temporary folder outside this project, where no `./...` of the
# project's tools finds it. The copy takes operator-sdk's tools module's go.mod and go.sum
# (renamed, without its requirement of operator-controller itself): the dependency versions
# that operator-controller's own build there selected, so that all but a dozen of the
# command's packages come from the build cache instead of compiling again.
CRD_UPGRADE_SAFETY ?= $(LOCALBIN)/crd-upgrade-safety-$(OLMV1_VERSION)

.PHONY: crd-upgrade-safety-tool
crd-upgrade-safety-tool: $(CRD_UPGRADE_SAFETY)
$(CRD_UPGRADE_SAFETY): hack/crd-upgrade-safety/main.go | olm-modules
	@mkdir -p $(dir $@)
	@echo "==> Building crd-upgrade-safety inside operator-controller $(OLMV1_VERSION)'s module (first use only)"
	@start=$$(date +%s); module="$(OLMV1_MODULE)"; \
		[ -n "$$module" ] || { echo "operator-controller's module was not found" >&2; exit 1; }; \
		scratch=$$(mktemp -d) && trap 'rm -rf "$$scratch"' EXIT && copy="$$scratch/operator-controller" && \
		cp -R "$$module" "$$copy" && chmod -R u+w "$$copy" && mkdir -p "$$copy/cmd/foo-crd-upgrade-safety" && \
		sed -e 's|^module .*|module $(OLMV1_PKG)|' -e '\|^[[:space:]]*$(OLMV1_PKG) v|d' \
			hack/tools/operator-sdk/go.mod > "$$copy/go.mod" && cp hack/tools/operator-sdk/go.sum "$$copy/go.sum" && \
		sed '/^\/\/go:build ignore$$/d' $< > "$$copy/cmd/foo-crd-upgrade-safety/main.go" && \
		(cd "$$copy" && CGO_ENABLED=0 go build -ldflags "-s -w" -o $@.tmp ./cmd/foo-crd-upgrade-safety) && \
		mv $@.tmp $@ || exit 1; \
		echo "==> Built crd-upgrade-safety in $$(( $$(date +%s) - start ))s"

# cluster-tools builds what only the local node and the OLM suite need, and nothing that
# `make test` or `make test-images` builds too, so that CI can build it in the background
# while those run (two builds of the same file would race). Modules other than Kubernetes'
# come first: the Kubernetes ones then find the packages the apiserver's build compiled.
.PHONY: cluster-tools
# OLM v1 comes last: by then the foreground has built operator-sdk, whose packages it reuses.
cluster-tools: $(CONTAINERD)/containerd $(COREDNS) olm scorecard-test kube-controller-manager $(KUBE_SCHEDULER) $(KUBELET) $(KUBE_PROXY) olmv1

# helm is Helm 4, the Helm users run: it packages, pushes, lints and installs the chart, and
# renders OLM's release manifests from OLM's chart, as OLM's release does.
.PHONY: helm
helm: $(HELM) ## Build Helm 4.
$(HELM):
	$(call go-build-tool,$@,hack/tools/helm,helm.sh/helm/v4/cmd/helm,-ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$(HELM_VERSION)",CGO_ENABLED=0)

# helm3 is Helm 3, which the chart is also checked with. It is the Helm operator-sdk links,
# built from operator-sdk's tools module with operator-sdk's flags, so that it reuses the
# packages operator-sdk's build compiled: a link, not another build.
.PHONY: helm3
helm3: $(HELM3) ## Build Helm 3.
# As Helm's own release stamps it, it takes the Kubernetes version `helm template` and `helm
# lint` assume from the client-go it is built with (without, it assumes 1.20, which the
# chart's kubeVersion refuses).
HELM3_KUBE_MINOR = $(word 2,$(subst ., ,$(call mod-version,hack/tools/operator-sdk,k8s.io/client-go)))
HELM3_LDFLAGS = -s -w -X helm.sh/helm/v3/internal/version.version=$(HELM3_VERSION) \
	$(foreach package,pkg/chartutil pkg/lint/rules,-X helm.sh/helm/v3/$(package).k8sVersionMajor=1 -X helm.sh/helm/v3/$(package).k8sVersionMinor=$(HELM3_KUBE_MINOR))
$(HELM3): | $(OPERATOR_SDK)
	$(call go-build-tool,$@,hack/tools/operator-sdk,helm.sh/helm/v3/cmd/helm,-tags containers_image_openpgp -ldflags "$(HELM3_LDFLAGS)",CGO_ENABLED=0)

# scorecard-test runs operator-sdk's scorecard tests in pods, from an image built here.
.PHONY: scorecard-test
scorecard-test: $(SCORECARD_TEST)
$(SCORECARD_TEST):
	$(call go-build-tool,$@,hack/tools/operator-sdk,$(OPERATOR_SDK_PKG)/images/scorecard-test,-ldflags "-s -w",CGO_ENABLED=0)

# promtool evaluates the operator's alerting rules in their unit tests (`make test`), as the
# Prometheus of the pinned version evaluates them.
.PHONY: promtool
promtool: $(PROMTOOL) ## Build Prometheus's promtool.
$(PROMTOOL):
	$(call go-build-tool,$@,hack/tools/prometheus,github.com/prometheus/prometheus/cmd/promtool,-ldflags "-s -w",CGO_ENABLED=0)

# cosign signs every image make publish pushes and attaches its SBOM and provenance, and
# verifies them (make verify-images). It is stamped with its version, as its release is.
COSIGN_LDFLAGS = -s -w -X sigs.k8s.io/release-utils/version.gitVersion=$(COSIGN_VERSION)
.PHONY: cosign
cosign: $(COSIGN) ## Build sigstore's cosign.
$(COSIGN):
	$(call go-build-tool,$@,hack/tools/cosign,github.com/sigstore/cosign/v3/cmd/cosign,-ldflags "$(COSIGN_LDFLAGS)",CGO_ENABLED=0)

# syft writes the SBOM of every image make publish pushes.
.PHONY: syft
syft: $(SYFT) ## Build anchore's syft.
$(SYFT):
	$(call go-build-tool,$@,hack/tools/syft,github.com/anchore/syft/cmd/syft,-ldflags "-s -w -X main.version=$(SYFT_VERSION)",CGO_ENABLED=0)

# The node suite runs a real Prometheus, of the same version, that scrapes the operator as the
# shipped ServiceMonitor says and evaluates the shipped alerts. It discovers its targets from
# Kubernetes alone, so it is built without the other service discoveries (Prometheus's own
# build tags), which halves its build.
.PHONY: prometheus-image
prometheus-image: $(PROMETHEUS_IMAGES)/index.json ## Build the Prometheus image the node suite runs.
$(PROMETHEUS):
	$(call go-build-tool,$@,hack/tools/prometheus,github.com/prometheus/prometheus/cmd/prometheus,-tags remove_all_sd$(comma)enable_kubernetes_sd -ldflags "-s -w",CGO_ENABLED=0)
$(PROMETHEUS_IMAGES)/index.json: $(PROMETHEUS) $(IMAGEBUILDER) | image-packages
	@rm -rf $(PROMETHEUS_IMAGES)
	@$(IMAGEBUILDER) prometheus --store $(PROMETHEUS_IMAGES) --binary $(PROMETHEUS) --platform linux/$(GOARCH) \
		--tag prometheus:$(PROMETHEUS_VERSION)

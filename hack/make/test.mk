# The test suites: included by the Makefile, whose variables and tools they use.

##@ Test

# TEST_ENV is what the tests need to find: the control plane, kustomize to render config/,
# the kubectl whose output they check, opm to validate the catalog, operator-sdk to validate
# the OperatorHub submission and to scaffold into a copy of the project (with controller-gen
# to generate what it scaffolded), the registry the local-cluster library runs, and OLM v1's
# CRD upgrade safety preflight, which `make verify` runs on the CRD, and helm, which lints and
# renders the Helm charts, and promtool, which evaluates the alerts in their unit tests.
TEST_ENV = KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" KUSTOMIZE="$(KUSTOMIZE)" TEST_ASSET_KUBECTL="$(KUBECTL_LOCAL)" OPM="$(OPM)" OPERATOR_SDK="$(OPERATOR_SDK)" CONTROLLER_GEN="$(CONTROLLER_GEN)" REGISTRY_SERVER="$(REGISTRY_SERVER)" CRD_UPGRADE_SAFETY="$(CRD_UPGRADE_SAFETY)" HELM="$(HELM)" HELM3="$(HELM3)" PROMTOOL="$(PROMTOOL)"

##@ Try it on this machine

.PHONY: test
test: manifests generate fmt vet envtest kustomize kubectl opm operator-sdk stage-bundle registry crd-upgrade-safety-tool helm helm3 promtool ## Run every test but the long reliability ones against a local kube-apiserver and etcd.
	$(TEST_ENV) $(GO_ENV) go test $$(go list ./... | grep -v /test/reliability) -coverprofile cover.out

##@ Test

.PHONY: test-reliability
test-reliability: manifests generate fmt vet envtest kustomize ## Run the long tests that end managers and fight them over their Foos under load (a minute or two).
	$(TEST_ENV) $(GO_ENV) go test ./test/reliability/... -timeout 20m -v -ginkgo.no-color

# suite-tools builds every tool and image the cluster suites (test-node, test-node-faults,
# test-e2e) and `make cluster` share. Built first, those suites can then run side by side,
# each in a checkout of its own with LOCALBIN naming this one's bin/: none of them then
# writes a file another reads (what a checkout makes for itself is under its CHECKOUT_BIN).
.PHONY: suite-tools
suite-tools: node olm-images prometheus-image operator-sdk opm kustomize kubectl helm helm3 imagebuilder crane stage-bundle controller-gen \
	cosign syft supplychain ## Build what the cluster suites share, so that they can run side by side.

# E2E_DIR holds the OLM suite's local cluster (its logs/ keeps the log of every process).
E2E_DIR ?= $(CHECKOUT_BIN)/e2e
E2E_TEST = $(CHECKOUT_BIN)/e2e.test
# E2E_REUSE_IMAGES=1 uses the images test-images built from this checkout instead of building
# them again (as .ci/run does, right after test-images).
E2E_REUSE_IMAGES ?=
# E2E_ARGS are extra flags of the suite, e.g. E2E_ARGS='-ginkgo.focus=scorecard' runs one journey.
E2E_ARGS ?=
# E2E_CHURN_FOOS and E2E_CHURN_FRIENDS size the world whose friends churn during the catalog
# upgrade and the node's faults after it: 500 Foos naming 100 friends unless set (CI runs a
# smaller one).
E2E_CHURN_FOOS ?=
E2E_CHURN_FRIENDS ?=
# E2E_FAULTS_REPORT, if set, names a file the suite appends its table of fault figures to.
E2E_FAULTS_REPORT ?=

# USE_EXISTING_CLUSTER=true runs test-e2e on a cluster you already have, with OLM v0 and
# OLM v1 installed on it: the one KUBECONFIG names (as its administrator), with the images
# pushed to REGISTRY (host:port; REGISTRY_CA names the PEM file of its CA if this machine does
# not trust it), which the cluster's nodes must pull from. The suite reaches it only through
# its API and the registry, and leaves out, saying so, the specs that need more (label
# filters such as faults or disconnected: they need the local cluster's node).
USE_EXISTING_CLUSTER ?=
ifeq ($(USE_EXISTING_CLUSTER),true)
IMAGE_TEST_REGISTRY = $(REGISTRY)
# On your cluster the suite runs in this machine's network: it must reach the apiserver and the registry.
E2E_NETWORK =
else
IMAGE_TEST_REGISTRY = 127.0.0.1:5000
# The local cluster runs in a network namespace of its own (the cluster's namespaces nest
# in it), so that the registry's fixed address is free.
E2E_NETWORK = unshare --net -- sh -c 'ip link set lo up && exec "$$0" "$$@"'
endif

# test-e2e runs the ways users install the operator, each as a user would: `operator-sdk run
# bundle`, a catalog image, `make deploy`, a release's install.yaml, the Helm chart, OLM v1
# (catalogd and operator-controller) installing from the catalog image; the scorecard; and
# the node's faults on the operator as OLM installs it. By default it starts a local cluster
# (needs root), installs OLM from its release manifests, and pushes every image to the local
# registry; see USE_EXISTING_CLUSTER for your own cluster. The suite gives the tools it runs
# a HOME of their own (operator-sdk writes there); GOCACHE and GOMODCACHE keep `make
# deploy`'s Go builds on this machine's caches, since the local cluster has no route out.
.PHONY: test-e2e
test-e2e: $(if $(filter true,$(USE_EXISTING_CLUSTER)),existing-cluster,node-packages) $(if $(E2E_REUSE_IMAGES),,test-images-build) suite-tools olm-modules ## Install, upgrade and uninstall the operator every way users do, on a local cluster's node (as root) or, with USE_EXISTING_CLUSTER=true, on the cluster of KUBECONFIG with images pushed to REGISTRY.
	$(GO_ENV) go vet -tags e2e ./test/e2e/...
	$(GO_ENV) go test -c -tags e2e -o $(E2E_TEST) ./test/e2e
	cd test/e2e && $(NODE_ENV) $(OLM_ENV) HELM3="$(HELM3)" OPERATOR_SDK="$(OPERATOR_SDK)" OPM="$(OPM)" IMAGEBUILDER="$(IMAGEBUILDER)" CRANE="$(CRANE)" LOCALBIN="$(LOCALBIN)" \
		GOCACHE="$$(go env GOCACHE)" GOMODCACHE="$$(go env GOMODCACHE)" USE_EXISTING_CLUSTER="$(USE_EXISTING_CLUSTER)" \
		KUBECTL="$(KUBECTL_LOCAL)" E2E_DIR="$(E2E_DIR)/cluster" IMAGE_STORES="$(IMAGE_TEST_DIR)/store" \
		IMAGE_CHECKOUT="$(IMAGE_TEST_DIR)/checkout" IMAGE_TAG_BASE="$(IMAGE_TEST_BASE)" OPM_IMAGE="$(OPM_IMAGE)" \
		E2E_CHURN_FOOS="$(E2E_CHURN_FOOS)" E2E_CHURN_FRIENDS="$(E2E_CHURN_FRIENDS)" E2E_FAULTS_REPORT="$(abspath $(E2E_FAULTS_REPORT))" \
		$(E2E_NETWORK) $(E2E_TEST) -test.v -test.timeout 50m -ginkgo.v -ginkgo.no-color $(E2E_ARGS)

# existing-cluster checks, before anything is built, that USE_EXISTING_CLUSTER=true names a
# cluster and a registry.
.PHONY: existing-cluster
existing-cluster:
	@[ -n "$$KUBECONFIG" ] && [ -f "$$KUBECONFIG" ] || { echo "USE_EXISTING_CLUSTER=true needs KUBECONFIG naming the kubeconfig file of your cluster's administrator" >&2; exit 1; }
	@[ -n "$(REGISTRY)" ] || { echo "USE_EXISTING_CLUSTER=true needs REGISTRY=<host:port> of a registry you can push to and your cluster pulls from (REGISTRY_CA=<PEM file> if this machine does not trust it)" >&2; exit 1; }

# NODE_TEST_DIR holds the node suite's local cluster (whose logs/ keeps the log of every
# process) and the manager image it deploys.
NODE_TEST_DIR ?= $(CHECKOUT_BIN)/node-test

# NODE_SUITE_CLUSTER is what the node suite's cluster needs built: the local cluster's node,
# or, with USE_EXISTING_CLUSTER=true, only the test images it pushes to REGISTRY (pause,
# busybox, httpget) once KUBECONFIG and REGISTRY are checked. On your cluster the suite leaves
# out, saying so, the specs that need the local node's processes (labels such as
# container-kill; see USE_EXISTING_CLUSTER above).
NODE_SUITE_CLUSTER = $(if $(filter true,$(USE_EXISTING_CLUSTER)),existing-cluster node-images,node)

# test-node builds the manager image for this machine's platform into an image layout; the
# suite pushes it to its cluster's registry and deploys config/default with it. The fault
# specs (label "faults") run in test-node-faults.
.PHONY: test-node
test-node: $(NODE_SUITE_CLUSTER) imagebuilder kustomize prometheus-image manifests ## Run the operator as a pod on a local cluster's real node (as root) or, with USE_EXISTING_CLUSTER=true, on the cluster of KUBECONFIG, and check what only a node shows.
	@$(MAKE) --no-print-directory node-suite NODE_SUITE_ARGS="-ginkgo.label-filter='!faults'"

# NODE_FAULTS_FOOS and NODE_FAULTS_FRIENDS size the fault suite: Foos, and the friend pods
# they share (running pods, at most half of them at once besides the churn).
NODE_FAULTS_FOOS ?= 500
NODE_FAULTS_FRIENDS ?= 100
# NODE_FAULTS_REPORT, if set, names a file the fault suite appends its table of figures to.
NODE_FAULTS_REPORT ?=
# NODE_FAULTS_ENV is what the fault specs read, for every target that runs them.
NODE_FAULTS_ENV = NODE_FAULTS_FOOS=$(NODE_FAULTS_FOOS) NODE_FAULTS_FRIENDS=$(NODE_FAULTS_FRIENDS) NODE_FAULTS_REPORT=$(abspath $(NODE_FAULTS_REPORT))

# test-node-faults breaks the node under the operator (a killed leader, kubelet and containerd
# restarts, a network partition, expired watches, an apiserver outage) while friend pods churn,
# and checks every Foo afterwards.
.PHONY: test-node-faults
test-node-faults: $(NODE_SUITE_CLUSTER) imagebuilder kustomize prometheus-image manifests ## Break the node under the operator while pods churn, check every Foo afterwards, and print the figures (as root).
	@$(MAKE) --no-print-directory node-suite NODE_SUITE_ARGS="-ginkgo.label-filter=faults" \
		NODE_SUITE_ENV='$(NODE_FAULTS_ENV)'

# NODE_ARGS are extra flags of test-node-all's suite, e.g. NODE_ARGS="-ginkgo.label-filter=faults".
NODE_ARGS ?=

# test-node-all runs the node suite and its fault specs in one run, on one cluster: a cluster
# start and a manager image build fewer than the two targets one after the other (.ci/run).
.PHONY: test-node-all
test-node-all: $(NODE_SUITE_CLUSTER) imagebuilder kustomize prometheus-image manifests ## Run test-node's and test-node-faults' specs in one run, on one cluster (as root).
	@$(MAKE) --no-print-directory node-suite \
		NODE_SUITE_ENV='$(NODE_FAULTS_ENV)' NODE_SUITE_ARGS="$(NODE_ARGS)"

.PHONY: node-suite
node-suite:
	@rm -rf $(NODE_TEST_DIR)/images
	@$(IMAGEBUILDER) manager --store $(NODE_TEST_DIR)/images --context . --platforms linux/$(GOARCH) --tag foo-operator:test
	$(GO_ENV) go vet -tags node ./test/node
	$(GO_ENV) go test -c -tags node -o $(CHECKOUT_BIN)/node.test ./test/node
	cd test/node && $(NODE_ENV) $(NODE_SUITE_ENV) KUSTOMIZE="$(KUSTOMIZE)" NODE_TEST_DIR="$(NODE_TEST_DIR)/cluster" USE_EXISTING_CLUSTER="$(USE_EXISTING_CLUSTER)" \
		OPERATOR_IMAGES="$(NODE_TEST_DIR)/images" PROMETHEUS_IMAGES="$(PROMETHEUS_IMAGES)" $(CHECKOUT_BIN)/node.test -test.v -test.timeout 30m -ginkgo.v -ginkgo.no-color $(NODE_SUITE_ARGS)

# IMAGE_TEST_DIR is where the image tests keep their copy of the project, the images they
# built, the registry's storage and the logs.
IMAGE_TEST_DIR ?= $(LOCALBIN)/image-test
# The image tests run in a network namespace of their own (opm serve, which they run from the
# catalog image, listens on every interface), where the loopback address of
# IMAGE_TEST_REGISTRY is free by construction; test-e2e on your cluster builds for REGISTRY.
# The nested path checks that nothing assumes a one-level repository.
IMAGE_TEST_BASE = $(IMAGE_TEST_REGISTRY)/acme/nested/foo-operator
# The earlier releases' manager images are built for this machine's platform only (every
# cluster of the tests runs it); the release in the making, for every PLATFORMS, as it is
# published.
IMAGE_TEST_ENV = LOCALBIN="$(LOCALBIN)" IMAGE_TAG_BASE="$(IMAGE_TEST_BASE)" IMAGE_STORE="$(IMAGE_TEST_DIR)/store" \
	PLATFORMS="$(PLATFORMS)" RELEASES_PLATFORMS="linux/$(GOARCH)" \
	COSIGN_KEY="$(IMAGE_TEST_DIR)/cosign/cosign.key" COSIGN_PASSWORD= COSIGN="$(COSIGN)" SYFT="$(SYFT)" SUPPLYCHAIN="$(SUPPLYCHAIN)"

# test-images-build builds every image of every release as a user would publish them, in a
# copy of the project (the publishing targets regenerate bundle/ and catalog/ for
# IMAGE_TAG_BASE), into IMAGE_TEST_DIR/store; test-images and test-e2e push them.
.PHONY: test-images-build
test-images-build: image-test-packages registry opm operator-sdk helm crane imagebuilder stage-bundle kustomize controller-gen \
	cosign syft supplychain
	@rm -rf $(IMAGE_TEST_DIR) && mkdir -p $(IMAGE_TEST_DIR)/checkout
	@$(MAKE) --no-print-directory cosign-key COSIGN_KEY_DIR=$(IMAGE_TEST_DIR)/cosign >/dev/null
	@tar -c --exclude=./bin --exclude=./.demo --exclude=./bench-results . | tar -x -C $(IMAGE_TEST_DIR)/checkout
	@start=$$(date +%s); \
		$(IMAGE_TEST_ENV) $(MAKE) --no-print-directory -C $(IMAGE_TEST_DIR)/checkout images CONTAINER_TOOL=imagebuilder; \
		echo "==> Built every image under $(IMAGE_TEST_BASE) in $$(( $$(date +%s) - start ))s"

# test-images publishes every release to a real registry and checks every image reference
# a cluster would pull. In a network namespace of its own the registry starts and `make
# images-push` pushes the images test-images-build built.
.PHONY: test-images
test-images: test-images-build ## Build, push and check every image of every release against a local registry (needs root).
	$(GO_ENV) go vet -tags images ./test/images
	$(GO_ENV) go test -c -tags images -o $(LOCALBIN)/images.test ./test/images
	cd test/images && $(IMAGE_TEST_ENV) REGISTRY_SERVER="$(REGISTRY_SERVER)" OPM="$(OPM)" OPERATOR_SDK="$(OPERATOR_SDK)" HELM="$(HELM)" \
		IMAGE_CHECKOUT="$(IMAGE_TEST_DIR)/checkout" IMAGE_TEST_DIR="$(IMAGE_TEST_DIR)" GOPROXY=off \
		unshare --net -- sh -c 'ip link set lo up && exec "$$0" "$$@"' \
		$(LOCALBIN)/images.test -test.v -test.timeout 20m

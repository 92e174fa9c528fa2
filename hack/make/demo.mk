# The demo and the local cluster for users: included by the Makefile.

##@ Try it on this machine

# DEMO_DIR is the scratch folder of the demo and of `make cluster`: their clusters' data,
# kubeconfigs, logs, and the local registry's images.
DEMO_DIR ?= $(CURDIR)/.demo

# DEMO_KUBECTL is the kubectl the demo drives: the one on PATH, or else one built from Go
# modules at the control plane's version.
DEMO_KUBECTL ?= $(or $(shell command -v kubectl 2>/dev/null),$(KUBECTL_LOCAL))

DEMO = $(CHECKOUT_BIN)/demo --dir "$(DEMO_DIR)" --kubectl "$(DEMO_KUBECTL)"

.PHONY: demo
demo: build envtest demo-program demo-kubectl ## Show the operator at work on a local kube-apiserver and etcd, then stop everything.
	@KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" $(DEMO) --manager "$(CHECKOUT_BIN)/manager"

.PHONY: demo-node
demo-node: node imagebuilder kustomize controller-gen demo-program demo-kubectl ## Play the same story on a local cluster, the operator deployed as a pod (Linux, as root).
	@$(NODE_ENV) $(DEMO) --node

##@ Local cluster (Linux, as root)

# OLM names the OLM generations `make cluster` installs on the cluster: v0, v1 or both (none
# by default). Their images and the images their tools need are built and published in the
# cluster's registry, and operator-sdk, helm and cosign (which signs and verifies what is
# published to it) are put on the PATH that .demo/cluster.env sets.
OLM ?=
ifneq ($(filter-out v0 v1 both,$(OLM)),)
$(error OLM must be v0, v1 or both, not "$(OLM)")
endif

# CLUSTER_REGISTRY is the loopback host:port the registry of `make cluster` serves on; empty
# picks a free port. Whichever, .demo/cluster.env names it as REGISTRY.
CLUSTER_REGISTRY ?=

.PHONY: cluster
cluster: node imagebuilder kustomize controller-gen demo-program demo-kubectl $(if $(OLM),olm-images operator-sdk helm cosign olm-modules) ## Start a local cluster with a real node and a registry in the background; OLM=v0, v1 or both adds OLM.
	@mkdir -p $(DEMO_DIR)/bin && ln -sf $(DEMO_KUBECTL) $(DEMO_DIR)/bin/kubectl
	@$(if $(OLM),ln -sf $(OPERATOR_SDK) $(DEMO_DIR)/bin/operator-sdk && ln -sf $(HELM) $(DEMO_DIR)/bin/helm && \
		ln -sf $(COSIGN) $(DEMO_DIR)/bin/cosign)
	@$(NODE_ENV) $(OLM_ENV) $(DEMO) --cluster --olm "$(OLM)" --registry-address "$(CLUSTER_REGISTRY)"

.PHONY: cluster-down
cluster-down: demo-program ## Stop what `make cluster` started.
	@$(DEMO) --cluster-down

.PHONY: demo-program
demo-program:
	@$(GO_ENV) go build -o $(CHECKOUT_BIN)/demo ./hack/demo

.PHONY: demo-kubectl
demo-kubectl:
	@if [ "$(DEMO_KUBECTL)" = "$(KUBECTL_LOCAL)" ]; then $(MAKE) --no-print-directory kubectl; fi

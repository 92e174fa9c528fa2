# The OLM bundle, the catalog, the images of every release and their publishing: included
# by the Makefile.

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

# USE_IMAGE_DIGESTS=true pins every image the bundle names (the manager's, in its Deployment
# and the CSV's containerImage) by its digest in the registry, and lists them in the CSV's
# relatedImages, as operator-sdk's scaffold does: the images a disconnected cluster mirrors.
# The images must be pushed first; `make publish` sets it, and the catalog then names each
# bundle image by its digest too.
USE_IMAGE_DIGESTS ?= false
ifeq ($(USE_IMAGE_DIGESTS),true)
BUNDLE_GEN_FLAGS += --use-image-digests
STAGE_BUNDLE_FLAGS += --use-image-digests
endif

# The bundle declares the platforms the manager image is built for, PLATFORMS, where OLM and
# OperatorHub read them: the CSV's operatorframework.io/arch.<arch> and os.<os> labels, which
# the catalogs filter operators by, and the manager's node affinity, which keeps its pod off
# nodes the image cannot run on. config/manager/manager.yaml has the affinity of the default
# PLATFORMS (install.yaml and the chart have it too); the bundle is generated through an
# overlay of config/manifests, BUNDLE_OVERLAY, that sets both from PLATFORMS, so that
# `make bundle PLATFORMS=...` declares what it was given. The affinity is replaced, not
# added: a manager.yaml without one fails the build instead of the bundle quietly lacking it.
BUNDLE_OVERLAY ?= $(CHECKOUT_BIN)/bundle-overlay
PLATFORM_OSES = $(sort $(foreach platform,$(subst $(comma), ,$(PLATFORMS)),$(word 1,$(subst /, ,$(platform)))))
PLATFORM_ARCHES = $(sort $(foreach platform,$(subst $(comma), ,$(PLATFORMS)),$(word 2,$(subst /, ,$(platform)))))

.PHONY: bundle-overlay
bundle-overlay:
	@rm -rf $(BUNDLE_OVERLAY) && mkdir -p $(BUNDLE_OVERLAY)
	@printf '%s\n' 'resources:' "- $$(realpath --relative-to=$(BUNDLE_OVERLAY) config/manifests)" 'patches:' \
		'- target:' '    kind: ClusterServiceVersion' '  patch: |-' \
		'    apiVersion: operators.coreos.com/v1alpha1' '    kind: ClusterServiceVersion' \
		'    metadata:' '      name: any' '      labels:' \
		$(foreach arch,$(PLATFORM_ARCHES),'        operatorframework.io/arch.$(arch): supported') \
		$(foreach os,$(PLATFORM_OSES),'        operatorframework.io/os.$(os): supported') \
		'- target:' '    kind: Deployment' '    labelSelector: control-plane=controller-manager' '  patch: |-' \
		'    - op: replace' '      path: /spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution' \
		'      value:' '        nodeSelectorTerms:' '        - matchExpressions:' \
		'          - key: kubernetes.io/arch' '            operator: In' '            values:' \
		$(foreach arch,$(PLATFORM_ARCHES),'            - $(arch)') \
		'          - key: kubernetes.io/os' '            operator: In' '            values:' \
		$(foreach os,$(PLATFORM_OSES),'            - $(os)') \
		> $(BUNDLE_OVERLAY)/kustomization.yaml

# operator-sdk keeps the CSV's annotations but knows nothing of containerImage, which names the
# operator image: it is set to IMG on the way in (where --use-image-digests pins it too), and
# createdAt, which operator-sdk stamps with the time of the run, back to the release's.
.PHONY: bundle
bundle: manifests kustomize operator-sdk stage-bundle $(if $(RELEASE_DIR),,bundle-overlay) ## Generate the OLM bundle of VERSION running IMG (bundle/, or an earlier release's under bin/releases), then validate it.
ifneq ($(RELEASE_DIR),)
	@$(STAGE_BUNDLE) --from releases/$(VERSION) --image $(IMG) --out $(BUNDLE_DIR) $(STAGE_BUNDLE_FLAGS)
	@echo "==> Staged the bundle of release $(VERSION), running $(IMG), in $(BUNDLE_DIR)"
else
	$(OPERATOR_SDK) generate kustomize manifests -q --interactive=false
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(IMG)
	$(KUSTOMIZE) build $(BUNDLE_OVERLAY) | sed -e 's|^    containerImage: .*|    containerImage: $(IMG)|' \
		| $(OPERATOR_SDK) generate bundle -q --overwrite --version $(VERSION) $(BUNDLE_METADATA_OPTS) $(BUNDLE_GEN_FLAGS)
	sed -e 's|^    createdAt: .*|    createdAt: $(CREATED_AT)|' $(BUNDLE_CSV) > $(BUNDLE_CSV).tmp
	mv $(BUNDLE_CSV).tmp $(BUNDLE_CSV)
endif
	$(OPERATOR_SDK) bundle validate $(BUNDLE_DIR) --select-optional suite=operatorframework

# The CRD as it is now must be able to replace the CRD of every earlier release: OLM v1 refuses
# an upgrade its CRD upgrade safety preflight finds unsafe (a new required field, a narrowed
# validation, a removed stored version, ...), which would strand users on the old release.
# The check is that preflight itself (hack/crd-upgrade-safety); docs/api-evolution.md says how
# to change the API safely.
CRD_FILE := config/crd/bases/tutorial.my.domain_foos.yaml
RELEASED_CRDS = $(sort $(wildcard releases/*/manifests/tutorial.my.domain_foos.yaml))

.PHONY: crd-upgrade-safety
crd-upgrade-safety: manifests crd-upgrade-safety-tool ## Check that the CRD can replace every earlier release's, with OLM v1's own CRD upgrade safety preflight.
	$(CRD_UPGRADE_SAFETY) --new $(CRD_FILE) $(RELEASED_CRDS)

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
#
# The catalog of the release in the making, VERSION of this Makefile, holds every release, in
# catalog/. The catalog of an earlier VERSION is the catalog as it was when that release was
# the newest (its channel ends with it), in its folder under bin/releases: publishing it and
# then a newer one under the same tag is how a cluster sees an upgrade arrive.
ifneq ($(RELEASE_DIR),)
CATALOG_BUILD_DIR = $(RELEASE_DIR)/catalog
else
CATALOG_BUILD_DIR = $(CATALOG_DIR)
endif
# CATALOG_RELEASES are the releases before VERSION, oldest first.
CATALOG_RELEASES = $(shell printf '%s\n' $(RELEASES) | sort -V | awk -v version=$(VERSION) '$$0 == version { exit } { print }')

.PHONY: catalog
catalog: bundle opm $(if $(filter true,$(USE_IMAGE_DIGESTS)),crane) ## Render every release's bundle up to VERSION into the file-based catalog for IMAGE_TAG_BASE, then validate the catalog.
	@for version in $(CATALOG_RELEASES); do \
		$(MAKE) --no-print-directory bundle VERSION=$$version IMG=$(IMAGE_TAG_BASE):v$$version >/dev/null || exit 1; \
	done
ifneq ($(RELEASE_DIR),)
	@rm -rf $(CATALOG_BUILD_DIR) && mkdir -p $(CATALOG_BUILD_DIR)/$(PACKAGE)
	@cp $(PACKAGE_CATALOG)/package.yaml $(CATALOG_BUILD_DIR)/$(PACKAGE)/
	@awk -v releases="$(CATALOG_RELEASES) $(VERSION)" \
		'BEGIN { n = split(releases, list, " "); for (i = 1; i <= n; i++) released[list[i]] = 1; keep = 1 } \
		/^- name: / { version = $$3; sub(/^.*\.v/, "", version); keep = (version in released) } keep' \
		$(PACKAGE_CATALOG)/channel-stable.yaml > $(CATALOG_BUILD_DIR)/$(PACKAGE)/channel-stable.yaml
endif
	@for version in $(CATALOG_RELEASES) $(VERSION); do \
		dir=$(BUNDLE_DIR); [ "$$version" = "$(VERSION)" ] || dir=$(RELEASES_BUILD_DIR)/$$version/bundle; \
		image=$(IMAGE_TAG_BASE)-bundle:v$$version; \
		$(if $(filter true,$(USE_IMAGE_DIGESTS)),image=$$($(CRANE) digest --full-ref $$image) || exit 1;) \
		named=$(CHECKOUT_BIN)/catalog-render/$$version; rm -rf $$named; mkdir -p $$named; \
		$(OPM) render $$dir --output yaml | sed -e "s|^image: \"\"$$|image: $$image|" > $$named/bundle.yaml || exit 1; \
		$(OPM) render $$named --migrate-level=bundle-object-to-csv-metadata --output yaml \
			> $(CATALOG_BUILD_DIR)/$(PACKAGE)/$(PACKAGE).v$$version.yaml || exit 1; \
		echo "==> Rendered $(PACKAGE).v$$version, bundle image $$image"; \
	done
	$(OPM) validate $(CATALOG_BUILD_DIR)
	rm -f $(CATALOG_BUILD_DIR).Dockerfile
	$(OPM) generate dockerfile $(CATALOG_BUILD_DIR) --builder-image $(OPM_IMAGE) --base-image $(OPM_IMAGE)

.PHONY: catalog-build
catalog-build: $(if $(filter imagebuilder,$(CONTAINER_TOOL)),image-packages) catalog $(IMAGE_TOOL_DEPS) $(if $(filter imagebuilder,$(CONTAINER_TOOL)),opm-image) ## Build the catalog image CATALOG_IMG of VERSION from its catalog.Dockerfile.
ifeq ($(CONTAINER_TOOL),imagebuilder)
	$(IMAGEBUILDER) catalog --store $(IMAGE_STORE) --configs $(CATALOG_BUILD_DIR) --base $(OPM_IMAGE) --opm $(OPM) --tag $(CATALOG_IMG)
else
	$(CONTAINER_TOOL) build -f $(CATALOG_BUILD_DIR).Dockerfile -t $(CATALOG_IMG) $(dir $(CATALOG_BUILD_DIR))
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
opm-image: image-packages imagebuilder opm-static grpc-health-probe
	@$(IMAGEBUILDER) opm --store $(IMAGE_STORE) --opm $(OPM_STATIC) --health-probe $(GRPC_HEALTH_PROBE) --busybox $$(command -v busybox) \
		--platform $(OPM_IMAGE_PLATFORM) --tag $(OPM_IMAGE)

# images builds every image of every release (manager, bundle) and packages its Helm chart,
# then builds the catalog image, each naming the others by tag (no registry is needed to
# build them); images-push pushes them. The catalog names the bundles of every release under
# IMAGE_TAG_BASE, so all of them are published together. publish does both with every
# reference pinned by digest instead.
.PHONY: images
images: ## Build the manager and bundle images and the Helm chart of every release and the catalog image, all under IMAGE_TAG_BASE.
	@for version in $(RELEASES) $(VERSION); do \
		$(MAKE) --no-print-directory docker-build bundle-build chart-build VERSION=$$version \
			IMG=$(IMAGE_TAG_BASE):v$$version BUNDLE_IMG=$(IMAGE_TAG_BASE)-bundle:v$$version || exit 1; \
	done
	@$(MAKE) --no-print-directory catalog-build

.PHONY: images-push
images-push: require-cosign-key ## Push what `make images` built, signed with COSIGN_KEY.
	@for version in $(RELEASES) $(VERSION); do \
		$(MAKE) --no-print-directory docker-push bundle-push chart-push sign-release VERSION=$$version \
			IMG=$(IMAGE_TAG_BASE):v$$version BUNDLE_IMG=$(IMAGE_TAG_BASE)-bundle:v$$version \
			PUBLISH_COMMAND="make images images-push IMAGE_TAG_BASE=$(IMAGE_TAG_BASE) CONTAINER_TOOL=$(CONTAINER_TOOL)" || exit 1; \
	done
	@$(MAKE) --no-print-directory catalog-push sign-catalog \
		PUBLISH_COMMAND="make images images-push IMAGE_TAG_BASE=$(IMAGE_TAG_BASE) CONTAINER_TOOL=$(CONTAINER_TOOL)"

##@ Install on a cluster

# publish builds and pushes, release after release, the manager image, then the bundle image
# and the Helm chart, which name it by its digest (USE_IMAGE_DIGESTS=true: they resolve the
# manager image just pushed), and renders the release's installer, pinned the same way (into
# dist/, or bin/releases/<version>/ for an earlier release: attach it to the release); then
# the catalog image, which names every bundle by digest. Each is signed once pushed, with its
# SBOM and provenance attached (hack/make/supplychain.mk); without COSIGN_KEY nothing is
# pushed.
.PHONY: publish
publish: require-cosign-key ## Publish every release's images and chart under IMAGE_TAG_BASE, signed with COSIGN_KEY; rewrites tracked files.
	@for version in $(RELEASES) $(VERSION); do \
		$(MAKE) --no-print-directory docker-build docker-push bundle-build bundle-push chart-build chart-push build-installer sign-release \
			VERSION=$$version USE_IMAGE_DIGESTS=true \
			IMG=$(IMAGE_TAG_BASE):v$$version BUNDLE_IMG=$(IMAGE_TAG_BASE)-bundle:v$$version || exit 1; \
	done
	@$(MAKE) --no-print-directory catalog-build catalog-push sign-catalog USE_IMAGE_DIGESTS=true

##@ OLM bundle and catalog

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
release: opm ## Cut release VERSION: add it to the stable channel after the newest release, then regenerate the bundle, catalog, installer and chart.
	hack/release.sh $(VERSION) $(PACKAGE_CATALOG) $(CSV_BASE)
	$(MAKE) --no-print-directory catalog helm-chart VERSION=$(VERSION)

# The two ways to install the operator on a cluster without OLM, as kubebuilder projects offer
# them: one file for `kubectl apply`, and a Helm chart. Included by the Makefile.

##@ Without OLM: install.yaml and the Helm chart

# The installer and the chart of the release in the making are generated into dist/ (and
# committed, so that `make verify` catches them stale); an earlier release's are frozen under
# releases/<version>/ by `make release`, and staged from there under bin/releases/<version>/
# with their image references following IMG, as its bundle is.
DIST_DIR := dist
ifneq ($(RELEASE_DIR),)
INSTALLER = $(RELEASE_DIR)/install.yaml
CHART_SOURCE = releases/$(VERSION)/chart
else
INSTALLER = $(DIST_DIR)/install.yaml
CHART_SOURCE = $(DIST_DIR)/chart
endif

# IMG_REF is IMG as the installers name it: resolved to its digest in the registry with
# USE_IMAGE_DIGESTS=true (which `make publish` sets, once the image is pushed), so that what
# is installed is exactly what was published. Shell words, for a recipe.
IMG_REF = $(if $(filter true,$(USE_IMAGE_DIGESTS)),$$($(CRANE) digest --full-ref $(IMG)),$(IMG))

# write-image-overlay writes into folder $(1) a kustomization of resource $(2) (a path from
# that folder) with the manager container's image set to $(3): how `make deploy` and
# `make build-installer` set the image without editing a tracked file.
define write-image-overlay
printf '%s\n' 'resources:' "- $(2)" 'patches:' '- target:' \
	'    kind: Deployment' '    labelSelector: control-plane=controller-manager' '  patch: |-' \
	'    - op: replace' '      path: /spec/template/spec/containers/0/image' "      value: $(3)" \
	> $(1)/kustomization.yaml
endef

INSTALLER_OVERLAY = $(CHECKOUT_BIN)/installer

# render-installer renders kustomization folder $(1) with the manager's image set to $(2)
# into file $(3), through an overlay in INSTALLER_OVERLAY, which it clears first. Shell
# words, for a recipe.
define render-installer
rm -rf $(INSTALLER_OVERLAY) && mkdir -p $(INSTALLER_OVERLAY) $(dir $(3)) && \
	$(call write-image-overlay,$(INSTALLER_OVERLAY),$$(realpath --relative-to=$(INSTALLER_OVERLAY) $(1)),$(2)) && \
	$(KUSTOMIZE) build $(INSTALLER_OVERLAY) > $(3).tmp && mv $(3).tmp $(3)
endef

# build-installer renders, as kubebuilder's does, everything `make deploy` applies (the
# Namespace, the CRD, the RBAC, the manager's Deployment and its metrics Service) into one
# file, which `kubectl apply --server-side -f` installs and `kubectl delete -f` removes. An
# earlier release's is its frozen file, with its image set to IMG.
.PHONY: build-installer
build-installer: manifests kustomize $(if $(filter true,$(USE_IMAGE_DIGESTS)),crane) ## Render the one-file installer of VERSION running IMG: dist/install.yaml (an earlier release's under bin/releases/).
	@image=$(IMG_REF) || exit 1; \
	$(if $(RELEASE_DIR),mkdir -p $(RELEASE_DIR)/frozen-installer && cp releases/$(VERSION)/install.yaml $(RELEASE_DIR)/frozen-installer/ && \
		printf '%s\n' 'resources:' '- install.yaml' > $(RELEASE_DIR)/frozen-installer/kustomization.yaml && \
		$(call render-installer,$(RELEASE_DIR)/frozen-installer,$$image,$(INSTALLER)), \
		$(call render-installer,config/default,$$image,$(INSTALLER))) && \
	echo "==> Rendered $(INSTALLER) of $(VERSION), running $$image"

# generate-chart generates the Helm chart of version $(3) from installer $(1) into folder $(2)
# with kubebuilder's helm/v2-alpha plugin, as `kubebuilder edit --plugins=helm/v2-alpha` does
# in a kubebuilder project. The plugin runs in a scratch folder holding only PROJECT and the
# installer, so that its other edits (PROJECT's plugin list, Makefile targets, a GitHub
# workflow) stay out of this tree. The chart is then stamped with the version, and its Foo
# admin, editor and viewer roles are turned on, as install.yaml and the bundle install them:
# without them the users of the cluster's admin, edit and view roles could not touch a Foo.
define generate-chart
scratch=$$(mktemp -d) && trap 'rm -rf "$$scratch"' EXIT && \
	cp PROJECT "$$scratch/" && mkdir -p "$$scratch/dist" && cp $(1) "$$scratch/dist/install.yaml" && \
	printf '%s\n' '# The plugin runs `make build-installer`; dist/install.yaml is made already.' \
		'build-installer:' > "$$scratch/Makefile" && \
	{ (cd "$$scratch" && $(KUBEBUILDER) edit --plugins=helm/v2-alpha >"$$scratch/kubebuilder.log" 2>&1) || \
		{ cat "$$scratch/kubebuilder.log" >&2; exit 1; }; } && \
	rm -rf $(2) && cp -R "$$scratch/dist/chart" $(2) && \
	sed -i -e 's/^version: .*/version: $(3)/' -e 's/^appVersion: .*/appVersion: "$(3)"/' $(2)/Chart.yaml && \
	sed -i -e '/^  helpers:$$/,/^    enabled:/ s/^    enabled: false$$/    enabled: true/' $(2)/values.yaml && \
	{ grep -A4 '^  helpers:$$' $(2)/values.yaml | grep -q '^    enabled: true$$' || \
		{ echo "The chart's values.yaml has no rbac.helpers.enabled to turn on: see hack/make/installers.mk" >&2; exit 1; }; } && \
	echo "==> Generated $(2) of $(3) from $(1)"
endef

# helm-chart generates dist/chart from dist/install.yaml, so from config/: regenerated from
# scratch every time, it follows config/ and cannot drift from it (`make verify`).
.PHONY: helm-chart
helm-chart: build-installer kubebuilder ## Generate the Helm chart of VERSION, dist/chart, from config/ (through dist/install.yaml) with kubebuilder's helm/v2-alpha plugin.
ifneq ($(RELEASE_DIR),)
	@echo "The chart of release $(VERSION) is frozen in releases/$(VERSION)/chart" >&2; exit 1
else
	@$(call generate-chart,$(INSTALLER),$(DIST_DIR)/chart,$(VERSION))
endif

# release-installers writes into releases/VERSION/ the installer and the chart of an earlier
# release cut before `make release` froze them (0.1.0 and 0.2.0 were): rendered from that
# release's own config/default (its source commit), running IMG. It refuses a release that
# has them: frozen files are never written again.
.PHONY: release-installers
release-installers: release-source kustomize kubebuilder
	@[ -n "$(RELEASE_DIR)" ] || { echo "$(VERSION) is not an earlier release: make build-installer helm-chart" >&2; exit 1; }
	@[ ! -e releases/$(VERSION)/install.yaml ] && [ ! -e releases/$(VERSION)/chart ] || \
		{ echo "releases/$(VERSION) has its installers already" >&2; exit 1; }
	@$(call render-installer,$(MANAGER_SOURCE)/config/default,$(IMG),releases/$(VERSION)/install.yaml)
	@$(call generate-chart,releases/$(VERSION)/install.yaml,releases/$(VERSION)/chart,$(VERSION))

# CHART_REPO is the OCI repository the charts are pushed to: beside the images, as `charts`
# under IMAGE_TAG_BASE's parent (registry.example/org/foo-operator's go to
# oci://registry.example/org/charts/foo-operator).
CHART_REPO ?= oci://$(patsubst %/,%,$(dir $(IMAGE_TAG_BASE)))/charts
CHART_PACKAGES = $(CHECKOUT_BIN)/charts
CHART_PACKAGE = $(CHART_PACKAGES)/$(PACKAGE)-$(VERSION).tgz

# chart-build packages the chart of VERSION with its manager image set to IMG (pinned by
# digest with USE_IMAGE_DIGESTS=true), as `helm package` does: the chart users install.
.PHONY: chart-build
chart-build: helm $(if $(filter true,$(USE_IMAGE_DIGESTS)),crane) ## Package the Helm chart of VERSION, running IMG, into bin/charts/.
	@staged=$(CHART_PACKAGES)/src/$(VERSION)/$(PACKAGE); rm -rf $$staged && mkdir -p $$(dirname $$staged) && \
		cp -R $(CHART_SOURCE) $$staged && image=$(IMG_REF) || exit 1; \
		case "$$image" in *@*) repository=$$image tag="" ;; *) repository=$${image%:*} tag=$${image##*:} ;; esac; \
		awk -v repository="$$repository" -v tag="$$tag" ' \
			/^  image:$$/ { image = 1; print; next } \
			image && /^    repository: / { print "    repository: " repository; next } \
			image && /^    tag: / { print "    tag: \"" tag "\""; next } \
			/^  [^ ]/ { image = 0 } { print }' $(CHART_SOURCE)/values.yaml > $$staged/values.yaml && \
		$(HELM) lint --strict $$staged >/dev/null && \
		$(HELM) package $$staged --destination $(CHART_PACKAGES) >/dev/null && \
		echo "==> Packaged $(CHART_PACKAGE), running $$image"

# chart-push pushes the chart chart-build packaged to CHART_REPO, as an OCI artifact.
.PHONY: chart-push
chart-push: helm ## Push the Helm chart of VERSION to CHART_REPO.
	$(HELM) push $(CHART_PACKAGE) $(CHART_REPO)

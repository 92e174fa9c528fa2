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

# CHART_DIR is the Helm chart of the release in the making, written by hand (dist/chart). What it
# shares with config/ is copied in by `make helm-chart`, so that the two cannot drift apart
# (`make verify`): the CRDs and the rules of every role, into files/, and its version; the
# chart's README lists its values from values.schema.json. An earlier release's chart is
# frozen under releases/<version>/chart by `make release`.
CHART_DIR = $(DIST_DIR)/chart
CHART_RBAC = role leader_election_role metrics_auth_role metrics_reader_role foo_admin_role foo_editor_role foo_viewer_role

.PHONY: helm-chart
helm-chart: manifests ## Copy into the Helm chart (dist/chart) what it shares with config/ (CRDs, RBAC rules), stamp VERSION, list its values in its README.
ifneq ($(RELEASE_DIR),)
	@echo "The chart of release $(VERSION) is frozen in releases/$(VERSION)/chart" >&2; exit 1
else
	@rm -rf $(CHART_DIR)/files && mkdir -p $(CHART_DIR)/files/crds $(CHART_DIR)/files/rbac && \
		cp config/crd/bases/*.yaml $(CHART_DIR)/files/crds/ && \
		for role in $(CHART_RBAC); do cp config/rbac/$$role.yaml $(CHART_DIR)/files/rbac/ || exit 1; done && \
		sed -i -e 's/^version: .*/version: $(VERSION)/' -e 's/^appVersion: .*/appVersion: "$(VERSION)"/' $(CHART_DIR)/Chart.yaml && \
		go run ./hack/chartdocs $(CHART_DIR) && \
		echo "==> Copied config/'s CRDs and roles into $(CHART_DIR), of $(VERSION)"
endif

# CHART_REPO is the OCI repository the charts are pushed to: beside the images, as `charts`
# under IMAGE_TAG_BASE's parent (registry.example/org/foo-operator's go to
# oci://registry.example/org/charts/foo-operator).
CHART_REPO ?= oci://$(patsubst %/,%,$(dir $(IMAGE_TAG_BASE)))/charts
CHART_PACKAGES = $(CHECKOUT_BIN)/charts
CHART_PACKAGE = $(CHART_PACKAGES)/$(PACKAGE)-$(VERSION).tgz

# chart-build packages the chart of VERSION with its manager image set to IMG (pinned by
# digest with USE_IMAGE_DIGESTS=true), as `helm package` does: the chart users install. The
# charts of 0.1.0 and 0.2.0 take a digest in the repository value; later ones in digest.
# Helm stamps each file of the package with its file's time, and `helm push` the chart's
# manifest with the package's: both are set to the epoch imagebuilder stamps its images with,
# so that one commit packages and pushes the same chart, byte for byte, wherever and whenever.
.PHONY: chart-build
chart-build: helm $(if $(filter true,$(USE_IMAGE_DIGESTS)),crane) ## Package the Helm chart of VERSION, running IMG, into bin/charts/.
	@staged=$(CHART_PACKAGES)/src/$(VERSION)/$(PACKAGE); rm -rf $$staged && mkdir -p $$(dirname $$staged) && \
		cp -R $(CHART_SOURCE) $$staged && image=$(IMG_REF) || exit 1; \
		digest=""; case "$$image" in \
			*@*) if grep -q '^    digest: ' $(CHART_SOURCE)/values.yaml; then repository=$${image%@*} tag="" digest=$${image#*@}; \
				else repository=$$image tag=""; fi ;; \
			*) repository=$${image%:*} tag=$${image##*:} ;; esac; \
		awk -v repository="$$repository" -v tag="$$tag" -v digest="$$digest" ' \
			/^  image:$$/ { image = 1; print; next } \
			image && /^    repository: / { print "    repository: " repository; next } \
			image && /^    tag: / { print "    tag: \"" tag "\""; next } \
			image && /^    digest: / { print "    digest: \"" digest "\""; next } \
			/^  [^ ]/ { image = 0 } { print }' $(CHART_SOURCE)/values.yaml > $$staged/values.yaml && \
		$(HELM) lint --strict $$staged >/dev/null && \
		find $$staged -exec touch -h -d @0 {} + && \
		$(HELM) package $$staged --destination $(CHART_PACKAGES) >/dev/null && \
		touch -d @0 $(CHART_PACKAGE) && \
		echo "==> Packaged $(CHART_PACKAGE), running $$image"

# chart-push pushes the chart chart-build packaged to CHART_REPO, as an OCI artifact.
.PHONY: chart-push
chart-push: helm ## Push the Helm chart of VERSION to CHART_REPO.
	$(HELM) push $(CHART_PACKAGE) $(CHART_REPO)

# Signing what make publish pushes, its SBOMs and provenance, and verifying them: included by
# the Makefile, after olm.mk and installers.mk (it names their images).

##@ Signing and verifying what is published

# COSIGN_KEY is the cosign private key make publish and make images-push sign with, and
# COSIGN_PASSWORD (in the environment) its password; COSIGN_PUBLIC_KEY is the public key
# make verify-images checks with. make cosign-key writes a throwaway pair.
COSIGN_KEY ?=
COSIGN_PUBLIC_KEY ?= $(if $(COSIGN_KEY),$(basename $(COSIGN_KEY)).pub)
COSIGN_KEY_DIR ?= $(CHECKOUT_BIN)/cosign

# The provenance names the source repository, the commit each release is built from (an
# earlier release's releases/<version>/source-commit), the command and the builder: set
# PROVENANCE_BUILDER_ID to your CI's workflow run.
SOURCE_REPOSITORY ?= git+https://github.com/example/foo-operator
PROVENANCE_BUILDER_ID ?= local://$(shell uname -n)
PUBLISH_COMMAND ?= make publish IMAGE_TAG_BASE=$(IMAGE_TAG_BASE) CONTAINER_TOOL=$(CONTAINER_TOOL)
SOURCE_COMMIT = $(if $(RELEASE_DIR),$(shell cat releases/$(VERSION)/source-commit),$(shell git rev-parse HEAD))
# CHART_IMAGE is the chart of VERSION, as an OCI reference.
CHART_IMAGE = $(patsubst oci://%,%,$(CHART_REPO))/$(PACKAGE):$(VERSION)

ATTEST = $(SUPPLYCHAIN) attest --key "$(COSIGN_KEY)" --cosign $(COSIGN) --syft $(SYFT) \
	--source-repository "$(SOURCE_REPOSITORY)" --source-commit "$(SOURCE_COMMIT)" \
	--builder-id "$(PROVENANCE_BUILDER_ID)" --build-command "$(PUBLISH_COMMAND)"

.PHONY: cosign-key
cosign-key: cosign ## Write a throwaway cosign key pair, with an empty password, into COSIGN_KEY_DIR.
	@rm -rf $(COSIGN_KEY_DIR) && mkdir -p $(COSIGN_KEY_DIR)
	@cd $(COSIGN_KEY_DIR) && COSIGN_PASSWORD= $(COSIGN) generate-key-pair >/dev/null
	@echo "==> Wrote $(COSIGN_KEY_DIR)/cosign.key and cosign.pub; sign with them:"
	@echo "export COSIGN_KEY=$(COSIGN_KEY_DIR)/cosign.key COSIGN_PASSWORD="

# require-cosign-key stops a publish before it pushes anything unsigned.
.PHONY: require-cosign-key
require-cosign-key:
	@[ -n "$(COSIGN_KEY)" ] || { echo "COSIGN_KEY is not set: every image that is published is signed." \
		"Set COSIGN_KEY to a cosign private key and COSIGN_PASSWORD to its password (make cosign-key writes a throwaway pair)." >&2; exit 1; }
	@[ -f "$(COSIGN_KEY)" ] || { echo "COSIGN_KEY=$(COSIGN_KEY): no such file" >&2; exit 1; }

# sign-release signs release VERSION's manager image (its index and each platform's image),
# its bundle image and its chart in the registry, each by digest, and attaches to each its
# SBOM and provenance.
.PHONY: sign-release
sign-release: require-cosign-key cosign syft supplychain release-source
	@start=$$(date +%s); \
		$(ATTEST) --image $(IMG) --source $(MANAGER_SOURCE) && \
		$(ATTEST) --image $(BUNDLE_IMG) && \
		$(ATTEST) --image $(CHART_IMAGE) || exit 1; \
		echo "==> Signed release $(VERSION)'s images and chart in $$(( $$(date +%s) - start ))s"

# sign-catalog signs the catalog image CATALOG_IMG, with its SBOM and provenance.
.PHONY: sign-catalog
sign-catalog: require-cosign-key cosign syft supplychain
	@$(ATTEST) --image $(CATALOG_IMG)

# verify-images follows every reference from the catalog image CATALOG_IMG down (each
# bundle, each bundle's related images, each platform's image of an index, the chart of each
# release in CHART_REPO, unless it is empty) and verifies each one's signature, SBOM and
# provenance against COSIGN_PUBLIC_KEY. VERIFY_MIRRORS lists REGISTRY=MIRROR pairs: the
# images of REGISTRY are read from MIRROR, as a disconnected cluster pulls them.
VERIFY_MIRRORS ?=
.PHONY: verify-images
verify-images: cosign supplychain ## Verify the signature, SBOM and provenance of every image CATALOG_IMG leads to, with COSIGN_PUBLIC_KEY.
	@[ -n "$(COSIGN_PUBLIC_KEY)" ] || { echo "COSIGN_PUBLIC_KEY is not set: the cosign public key the images must be signed with" >&2; exit 1; }
	$(SUPPLYCHAIN) verify --catalog $(CATALOG_IMG) --key $(COSIGN_PUBLIC_KEY) --cosign $(COSIGN) --chart-repository "$(CHART_REPO)" \
		$(foreach mirror,$(VERIFY_MIRRORS),--mirror $(mirror))

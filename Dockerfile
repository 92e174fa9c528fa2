# Build the manager binary
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH

WORKDIR /workspace
# Copy the module files first, so that the dependency layer is cached across code changes.
COPY go.mod go.mod
COPY go.sum go.sum
RUN go mod download

COPY cmd/main.go cmd/main.go
COPY api/ api/
COPY internal/ internal/

# GOARCH has no default, so that the image is built for the platform of the build
# (docker buildx sets TARGETARCH for each platform it builds). -trimpath keeps the build
# machine's paths out of the binary, so the same source builds the same manager anywhere;
# -s -w leave out the symbol table and DWARF (panics still print their stacks): a third less
# to link, push and pull.
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} go build -trimpath -ldflags="-s -w" -o manager cmd/main.go

# distroless keeps the image to the binary and CA certificates: no shell, no package manager.
FROM gcr.io/distroless/static:nonroot
WORKDIR /
COPY --from=builder /workspace/manager .
USER 65532:65532

ENTRYPOINT ["/manager"]

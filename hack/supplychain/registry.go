/*
Copyright 2026 The foo-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Helm's media types for a chart pushed as an OCI artifact.
const (
	helmConfigMediaType  types.MediaType = "application/vnd.cncf.helm.config.v1+json"
	helmContentMediaType types.MediaType = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
)

// kind is what a manifest in the registry holds, which decides what its SBOM lists.
type kind string

const (
	kindIndex kind = "index" // a multi-platform index: its SBOM is its source's
	kindImage kind = "image" // a container image: its SBOM is what syft finds in its layers
	kindChart kind = "chart" // a Helm chart: its SBOM lists the chart's files
)

// subject is one manifest of the registry, named by digest.
type subject struct {
	ref  name.Digest
	kind kind
	// platform is a platform image's, as its index lists it.
	platform string
}

func (s subject) String() string {
	if s.platform != "" {
		return fmt.Sprintf("%s (%s)", s.ref, s.platform)
	}
	return s.ref.String()
}

// resolve reads the manifest a reference names, by tag or digest, and returns it and, for
// an index, each of its platforms' images after it. TLS trusts the system's CAs, or
// SSL_CERT_FILE's where it is set.
func resolve(reference string) ([]subject, error) {
	ref, err := name.ParseReference(reference)
	if err != nil {
		return nil, err
	}
	descriptor, err := remote.Get(ref)
	if err != nil {
		return nil, fmt.Errorf("reading %s from its registry: %w", reference, err)
	}
	top := subject{ref: ref.Context().Digest(descriptor.Digest.String())}
	if descriptor.MediaType.IsIndex() {
		top.kind = kindIndex
		index, err := descriptor.ImageIndex()
		if err != nil {
			return nil, err
		}
		manifest, err := index.IndexManifest()
		if err != nil {
			return nil, err
		}
		subjects := []subject{top}
		for _, child := range manifest.Manifests {
			platform := ""
			if child.Platform != nil {
				platform = child.Platform.String()
			}
			subjects = append(subjects, subject{ref: ref.Context().Digest(child.Digest.String()), kind: kindImage, platform: platform})
		}
		return subjects, nil
	}
	image, err := descriptor.Image()
	if err != nil {
		return nil, err
	}
	manifest, err := image.Manifest()
	if err != nil {
		return nil, err
	}
	top.kind = kindImage
	if manifest.Config.MediaType == helmConfigMediaType {
		top.kind = kindChart
	}
	return []subject{top}, nil
}

// extractChart writes the files of the chart the artifact ref holds into dir.
func extractChart(ref name.Digest, dir string) error {
	image, err := remote.Image(ref)
	if err != nil {
		return err
	}
	layers, err := image.Layers()
	if err != nil {
		return err
	}
	for _, layer := range layers {
		mediaType, err := layer.MediaType()
		if err != nil {
			return err
		}
		if mediaType != helmContentMediaType {
			continue
		}
		content, err := layer.Compressed()
		if err != nil {
			return err
		}
		defer func() { _ = content.Close() }()
		return untarChart(content, dir)
	}
	return fmt.Errorf("%s holds no layer of media type %s: not a Helm chart", ref, helmContentMediaType)
}

// untarChart writes the regular files of a chart's .tgz into dir.
func untarChart(content io.Reader, dir string) error {
	unzipped, err := gzip.NewReader(content)
	if err != nil {
		return err
	}
	archive := tar.NewReader(unzipped)
	for {
		header, err := archive.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if header.Typeflag != tar.TypeReg {
			continue
		}
		path := filepath.Join(dir, filepath.Clean("/"+header.Name))
		if !strings.HasPrefix(path, dir+string(filepath.Separator)) {
			return fmt.Errorf("the chart's file %q is outside the chart", header.Name)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		file, err := os.Create(path)
		if err != nil {
			return err
		}
		_, err = io.Copy(file, archive) //nolint:gosec // a chart is a few small files
		if closeErr := file.Close(); err == nil {
			err = closeErr
		}
		if err != nil {
			return err
		}
	}
}

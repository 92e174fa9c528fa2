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
	"errors"
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/match"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// refAnnotation names an image of the store by its reference, as `docker tag` does.
const refAnnotation = "org.opencontainers.image.ref.name"

// openStore opens the OCI layout at dir, creating an empty one if there is none.
func openStore(dir string) (layout.Path, error) {
	store, err := layout.FromPath(dir)
	if err == nil {
		return store, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("opening the image store %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return layout.Write(dir, empty.Index)
}

// saveImage keeps image in the store under ref, in place of any image of that reference.
func saveImage(dir, ref string, image v1.Image) error {
	store, err := openStore(dir)
	if err != nil {
		return err
	}
	return store.ReplaceImage(image, match.Annotation(refAnnotation, ref), layout.WithAnnotations(map[string]string{refAnnotation: ref}))
}

// saveIndex keeps a multi-platform index in the store under ref.
func saveIndex(dir, ref string, index v1.ImageIndex) error {
	store, err := openStore(dir)
	if err != nil {
		return err
	}
	return store.ReplaceIndex(index, match.Annotation(refAnnotation, ref), layout.WithAnnotations(map[string]string{refAnnotation: ref}))
}

// stored finds the descriptor of ref in the store.
func stored(dir, ref string) (layout.Path, v1.Descriptor, error) {
	store, err := layout.FromPath(dir)
	if err != nil {
		return "", v1.Descriptor{}, fmt.Errorf("opening the image store %s (build the image first): %w", dir, err)
	}
	index, err := store.ImageIndex()
	if err != nil {
		return "", v1.Descriptor{}, err
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		return "", v1.Descriptor{}, err
	}
	for _, descriptor := range manifest.Manifests {
		if descriptor.Annotations[refAnnotation] == ref {
			return store, descriptor, nil
		}
	}
	return "", v1.Descriptor{}, fmt.Errorf("the image store %s has no image %s: build it first", dir, ref)
}

// storedImage returns the single-platform image ref of the store.
func storedImage(dir, ref string) (v1.Image, error) {
	store, descriptor, err := stored(dir, ref)
	if err != nil {
		return nil, err
	}
	if descriptor.MediaType.IsIndex() {
		return nil, fmt.Errorf("%s is a multi-platform index, where one image was expected", ref)
	}
	return store.Image(descriptor.Digest)
}

// push sends an image (or index) of the store to the registry its reference names. TLS
// trusts the system's CAs, or SSL_CERT_FILE's where it is set.
func push(args []string) error {
	command := newImageCommand("push")
	if err := command.parse(args); err != nil {
		return err
	}
	ref, err := name.ParseReference(command.tag)
	if err != nil {
		return err
	}
	store, descriptor, err := stored(command.store, command.tag)
	if err != nil {
		return err
	}
	switch {
	case descriptor.MediaType.IsIndex():
		index, err := store.ImageIndex()
		if err != nil {
			return err
		}
		child, err := index.ImageIndex(descriptor.Digest)
		if err != nil {
			return err
		}
		err = remote.WriteIndex(ref, child)
		if err != nil {
			return fmt.Errorf("pushing %s: %w", ref, err)
		}
	case descriptor.MediaType == types.OCIManifestSchema1 || descriptor.MediaType == types.DockerManifestSchema2:
		image, err := store.Image(descriptor.Digest)
		if err != nil {
			return err
		}
		if err := remote.Write(ref, image); err != nil {
			return fmt.Errorf("pushing %s: %w", ref, err)
		}
	default:
		return fmt.Errorf("%s has media type %s, which cannot be pushed", ref, descriptor.MediaType)
	}
	fmt.Printf("Pushed %s@%s\n", ref, descriptor.Digest)
	return nil
}

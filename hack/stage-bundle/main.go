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

// Command stage-bundle copies the bundle of an earlier release, kept under releases/, and
// points it at the operator image that is published for that release: the image a user's
// cluster pulls depends on where the release is published (IMAGE_TAG_BASE), which a
// release's bundle cannot know when it is cut. Everything else stays exactly as released.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"

	manifestimage "github.com/operator-framework/operator-manifest-tools/pkg/image"
	"github.com/operator-framework/operator-manifest-tools/pkg/imageresolver"
	"github.com/operator-framework/operator-manifest-tools/pkg/pullspec"
	"sigs.k8s.io/yaml"
)

func main() {
	from := flag.String("from", "", "The released bundle: a folder holding manifests/ and metadata/.")
	image := flag.String("image", "", "The operator image the bundle's ClusterServiceVersion is to run.")
	out := flag.String("out", "", "The folder to write the bundle into; it is replaced.")
	channel := flag.String("channel", "", "An olm.channel file: if set, the CSV is given the replaces and olm.skipRange "+
		"of its entry there, as OperatorHub's replaces-mode graph needs.")
	useImageDigests := flag.Bool("use-image-digests", false, "Pin every image the CSV names by its digest in the registry, "+
		"and list them in its relatedImages, as operator-sdk generate bundle --use-image-digests does.")
	flag.Parse()
	if *from == "" || *image == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: stage-bundle --from DIR --image IMAGE --out DIR [--channel FILE] [--use-image-digests]")
		os.Exit(2)
	}
	err := stage(*from, *image, *out, *channel)
	if err == nil && *useImageDigests {
		err = pinImages(filepath.Join(*out, "manifests"))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "stage-bundle: %v\n", err)
		os.Exit(1)
	}
}

// pinImages pins every image the CSV in dir names to its digest, which it asks the image's
// registry for, and sets the CSV's relatedImages to them: with the library and the resolver
// operator-sdk generate bundle --use-image-digests uses, so that an earlier release's bundle
// is pinned as the bundle of the release in the making is.
func pinImages(dir string) error {
	// The library logs each file it skips (the folder itself among them) through the
	// standard logger; what it pins is what matters here.
	log.SetOutput(io.Discard)
	manifests, err := pullspec.FromDirectory(dir, nil)
	if err != nil {
		return err
	}
	resolver, err := imageresolver.GetResolver(imageresolver.ResolverCrane, map[string]string{"usedefault": "true"})
	if err != nil {
		return err
	}
	if err := manifestimage.Pin(resolver, manifests); err != nil {
		return fmt.Errorf("pinning the images of %s by digest: %w", dir, err)
	}
	for _, manifest := range manifests {
		if err := manifest.Dump(nil); err != nil {
			return err
		}
	}
	return nil
}

// releaseOnlyFiles are files of a release folder that are not part of its bundle.
var releaseOnlyFiles = map[string]bool{"source-commit": true}

func stage(from, image, out, channel string) error {
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	csvs := 0
	err := filepath.WalkDir(from, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		target := filepath.Join(out, rel)
		if entry.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if releaseOnlyFiles[rel] {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".clusterserviceversion.yaml") {
			csvs++
			if data, err = setOperatorImage(data, image); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if channel != "" {
				if data, err = setUpgradeEdges(data, channel); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
			}
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		return err
	}
	if csvs != 1 {
		return fmt.Errorf("%s holds %d ClusterServiceVersions, want 1", from, csvs)
	}
	return nil
}

// setOperatorImage replaces the operator image, which the CSV names in its containerImage
// annotation, wherever the CSV refers to it: that annotation, the containers of its
// Deployments and its relatedImages. Other images (none today) are left alone.
func setOperatorImage(data []byte, image string) ([]byte, error) {
	var csv map[string]any
	if err := yaml.Unmarshal(data, &csv); err != nil {
		return nil, err
	}
	annotations, _ := lookup(csv, "metadata", "annotations").(map[string]any)
	old, _ := annotations["containerImage"].(string)
	if old == "" {
		return nil, errors.New("metadata.annotations.containerImage is not set, so the operator image is unknown")
	}
	annotations["containerImage"] = image

	replaced := 0
	deployments, _ := lookup(csv, "spec", "install", "spec", "deployments").([]any)
	for _, deployment := range deployments {
		podSpec, _ := lookup(deployment, "spec", "template", "spec").(map[string]any)
		for _, field := range []string{"initContainers", "containers"} {
			containers, _ := podSpec[field].([]any)
			for _, container := range containers {
				if c, ok := container.(map[string]any); ok && c["image"] == old {
					c["image"] = image
					replaced++
				}
			}
		}
	}
	if replaced == 0 {
		return nil, fmt.Errorf("no Deployment of the CSV runs its containerImage %s", old)
	}
	related, _ := lookup(csv, "spec", "relatedImages").([]any)
	for _, entry := range related {
		if r, ok := entry.(map[string]any); ok && r["image"] == old {
			r["image"] = image
		}
	}
	return yaml.Marshal(csv)
}

// lookup walks nested maps along keys; it returns nil where a key is missing.
func lookup(object any, keys ...string) any {
	for _, key := range keys {
		m, ok := object.(map[string]any)
		if !ok {
			return nil
		}
		object = m[key]
	}
	return object
}

// channelEntry is an entry of an olm.channel: the upgrade edges of one release.
type channelEntry struct {
	Name      string `json:"name"`
	Replaces  string `json:"replaces"`
	SkipRange string `json:"skipRange"`
}

// setUpgradeEdges writes the CSV's entry of the channel file into the CSV itself, as
// spec.replaces and the olm.skipRange annotation: where a catalog built from bundles alone
// (OperatorHub's replaces mode) reads the graph.
func setUpgradeEdges(data []byte, channelFile string) ([]byte, error) {
	channelData, err := os.ReadFile(channelFile)
	if err != nil {
		return nil, err
	}
	var channel struct {
		Schema  string         `json:"schema"`
		Entries []channelEntry `json:"entries"`
	}
	if err := yaml.Unmarshal(channelData, &channel); err != nil || channel.Schema != "olm.channel" {
		return nil, fmt.Errorf("%s is not an olm.channel: %v", channelFile, err)
	}
	var csv map[string]any
	if err := yaml.Unmarshal(data, &csv); err != nil {
		return nil, err
	}
	name, _ := lookup(csv, "metadata", "name").(string)
	for _, entry := range channel.Entries {
		if entry.Name != name {
			continue
		}
		spec, _ := csv["spec"].(map[string]any)
		annotations, _ := lookup(csv, "metadata", "annotations").(map[string]any)
		if spec == nil || annotations == nil {
			return nil, errors.New("the CSV has no spec or no annotations")
		}
		delete(spec, "replaces")
		delete(annotations, "olm.skipRange")
		if entry.Replaces != "" {
			spec["replaces"] = entry.Replaces
		}
		if entry.SkipRange != "" {
			annotations["olm.skipRange"] = entry.SkipRange
		}
		return yaml.Marshal(csv)
	}
	return nil, fmt.Errorf("the channel %s has no entry %s", channelFile, name)
}

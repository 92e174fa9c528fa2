//go:build e2e

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

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// fbcObject is one object of a file-based catalog, kept as decoded so that fields these
// tests do not know pass through untouched.
type fbcObject = map[string]any

// testCatalog is the published catalog as the tests publish it again: cut to a prefix of the
// channel, as it was when that release was the newest, or extended with a release.
type testCatalog struct {
	pkg     fbcObject
	entries []fbcObject
	bundles map[string]fbcObject
}

// loadPublishedCatalog reads the catalog as `make publish` renders it for the registry the
// images were published to: every release, each bundle named by its image there.
func loadPublishedCatalog() (*testCatalog, error) {
	dir := filepath.Join(tools.checkout, "catalog", packageName)
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	catalog := &testCatalog{bundles: map[string]fbcObject{}}
	for _, file := range files {
		objects, err := readFBCFile(file)
		if err != nil {
			return nil, err
		}
		for _, object := range objects {
			switch object["schema"] {
			case "olm.package":
				catalog.pkg = object
			case "olm.channel":
				if object["name"] == channelName {
					for _, entry := range object["entries"].([]any) {
						catalog.entries = append(catalog.entries, entry.(fbcObject))
					}
				}
			case "olm.bundle":
				catalog.bundles[object["name"].(string)] = object
			}
		}
	}
	if catalog.pkg == nil || len(catalog.entries) == 0 {
		return nil, fmt.Errorf("%s has no package %s with a %s channel", dir, packageName, channelName)
	}
	return catalog, nil
}

func readFBCFile(path string) ([]fbcObject, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	decoder := yaml.NewYAMLOrJSONDecoder(file, 4096)
	var objects []fbcObject
	for {
		var object fbcObject
		if err := decoder.Decode(&object); errors.Is(err, io.EOF) {
			return objects, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if len(object) > 0 {
			objects = append(objects, object)
		}
	}
}

// upTo returns the catalog whose channel ends at release version, as it was when that
// release was the newest.
func (c *testCatalog) upTo(version string) (*testCatalog, error) {
	for i, entry := range c.entries {
		if entry["name"] == csvName(version) {
			return &testCatalog{pkg: c.pkg, entries: c.entries[:i+1], bundles: c.bundles}, nil
		}
	}
	return nil, fmt.Errorf("the %s channel has no release %s", channelName, version)
}

// withRelease returns the catalog with one more release, version, that replaces the
// channel's head and is a copy of it but for its name, version and bundle image: what the
// next release looks like to OLM when nothing else changed. Unless that image is published,
// OLM cannot unpack it.
func (c *testCatalog) withRelease(version string) (*testCatalog, error) {
	head := c.entries[len(c.entries)-1]["name"].(string)
	var bundle fbcObject
	if err := deepCopy(c.bundles[head], &bundle); err != nil {
		return nil, err
	}
	name := csvName(version)
	bundle["name"] = name
	bundle["image"] = bundleImage(version)
	for _, property := range bundle["properties"].([]any) {
		property := property.(fbcObject)
		if property["type"] == "olm.package" {
			property["value"].(fbcObject)["version"] = version
		}
	}
	bundles := map[string]fbcObject{name: bundle}
	for n, b := range c.bundles {
		bundles[n] = b
	}
	entries := append(append([]fbcObject(nil), c.entries...), fbcObject{"name": name, "replaces": head})
	return &testCatalog{pkg: c.pkg, entries: entries, bundles: bundles}, nil
}

// write writes the catalog into dir.
func (c *testCatalog) write(dir string) error {
	channel := fbcObject{"schema": "olm.channel", "package": packageName, "name": channelName, "entries": c.entries}
	objects := make([]fbcObject, 0, 2+len(c.entries))
	objects = append(objects, c.pkg, channel)
	for _, entry := range c.entries {
		objects = append(objects, c.bundles[entry["name"].(string)])
	}
	var out bytes.Buffer
	for _, object := range objects {
		encoded, err := sigsyaml.Marshal(object)
		if err != nil {
			return err
		}
		out.WriteString("---\n")
		out.Write(encoded)
	}
	packageDir := filepath.Join(dir, packageName)
	if err := os.MkdirAll(packageDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(packageDir, "catalog.yaml"), out.Bytes(), 0o644)
}

// publishCatalog builds the catalog image of catalog as `make catalog-build` does (on the
// same opm base image) and pushes it to the registry as image, replacing what was there.
func publishCatalog(ctx context.Context, catalog *testCatalog, image string) {
	GinkgoHelper()
	By("publishing " + image + " with releases " + catalog.versions())
	dir := scratchDir("catalog-" + strings.NewReplacer("/", "-", ":", "-").Replace(image))
	Expect(catalog.write(dir)).To(Succeed())
	run(ctx, workDir, tools.opm, "validate", dir)
	run(ctx, workDir, tools.imagebuilder, "catalog", "--store", tools.imageStore, "--configs", dir,
		"--base", requiredEnv("OPM_IMAGE", "the opm base image"), "--opm", tools.opm, "--tag", image)
	_, err := cluster.ImageRegistry().PushLayout(ctx, tools.imageStore, image)
	Expect(err).NotTo(HaveOccurred())
}

// versions lists the releases in the catalog's channel, for messages.
func (c *testCatalog) versions() string {
	names := make([]string, 0, len(c.entries))
	for _, entry := range c.entries {
		names = append(names, strings.TrimPrefix(entry["name"].(string), packageName+".v"))
	}
	return strings.Join(names, ", ")
}

func deepCopy(in fbcObject, out *fbcObject) error {
	encoded, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(encoded, out)
}

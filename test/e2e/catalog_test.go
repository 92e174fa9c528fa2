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
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// committedCatalog is the project's file-based catalog, relative to this package.
const committedCatalog = "../../catalog"

const (
	packageName = "foo-operator"
	channelName = "stable"
)

// csvName names the CSV, and the catalog entry, of a release.
func csvName(version string) string { return packageName + ".v" + version }

// fbcObject is one object of a file-based catalog, kept as decoded so that fields these
// tests do not know pass through untouched.
type fbcObject = map[string]any

// testCatalog is the committed catalog as these tests serve it: cut to a prefix of the
// channel, to release versions one at a time, or extended with a release after the head.
type testCatalog struct {
	pkg     fbcObject
	entries []fbcObject
	bundles map[string]fbcObject
}

// loadCommittedCatalog reads the committed catalog of the package.
func loadCommittedCatalog() (*testCatalog, error) {
	files, err := filepath.Glob(filepath.Join(committedCatalog, packageName, "*.yaml"))
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
				// The committed catalog carries olm.csv.metadata and names bundle images,
				// which OLM would unpack; these tests serve each bundle with its objects
				// embedded instead, rendered from the release's bundle folder.
				name := object["name"].(string)
				if catalog.bundles[name], err = renderWithObjects(strings.TrimPrefix(name, packageName+".v")); err != nil {
					return nil, err
				}
			}
		}
	}
	if catalog.pkg == nil || len(catalog.entries) == 0 {
		return nil, fmt.Errorf("%s has no package %s with a %s channel", committedCatalog, packageName, channelName)
	}
	return catalog, nil
}

// renderWithObjects renders the bundle of release version with opm, its manifests embedded
// as olm.bundle.object: from releases/VERSION for an earlier release, else from bundle/.
func renderWithObjects(version string) (fbcObject, error) {
	opm := os.Getenv("OPM")
	if opm == "" {
		return nil, errors.New("OPM must name the opm binary: run the tests with `make test-e2e`")
	}
	dir := filepath.Join(committedCatalog, "..", "releases", version)
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Join(committedCatalog, "..", "bundle")
	}
	output, err := exec.Command(opm, "render", dir, "--output", "json").Output()
	if err != nil {
		return nil, fmt.Errorf("opm render %s: %w", dir, err)
	}
	var bundle fbcObject
	if err := json.Unmarshal(output, &bundle); err != nil {
		return nil, fmt.Errorf("reading what opm rendered of %s: %w", dir, err)
	}
	return bundle, nil
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

// withCopyOfHead returns the catalog with one more release, version, that replaces the
// channel's head and is a copy of it: what the next release looks like to OLM when nothing
// else changed.
func (c *testCatalog) withCopyOfHead(version string) (*testCatalog, error) {
	head := c.entries[len(c.entries)-1]["name"].(string)
	var bundle fbcObject
	if err := deepCopy(c.bundles[head], &bundle); err != nil {
		return nil, err
	}
	name := csvName(version)
	bundle["name"] = name
	for _, property := range bundle["properties"].([]any) {
		property := property.(fbcObject)
		value := property["value"].(fbcObject)
		switch property["type"] {
		case "olm.package":
			value["version"] = version
		case "olm.bundle.object":
			data, err := renameCSV(value["data"].(string), name, version)
			if err != nil {
				return nil, err
			}
			value["data"] = data
		}
	}
	bundles := map[string]fbcObject{name: bundle}
	for n, b := range c.bundles {
		bundles[n] = b
	}
	entries := append(append([]fbcObject(nil), c.entries...), fbcObject{"name": name, "replaces": head})
	return &testCatalog{pkg: c.pkg, entries: entries, bundles: bundles}, nil
}

// renameCSV renames and re-versions the CSV in an olm.bundle.object's data; other objects
// are returned unchanged.
func renameCSV(data, name, version string) (string, error) {
	decoded, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "", err
	}
	var object fbcObject
	if err := json.Unmarshal(decoded, &object); err != nil {
		return "", err
	}
	if object["kind"] != "ClusterServiceVersion" {
		return data, nil
	}
	object["metadata"].(fbcObject)["name"] = name
	object["spec"].(fbcObject)["version"] = version
	encoded, err := json.Marshal(object)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(encoded), nil
}

// write writes the catalog into dir, each bundle with an empty image: OLM then installs the
// bundle from the objects embedded in the catalog, as there is no image to unpack here.
func (c *testCatalog) write(dir string) error {
	channel := fbcObject{"schema": "olm.channel", "package": packageName, "name": channelName, "entries": c.entries}
	objects := []fbcObject{c.pkg, channel}
	for _, entry := range c.entries {
		var bundle fbcObject
		if err := deepCopy(c.bundles[entry["name"].(string)], &bundle); err != nil {
			return err
		}
		bundle["image"] = ""
		objects = append(objects, bundle)
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

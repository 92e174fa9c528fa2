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

// Command imagebuilder builds this project's images without a container engine, the way ko
// does: Go cross-compiles the binaries, and go-containerregistry lays them and the bundle's
// and catalog's files out as image layers. No base image is pulled and no build step runs
// in a container, so it works where Docker and Podman do not (a CI machine without an
// engine). `make docker-build bundle-build catalog-build CONTAINER_TOOL=imagebuilder`
// uses it; the images it builds declare what Dockerfile, bundle.Dockerfile and
// catalog.Dockerfile declare, which the image tests check.
//
// Images are kept in an OCI image layout (the --store folder), each under its reference,
// until `imagebuilder push` sends one to its registry, as `docker build` and `docker push`
// keep them in the engine's store in between.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

const usage = `usage: imagebuilder COMMAND [flags]

Commands:
  manager   build the manager image from a source tree, for one or more platforms
  bundle    build an OLM bundle image from a bundle folder
  opm       build the opm base image that serves file-based catalogs
  catalog   build a file-based catalog image on the opm base image
  node      build the images the local cluster's node pulls: pause, coredns, busybox, httpget
  olm       build OLM's image from its static binaries
  olmv1     build the image of OLM v1's catalogd or operator-controller from its static binary
  scorecard-test  build operator-sdk's scorecard-test image
  push      push an image of the store to its registry

Run imagebuilder COMMAND -h for the flags of a command.`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	commands := map[string]func([]string) error{
		"manager":        buildManager,
		"bundle":         buildBundle,
		"opm":            buildOpm,
		"catalog":        buildCatalog,
		"node":           buildNodeImages,
		"olm":            buildOLM,
		"olmv1":          buildOLMv1,
		"scorecard-test": buildScorecardTest,
		"push":           push,
	}
	run, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "imagebuilder: unknown command %q\n%s\n", os.Args[1], usage)
		os.Exit(2)
	}
	if err := run(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "imagebuilder %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// commonFlags are the flags of every command: the store and the image's reference.
type commonFlags struct {
	store string
	tag   string
}

func newFlagSet(name string, common *commonFlags) *flag.FlagSet {
	flags := flag.NewFlagSet("imagebuilder "+name, flag.ExitOnError)
	flags.StringVar(&common.store, "store", "bin/images", "The OCI image layout that keeps the built images.")
	flags.StringVar(&common.tag, "tag", "", "The image's reference, such as registry.example.com/foo-operator:v0.1.0.")
	return flags
}

func (c commonFlags) check() error {
	if c.tag == "" {
		return fmt.Errorf("--tag is required")
	}
	return nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(value string) []string {
	var items []string
	for _, item := range strings.Split(value, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}

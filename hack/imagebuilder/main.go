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
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
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
  prometheus  build Prometheus's image from its static binary
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
		"prometheus":     buildPrometheus,
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

// imageCommand is a command about one image of the store: its flags, with the two every
// such command takes, the store (--store) and the image's reference (--tag).
type imageCommand struct {
	flags *flag.FlagSet
	store string
	tag   string
	// required are the names of the command's own flags that must be given.
	required []string
	// source is the flag naming the folder the image is built from, which the line saying
	// the image is built names too; nil where the command has none.
	source *string
	// platformFlag is --platform, of the commands that build for one platform; platform is
	// its value, parsed.
	platformFlag *string
	platform     v1.Platform
}

func newImageCommand(name string) *imageCommand {
	command := &imageCommand{flags: flag.NewFlagSet("imagebuilder "+name, flag.ExitOnError)}
	command.flags.StringVar(&command.store, "store", "bin/images", "The OCI image layout that keeps the built images.")
	command.flags.StringVar(&command.tag, "tag", "", "The image's reference, such as registry.example.com/foo-operator:v0.1.0.")
	return command
}

// requiredString declares a string flag of the command that must be given.
func (c *imageCommand) requiredString(name, usage string) *string {
	c.required = append(c.required, name)
	return c.flags.String(name, "", usage)
}

// sourceFlag declares the flag naming the folder the image is built from.
func (c *imageCommand) sourceFlag(name, value, usage string) *string {
	c.source = c.flags.String(name, value, usage)
	return c.source
}

// takesPlatform declares --platform, the one platform the image is built for.
func (c *imageCommand) takesPlatform(usage string) {
	c.platformFlag = c.flags.String("platform", "linux/amd64", usage)
}

// parse parses the command's arguments and checks that --tag and its required flags are
// given.
func (c *imageCommand) parse(args []string) error {
	_ = c.flags.Parse(args)
	if c.tag == "" {
		return fmt.Errorf("--tag is required")
	}
	for _, name := range c.required {
		if c.flags.Lookup(name).Value.String() == "" {
			return c.requiredError()
		}
	}
	return nil
}

// requiredError names every required flag, as in "--opm, --health-probe and --busybox are
// required", whichever of them is missing.
func (c *imageCommand) requiredError() error {
	names := make([]string, len(c.required))
	for i, name := range c.required {
		names[i] = "--" + name
	}
	if len(names) == 1 {
		return fmt.Errorf("%s is required", names[0])
	}
	return fmt.Errorf("%s and %s are required", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// run parses the command's arguments and its --platform where it takes one, builds its one
// image and saves it in the store under its reference.
func (c *imageCommand) run(args []string, build func() (v1.Image, error)) error {
	if err := c.parse(args); err != nil {
		return err
	}
	start := time.Now()
	if c.platformFlag != nil {
		platform, err := parsePlatform(*c.platformFlag)
		if err != nil {
			return err
		}
		c.platform = platform
	}
	image, err := build()
	if err != nil {
		return err
	}
	if err := saveImage(c.store, c.tag, image); err != nil {
		return err
	}
	built := "Built " + c.tag
	if c.source != nil {
		built += " from " + *c.source
	}
	phase(built, start)
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

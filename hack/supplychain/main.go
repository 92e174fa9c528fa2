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

// Command supplychain signs what `make publish` pushed, attaches to it an SBOM and a
// provenance attestation, and verifies all three from a catalog image down: cosign signs
// and verifies, syft writes the SBOMs, go-containerregistry reads the registry.
//
//	supplychain attest --image REF --key cosign.key ...   (make publish)
//	supplychain verify --catalog REF --key cosign.pub ... (make verify-images)
//
// Every signature and attestation refers to an image by its digest, never by its tag: a tag
// re-pushed later points at an image no signature covers.
package main

import (
	"fmt"
	"os"
)

const usage = `usage: supplychain COMMAND [flags]

Commands:
  attest  sign an image (an index and each of its platforms' images), attach its SBOM and provenance
  verify  verify the signature, SBOM and provenance of every image a catalog leads to

Run supplychain COMMAND -h for the flags of a command.`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	commands := map[string]func([]string) error{
		"attest": attest,
		"verify": verify,
	}
	run, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "supplychain: unknown command %q\n%s\n", os.Args[1], usage)
		os.Exit(2)
	}
	if err := run(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "supplychain %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

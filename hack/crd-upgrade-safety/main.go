//go:build ignore

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

// Command crd-upgrade-safety runs OLM v1's CRD upgrade safety preflight, the one
// operator-controller runs before it upgrades an installed bundle, on a new CRD against the
// CRDs of earlier releases, with no cluster: each earlier CRD is what the preflight reads as
// installed, the new one is the manifest it is asked to upgrade to. It fails with the
// preflight's own messages when an upgrade from any earlier release would be refused.
//
// operator-controller keeps its preflight in an internal package, which Go lets only its own
// module import. So this file is not built in this project's module (the ignore build
// constraint keeps it out of it): `make crd-upgrade-safety` builds it as a command inside a
// copy of operator-controller's module, at the version the OLM v1 the tests run, with that
// module's own dependency versions, and the preflight is called exactly as operator-controller
// calls it.
//
// Usage: crd-upgrade-safety --new <CRD file> <earlier CRD file>...
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"helm.sh/helm/v3/pkg/release"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	"sigs.k8s.io/yaml"

	"github.com/operator-framework/operator-controller/internal/operator-controller/rukpak/preflights/crdupgradesafety"
)

func main() {
	newFile := flag.String("new", "", "The CRD to upgrade to (YAML).")
	flag.Parse()
	if *newFile == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: crd-upgrade-safety --new <CRD file> <earlier CRD file>...")
		os.Exit(2)
	}
	if err := checkAll(context.Background(), *newFile, flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		os.Exit(1)
	}
}

// checkAll checks the upgrade from each earlier CRD to the new one, and reports every
// refusal, each under the earlier file it upgrades from.
func checkAll(ctx context.Context, newFile string, earlierFiles []string) error {
	manifest, err := os.ReadFile(newFile)
	if err != nil {
		return err
	}
	upgraded, err := readCRD(newFile)
	if err != nil {
		return err
	}
	var refusals []error
	for _, earlierFile := range earlierFiles {
		installed, err := readCRD(earlierFile)
		if err != nil {
			return err
		}
		if installed.Name != upgraded.Name {
			return fmt.Errorf("%s defines %s, but %s defines %s: an upgrade replaces a CRD of the same name",
				earlierFile, installed.Name, newFile, upgraded.Name)
		}
		recordStoredVersions(installed)
		// The preflight reads what is installed through a CRD client; this one holds the
		// earlier release's CRD, and nothing else.
		installedCRDs := apiextensionsfake.NewSimpleClientset(installed).ApiextensionsV1().CustomResourceDefinitions()
		preflight := crdupgradesafety.NewPreflight(installedCRDs)
		if err := preflight.Upgrade(ctx, &release.Release{Name: upgraded.Name, Manifest: string(manifest)}); err != nil {
			refusals = append(refusals, fmt.Errorf("upgrading from %s to %s is unsafe: %w", earlierFile, newFile, err))
			continue
		}
		fmt.Printf("Upgrading %s from %s to %s is safe\n", upgraded.Name, earlierFile, newFile)
	}
	return errors.Join(refusals...)
}

// recordStoredVersions fills in what the apiserver records of a CRD it has served: the
// versions objects were stored in (status.storedVersions), which the preflight refuses to
// see dropped. A release's CRD file has no status; a cluster that installed it has stored
// its Foos in its storage version.
func recordStoredVersions(crd *apiextensionsv1.CustomResourceDefinition) {
	if len(crd.Status.StoredVersions) > 0 {
		return
	}
	for _, version := range crd.Spec.Versions {
		if version.Storage {
			crd.Status.StoredVersions = append(crd.Status.StoredVersions, version.Name)
		}
	}
}

// readCRD reads a file that holds one CustomResourceDefinition.
func readCRD(path string) (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if crd.Kind != "CustomResourceDefinition" || crd.Name == "" {
		return nil, fmt.Errorf("%s holds no CustomResourceDefinition", path)
	}
	return crd, nil
}

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
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// configsLabel tells OLM where in a catalog image its file-based catalog is.
const configsLabel = "operators.operatorframework.io.index.configs.v1"

// reference is an image a catalog leads to, and why it is verified.
type reference struct {
	image string
	// role says what the image is to the catalog: "catalog", "bundle foo-operator.v0.3.0",
	// "related image manager of foo-operator.v0.3.0", "chart 0.3.0".
	role string
}

func verify(args []string) error {
	flags := flag.NewFlagSet("verify", flag.ContinueOnError)
	catalog := flags.String("catalog", "", "The catalog image to verify, and every image it leads to.")
	key := flags.String("key", "", "The cosign public key every signature and attestation must be made with.")
	cosignBinary := flags.String("cosign", "", "The cosign binary.")
	chartRepository := flags.String("chart-repository", "",
		"The OCI repository of the Helm charts (oci://registry/path/charts): the chart of each bundle's version is verified too.")
	mirrors := mirrorFlag{}
	flags.Var(mirrors, "mirror", "REGISTRY=MIRROR: read the images of REGISTRY from MIRROR, as a disconnected cluster pulls them; repeatable.")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *catalog == "" {
		return errors.New("--catalog is required")
	}
	dir, err := os.MkdirTemp("", "supplychain-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	verifier, err := newCosign(*cosignBinary, *key, dir)
	if err != nil {
		return err
	}

	references, err := catalogReferences(mirrors.apply(*catalog), strings.TrimPrefix(*chartRepository, "oci://"))
	if err != nil {
		return err
	}
	for i := range references {
		references[i].image = mirrors.apply(references[i].image)
	}
	failed, verified := 0, 0
	seen := map[string]bool{}
	for _, ref := range references {
		subjects, err := resolve(ref.image)
		if err != nil {
			fmt.Printf("FAILED   %s %s: %v\n", ref.role, ref.image, err)
			failed++
			continue
		}
		for i, subject := range subjects {
			if seen[subject.ref.String()] {
				continue
			}
			seen[subject.ref.String()] = true
			// What a tag names can change after it was signed: say which image it names now.
			what := subject.String()
			if i == 0 && !strings.Contains(ref.image, "@") {
				what = fmt.Sprintf("%s (now %s)", ref.image, subject.ref.DigestStr())
			}
			summary, err := verifySubject(verifier, subject)
			if err != nil {
				fmt.Printf("FAILED   %s %s: %v\n", ref.role, what, err)
				failed++
				continue
			}
			fmt.Printf("verified %s %s: %s\n", ref.role, what, summary)
			verified++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d images failed verification against %s (see FAILED above)", failed, failed+verified, *key)
	}
	fmt.Printf("All %d images, %s and every image it leads to, are signed with the key and carry their SBOM and provenance\n",
		verified, *catalog)
	return nil
}

// mirrorFlag maps a registry to the mirror its images are read from.
type mirrorFlag map[string]string

func (m mirrorFlag) String() string { return fmt.Sprint(map[string]string(m)) }

func (m mirrorFlag) Set(value string) error {
	registry, mirror, ok := strings.Cut(value, "=")
	if !ok || registry == "" || mirror == "" {
		return fmt.Errorf("%q is not REGISTRY=MIRROR", value)
	}
	m[registry] = mirror
	return nil
}

// apply names image in the mirror of its registry, if it has one. The mirror holds the same
// repositories, and every image by the same digest, so signatures made by digest still hold.
func (m mirrorFlag) apply(image string) string {
	registry, rest, ok := strings.Cut(image, "/")
	if mirror, mirrored := m[registry]; ok && mirrored {
		return mirror + "/" + rest
	}
	return image
}

// catalogReferences returns the catalog and every image it leads to: each bundle, each
// bundle's related images, and, given the charts' repository, the chart of each bundle's
// version.
func catalogReferences(catalog, chartRepository string) ([]reference, error) {
	references := []reference{{image: catalog, role: "catalog"}}
	bundles, err := catalogBundles(catalog)
	if err != nil {
		return nil, err
	}
	for _, bundle := range bundles {
		references = append(references, reference{image: bundle.Image, role: "bundle " + bundle.Name})
		for _, related := range bundle.RelatedImages {
			if related.Image == bundle.Image {
				continue
			}
			role := "related image of " + bundle.Name
			if related.Name != "" {
				role = fmt.Sprintf("related image %s of %s", related.Name, bundle.Name)
			}
			references = append(references, reference{image: related.Image, role: role})
		}
		if version := bundle.version(); chartRepository != "" && version != "" {
			references = append(references, reference{
				image: fmt.Sprintf("%s/%s:%s", chartRepository, bundle.Package, version), role: "chart " + version})
		}
	}
	return references, nil
}

// bundle is the part of a catalog's olm.bundle entry that names images.
type bundle struct {
	Schema        string `json:"schema"`
	Name          string `json:"name"`
	Package       string `json:"package"`
	Image         string `json:"image"`
	RelatedImages []struct {
		Name  string `json:"name"`
		Image string `json:"image"`
	} `json:"relatedImages"`
	Properties []struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	} `json:"properties"`
}

// version is the bundle's version, from its olm.package property.
func (b bundle) version() string {
	for _, property := range b.Properties {
		if property.Type != "olm.package" {
			continue
		}
		var value struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(property.Value, &value) == nil {
			return value.Version
		}
	}
	return ""
}

// catalogBundles reads the olm.bundle entries of the file-based catalog in the catalog
// image, from the folder its label names, as OLM reads it.
func catalogBundles(catalog string) ([]bundle, error) {
	ref, err := name.ParseReference(catalog)
	if err != nil {
		return nil, err
	}
	image, err := remote.Image(ref)
	if err != nil {
		return nil, fmt.Errorf("reading the catalog %s: %w", catalog, err)
	}
	config, err := image.ConfigFile()
	if err != nil {
		return nil, err
	}
	configs := strings.Trim(config.Config.Labels[configsLabel], "/")
	if configs == "" {
		return nil, fmt.Errorf("%s has no label %s: not a file-based catalog image", catalog, configsLabel)
	}
	files := mutate.Extract(image)
	defer func() { _ = files.Close() }()
	archive := tar.NewReader(files)
	var bundles []bundle
	for {
		header, err := archive.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the catalog %s: %w", catalog, err)
		}
		file := strings.TrimPrefix(path.Clean("/"+header.Name), "/")
		if header.Typeflag != tar.TypeReg || !strings.HasPrefix(file, configs+"/") ||
			!slices.Contains([]string{".yaml", ".yml", ".json"}, path.Ext(file)) {
			continue
		}
		decoder := yaml.NewYAMLOrJSONDecoder(bufio.NewReader(archive), 4096)
		for {
			var entry bundle
			if err := decoder.Decode(&entry); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("the catalog's file %s: %w", file, err)
			}
			if entry.Schema == "olm.bundle" {
				bundles = append(bundles, entry)
			}
		}
	}
	if len(bundles) == 0 {
		return nil, fmt.Errorf("the catalog %s lists no bundle under /%s", catalog, configs)
	}
	return bundles, nil
}

// statement is the in-toto statement an attestation's envelope carries.
type statement struct {
	PredicateType string `json:"predicateType"`
	Subject       []struct {
		Digest map[string]string `json:"digest"`
	} `json:"subject"`
	Predicate json.RawMessage `json:"predicate"`
}

// verifySubject checks the subject's signature, SBOM and provenance, and summarizes them.
func verifySubject(verifier *cosign, subject subject) (string, error) {
	image := subject.ref.String()
	if err := verifier.verify(image); err != nil {
		return "", fmt.Errorf("not signed with the key: %w", err)
	}
	sbom, err := attested(verifier, subject, sbomType, sbomPredicateType)
	if err != nil {
		return "", fmt.Errorf("no SBOM signed with the key: %w", err)
	}
	var document struct {
		Packages []json.RawMessage `json:"packages"`
		Files    []json.RawMessage `json:"files"`
	}
	if err := json.Unmarshal(sbom, &document); err != nil {
		return "", fmt.Errorf("its SBOM is not an SPDX document: %w", err)
	}
	if len(document.Packages) == 0 && len(document.Files) == 0 {
		return "", errors.New("its SBOM lists neither a package nor a file")
	}
	provenanceContent, err := attested(verifier, subject, provenanceType, provenancePredicateType)
	if err != nil {
		return "", fmt.Errorf("no provenance signed with the key: %w", err)
	}
	var predicate provenance
	if err := json.Unmarshal(provenanceContent, &predicate); err != nil {
		return "", fmt.Errorf("its provenance is not an SLSA v1 predicate: %w", err)
	}
	commit := predicate.BuildDefinition.ExternalParameters.Source.Digest["gitCommit"]
	if commit == "" || predicate.BuildDefinition.ExternalParameters.Command == "" || predicate.RunDetails.Builder.ID == "" {
		return "", errors.New("its provenance names no source commit, build command or builder")
	}
	return fmt.Sprintf("signed; SBOM of %d packages and %d files; built from %s by %q",
		len(document.Packages), len(document.Files), shortCommit(commit), predicate.BuildDefinition.ExternalParameters.Command), nil
}

// attested returns the predicate of the subject's attestation of the type, signed with the
// key, whose statement names the subject's digest.
func attested(verifier *cosign, subject subject, cosignType, predicateType string) (json.RawMessage, error) {
	output, err := verifier.verifyAttestation(subject.ref.String(), cosignType)
	if err != nil {
		return nil, err
	}
	decoder := json.NewDecoder(bytes.NewReader(output))
	for {
		var envelope struct {
			Payload string `json:"payload"`
		}
		if err := decoder.Decode(&envelope); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading cosign's output: %w", err)
		}
		payload, err := base64.StdEncoding.DecodeString(envelope.Payload)
		if err != nil {
			return nil, fmt.Errorf("an attestation's payload: %w", err)
		}
		var statement statement
		if err := json.Unmarshal(payload, &statement); err != nil {
			return nil, fmt.Errorf("an attestation's statement: %w", err)
		}
		if statement.PredicateType != predicateType {
			continue
		}
		for _, about := range statement.Subject {
			if "sha256:"+about.Digest["sha256"] == subject.ref.DigestStr() {
				return statement.Predicate, nil
			}
		}
	}
	return nil, fmt.Errorf("no attestation of type %s names %s", predicateType, subject.ref.DigestStr())
}

func shortCommit(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

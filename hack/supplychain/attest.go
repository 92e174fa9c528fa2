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
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// buildType names how the images are built: by this project's make targets, which the
// provenance's externalParameters parameterize.
const buildType = "https://github.com/example/foo-operator/blob/main/docs/publishing.md#what-it-publishes"

// provenance is the predicate of an SLSA v1 provenance attestation
// (https://slsa.dev/spec/v1.0/provenance); cosign writes the statement around it, whose
// subject is the image's digest.
type provenance struct {
	BuildDefinition buildDefinition `json:"buildDefinition"`
	RunDetails      runDetails      `json:"runDetails"`
}

type buildDefinition struct {
	BuildType            string               `json:"buildType"`
	ExternalParameters   externalParameters   `json:"externalParameters"`
	InternalParameters   map[string]string    `json:"internalParameters,omitempty"`
	ResolvedDependencies []resourceDescriptor `json:"resolvedDependencies"`
}

type externalParameters struct {
	// Command is the command that built and pushed the image.
	Command string `json:"command"`
	// Image is the reference the image was pushed under.
	Image string `json:"image"`
	// Source is where the source came from: the repository and the commit.
	Source resourceDescriptor `json:"source"`
}

type resourceDescriptor struct {
	Name   string            `json:"name,omitempty"`
	URI    string            `json:"uri"`
	Digest map[string]string `json:"digest,omitempty"`
}

type runDetails struct {
	Builder  builder  `json:"builder"`
	Metadata metadata `json:"metadata"`
}

type builder struct {
	ID string `json:"id"`
}

type metadata struct {
	StartedOn  string `json:"startedOn"`
	FinishedOn string `json:"finishedOn"`
}

// attestOptions are attest's flags.
type attestOptions struct {
	image, key, cosign, syft, source                        string
	sourceRepository, sourceCommit, buildCommand, builderID string
}

func attest(args []string) error {
	var options attestOptions
	flags := flag.NewFlagSet("attest", flag.ContinueOnError)
	flags.StringVar(&options.image, "image", "", "The image to sign and attest, by tag or digest, as it was pushed.")
	flags.StringVar(&options.key, "key", "", "The cosign private key; COSIGN_PASSWORD holds its password.")
	flags.StringVar(&options.cosign, "cosign", "", "The cosign binary.")
	flags.StringVar(&options.syft, "syft", "", "The syft binary.")
	flags.StringVar(&options.source, "source", "", "The source tree a multi-platform index was built from: its SBOM lists the modules of its go.mod.")
	flags.StringVar(&options.sourceRepository, "source-repository", "", "The source repository, as a URI such as git+https://github.com/org/repo.")
	flags.StringVar(&options.sourceCommit, "source-commit", "", "The commit the image was built from.")
	flags.StringVar(&options.buildCommand, "build-command", "", "The command that built and pushed the image.")
	flags.StringVar(&options.builderID, "builder-id", "", "A URI that names who built the image: the CI system and its workflow, or the machine.")
	if err := flags.Parse(args); err != nil {
		return err
	}
	for flagName, value := range map[string]string{"image": options.image, "syft": options.syft,
		"source-repository": options.sourceRepository, "source-commit": options.sourceCommit,
		"build-command": options.buildCommand, "builder-id": options.builderID} {
		if value == "" {
			return fmt.Errorf("--%s is required", flagName)
		}
	}
	started := time.Now()
	dir, err := os.MkdirTemp("", "supplychain-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	signer, err := newCosign(options.cosign, options.key, dir)
	if err != nil {
		return err
	}
	subjects, err := resolve(options.image)
	if err != nil {
		return err
	}
	// Platforms first and the index last: a verifier that finds the index signed finds its
	// platforms signed too.
	for i := len(subjects) - 1; i >= 0; i-- {
		subject := subjects[i]
		work := filepath.Join(dir, fmt.Sprint(i))
		if err := os.MkdirAll(work, 0o755); err != nil {
			return err
		}
		sbom := filepath.Join(work, "sbom.spdx.json")
		if err := writeSBOM(options, subject, work, sbom); err != nil {
			return fmt.Errorf("the SBOM of %s: %w", subject, err)
		}
		predicate := filepath.Join(work, "provenance.json")
		if err := writeProvenance(options, started, predicate); err != nil {
			return err
		}
		image := subject.ref.String()
		if err := signer.sign(image); err != nil {
			return fmt.Errorf("signing %s: %w", subject, err)
		}
		if err := signer.attest(image, sbomType, sbom); err != nil {
			return fmt.Errorf("attaching the SBOM of %s: %w", subject, err)
		}
		if err := signer.attest(image, provenanceType, predicate); err != nil {
			return fmt.Errorf("attaching the provenance of %s: %w", subject, err)
		}
		fmt.Printf("Signed %s %s, with its SBOM and provenance\n", subject.kind, subject)
	}
	return nil
}

// writeSBOM writes into file the SPDX SBOM of the subject: for an image, what syft finds in
// its layers (the Go modules of its binaries, the files of its base); for a chart, its
// files; for an index, the modules its source's go.mod requires.
func writeSBOM(options attestOptions, subject subject, work, file string) error {
	var source string
	// A bundle or a chart has no packages: its SBOM lists its files, each with its digest,
	// as an image's lists the files of its base.
	env := append(os.Environ(), "SYFT_FILE_METADATA_SELECTION=all", "SYFT_FILE_METADATA_DIGESTS=sha256")
	switch subject.kind {
	case kindIndex:
		env = os.Environ()
		if options.source == "" {
			return errors.New("it is a multi-platform index: --source must name the tree it was built from")
		}
		tree := filepath.Join(work, "source")
		if err := os.MkdirAll(tree, 0o755); err != nil {
			return err
		}
		for _, name := range []string{"go.mod", "go.sum"} {
			content, err := os.ReadFile(filepath.Join(options.source, name))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(tree, name), content, 0o644); err != nil {
				return err
			}
		}
		source = "dir:" + tree
	case kindChart:
		tree := filepath.Join(work, "chart")
		if err := extractChart(subject.ref, tree); err != nil {
			return err
		}
		source = "dir:" + tree
	default:
		image, err := remote.Image(subject.ref)
		if err != nil {
			return err
		}
		store, err := layout.Write(filepath.Join(work, "layout"), empty.Index)
		if err != nil {
			return err
		}
		if err := store.AppendImage(image); err != nil {
			return err
		}
		source = "oci-dir:" + filepath.Join(work, "layout")
	}
	command := exec.Command(options.syft, "scan", source, "--quiet",
		"--source-name", subject.ref.Context().String(), "--source-version", subject.ref.DigestStr(),
		"--output", "spdx-json="+file)
	// syft asks the internet for a newer syft unless told not to.
	command.Env = append(env, "SYFT_CHECK_FOR_APP_UPDATE=false")
	var stderr bytes.Buffer
	command.Stderr = &stderr
	if err := command.Run(); err != nil {
		return fmt.Errorf("syft: %s", lastLine(stderr.String(), err))
	}
	return nil
}

// writeProvenance writes the SLSA v1 provenance predicate of what the options describe.
func writeProvenance(options attestOptions, started time.Time, file string) error {
	source := resourceDescriptor{URI: options.sourceRepository, Digest: map[string]string{"gitCommit": options.sourceCommit}}
	predicate := provenance{
		BuildDefinition: buildDefinition{
			BuildType: buildType,
			ExternalParameters: externalParameters{
				Command: options.buildCommand,
				Image:   options.image,
				Source:  source,
			},
			ResolvedDependencies: []resourceDescriptor{
				source,
				{Name: "go", URI: "pkg:golang/stdlib@" + runtime.Version()},
			},
		},
		RunDetails: runDetails{
			Builder:  builder{ID: options.builderID},
			Metadata: metadata{StartedOn: started.UTC().Format(time.RFC3339), FinishedOn: time.Now().UTC().Format(time.RFC3339)},
		},
	}
	content, err := json.MarshalIndent(predicate, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, content, 0o644)
}

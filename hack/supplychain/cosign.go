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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The predicate types of the two attestations, as `cosign attest --type` names them and as
// their in-toto statements carry them.
const (
	sbomType       = "spdxjson"
	provenanceType = "slsaprovenance1"

	sbomPredicateType       = "https://spdx.dev/Document"
	provenancePredicateType = "https://slsa.dev/provenance/v1"
)

// offlineSigningConfig tells cosign to use no certificate authority, transparency log or
// timestamp authority: a key signs, and nothing is sent anywhere but to the registry.
// Without it, cosign asks Sigstore's public TUF repository for its services.
const offlineSigningConfig = `{"mediaType":"application/vnd.dev.sigstore.signingconfig.v0.2+json",` +
	`"caUrls":[],"oidcUrls":[],"rekorTlogUrls":[],"tsaUrls":[],` +
	`"rekorTlogConfig":{"selector":"ANY"},"tsaConfig":{"selector":"ANY"}}`

// emptyTrustedRoot is the trusted root that goes with it: no authority is trusted, so only
// the key vouches for a signature.
const emptyTrustedRoot = `{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`

// cosign runs the cosign binary with a key, offline.
type cosign struct {
	binary string
	// key is the private key (attest) or public key (verify).
	key string
	// signingConfig and trustedRoot are the files of offlineSigningConfig and
	// emptyTrustedRoot.
	signingConfig, trustedRoot string
}

func newCosign(binary, key, dir string) (*cosign, error) {
	if binary == "" || key == "" {
		return nil, fmt.Errorf("--cosign and --key are required")
	}
	if _, err := os.Stat(key); err != nil {
		return nil, fmt.Errorf("the key: %w", err)
	}
	c := &cosign{binary: binary, key: key,
		signingConfig: filepath.Join(dir, "signing-config.json"), trustedRoot: filepath.Join(dir, "trusted-root.json")}
	if err := os.WriteFile(c.signingConfig, []byte(offlineSigningConfig), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(c.trustedRoot, []byte(emptyTrustedRoot), 0o644); err != nil {
		return nil, err
	}
	return c, nil
}

// run runs cosign and returns its standard output; its error carries the last line cosign
// wrote to its standard error, which says why.
func (c *cosign) run(args ...string) ([]byte, error) {
	command := exec.Command(c.binary, args...)
	var stdout, stderr bytes.Buffer
	command.Stdout, command.Stderr = &stdout, &stderr
	if err := command.Run(); err != nil {
		return nil, fmt.Errorf("%s", lastLine(stderr.String(), err))
	}
	return stdout.Bytes(), nil
}

// lastLine is the last line of a tool's error output that says something, without cosign's
// "error during command execution: " prefix, or err when there is none.
func lastLine(output string, err error) string {
	lines := strings.Split(strings.TrimSpace(output), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "WARNING:") {
			continue
		}
		return strings.TrimPrefix(line, "error during command execution: ")
	}
	return err.Error()
}

// sign signs the image with the key.
func (c *cosign) sign(image string) error {
	_, err := c.run("sign", "--yes", "--key", c.key, "--signing-config", c.signingConfig, "--trusted-root", c.trustedRoot, image)
	return err
}

// attest attaches the predicate in file to the image, as an in-toto statement of the type
// whose subject is the image's digest, signed with the key.
func (c *cosign) attest(image, predicateType, file string) error {
	_, err := c.run("attest", "--yes", "--key", c.key, "--signing-config", c.signingConfig, "--trusted-root", c.trustedRoot,
		"--type", predicateType, "--predicate", file, image)
	return err
}

// verify checks that the image carries a signature the public key verifies. With a key and
// no transparency log, there is no log entry to check.
func (c *cosign) verify(image string) error {
	_, err := c.run("verify", "--key", c.key, "--insecure-ignore-tlog", "--output", "json", image)
	return err
}

// verifyAttestation checks that the image carries an attestation of the type that the public
// key verifies, and returns the DSSE envelopes cosign printed, one JSON object a line.
func (c *cosign) verifyAttestation(image, predicateType string) ([]byte, error) {
	return c.run("verify-attestation", "--key", c.key, "--insecure-ignore-tlog", "--type", predicateType, image)
}

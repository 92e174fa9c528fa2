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
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// buildOLM builds OLM's image as its Dockerfile does: the olm, catalog and package-server
// operators and the cpb and copy-content utilities in /bin, on distroless/static:debug,
// with /bin/cp linked to busybox's (bundle unpack Jobs copy cpb out of this image with it),
// run as 1001, olm as the entrypoint.
func buildOLM(args []string) error {
	command := newImageCommand("olm")
	binDir := command.requiredString("bin", "The folder of OLM's static binaries: olm, catalog, package-server, cpb, copy-content.")
	busybox := command.requiredString("busybox", "A static busybox (Debian's busybox-static).")
	command.takesPlatform("The platform the binaries are built for.")
	return command.run(args, func() (v1.Image, error) {
		binaries := map[string]string{}
		for _, name := range []string{"olm", "catalog", "package-server", "cpb", "copy-content"} {
			binaries["/bin/"+name] = *binDir + "/" + name
		}
		files, err := staticFiles(binaries)
		if err != nil {
			return nil, err
		}
		files = append(files, file{path: "/bin/cp", link: "/busybox/cp"})
		return debugImage(command.platform, *busybox, files, func(config *v1.Config) {
			config.User = "1001"
			config.WorkingDir = "/"
			config.Entrypoint = []string{"/bin/olm"}
		})
	})
}

// buildScorecardTest builds operator-sdk's scorecard-test image as its Dockerfile does:
// /usr/local/bin/scorecard-test as the entrypoint, run as 1001 with its home in
// /opt/scorecard-test. (Upstream's base is UBI minimal; the tests need nothing of it.)
func buildScorecardTest(args []string) error {
	const entrypoint, home = "/usr/local/bin/scorecard-test", "/opt/scorecard-test"
	dirs := []file{
		{path: "/usr", mode: 0o755, dir: true}, {path: "/usr/local", mode: 0o755, dir: true},
		{path: "/usr/local/bin", mode: 0o755, dir: true},
		{path: "/opt", mode: 0o755, dir: true}, {path: home, mode: 0o775, uid: 1001, dir: true},
	}
	return buildProgramImage("scorecard-test", "scorecard-test", args, func(string) string { return entrypoint }, dirs,
		func(config *v1.Config) {
			config.Env = append(config.Env, "HOME="+home, "USER_NAME=scorecard-test", "USER_UID=1001")
			config.User = "1001"
			config.WorkingDir = home
		})
}

// buildOLMv1 builds the image of one of OLM v1's two programs, catalogd or operator-controller,
// as their Dockerfiles do: the binary at the root, as the entrypoint, run as 65532 on
// distroless/static:nonroot.
func buildOLMv1(args []string) error {
	return buildProgramImage("olmv1", "catalogd or operator-controller", args,
		func(binary string) string { return "/" + filepath.Base(binary) }, nil,
		func(config *v1.Config) {
			config.User = "65532:65532"
			config.WorkingDir = "/"
		})
}

// buildPrometheus builds the image of Prometheus's server, which the node suite runs to
// scrape the operator as the shipped ServiceMonitor says and to evaluate its alerts. It runs
// as nobody, as Prometheus's own image does, and keeps its data in /prometheus (a volume).
func buildPrometheus(args []string) error {
	return buildProgramImage("prometheus", "Prometheus's server", args,
		func(string) string { return "/bin/prometheus" }, nil,
		func(config *v1.Config) {
			config.User = "65534:65534"
			config.WorkingDir = "/prometheus"
			config.ExposedPorts = map[string]struct{}{"9090/tcp": {}}
		})
}

// buildProgramImage builds, for command name, the image of one static program (--binary,
// for --platform) on the distroless base: the program at the path target gives it, as the
// entrypoint, with extra files beside it and the config changed by configure.
func buildProgramImage(name, program string, args []string, target func(binary string) string, extra []file, configure func(*v1.Config)) error {
	command := newImageCommand(name)
	binary := command.requiredString("binary", program+", built static.")
	command.takesPlatform("The platform the binary is built for.")
	return command.run(args, func() (v1.Image, error) {
		entrypoint := target(*binary)
		files, err := staticFiles(map[string]string{entrypoint: *binary})
		if err != nil {
			return nil, err
		}
		return imageOnBase(command.platform, append(files, extra...), func(config *v1.Config) {
			configure(config)
			config.Entrypoint = []string{entrypoint}
		})
	})
}

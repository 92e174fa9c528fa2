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
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"sigs.k8s.io/yaml"
)

// distrolessEnv is the environment distroless/static sets, which Dockerfile inherits.
var distrolessEnv = []string{
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"SSL_CERT_FILE=" + caBundle,
}

// debugEnv is the environment of distroless/static:debug, whose busybox is in /busybox.
var debugEnv = []string{
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/busybox",
	"SSL_CERT_FILE=" + caBundle,
}

// requireStatic fails unless path is a statically linked ELF binary: the image has no
// dynamic loader or C library, so anything else would fail to start in a container.
func requireStatic(path string) error {
	binary, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not an ELF binary: %w", path, err)
	}
	defer func() { _ = binary.Close() }()
	for _, program := range binary.Progs {
		if program.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked; the image needs it built with CGO_ENABLED=0", path)
		}
	}
	return nil
}

// goBuildStatic builds package pkg of the module in dir into a static binary for platform,
// as the Dockerfile does. With -trimpath the build does not depend on dir, so the same
// source in another checkout (each release is built in several) compiles from the build
// cache; only the link runs again.
func goBuildStatic(dir, pkg, output string, platform v1.Platform) error {
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", output, pkg)
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+platform.OS, "GOARCH="+platform.Architecture, "GOARM=")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	return build.Run()
}

// imageOnBase returns an image of files on the distroless-like base filesystem, with
// distroless's environment and the configuration change makes.
func imageOnBase(platform v1.Platform, files []file, change func(*v1.Config)) (v1.Image, error) {
	base, err := baseFiles()
	if err != nil {
		return nil, err
	}
	baseLayer, err := layer(base)
	if err != nil {
		return nil, err
	}
	filesLayer, err := layer(files)
	if err != nil {
		return nil, err
	}
	image, err := newImage(platform, baseLayer, filesLayer)
	if err != nil {
		return nil, err
	}
	return configure(image, func(config *v1.Config) {
		config.Env = distrolessEnv
		change(config)
	})
}

// phase prints one line when a step of a build is done, with its time.
func phase(what string, start time.Time) {
	fmt.Printf("==> %s in %.1fs\n", what, time.Since(start).Seconds())
}

// managerMain is the manager's main file in the source tree at context: cmd/main.go, as
// kubebuilder's go/v4 layout has it, or main.go at the top, where the sources of releases up
// to 0.2.0 keep it (their images are built from their own commits). The file, not its
// folder, as Dockerfile builds it (and copies only it): code in another file there would
// be missing from the image either way.
func managerMain(context string) string {
	if _, err := os.Stat(filepath.Join(context, "cmd", "main.go")); err == nil {
		return "cmd/main.go"
	}
	return "main.go"
}

// buildManager builds the manager as Dockerfile does (a static binary of cmd/main.go, run as
// nonroot from /manager on distroless/static), for each platform, into one index.
func buildManager(args []string) error {
	command := newImageCommand("manager")
	context := command.flags.String("context", ".", "The source tree of the operator: the folder holding go.mod and cmd/main.go.")
	platforms := command.flags.String("platforms", "linux/amd64,linux/arm64", "The platforms to build for, comma-separated.")
	if err := command.parse(args); err != nil {
		return err
	}
	binDir, err := os.MkdirTemp("", "imagebuilder-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(binDir) }()

	index := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, value := range splitList(*platforms) {
		platform, err := parsePlatform(value)
		if err != nil {
			return err
		}
		start := time.Now()
		binary := filepath.Join(binDir, "manager-"+platform.OS+"-"+platform.Architecture)
		// The build command of Dockerfile, with the platform Go cross-compiles for. For this
		// machine's platform it shares the build cache with `make build`.
		if err := goBuildStatic(*context, managerMain(*context), binary, platform); err != nil {
			return fmt.Errorf("building the manager for %s in %s: %w", value, *context, err)
		}
		data, err := os.ReadFile(binary)
		if err != nil {
			return err
		}
		image, err := imageOnBase(platform, []file{{path: "/manager", mode: 0o755, data: data}}, func(config *v1.Config) {
			config.User = fmt.Sprintf("%d:%d", nonroot, nonroot)
			config.WorkingDir = "/"
			config.Entrypoint = []string{"/manager"}
		})
		if err != nil {
			return err
		}
		index = mutate.AppendManifests(index, mutate.IndexAddendum{
			Add:        image,
			Descriptor: v1.Descriptor{Platform: &platform},
		})
		phase("Built the manager for "+value, start)
	}
	if err := saveIndex(command.store, command.tag, index); err != nil {
		return err
	}
	fmt.Printf("Built %s for %s\n", command.tag, *platforms)
	return nil
}

// bundlePlatform is the platform a FROM scratch image built on an amd64 machine declares;
// a bundle holds only manifests, which every platform reads alike.
var bundlePlatform = v1.Platform{OS: "linux", Architecture: "amd64"}

// buildBundle builds an OLM bundle image as bundle.Dockerfile does: the bundle's manifests,
// metadata and scorecard tests, labelled with the annotations of metadata/annotations.yaml
// (which operator-sdk writes into bundle.Dockerfile's LABELs too).
func buildBundle(args []string) error {
	command := newImageCommand("bundle")
	dir := command.sourceFlag("dir", "bundle", "The bundle: a folder holding manifests/, metadata/ and tests/scorecard/.")
	return command.run(args, func() (v1.Image, error) {
		var annotations struct {
			Annotations map[string]string `json:"annotations"`
		}
		data, err := os.ReadFile(filepath.Join(*dir, "metadata", "annotations.yaml"))
		if err != nil {
			return nil, err
		}
		if err := yaml.UnmarshalStrict(data, &annotations); err != nil {
			return nil, fmt.Errorf("reading the bundle's annotations: %w", err)
		}
		if len(annotations.Annotations) == 0 {
			return nil, fmt.Errorf("%s/metadata/annotations.yaml has no annotations", *dir)
		}
		var files []file
		for src, dst := range map[string]string{"manifests": "/manifests", "metadata": "/metadata", "tests/scorecard": "/tests/scorecard"} {
			tree, err := treeFiles(filepath.Join(*dir, src), dst)
			if err != nil {
				return nil, err
			}
			files = append(files, tree...)
		}
		files = append(files, file{path: "/tests", mode: 0o755, dir: true})
		content, err := layer(files)
		if err != nil {
			return nil, err
		}
		image, err := newImage(bundlePlatform, content)
		if err != nil {
			return nil, err
		}
		return configure(image, func(config *v1.Config) { config.Labels = annotations.Annotations })
	})
}

// buildOpm builds the base image that catalog.Dockerfile names, as operator-registry
// ships it: /bin/opm and /bin/grpc_health_probe, with opm as the entrypoint, run as user
// 1001, on distroless/static:debug, whose busybox shell in /busybox tools such as
// `operator-sdk run bundle` rely on (its registry pod runs `sh -c "opm serve ..."` in a
// catalog image).
func buildOpm(args []string) error {
	command := newImageCommand("opm")
	opm := command.requiredString("opm", "opm, built static for the image's platform.")
	probe := command.requiredString("health-probe", "grpc_health_probe, built static for the image's platform.")
	busybox := command.requiredString("busybox", "A static busybox for /busybox, built for the image's platform (Debian's busybox-static).")
	command.takesPlatform("The platform the binaries are built for.")
	return command.run(args, func() (v1.Image, error) {
		binaries, err := staticFiles(map[string]string{"/bin/opm": *opm, "/bin/grpc_health_probe": *probe})
		if err != nil {
			return nil, err
		}
		return debugImage(command.platform, *busybox, binaries, func(config *v1.Config) {
			// operator-registry's own image runs as 1001 too.
			config.User = "1001"
			config.Entrypoint = []string{"/bin/opm"}
		})
	})
}

// staticFiles reads static binaries into the files of an image, by their path in it.
func staticFiles(binaries map[string]string) ([]file, error) {
	files := []file{{path: "/bin", mode: 0o755, dir: true}}
	for target, src := range binaries {
		if err := requireStatic(src); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		files = append(files, file{path: target, mode: 0o755, data: data})
	}
	return files, nil
}

// debugImage returns an image of files on the distroless-like base with busybox in
// /busybox, as distroless/static:debug is.
func debugImage(platform v1.Platform, busybox string, files []file, change func(*v1.Config)) (v1.Image, error) {
	shell, err := busyboxFiles(busybox, "/busybox")
	if err != nil {
		return nil, err
	}
	return imageOnBase(platform, append(shell, files...), func(config *v1.Config) {
		config.Env = debugEnv
		change(config)
	})
}

// imageUser is the numeric user an image runs as (0 for root or none).
func imageUser(image v1.Image) (int, error) {
	configFile, err := image.ConfigFile()
	if err != nil {
		return 0, err
	}
	user, _, _ := strings.Cut(configFile.Config.User, ":")
	if user == "" || user == "root" {
		return 0, nil
	}
	uid, err := strconv.Atoi(user)
	if err != nil {
		return 0, fmt.Errorf("the base image runs as user %q, which is not numeric", configFile.Config.User)
	}
	return uid, nil
}

// configsLabel tells OLM where in a catalog image its file-based catalog is.
const configsLabel = "operators.operatorframework.io.index.configs.v1"

// buildCatalog builds a catalog image as catalog.Dockerfile does: the file-based catalog in
// /configs and the serve cache opm builds from it in /tmp/cache, on the opm base image.
func buildCatalog(args []string) error {
	command := newImageCommand("catalog")
	configs := command.sourceFlag("configs", "catalog", "The file-based catalog: the folder catalog.Dockerfile adds as /configs.")
	base := command.requiredString("base", "The opm base image in the store that catalog.Dockerfile builds FROM.")
	opm := command.requiredString("opm", "The opm of this machine, of the base image's version, to build the serve cache with.")
	return command.run(args, func() (v1.Image, error) {
		baseImage, err := storedImage(command.store, *base)
		if err != nil {
			return nil, fmt.Errorf("the base image: %w (make opm-image builds it)", err)
		}
		cacheDir, err := os.MkdirTemp("", "catalog-cache-")
		if err != nil {
			return nil, err
		}
		defer func() { _ = os.RemoveAll(cacheDir) }()
		// The RUN step of catalog.Dockerfile's builder stage.
		serve := exec.Command(*opm, "serve", *configs, "--cache-dir="+cacheDir, "--cache-only")
		if output, err := serve.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building the serve cache of %s: %w\n%s", *configs, err, output)
		}
		files, err := treeFiles(*configs, "/configs")
		if err != nil {
			return nil, err
		}
		cache, err := treeFiles(cacheDir, "/tmp/cache")
		if err != nil {
			return nil, err
		}
		// The builder stage's RUN writes the cache as the base image's user, and COPY --from
		// keeps its owner: opm serve, run as that user, locks and may rebuild the cache in place.
		owner, err := imageUser(baseImage)
		if err != nil {
			return nil, err
		}
		for i := range cache {
			cache[i].uid = owner
		}
		content, err := layer(append(files, cache...))
		if err != nil {
			return nil, err
		}
		image, err := mutate.AppendLayers(baseImage, content)
		if err != nil {
			return nil, err
		}
		return configure(image, func(config *v1.Config) {
			config.Entrypoint = []string{"/bin/opm"}
			config.Cmd = []string{"serve", "/configs", "--cache-dir=/tmp/cache"}
			if config.Labels == nil {
				config.Labels = map[string]string{}
			}
			config.Labels[configsLabel] = "/configs"
		})
	})
}

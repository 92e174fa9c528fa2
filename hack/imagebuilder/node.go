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
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// nodeImageSources are the local cluster's own small programs, built into images of one
// static binary each.
const nodeImageSources = "./hack/localcluster/images/"

// buildNodeImages builds the images the local cluster's node pulls from its registry, for
// this machine's platform, each named without a registry (the local cluster pushes them to
// its own): pause (the pod sandbox), coredns (the cluster DNS), busybox (a shell, for
// tests and for tools that run `sh -c` in their pods) and httpget (an HTTPS client, for
// tests that reach a Service from a pod).
func buildNodeImages(args []string) error {
	flags := flag.NewFlagSet("imagebuilder node", flag.ExitOnError)
	store := flags.String("store", "bin/node-images", "The OCI image layout that receives the images.")
	coredns := flags.String("coredns", "", "CoreDNS, built static.")
	corednsTag := flags.String("coredns-tag", "", "The version of CoreDNS, the tag of its image.")
	busybox := flags.String("busybox", "/bin/busybox", "A static busybox (Debian's busybox-static).")
	_ = flags.Parse(args)
	if *coredns == "" || *corednsTag == "" {
		return fmt.Errorf("--coredns and --coredns-tag are required")
	}
	platform := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	binDir, err := os.MkdirTemp("", "imagebuilder-node-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(binDir) }()

	// pause holds nothing but its binary and runs as the conventional nobody-like 65535.
	start := time.Now()
	pause := filepath.Join(binDir, "pause")
	if err := goBuildStatic(".", nodeImageSources+"pause", pause, platform); err != nil {
		return fmt.Errorf("building pause: %w", err)
	}
	if err := saveBinaryImage(*store, "pause:latest", platform, pause, "/pause", false, "65535:65535"); err != nil {
		return err
	}
	phase("Built pause:latest", start)

	start = time.Now()
	httpget := filepath.Join(binDir, "httpget")
	if err := goBuildStatic(".", nodeImageSources+"httpget", httpget, platform); err != nil {
		return fmt.Errorf("building httpget: %w", err)
	}
	if err := saveBinaryImage(*store, "httpget:latest", platform, httpget, "/httpget", true, fmt.Sprintf("%d:%d", nonroot, nonroot)); err != nil {
		return err
	}
	phase("Built httpget:latest", start)

	start = time.Now()
	if err := requireStatic(*coredns); err != nil {
		return err
	}
	corednsRef := "coredns:" + *corednsTag
	if err := saveBinaryImage(*store, corednsRef, platform, *coredns, "/coredns", true, fmt.Sprintf("%d:%d", nonroot, nonroot)); err != nil {
		return err
	}
	phase("Built "+corednsRef, start)

	start = time.Now()
	if err := saveBusybox(*store, platform, *busybox); err != nil {
		return err
	}
	phase("Built busybox:latest", start)
	return nil
}

// saveBinaryImage saves an image whose entrypoint is one static binary, on the
// distroless-like base (CA certificates, users) if onBase, else alone.
func saveBinaryImage(store, ref string, platform v1.Platform, binary, target string, onBase bool, user string) error {
	data, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	files := []file{{path: target, mode: 0o755, data: data}}
	change := func(config *v1.Config) {
		config.User = user
		config.Entrypoint = []string{target}
	}
	var image v1.Image
	if onBase {
		image, err = imageOnBase(platform, files, change)
	} else {
		var content v1.Layer
		if content, err = layer(files); err == nil {
			if image, err = newImage(platform, content); err == nil {
				image, err = configure(image, change)
			}
		}
	}
	if err != nil {
		return err
	}
	return saveImage(store, ref, image)
}

// busyboxFiles are a static busybox in dir and a link there for each of its applets.
func busyboxFiles(busybox, dir string) ([]file, error) {
	if err := requireStatic(busybox); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(busybox)
	if err != nil {
		return nil, err
	}
	applets, err := exec.Command(busybox, "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("listing the applets of %s: %w", busybox, err)
	}
	files := []file{{path: dir, mode: 0o755, dir: true}, {path: dir + "/busybox", mode: 0o755, data: data}}
	for _, applet := range strings.Fields(string(applets)) {
		if applet != "busybox" {
			files = append(files, file{path: dir + "/" + applet, link: "busybox"})
		}
	}
	return files, nil
}

// saveBusybox saves a shell image: busybox and a link for each of its applets, in /bin.
func saveBusybox(store string, platform v1.Platform, busybox string) error {
	files, err := busyboxFiles(busybox, "/bin")
	if err != nil {
		return err
	}
	image, err := imageOnBase(platform, files, func(config *v1.Config) {
		config.Env = []string{"PATH=/bin"}
		config.Cmd = []string{"sh"}
	})
	if err != nil {
		return err
	}
	return saveImage(store, "busybox:latest", image)
}

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
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// epoch is the time stamp of every file and image: images built from the same inputs are
// the same bytes, with the same digest, whoever builds them and whenever.
var epoch = time.Unix(0, 0).UTC()

// file is one entry of a layer.
type file struct {
	path     string // absolute path in the image
	mode     fs.FileMode
	uid, gid int
	data     []byte
	dir      bool
	// link, when set, makes the entry a symbolic link to it.
	link string
}

// layer builds an uncompressed tar of files, in path order, and wraps it as an OCI layer.
func layer(files []file) (v1.Layer, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		header := &tar.Header{
			Name:    strings.TrimPrefix(f.path, "/"),
			Mode:    int64(f.mode.Perm()),
			Uid:     f.uid,
			Gid:     f.gid,
			ModTime: epoch,
			Format:  tar.FormatPAX,
		}
		if f.mode&fs.ModeSticky != 0 {
			header.Mode |= 0o1000
		}
		switch {
		case f.dir:
			header.Typeflag = tar.TypeDir
			header.Name += "/"
		case f.link != "":
			header.Typeflag = tar.TypeSymlink
			header.Linkname = f.link
			header.Mode = 0o777
		default:
			header.Typeflag = tar.TypeReg
			header.Size = int64(len(f.data))
		}
		if err := tw.WriteHeader(header); err != nil {
			return nil, err
		}
		if header.Typeflag == tar.TypeReg {
			if _, err := tw.Write(f.data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// treeFiles copies the folder src of the build machine to dst in the image, owned by root
// and readable by all, as COPY and ADD do. Parents of dst are not listed: they exist in a
// lower layer, or the runtime creates them, and listing them here would override their
// mode (that of /tmp, say).
func treeFiles(src, dst string) ([]file, error) {
	var files []file
	err := filepath.WalkDir(src, func(p string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := path.Join(dst, filepath.ToSlash(rel))
		info, err := entry.Info()
		if err != nil {
			return err
		}
		switch {
		case entry.IsDir():
			files = append(files, file{path: target, mode: 0o755, dir: true})
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files = append(files, file{path: target, mode: info.Mode().Perm() | 0o444, data: data})
		default:
			return fmt.Errorf("%s is neither a folder nor a regular file", p)
		}
		return nil
	})
	return files, err
}

// nonroot is the user distroless's "nonroot" images run as, and so this project's images.
const nonroot = 65532

// caBundle is where Debian's ca-certificates package keeps the CA bundle that Go's TLS
// finds in an image (and where distroless keeps it too).
const caBundle = "/etc/ssl/certs/ca-certificates.crt"

// baseFiles is a minimal root filesystem in the image of distroless/static:nonroot, which
// Dockerfile builds on: the users root, nobody and nonroot, CA certificates, and /tmp. The
// CA certificates are the build machine's, from its ca-certificates package.
func baseFiles() ([]file, error) {
	certificates, err := os.ReadFile(caBundle)
	if err != nil {
		return nil, fmt.Errorf("reading the CA certificates the image ships (install Debian's ca-certificates package): %w", err)
	}
	passwd := "root:x:0:0:root:/root:/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
		"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group := "root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n"
	files := []file{
		{path: "/etc", mode: 0o755, dir: true},
		{path: "/etc/passwd", mode: 0o644, data: []byte(passwd)},
		{path: "/etc/group", mode: 0o644, data: []byte(group)},
		{path: "/etc/ssl", mode: 0o755, dir: true},
		{path: "/etc/ssl/certs", mode: 0o755, dir: true},
		{path: caBundle, mode: 0o644, data: certificates},
		{path: "/home", mode: 0o755, dir: true},
		{path: "/home/nonroot", mode: 0o700, uid: nonroot, gid: nonroot, dir: true},
		{path: "/root", mode: 0o700, dir: true},
		{path: "/tmp", mode: fs.ModeSticky | 0o777, dir: true},
	}
	return files, nil
}

// newImage returns an empty OCI image for platform with the given layers.
func newImage(platform v1.Platform, layers ...v1.Layer) (v1.Image, error) {
	image := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	image = mutate.ConfigMediaType(image, types.OCIConfigJSON)
	image, err := mutate.AppendLayers(image, layers...)
	if err != nil {
		return nil, err
	}
	configFile, err := image.ConfigFile()
	if err != nil {
		return nil, err
	}
	configFile = configFile.DeepCopy()
	configFile.OS, configFile.Architecture, configFile.Variant = platform.OS, platform.Architecture, platform.Variant
	configFile.Created = v1.Time{Time: epoch}
	return mutate.ConfigFile(image, configFile)
}

// configure sets the runtime configuration of image, as a Dockerfile's ENV, USER, WORKDIR,
// ENTRYPOINT, CMD and LABEL instructions do.
func configure(image v1.Image, change func(*v1.Config)) (v1.Image, error) {
	configFile, err := image.ConfigFile()
	if err != nil {
		return nil, err
	}
	config := *configFile.Config.DeepCopy()
	change(&config)
	return mutate.Config(image, config)
}

// parsePlatform parses os/arch[/variant].
func parsePlatform(value string) (v1.Platform, error) {
	parts := strings.Split(value, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return v1.Platform{}, fmt.Errorf("platform %q is not os/arch[/variant]", value)
	}
	platform := v1.Platform{OS: parts[0], Architecture: parts[1]}
	if len(parts) == 3 {
		platform.Variant = parts[2]
	}
	return platform, nil
}

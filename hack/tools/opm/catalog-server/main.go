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

// Command catalog-server serves a file-based catalog to OLM over the registry gRPC API, as
// `opm serve` does, but on the address it is given: the end-to-end tests bind it to
// loopback, while `opm serve` listens on every interface.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/sirupsen/logrus"
	"google.golang.org/grpc"
	health "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-framework/operator-registry/pkg/api"
	"github.com/operator-framework/operator-registry/pkg/cache"
	"github.com/operator-framework/operator-registry/pkg/server"
)

func main() {
	var catalogDir, listenAddress, addressFile string
	flag.StringVar(&catalogDir, "catalog", "", "The folder of the file-based catalog to serve.")
	flag.StringVar(&listenAddress, "listen", "127.0.0.1:0",
		"The address to serve on; port 0 picks a free port.")
	flag.StringVar(&addressFile, "address-file", "",
		"A file to write the address served on into, once the server accepts connections.")
	flag.Parse()

	log := logrus.NewEntry(logrus.New())
	if err := run(catalogDir, listenAddress, addressFile, log); err != nil {
		log.WithError(err).Fatal("Catalog server stopped")
	}
}

func run(catalogDir, listenAddress, addressFile string, log *logrus.Entry) error {
	if catalogDir == "" {
		return fmt.Errorf("--catalog is required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// The cache is rebuilt from the catalog at every start, so it lives only as long as
	// the server.
	cacheDir, err := os.MkdirTemp("", "catalog-server-cache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cacheDir)
	store, err := cache.New(cacheDir, cache.WithLog(log))
	if err != nil {
		return err
	}
	defer store.Close()
	if err := cache.LoadOrRebuild(ctx, store, os.DirFS(catalogDir)); err != nil {
		return fmt.Errorf("loading catalog %s: %w", catalogDir, err)
	}

	listener, err := net.Listen("tcp", listenAddress)
	if err != nil {
		return err
	}
	grpcServer := grpc.NewServer()
	api.RegisterRegistryServer(grpcServer, server.NewRegistryServer(store))
	health.RegisterHealthServer(grpcServer, server.NewHealthServer())
	go func() {
		<-ctx.Done()
		grpcServer.GracefulStop()
	}()

	address := listener.Addr().String()
	if addressFile != "" {
		// Written whole under another name, then renamed, so that a reader never sees a
		// partial address.
		tmp := filepath.Join(filepath.Dir(addressFile), "."+filepath.Base(addressFile)+".tmp")
		if err := os.WriteFile(tmp, []byte(address), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, addressFile); err != nil {
			return err
		}
	}
	log.WithFields(logrus.Fields{"catalog": catalogDir, "address": address}).Info("Serving catalog")
	return grpcServer.Serve(listener)
}

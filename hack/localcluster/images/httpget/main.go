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
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	caFile := flag.String("cacert", "", "PEM file of the CA to trust (default: the image's CA bundle)")
	insecure := flag.Bool("insecure", false, "accept any server certificate, as a ServiceMonitor with insecureSkipVerify does for a self-signed one")
	serverName := flag.String("server-name", "",
		"the name the server certificate must be for, as a ServiceMonitor's tlsConfig.serverName (default: the URL's host)")
	tokenFile := flag.String("token-file", "", "file holding a bearer token to send")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: httpget [--cacert FILE [--server-name NAME] | --insecure] [--token-file FILE] URL")
		os.Exit(2)
	}
	tlsConfig := &tls.Config{ //nolint:gosec // InsecureSkipVerify is asked for by --insecure
		MinVersion: tls.VersionTLS12, InsecureSkipVerify: *insecure, ServerName: *serverName,
	}
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			fail(err)
		}
		tlsConfig.RootCAs = x509.NewCertPool()
		if !tlsConfig.RootCAs.AppendCertsFromPEM(pem) {
			fail(fmt.Errorf("%s holds no certificate", *caFile))
		}
	}
	request, err := http.NewRequest(http.MethodGet, flag.Arg(0), nil)
	if err != nil {
		fail(err)
	}
	if *tokenFile != "" {
		token, err := os.ReadFile(*tokenFile)
		if err != nil {
			fail(err)
		}
		request.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	response, err := client.Do(request)
	if err != nil {
		fail(err)
	}
	defer func() { _ = response.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(response.Body, 1<<20))
	fmt.Printf("HTTP %d\n%s\n", response.StatusCode, body)
	if response.StatusCode/100 != 2 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "httpget: %v\n", err)
	os.Exit(2)
}

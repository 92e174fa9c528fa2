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

// Command httpget makes one HTTPS request from inside a pod and tells what came back: the
// tests use it to reach a Service as another pod would. (busybox's wget cannot do TLS with
// a Go server: it offers only SHA-1 signatures.)
//
//	httpget [--cacert FILE [--server-name NAME] | --insecure] [--token-file FILE] URL
//
// It prints "HTTP <status>" and the body, and exits 0 for a 2xx answer, 1 for any other
// answer and 2 when no answer came.
package main

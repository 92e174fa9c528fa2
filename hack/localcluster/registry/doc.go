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

// Package registry runs distribution's registry on a loopback address with a CA of its own,
// as the local cluster's registry, and pushes images to it or to any registry a suite is
// given (At): OCI image layouts under the names they carry, copies under a mirrored name.
// It needs distribution's registry binary (`make registry`) to start one.
package registry

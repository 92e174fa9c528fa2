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

package controller

// The messages of the log lines that mark a pod event's way through the controller. They are
// named because they are read as well as written: the benchmark's breakdown finds each
// event's moments in the manager's log by them (and the floor logs the same ones), so a
// reworded message changes both sides at once.
const (
	// LogPodEvent (V(2)): a pod event mapped to the Foos that name the pod.
	LogPodEvent = "Pod event for Foos"
	// LogReconciling and LogReconciled (V(2)): a reconcile of one Foo starts and ends.
	LogReconciling = "Reconciling"
	LogReconciled  = "Reconciled"
	// LogUpdatedStatus (V(1)): a Foo's status was written, with its friend and happy.
	LogUpdatedStatus = "Updated status"
)

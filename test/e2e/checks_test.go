//go:build e2e

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

package e2e

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The journeys' own checks, shown failing on what they are there to catch.
var _ = Describe("The journeys' checks", Serial, Label("checks"), func() {
	It("fail on a denial that only a manager pod an upgrade replaced logged", func(ctx context.Context) {
		const namespace = "checks-replaced-pod"
		createNamespaces(ctx, newNamespace(namespace, nil))
		denied := fmt.Sprintf(`E1207 00:00:00.000000 1 reflector.go:200] "Failed to watch" err="secrets is forbidden: `+
			`User \"system:serviceaccount:%s:%s\" cannot list resource \"secrets\" in API group \"\" at the cluster scope"`,
			namespace, operatorServiceAccount)

		By("running a pod labelled as the manager that logs a denial its ServiceAccount is never granted, then replacing it")
		runLoggingManagerPod(ctx, namespace, "manager-replaced", denied)
		followOperatorLogs(namespace)
		Eventually(func() int {
			lines, _ := followedOperatorLogs(namespace).denials(false)
			return len(lines)
		}).WithContext(ctx).Should(Equal(1), "the denial the pod logged, read from its followed log")
		runLoggingManagerPod(ctx, namespace, "manager-current", "starting manager")
		Expect(k8sClient.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "manager-replaced"}},
			client.GracePeriodSeconds(0))).To(Succeed())
		Eventually(func() int {
			_, pods := followedOperatorLogs(namespace).replacedLines()
			return pods
		}).WithContext(ctx).Should(Equal(1), "the replaced pod, seen gone beside the current one")

		By("expecting expectNoForbidden to name the replaced pod's denial")
		failures := InterceptGomegaFailures(func() { expectNoForbidden(ctx, namespace) })
		Expect(failures).To(ContainElement(And(ContainSubstring("manager-replaced"), ContainSubstring(`cannot list resource`))),
			"expectNoForbidden, on a namespace whose replaced manager pod was denied a request")
	}, SpecTimeout(3*time.Minute))
})

// runLoggingManagerPod runs, in namespace, a pod with the manager's label that logs line and
// then sleeps, until it runs.
func runLoggingManagerPod(ctx context.Context, namespace, name, line string) {
	GinkgoHelper()
	runRestrictedPod(ctx, namespace, name, map[string]string{"control-plane": "controller-manager"}, corev1.Container{
		Name: "manager", Image: cluster.Image("busybox"), Command: []string{"sh", "-c", `echo "$0"; exec sleep 3600`, line},
	})
}

//go:build node

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

package node

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/internal/memorylimit"
	"github.com/example/foo-operator/test/harness"
)

// A user whose cluster outgrew the operator's memory limit must read why in the operator's
// log, not only meet a crash loop of OOM kills. The manager's cache holds every Foo whole
// (a pod's metadata is stripped to a few hundred bytes, so a pod-driven cache takes far
// more objects to fill); Foos carrying a large annotation fill it in seconds instead.
const (
	tightMemoryLimit = "64Mi"
	fillerFoos       = 240
	fillerBytes      = 200 << 10
)

var _ = Describe("The operator under a memory limit too small for what it holds", Label("faults"), func() {
	AfterEach(operator.LogsOnFailure)

	It("names the limit in its log as its cache outgrows it, before OOM kills could make a silent crash loop", func(ctx context.Context) {
		limit := resource.MustParse(tightMemoryLimit)
		By("running the operator with a memory limit of " + tightMemoryLimit)
		restore := setOperatorMemory(ctx, limit)
		DeferCleanup(func(ctx context.Context) { setOperatorMemory(ctx, restore) })

		By(fmt.Sprintf("creating %d Foos of %d KiB each, which the cache holds", fillerFoos, fillerBytes>>10))
		namespace := createNamespace(ctx, "memory-", nil)
		filler := strings.Repeat("x", fillerBytes)
		group, groupCtx := errgroup.WithContext(ctx)
		group.SetLimit(4)
		for i := range fillerFoos {
			group.Go(func() error {
				foo := harness.NewFoo(namespace, fmt.Sprintf("foo-%03d", i), "friend")
				foo.Annotations = map[string]string{"example.com/filler": filler}
				return k8sClient.Create(groupCtx, foo)
			})
		}
		Expect(group.Wait()).To(Succeed())

		// The current container's log, or the previous one's if the kubelet has OOM-killed it.
		want := fmt.Sprintf(`"memoryLimitBytes":%d`, limit.Value())
		var seen string
		Eventually(func(g Gomega) {
			pod, err := operator.Pod(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			seen = resources.DescribePod(pod)
			var logs strings.Builder
			for _, previous := range []bool{false, true} {
				log, err := clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Previous: previous}).DoRaw(ctx)
				if err == nil {
					logs.Write(log)
				}
			}
			var told []string
			for _, line := range strings.Split(logs.String(), "\n") {
				if strings.Contains(line, memorylimit.LogTooSmall) {
					told = append(told, line)
				}
			}
			g.Expect(told).To(ContainElement(ContainSubstring(want)), "the manager's log lines telling of a too-small limit")
			AddReportEntry("What the manager logged of a too-small memory limit", told[0]+"\nthe pod: "+seen)
		}).WithContext(ctx).WithTimeout(2*time.Minute).Should(Succeed(),
			func() string {
				return "a log line of the manager naming its limit as too small; the operator's pod: " + seen
			})
	})
})

// setOperatorMemory sets the memory limit of the operator's container (and its request, which
// may not exceed it), waits until the Deployment has rolled out, and returns the limit it had.
func setOperatorMemory(ctx context.Context, limit resource.Quantity) resource.Quantity {
	GinkgoHelper()
	deployment := &appsv1.Deployment{}
	key := client.ObjectKey{Namespace: harness.OperatorNamespace, Name: harness.OperatorDeployment}
	Expect(k8sClient.Get(ctx, key, deployment)).To(Succeed())
	patch := client.MergeFrom(deployment.DeepCopy())
	requirements := &deployment.Spec.Template.Spec.Containers[0].Resources
	previous := requirements.Limits[corev1.ResourceMemory]
	requirements.Limits[corev1.ResourceMemory] = limit
	if request := requirements.Requests[corev1.ResourceMemory]; request.Cmp(limit) > 0 {
		requirements.Requests[corev1.ResourceMemory] = limit
	}
	Expect(k8sClient.Patch(ctx, deployment, patch)).To(Succeed())
	operator.ExpectRolledOut(ctx, *deployment.Spec.Replicas, "with a memory limit of "+limit.String())
	return previous
}

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

package security

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/harness"
)

var _ = Describe("Restricted Pod Security", func() {
	// managerPod is a pod made from the manager Deployment's template, as its ReplicaSet
	// would make it, in the namespace config/default installs it into.
	managerPod := func(name string) *corev1.Pod {
		GinkgoHelper()
		object := harness.Find(environment.Installed, "Deployment", harness.OperatorDeployment)
		Expect(object).NotTo(BeNil(), "config/default renders no manager Deployment")
		var deployment appsv1.Deployment
		Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &deployment)).To(Succeed())
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: deployment.Namespace, Name: name,
				Labels: deployment.Spec.Template.Labels, Annotations: deployment.Spec.Template.Annotations,
			},
			Spec: deployment.Spec.Template.Spec,
		}
	}

	It("enforces the restricted level in the operator's namespace", func(ctx context.Context) {
		var namespace corev1.Namespace
		Expect(environment.ControlPlane.Client.Get(ctx, client.ObjectKey{Name: harness.OperatorNamespace}, &namespace)).To(Succeed())
		Expect(namespace.Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "restricted"))
	})

	It("admits the manager pod there", func(ctx context.Context) {
		Expect(environment.ControlPlane.Client.Create(ctx, managerPod("manager-as-shipped"))).To(Succeed())
	})

	It("would refuse a manager pod that may escalate its privileges", func(ctx context.Context) {
		// The control that shows the enforcement is on: the same pod, one setting weaker.
		pod := managerPod("manager-escalating")
		pod.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
		err := environment.ControlPlane.Client.Create(ctx, pod)
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "want a Pod Security refusal, got %v", err)
		Expect(err.Error()).To(ContainSubstring(`violates PodSecurity "restricted:latest"`))
		Expect(err.Error()).To(ContainSubstring("allowPrivilegeEscalation != false"))
	})
})

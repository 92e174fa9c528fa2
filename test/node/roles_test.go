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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/test/harness"
)

// The Foo roles of config/rbac aggregate into the cluster's admin, edit and view roles (the
// kube-controller-manager's aggregation controller copies their rules): a user bound to one
// of those in a namespace gets what it says for Foos there, and no one but the operator
// writes a Foo's status.
var _ = Describe("Users bound to the cluster's roles in a namespace", func() {
	var namespace string

	BeforeEach(func(ctx context.Context) {
		namespace = createNamespace(ctx, "roles-", nil)
		for _, role := range []string{"view", "edit", "admin"} {
			Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: role},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
				Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: userOf(role)}},
			})).To(Succeed())
		}
		Expect(k8sClient.Create(ctx, harness.NewFoo(namespace, "foo-01", "jack"))).To(Succeed())
	})

	It("can do with Foos what their role says, and none of them can write a Foo's status", func(ctx context.Context) {
		view, edit, admin := impersonating("view"), impersonating("edit"), impersonating("admin")
		key := types.NamespacedName{Namespace: namespace, Name: "foo-01"}

		By("reading Foos as view, edit and admin, once the aggregation controller has given their roles the Foo rules")
		for _, user := range []client.Client{view, edit, admin} {
			Eventually(func() error { return user.Get(ctx, key, &tutorialv1.Foo{}) }).WithContext(ctx).Should(Succeed(),
				"reading Foo %s", key)
			Expect(user.List(ctx, &tutorialv1.FooList{}, client.InNamespace(namespace))).To(Succeed())
		}

		By("refusing view any change")
		Expect(view.Create(ctx, harness.NewFoo(namespace, "by-view", "jack"))).To(beForbidden())
		Expect(view.Patch(ctx, fooNamed(key), specPatch("joe"))).To(beForbidden())
		Expect(view.Delete(ctx, fooNamed(key))).To(beForbidden())

		By("letting edit and admin create, change and delete Foos")
		for role, user := range map[string]client.Client{"edit": edit, "admin": admin} {
			created := types.NamespacedName{Namespace: namespace, Name: "by-" + role}
			Expect(user.Create(ctx, harness.NewFoo(namespace, created.Name, "jack"))).To(Succeed(), "%s creating a Foo", role)
			Expect(user.Patch(ctx, fooNamed(created), specPatch("joe"))).To(Succeed(), "%s changing a Foo's spec", role)
			Expect(user.Delete(ctx, fooNamed(created))).To(Succeed(), "%s deleting a Foo", role)
		}

		By("refusing every one of them a write of a Foo's status, which only the operator makes")
		for role, user := range map[string]client.Client{"view": view, "edit": edit, "admin": admin} {
			Expect(user.Status().Patch(ctx, fooNamed(key), client.RawPatch(types.MergePatchType, []byte(`{"status":{"happy":true}}`)))).
				To(beForbidden(), "%s patching the status of %s", role, key)
			foo := &tutorialv1.Foo{}
			Expect(user.Get(ctx, key, foo)).To(Succeed())
			foo.Status.Happy = true
			Expect(user.Status().Update(ctx, foo)).To(beForbidden(), "%s updating the status of %s", role, key)
		}
	})
})

// userOf names the user the spec binds to role.
func userOf(role string) string { return "user-with-" + role }

// impersonating is a client of the cluster acting as the user bound to role, as an
// authenticated user with no other group.
func impersonating(role string) client.Client {
	GinkgoHelper()
	config := cluster.RESTConfig()
	config.Impersonate = rest.ImpersonationConfig{UserName: userOf(role), Groups: []string{"system:authenticated"}}
	c, err := client.New(config, client.Options{Scheme: harness.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}

func fooNamed(key types.NamespacedName) *tutorialv1.Foo {
	return &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
}

func specPatch(friend string) client.Patch {
	return client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"name":%q}}`, friend)))
}

// beForbidden matches the error of a request the apiserver's authorizer refused.
func beForbidden() OmegaMatcher {
	return Satisfy(apierrors.IsForbidden)
}

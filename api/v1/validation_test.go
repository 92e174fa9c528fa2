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

package v1_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// Every write here is sent as raw bytes, as kubectl would send a user's manifest, with
// strict field validation (kubectl's default), so that wrong types, unknown and duplicate
// fields reach the apiserver instead of being caught or dropped by a Go client.

const (
	jsonContent = "application/json"
	yamlContent = "application/yaml"
	mergePatch  = string(types.MergePatchType)
)

// fooJSON is a Foo manifest named "bad" with the given spec, in JSON.
func fooJSON(spec string) string {
	return fmt.Sprintf(`{"apiVersion":"tutorial.my.domain/v1","kind":"Foo","metadata":{"name":"bad"},"spec":%s}`, spec)
}

// fooWithMetadataJSON is a Foo manifest with a valid spec and the given metadata, in JSON.
func fooWithMetadataJSON(metadata string) string {
	return fmt.Sprintf(`{"apiVersion":"tutorial.my.domain/v1","kind":"Foo","metadata":%s,"spec":{"name":"jack"}}`, metadata)
}

// fooYAML is a Foo manifest named "bad" whose spec is the given YAML block.
func fooYAML(spec string) string {
	return "apiVersion: tutorial.my.domain/v1\nkind: Foo\nmetadata:\n  name: bad\nspec:\n" + spec
}

var _ = Describe("The Foo API", func() {
	var (
		ctx       context.Context
		namespace string
		rest      rest.Interface
	)

	BeforeEach(func() {
		ctx = context.Background()
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "foo-api-"}}
		Expect(k8sClient.Create(ctx, ns)).To(Succeed())
		namespace = ns.Name
		rest = kubernetes.NewForConfigOrDie(config).Discovery().RESTClient()
	})

	foosPath := func() string {
		return fmt.Sprintf("/apis/%s/namespaces/%s/foos", tutorialv1.GroupVersion, namespace)
	}
	create := func(contentType, manifest string) error {
		return rest.Post().AbsPath(foosPath()).Param("fieldValidation", "Strict").
			SetHeader("Content-Type", contentType).Body([]byte(manifest)).Do(ctx).Error()
	}
	patch := func(name, subresource, body string) error {
		return rest.Patch(types.MergePatchType).AbsPath(foosPath(), name, subresource).
			Param("fieldValidation", "Strict").Body([]byte(body)).Do(ctx).Error()
	}
	expectRejected := func(err error, wantMessages []string) {
		GinkgoHelper()
		Expect(err).To(HaveOccurred(), "the apiserver accepted it")
		var status apierrors.APIStatus
		Expect(errors.As(err, &status)).To(BeTrue(), "want an API status, got %v", err)
		Expect(int(status.Status().Code)).To(BeElementOf(http.StatusBadRequest, http.StatusUnprocessableEntity),
			"a bad manifest is the user's error, not the server's: %v", err)
		for _, want := range wantMessages {
			Expect(err.Error()).To(ContainSubstring(want), "the message must say what to fix")
		}
	}

	DescribeTable("rejects an invalid new Foo with a message that tells what to fix",
		func(contentType, manifest string, wantMessages ...string) {
			expectRejected(create(contentType, manifest), wantMessages)
		},
		// spec.name: a pod name, that is a DNS-1123 subdomain.
		Entry("no spec", jsonContent, `{"apiVersion":"tutorial.my.domain/v1","kind":"Foo","metadata":{"name":"bad"}}`,
			"spec: Required value"),
		Entry("no spec.name", jsonContent, fooJSON(`{}`), "spec.name: Required value"),
		Entry("null spec.name", jsonContent, fooJSON(`{"name":null}`), "spec.name: Required value"),
		Entry("empty spec.name", jsonContent, fooJSON(`{"name":""}`), "spec.name", "should be at least 1 chars long"),
		Entry("uppercase", jsonContent, fooJSON(`{"name":"Jack"}`), `spec.name: Invalid value: "Jack"`, "must be a valid pod name"),
		Entry("underscore", jsonContent, fooJSON(`{"name":"jack_1"}`), `spec.name: Invalid value: "jack_1"`, "must be a valid pod name"),
		Entry("leading dash", jsonContent, fooJSON(`{"name":"-jack"}`), "spec.name", "starting and ending with a letter or digit"),
		Entry("trailing dash", jsonContent, fooJSON(`{"name":"jack-"}`), "spec.name", "starting and ending with a letter or digit"),
		Entry("leading dot", jsonContent, fooJSON(`{"name":".jack"}`), "spec.name", "must be a valid pod name"),
		Entry("trailing dot", jsonContent, fooJSON(`{"name":"jack."}`), "spec.name", "must be a valid pod name"),
		Entry("two dots in a row", jsonContent, fooJSON(`{"name":"web..backup"}`), "spec.name", "must be a valid pod name"),
		Entry("space", jsonContent, fooJSON(`{"name":"jack 1"}`), "spec.name", "must be a valid pod name"),
		Entry("namespace-qualified name", jsonContent, fooJSON(`{"name":"team-a/jack"}`), "spec.name", "must be a valid pod name"),
		Entry("port suffix", jsonContent, fooJSON(`{"name":"jack:8080"}`), "spec.name", "must be a valid pod name"),
		Entry("non-ASCII letter", jsonContent, fooJSON(`{"name":"jäck"}`), "spec.name", "must be a valid pod name"),
		Entry("254 characters", jsonContent, fooJSON(fmt.Sprintf(`{"name":%q}`, strings.Repeat("a", 254))),
			"spec.name: Too long: may not be more than 253"),
		Entry("10000 characters", jsonContent, fooJSON(fmt.Sprintf(`{"name":%q}`, strings.Repeat("a", 10000))),
			"spec.name: Too long: may not be more than 253"),
		Entry("a number", jsonContent, fooJSON(`{"name":42}`), "spec.name in body must be of type string"),
		Entry("a boolean", jsonContent, fooJSON(`{"name":true}`), "spec.name in body must be of type string"),
		Entry("an object", jsonContent, fooJSON(`{"name":{}}`), "spec.name in body must be of type string"),
		Entry("a list", jsonContent, fooJSON(`{"name":["jack"]}`), "spec.name in body must be of type string"),
		Entry("unquoted digits in YAML, read as a number", yamlContent, fooYAML("  name: 0123\n"),
			"spec.name in body must be of type string"),
		Entry("unquoted yes in YAML, read as a boolean", yamlContent, fooYAML("  name: yes\n"),
			"spec.name in body must be of type string"),

		// The shape of spec, and fields the API does not have.
		Entry("spec is a string", jsonContent, fooJSON(`"jack"`), "spec in body must be of type object"),
		Entry("spec is a list", jsonContent, fooJSON(`["jack"]`), "spec in body must be of type object"),
		Entry("unknown field in spec", jsonContent, fooJSON(`{"name":"jack","friend":"joe"}`), `unknown field "spec.friend"`),
		Entry("status field in spec", jsonContent, fooJSON(`{"name":"jack","happy":true}`), `unknown field "spec.happy"`),
		Entry("wrong case of a field", jsonContent, fooJSON(`{"Name":"jack"}`), `unknown field "spec.Name"`),
		Entry("duplicate field in JSON", jsonContent, fooJSON(`{"name":"jack","name":"joe"}`), `duplicate field "spec.name"`),
		Entry("duplicate key in YAML", yamlContent, fooYAML("  name: jack\n  name: joe\n"), `key "name" already set`),
		Entry("unknown top-level field", jsonContent,
			`{"apiVersion":"tutorial.my.domain/v1","kind":"Foo","metadata":{"name":"bad"},"spec":{"name":"jack"},"friend":"joe"}`,
			`unknown field "friend"`),

		// Metadata.
		Entry("invalid object name", jsonContent, fooWithMetadataJSON(`{"name":"Foo_1"}`),
			`metadata.name: Invalid value: "Foo_1"`, "lowercase RFC 1123 subdomain"),
		Entry("no object name", jsonContent, fooWithMetadataJSON(`{}`), "name or generateName is required"),
		Entry("object name of 254 characters", jsonContent, fooWithMetadataJSON(fmt.Sprintf(`{"name":%q}`, strings.Repeat("a", 254))),
			"metadata.name", "must be no more than 253"),
		Entry("annotations over 256 KiB", jsonContent,
			fooWithMetadataJSON(fmt.Sprintf(`{"name":"bad","annotations":{"notes":%q}}`, strings.Repeat("x", 300*1024))),
			"metadata.annotations: Too long: may not be more than 262144 bytes"),
		Entry("annotation key with a space", jsonContent, fooWithMetadataJSON(`{"name":"bad","annotations":{"my note":"x"}}`),
			`metadata.annotations: Invalid value: "my note"`),
		Entry("label value over 63 characters", jsonContent,
			fooWithMetadataJSON(fmt.Sprintf(`{"name":"bad","labels":{"team":%q}}`, strings.Repeat("x", 64))),
			"metadata.labels", "must be no more than 63"),
		Entry("invalid finalizer", jsonContent, fooWithMetadataJSON(`{"name":"bad","finalizers":["Keep Me"]}`),
			`metadata.finalizers: Invalid value: "Keep Me"`),

		// The envelope.
		Entry("wrong kind", jsonContent, `{"apiVersion":"tutorial.my.domain/v1","kind":"Bar","metadata":{"name":"bad"},"spec":{"name":"jack"}}`,
			`kind: Invalid value: "Bar": must be Foo`),
		Entry("no kind", jsonContent, `{"apiVersion":"tutorial.my.domain/v1","metadata":{"name":"bad"},"spec":{"name":"jack"}}`,
			"Object 'Kind' is missing"),
		Entry("no apiVersion", jsonContent, `{"kind":"Foo","metadata":{"name":"bad"},"spec":{"name":"jack"}}`,
			"does not match the expected API version (tutorial.my.domain/v1)"),
		Entry("another namespace than the request's", jsonContent,
			fooWithMetadataJSON(`{"name":"bad","namespace":"somewhere-else"}`),
			"the namespace of the provided object does not match the namespace sent on the request"),
		Entry("truncated JSON", jsonContent, `{"apiVersion":"tutorial.my.domain/v1","kind":"Foo","metadata":{"name":"bad"},"spec":{"name":"jack"`,
			"unexpected end of JSON input"),
		Entry("broken YAML", yamlContent, fooYAML("  name: [jack\n"), "did not find expected ',' or ']'"),
	)

	DescribeTable("rejects an invalid change to a Foo's spec",
		func(patchBody string, wantMessages ...string) {
			Expect(create(jsonContent, fooJSON(`{"name":"jack"}`))).To(Succeed())
			expectRejected(patch("bad", "", patchBody), wantMessages)
		},
		Entry("to an invalid pod name", `{"spec":{"name":"Jack"}}`, `spec.name: Invalid value: "Jack"`, "must be a valid pod name"),
		Entry("removing spec.name", `{"spec":{"name":null}}`, "spec.name: Required value"),
		Entry("adding an unknown field", `{"spec":{"friends":["joe"]}}`, `unknown field "spec.friends"`),
	)

	DescribeTable("rejects an invalid status written by someone other than the operator",
		func(statusPatch string, wantMessages ...string) {
			Expect(create(jsonContent, fooJSON(`{"name":"jack"}`))).To(Succeed())
			expectRejected(patch("bad", "status", statusPatch), wantMessages)
		},
		Entry("happy is not a boolean", `{"status":{"happy":"yes"}}`, "status.happy", "happy in body must be of type boolean"),
		Entry("negative observedGeneration", `{"status":{"observedGeneration":-1}}`,
			"status.observedGeneration", "should be greater than or equal to 0"),
		Entry("unknown status field", `{"status":{"bestFriend":"jack"}}`, `unknown field "status.bestFriend"`),
		Entry("friend of the wrong type", `{"status":{"friend":"jack"}}`, `status.friend: Invalid value: "string"`),
		Entry("condition status not True, False or Unknown", `{"status":{"conditions":[`+condition("Happy", "Maybe")+`]}}`,
			`status.conditions[0].status: Unsupported value: "Maybe"`, `supported values: "True", "False", "Unknown"`),
		Entry("condition without a reason", `{"status":{"conditions":[{"type":"Happy","status":"True","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
			"status.conditions[0].reason: Required value"),
		Entry("two conditions of the same type", `{"status":{"conditions":[`+condition("Happy", "True")+`,`+condition("Happy", "False")+`]}}`,
			"status.conditions[1]: Duplicate value"),
		Entry("more than 8 conditions", `{"status":{"conditions":[`+conditions(9)+`]}}`,
			"status.conditions: Too many: 9: must have at most 8 items"),
	)

	It("stores no status sent with a new Foo: only the operator writes status", func() {
		Expect(create(jsonContent, `{"apiVersion":"tutorial.my.domain/v1","kind":"Foo","metadata":{"name":"forged"},`+
			`"spec":{"name":"jack"},"status":{"happy":true,"observedGeneration":7}}`)).To(Succeed())
		var foo tutorialv1.Foo
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "forged"}, &foo)).To(Succeed())
		Expect(foo.Status).To(Equal(tutorialv1.FooStatus{}))
	})

	DescribeTable("accepts every valid pod name as spec.name",
		func(contentType, manifest, wantName string) {
			Expect(create(contentType, manifest)).To(Succeed())
			var foo tutorialv1.Foo
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "bad"}, &foo)).To(Succeed())
			Expect(foo.Spec.Name).To(Equal(wantName))
		},
		Entry("one character", jsonContent, fooJSON(`{"name":"a"}`), "a"),
		Entry("digits only", jsonContent, fooJSON(`{"name":"0123"}`), "0123"),
		Entry("digits only, quoted in YAML", yamlContent, fooYAML("  name: \"0123\"\n"), "0123"),
		Entry("dots and dashes", jsonContent, fooJSON(`{"name":"web-0.backup"}`), "web-0.backup"),
		Entry("253 characters with dots", jsonContent, fooJSON(fmt.Sprintf(`{"name":%q}`, name253WithDots)), name253WithDots),
		Entry("253 characters without dots", jsonContent, fooJSON(fmt.Sprintf(`{"name":%q}`, strings.Repeat("a", 253))),
			strings.Repeat("a", 253)),
	)

	It("accepts a Foo with a generated name", func() {
		Expect(create(jsonContent, `{"apiVersion":"tutorial.my.domain/v1","kind":"Foo","metadata":{"generateName":"foo-"},"spec":{"name":"jack"}}`)).
			To(Succeed())
	})
})

var name253WithDots = strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61)

// condition is a well-formed condition of the given type and status, as JSON.
func condition(conditionType, status string) string {
	return fmt.Sprintf(`{"type":%q,"status":%q,"reason":"Test","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}`,
		conditionType, status)
}

// conditions is n well-formed conditions of distinct types, as a JSON list body.
func conditions(n int) string {
	list := make([]string, n)
	for i := range list {
		list[i] = condition(fmt.Sprintf("Type%d", i), "True")
	}
	return strings.Join(list, ",")
}

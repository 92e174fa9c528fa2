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

// Package suite holds the Ginkgo side of the harness: what a Ginkgo suite calls to set up
// and run its specs. The harness package itself has no test framework in it, so that programs
// such as the benchmark can use it without taking Ginkgo's flags.
package suite

import (
	"context"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/example/foo-operator/hack/localcluster/managerprocess"
	"github.com/example/foo-operator/test/harness"
)

// Environment is what a suite that runs the manager as its own process starts from: a
// control plane with the operator's manifests installed, and the manager binary built.
type Environment struct {
	ControlPlane *harness.ControlPlane
	// Installed is everything config/default renders to.
	Installed  []*unstructured.Unstructured
	ManagerBin string
	// WorkDir holds the binary and whatever else the suite writes; it is removed at the end.
	WorkDir string
	options Options
}

// Options are what tells one suite's Environment from another's.
type Options struct {
	// WorkDirPrefix names the suite's scratch folder.
	WorkDirPrefix string
	// EventuallyTimeout is how long the suite's Eventually waits; it polls every 100ms.
	EventuallyTimeout time.Duration
	// StopTimeout is how long a manager the suite started has to stop when its spec ends.
	StopTimeout time.Duration
}

// RequiredEnv returns the value of the environment variable name, which the make target
// that runs the suite sets; it fails the node that asks, naming what the variable must name
// and that target, if the variable is empty.
func RequiredEnv(name, what, target string) string {
	GinkgoHelper()
	value := os.Getenv(name)
	Expect(value).NotTo(BeEmpty(), "%s must name %s: run the suite with `%s`", name, what, target)
	return value
}

// EnvironmentBeforeSuite declares the BeforeSuite that sets up a Ginkgo suite's Environment
// and registers its teardown, and returns the Environment, which is ready when the specs
// run. Call it at the top level of the suite, where BeforeSuite itself is called.
func EnvironmentBeforeSuite(options Options) *Environment {
	GinkgoHelper()
	env := &Environment{options: options}
	BeforeSuite(env.setUp)
	return env
}

func (env *Environment) setUp(ctx context.Context) {
	SetDefaultEventuallyTimeout(env.options.EventuallyTimeout)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	// A wait given the spec's context still ends at the default timeout.
	EnforceDefaultTimeoutsWhenUsingContexts()

	var err error
	env.WorkDir, err = os.MkdirTemp("", env.options.WorkDirPrefix)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, env.WorkDir)

	env.ManagerBin, err = harness.BuildManager(env.WorkDir)
	Expect(err).NotTo(HaveOccurred())

	env.ControlPlane, err = harness.StartControlPlane()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.ControlPlane.Stop()).To(Succeed()) })

	env.Installed, err = env.ControlPlane.InstallOperator(ctx)
	Expect(err).NotTo(HaveOccurred())
}

// StartOperator runs the manager binary as the operator's ServiceAccount (with its token) and
// the flags of config/manager, plus extraArgs. It is stopped when the spec ends, and its log
// is printed if the spec failed.
func (env *Environment) StartOperator(ctx context.Context, name string, extraArgs ...string) *managerprocess.Manager {
	GinkgoHelper()
	return env.StartOperatorWithEnv(ctx, name, nil, extraArgs...)
}

// StartOperatorWithEnv is StartOperator with the variables of environment (NAME=value) set
// in the manager's environment.
func (env *Environment) StartOperatorWithEnv(ctx context.Context, name string, environment []string, extraArgs ...string) *managerprocess.Manager {
	GinkgoHelper()
	kubeconfig, err := env.ControlPlane.OperatorKubeconfig(ctx, env.WorkDir)
	Expect(err).NotTo(HaveOccurred())
	manager, err := managerprocess.Start(managerprocess.Options{
		Binary: env.ManagerBin, Kubeconfig: kubeconfig, LogDir: env.WorkDir, Name: name,
		Args: append(append([]string{}, harness.LeaderElectionArgs...), extraArgs...), Env: environment,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		_, _ = manager.Stop(env.options.StopTimeout)
		if CurrentSpecReport().Failed() {
			GinkgoWriter.Printf("Log of manager %s:\n%s\n", manager.Name, manager.Logs())
		}
	})
	return manager
}

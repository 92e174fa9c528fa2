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

package localcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/example/foo-operator/hack/localcluster/controlplane"
	"github.com/example/foo-operator/hack/localcluster/faults"
	"github.com/example/foo-operator/hack/localcluster/node"
	"github.com/example/foo-operator/hack/localcluster/olm"
	"github.com/example/foo-operator/hack/localcluster/pki"
	"github.com/example/foo-operator/hack/localcluster/process"
	"github.com/example/foo-operator/hack/localcluster/registry"
	"github.com/example/foo-operator/hack/localcluster/resources"
)

// Options says which parts of a local cluster to start.
type Options struct {
	// Dir is the cluster's folder: certificates, etcd's data, kubeconfigs, the node's state
	// and, in logs/, the log of every process. It is emptied first, and removed by Stop.
	Dir string
	// KeepLogs keeps the logs folder when Stop removes the rest of Dir.
	KeepLogs bool
	// Assets are the programs to run and the node's images; AssetsFromEnv finds them as
	// `make` builds them.
	Assets Assets
	// Progress receives one line per phase with its time; nil prints nothing.
	Progress io.Writer

	// CRDPaths and CRDs are installed once the apiserver is ready, and waited for.
	CRDPaths []string
	CRDs     []*apiextensionsv1.CustomResourceDefinition
	// APIServerFlags are set on kube-apiserver besides (or over) the library's own.
	APIServerFlags map[string]string

	// Node runs the cluster as a real one: a kube-scheduler, a kube-controller-manager and
	// one node (containerd, runc, kubelet, kube-proxy, CoreDNS), all inside a private
	// network namespace; pods then really run. Needs root and Registry.
	Node bool
	// Registry runs the image registry (on the machine's loopback; a node pulls from it
	// under the same name). Its folder is RegistryDir, outside Dir, whose images and CA
	// outlive the cluster; or, if empty, Dir/registry.
	Registry    bool
	RegistryDir string
	// RegistryAddress is the registry's host:port on loopback; empty picks a free port.
	RegistryAddress string
	// RegistryMirrors are registries (such as quay.io) whose images the node pulls from the
	// local registry instead, under the same repository and tag, as a cluster without a
	// route to them is set up to. PushLayout pushes an image named after one of them there.
	RegistryMirrors []string

	// OLMv0 and OLMv1 install OLM v0 (olm.V0Version) and OLM v1 (olm.V1Version) once the node
	// is up, each from its release manifests, with its images built here and published in the
	// registry (see InstallOLMv0 and InstallOLMv1). They need Node, and add olm.Mirrors to
	// RegistryMirrors.
	OLMv0, OLMv1 bool
}

// Cluster is a running local cluster.
type Cluster struct {
	// Dir and LogDir are the cluster's folder and the folder of its processes' logs.
	Dir, LogDir string
	// Config authenticates as a cluster administrator (system:masters).
	Config *rest.Config
	// Clientset is an administrator's typed client.
	Clientset *kubernetes.Clientset
	// Kubeconfig is an administrator's kubeconfig file.
	Kubeconfig string
	// Registry is the image registry, if Options.Registry.
	Registry *registry.Registry
	// Namespace holds the node and every pod and service address, if Options.Node.
	Namespace *process.Namespace
	// NodeName is the name of the node, if Options.Node.
	NodeName string
	// ControlPlane and, if Options.Node, Node are the cluster's parts.
	ControlPlane *controlplane.ControlPlane
	Node         *node.Node
	// Injector breaks the cluster's node and control plane (its methods are the Cluster's).
	*faults.Injector

	opts      Options
	progress  process.Progress
	processes process.Group
	host      *process.Host

	// olm installs OLM on the cluster; made at its first use.
	olm     *olm.Installer
	olmOnce sync.Once

	stopOnce sync.Once
	stopErr  error
	// unwatch stops the signal handler that stops the cluster on Ctrl-C.
	unwatch func()
}

// Start starts the parts of a cluster that opts asks for and returns once they serve. On
// failure it stops what it started and returns an error that ends with the log tails of
// the processes involved.
func Start(ctx context.Context, opts Options) (_ *Cluster, err error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	opts.RegistryMirrors = opts.registryMirrors()
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if opts.RegistryDir != "" && strings.HasPrefix(filepath.Clean(opts.RegistryDir)+"/", dir+"/") {
		return nil, fmt.Errorf("the registry's folder %s must not be inside the cluster's %s, which is emptied", opts.RegistryDir, dir)
	}
	if err := emptyDir(dir); err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, LogDir: filepath.Join(dir, "logs"), opts: opts, progress: process.Progress{W: opts.Progress}}
	if c.progress.W == nil {
		c.progress = process.Discard
	}
	c.host = &process.Host{Dir: dir, LogDir: c.LogDir, Group: &c.processes, Progress: c.progress}
	c.unwatch = c.stopOnSignal()
	defer func() {
		if err != nil {
			tails := c.LogTails(30)
			err = errors.Join(err, c.Stop())
			if tails != "" {
				err = fmt.Errorf("%w\n%s", err, tails)
			}
		}
	}()

	if opts.Registry {
		if err := c.progress.Phase("Starting the image registry", func() (string, error) {
			c.Registry, err = registry.Start(ctx, registry.Options{
				Binary: opts.Assets.Registry, Dir: opts.registryDir(dir), LogDir: c.LogDir, Address: opts.RegistryAddress,
			})
			if err != nil {
				return "", err
			}
			return "https://" + c.Registry.Host, nil
		}); err != nil {
			return nil, err
		}
	}
	if opts.Node {
		if err := c.progress.Phase("Making the node's network, mount and PID namespace", func() (string, error) {
			err := node.StartNamespace(ctx, c.host, c.Registry.Host)
			c.Namespace = c.host.Namespace
			return fmt.Sprintf("node address %s, no route out", controlplane.NodeIP), err
		}); err != nil {
			return nil, err
		}
	}
	assets := opts.Assets
	if c.ControlPlane, err = controlplane.Start(ctx, c.host, controlplane.Options{
		Etcd: assets.Etcd, APIServer: assets.APIServer, ControllerManager: assets.ControllerManager, Scheduler: assets.Scheduler,
		Node: opts.Node, APIServerFlags: opts.APIServerFlags,
	}); err != nil {
		return nil, err
	}
	c.Config, c.Clientset, c.Kubeconfig = c.ControlPlane.Config, c.ControlPlane.Clientset, c.ControlPlane.Kubeconfig
	if opts.Node {
		if c.Node, err = node.Start(ctx, c.host, c.ControlPlane, c.Registry, node.Options{
			Containerd: assets.Containerd, Runc: assets.Runc, CNIPlugins: assets.CNIPlugins, Kubelet: assets.Kubelet,
			KubeProxy: assets.KubeProxy, Images: assets.NodeImages, RegistryMirrors: opts.RegistryMirrors,
		}); err != nil {
			return nil, err
		}
		c.NodeName = controlplane.NodeName
	}
	c.Injector = &faults.Injector{Node: c.Node, ControlPlane: c.ControlPlane, Host: c.host}
	if len(opts.CRDPaths) > 0 || len(opts.CRDs) > 0 {
		if err := c.progress.Phase("Installing CustomResourceDefinitions", func() (string, error) {
			_, err := envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{
				Paths: opts.CRDPaths, CRDs: opts.CRDs, ErrorIfPathMissing: true,
			})
			return "", err
		}); err != nil {
			return nil, err
		}
	}
	if err := c.installOLM(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// check fails for options that cannot start a cluster, saying what is missing.
func (o Options) check() error {
	if o.Dir == "" {
		return errors.New("the local cluster needs a folder (Options.Dir)")
	}
	if o.Node && !o.Registry {
		return errors.New("a node pulls every image from the local registry: set Options.Registry too")
	}
	if (o.OLMv0 || o.OLMv1) && !o.Node {
		return errors.New("OLM runs as pods: set Options.Node too")
	}
	return o.Assets.check(o)
}

// registryMirrors are the registries the node mirrors to the local registry: those asked
// for, and OLM's if OLM is to be installed.
func (o Options) registryMirrors() []string {
	mirrors := slices.Clone(o.RegistryMirrors)
	if o.OLMv0 || o.OLMv1 {
		for _, mirrored := range olm.Mirrors {
			if !slices.Contains(mirrors, mirrored) {
				mirrors = append(mirrors, mirrored)
			}
		}
	}
	return mirrors
}

// installOLM installs the generations of OLM the options ask for, side by side: each spends
// most of its time waiting for its pods to start (about 20 s each), and neither needs the other.
func (c *Cluster) installOLM(ctx context.Context) error {
	installs, ctx := errgroup.WithContext(ctx)
	if c.opts.OLMv0 {
		installs.Go(func() error {
			_, err := c.InstallOLMv0(ctx)
			return err
		})
	}
	if c.opts.OLMv1 {
		installs.Go(func() error { return c.InstallOLMv1(ctx) })
	}
	return installs.Wait()
}

// WriteKubeconfig writes a kubeconfig for user in groups, with a client certificate the
// cluster's CA signs (controlplane.ControlPlane.WriteKubeconfig).
func (c *Cluster) WriteKubeconfig(path, user string, groups []string) error {
	return c.ControlPlane.WriteKubeconfig(path, user, groups)
}

// WriteTokenKubeconfig writes a kubeconfig that authenticates with a bearer token, such as a
// ServiceAccount's.
func (c *Cluster) WriteTokenKubeconfig(path, token string) error {
	return c.ControlPlane.WriteTokenKubeconfig(path, token)
}

// CAFile is the PEM file of the CA that signed the apiserver's certificate.
func (c *Cluster) CAFile() string { return c.ControlPlane.CAFile() }

// Image is the reference, in the local registry, of the node image name (pause, coredns,
// busybox, httpget), as pushed at start; "" without a node.
func (c *Cluster) Image(name string) string {
	if c.Node == nil {
		return ""
	}
	return c.Node.Image(name)
}

// MirrorRegistry makes the node pull the images named after the registry mirrored from
// mirror instead (node.Node.MirrorRegistry).
func (c *Cluster) MirrorRegistry(mirrored string, mirror *registry.Registry) error {
	if c.Node == nil {
		return errors.New("only a cluster with a node pulls images")
	}
	return c.Node.MirrorRegistry(mirrored, mirror)
}

// WaitDeploymentAvailable waits until a Deployment of the cluster has all its replicas
// updated and available (resources.WaitDeploymentAvailable).
func (c *Cluster) WaitDeploymentAvailable(ctx context.Context, namespace, name string, timeout time.Duration) error {
	return resources.WaitDeploymentAvailable(ctx, c.Clientset, namespace, name, timeout)
}

// olmInstaller is the cluster's OLM installer, made at its first use (once the node runs).
func (c *Cluster) olmInstaller() *olm.Installer {
	c.olmOnce.Do(func() {
		assets := c.opts.Assets
		c.olm = &olm.Installer{
			Dir: filepath.Join(c.Dir, "olm"), Progress: c.progress, Config: c.Config, Clientset: c.Clientset,
			Registry: c.Registry, RegistryMirrors: c.opts.RegistryMirrors, Busybox: c.Image("busybox"),
			ServiceCertificate: c.ServiceCertificate, OLMv0Module: assets.OLMv0Module, OLMv1Module: assets.OLMv1Module,
			Helm: assets.Helm, Kustomize: assets.Kustomize, OLMImages: assets.OLMImages,
		}
	})
	return c.olm
}

// InstallOLMv0 installs OLM v0 on the cluster from its release manifests, and returns the
// folder of those manifests (olm.Installer.InstallV0).
func (c *Cluster) InstallOLMv0(ctx context.Context) (releaseDir string, err error) {
	return c.olmInstaller().InstallV0(ctx)
}

// InstallOLMv1 installs OLM v1 on the cluster from its release manifests (olm.Installer.InstallV1).
func (c *Cluster) InstallOLMv1(ctx context.Context) error {
	return c.olmInstaller().InstallV1(ctx)
}

func (o Options) registryDir(dir string) string {
	if o.RegistryDir != "" {
		return o.RegistryDir
	}
	return filepath.Join(dir, "registry")
}

// emptyDir makes dir an empty folder.
func emptyDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

// Stop stops everything the cluster started, last started first, and removes its folder
// (but for its logs, if Options.KeepLogs; the images of a registry with a RegistryDir stay
// there). It is safe to call more
// than once and from several goroutines; every call returns the first one's result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		if c.unwatch != nil {
			c.unwatch()
		}
		var errs []error
		processes := c.processes.Close()
		// The node's namespace first: that ends its processes and every container at once.
		if c.Namespace != nil {
			errs = append(errs, c.progress.Phase("Stopping the node", func() (string, error) {
				c.Namespace.Stop()
				for _, p := range processes {
					if p.InNamespace() {
						<-p.Exited()
					}
				}
				return "", c.Node.RemoveCgroups()
			}))
		}
		for i := len(processes) - 1; i >= 0; i-- {
			p := processes[i]
			if p.Running() {
				if _, err := p.Stop(10 * time.Second); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if c.Registry != nil {
			errs = append(errs, c.Registry.Stop())
		}
		errs = append(errs, c.removeDir())
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// removeDir removes the cluster's folder, or all of it but the logs.
func (c *Cluster) removeDir() error {
	if !c.opts.KeepLogs {
		return os.RemoveAll(c.Dir)
	}
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, entry := range entries {
		if path := filepath.Join(c.Dir, entry.Name()); path != c.LogDir {
			errs = append(errs, os.RemoveAll(path))
		}
	}
	return errors.Join(errs...)
}

// stopOnSignal stops the cluster on SIGINT or SIGTERM, then lets the signal do what it
// would have done: a Ctrl-C leaves nothing running, whatever the caller does with it.
func (c *Cluster) stopOnSignal() (unwatch func()) {
	signals := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case sig := <-signals:
			signal.Stop(signals)
			_, _ = fmt.Fprintf(os.Stderr, "\n%s: stopping the local cluster in %s\n", sig, c.Dir)
			_ = c.Stop()
			_ = syscall.Kill(os.Getpid(), sig.(syscall.Signal))
		case <-done:
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(signals)
			close(done)
		})
	}
}

// LogTails is the last n lines of the log of every process the cluster started (the
// ended ones first), for a failure report.
func (c *Cluster) LogTails(n int) string {
	processes := c.processes.All()
	sort.SliceStable(processes, func(i, j int) bool { return !processes[i].Running() && processes[j].Running() })
	var tails []string
	for _, p := range processes {
		tails = append(tails, "----- "+p.Tail(n))
	}
	if c.Registry != nil {
		tails = append(tails, "----- "+process.Tail(c.Registry.LogFile, n))
	}
	if len(tails) == 0 {
		return ""
	}
	return strings.Join(tails, "\n") + "\n(every log is whole in " + c.LogDir + ")"
}

// ServiceCertificate returns what cert-manager would write into the kubernetes.io/tls Secret
// of a Certificate for an in-cluster Service: a serving certificate for dnsNames and its key,
// and the certificate of the CA that signed it (ca.crt). The CA is the cluster's own for its
// Services, kept in the cluster's folder; nothing outside the cluster trusts it.
func (c *Cluster) ServiceCertificate(name string, dnsNames []string) (certPEM, keyPEM, caPEM []byte, err error) {
	return pki.IssueServing(filepath.Join(c.Dir, "pki", "services"), "foo-operator local cluster services CA", name, dnsNames)
}

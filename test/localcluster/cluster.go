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

	// OLMv0 and OLMv1 install OLM v0 (OLMv0Version) and OLM v1 (OLMv1Version) once the node
	// is up, each from its release manifests, with its images built here and published in the
	// registry (see InstallOLMv0 and InstallOLMv1). They need Node, and add OLMMirrors to
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
	Registry *Registry
	// Namespace holds the node and every pod and service address, if Options.Node.
	Namespace *Namespace
	// NodeName is the name of the node, if Options.Node.
	NodeName string

	opts      Options
	progress  Progress
	processes processes
	cp        *controlPlane
	node      *node

	// olmImagesPushed tells that OLM's images are in the registry already; olmImagesMu
	// holds back an install of one OLM until the other's push of them is done.
	olmImagesMu     sync.Mutex
	olmImagesPushed bool

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
	c := &Cluster{Dir: dir, LogDir: filepath.Join(dir, "logs"), opts: opts, progress: Progress{W: opts.Progress}}
	if c.progress.W == nil {
		c.progress = discard
	}
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
			c.Registry, err = StartRegistry(ctx, RegistryOptions{
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
			if err := sweepLeftovers(); err != nil {
				return "", err
			}
			c.Namespace, err = startNamespace(ctx, c.LogDir)
			if err != nil {
				return "", err
			}
			if err := setUpNamespace(ctx, c.Namespace, filepath.Join(dir, "node")); err != nil {
				return "", err
			}
			return fmt.Sprintf("node address %s, no route out", nodeIP), c.Namespace.ForwardIn(c.Registry.Host)
		}); err != nil {
			return nil, err
		}
	}
	if _, err = startControlPlane(ctx, c); err != nil {
		return nil, err
	}
	if opts.Node {
		if c.node, err = startNode(ctx, c); err != nil {
			return nil, err
		}
	}
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
		for _, mirrored := range OLMMirrors {
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

// start starts a process of the cluster, stopped by Stop.
func (c *Cluster) start(opts ProcessOptions) (*Process, error) {
	opts.LogDir = c.LogDir
	return c.processes.start(opts)
}

// startRestarting starts a process that the cluster starts again whenever it ends on its
// own, a second later, as the kubelet does a static pod of the control plane: kube-scheduler
// and kube-controller-manager end themselves on some errors by design (a scheduler whose
// cache went inconsistent across an apiserver outage exits), and a cluster without them
// schedules nothing. Each run appends to the same log, which says how the last one ended.
func (c *Cluster) startRestarting(opts ProcessOptions) error {
	p, err := c.start(opts)
	if err != nil {
		return err
	}
	go func() {
		for {
			<-p.Exited()
			time.Sleep(time.Second)
			next, err := c.start(opts)
			if err != nil {
				return // the cluster is stopping
			}
			p = next
		}
	}()
	return nil
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
		processes := c.processes.close()
		// The node's namespace first: that ends its processes and every container at once.
		if c.Namespace != nil {
			errs = append(errs, c.progress.Phase("Stopping the node", func() (string, error) {
				c.Namespace.stop()
				for _, p := range processes {
					if p.inNamespace {
						<-p.Exited()
					}
				}
				return "", removeCgroups(c.node)
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
	processes := c.processes.all()
	sort.SliceStable(processes, func(i, j int) bool { return !processes[i].Running() && processes[j].Running() })
	var tails []string
	for _, p := range processes {
		tails = append(tails, "----- "+p.Tail(n))
	}
	if c.Registry != nil {
		tails = append(tails, "----- "+Tail(c.Registry.LogFile, n))
	}
	if len(tails) == 0 {
		return ""
	}
	return strings.Join(tails, "\n") + "\n(every log is whole in " + c.LogDir + ")"
}

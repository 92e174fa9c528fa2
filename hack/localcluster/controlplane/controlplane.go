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

package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/example/foo-operator/hack/localcluster/pki"
	"github.com/example/foo-operator/hack/localcluster/process"
)

// The cluster's addresses. They exist only inside the node's namespace; a cluster without a
// node has no pod or service traffic at all.
const (
	// NodeIP is the node's address: the apiserver advertises it, the kubelet reports it.
	NodeIP = "10.200.0.2"
	// ServiceCIDR holds the Service ClusterIPs; the first one is the kubernetes Service's.
	ServiceCIDR         = "10.96.0.0/16"
	KubernetesServiceIP = "10.96.0.1"
	// DNSServiceIP is CoreDNS's Service, the pods' nameserver.
	DNSServiceIP = "10.96.0.10"
	// PodCIDR is the node's pod address range.
	PodCIDR       = "10.244.0.0/24"
	ClusterDomain = "cluster.local"
	// NodeName names the node; /etc/hosts of the namespace resolves it to NodeIP.
	NodeName = "local-node"
)

// Options says what the control plane runs.
type Options struct {
	// The binaries: etcd and kube-apiserver always, the others for a cluster with a node.
	Etcd, APIServer, ControllerManager, Scheduler string
	// Node starts kube-controller-manager and kube-scheduler, and serves the node's network:
	// the host's namespace must be the node's.
	Node bool
	// APIServerFlags are added to kube-apiserver's flags, or replace them.
	APIServerFlags map[string]string
}

// ControlPlane is etcd, kube-apiserver and, for a node, kube-controller-manager and
// kube-scheduler, with the certificates they and their clients use.
type ControlPlane struct {
	// Config authenticates as a cluster administrator (system:masters).
	Config *rest.Config
	// Clientset is an administrator's typed client.
	Clientset *kubernetes.Clientset
	// Kubeconfig is an administrator's kubeconfig file.
	Kubeconfig string

	host    *process.Host
	opts    Options
	pki     string
	ca      *pki.CA
	address string // host:port of the apiserver, the same inside the node's namespace and out
	etcdURL string

	apiserverOptions process.Options
	apiserver        *process.Process
}

// Start starts the control plane and returns once kube-apiserver is ready.
func Start(ctx context.Context, host *process.Host, opts Options) (*ControlPlane, error) {
	cp := &ControlPlane{host: host, opts: opts, pki: filepath.Join(host.Dir, "pki")}
	c := host
	var etcdURL string
	err := c.Progress.Phase("Starting etcd", func() (string, error) {
		var err error
		if cp.ca, err = pki.LoadOrCreate(cp.pki); err != nil {
			return "", err
		}
		ports, err := process.FreePorts(2)
		if err != nil {
			return "", err
		}
		etcdURL = "http://127.0.0.1:" + strconv.Itoa(ports[0])
		etcd, err := c.Start(process.Options{
			Name: "etcd", Binary: opts.Etcd, Namespace: c.Namespace,
			Args: []string{
				"--data-dir=" + filepath.Join(c.Dir, "etcd"),
				"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
				"--listen-peer-urls=http://127.0.0.1:" + strconv.Itoa(ports[1]),
				// A local cluster is thrown away; not waiting for the disk makes every write faster.
				"--unsafe-no-fsync",
			},
		})
		if err != nil {
			return "", err
		}
		return etcdURL, process.Poll(ctx, 30*time.Second, "etcd to serve "+etcdURL, func() (bool, string) {
			if !etcd.Running() {
				return false, "etcd ended"
			}
			conn, err := c.Dial("tcp", etcdURL[len("http://"):])
			if err != nil {
				return false, err.Error()
			}
			_ = conn.Close()
			return true, ""
		})
	})
	if err != nil {
		return nil, err
	}
	cp.etcdURL = etcdURL

	err = c.Progress.Phase("Starting kube-apiserver", func() (string, error) {
		if err := cp.startAPIServer(ctx, etcdURL); err != nil {
			return "", err
		}
		return "https://" + cp.address, nil
	})
	if err != nil {
		return nil, err
	}
	cp.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	if err := cp.WriteKubeconfig(cp.Kubeconfig, "admin", []string{"system:masters"}); err != nil {
		return nil, err
	}
	if cp.Clientset, err = kubernetes.NewForConfig(cp.Config); err != nil {
		return nil, err
	}

	if opts.Node {
		if err := c.Progress.Phase("Starting kube-controller-manager", func() (string, error) {
			return "", cp.startControllerManager()
		}); err != nil {
			return nil, err
		}
	}
	if opts.Node {
		if err := c.Progress.Phase("Starting kube-scheduler", func() (string, error) {
			return "", cp.startScheduler()
		}); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

func (cp *ControlPlane) startAPIServer(ctx context.Context, etcdURL string) error {
	c := cp.host
	ports, err := process.FreePorts(1)
	if err != nil {
		return err
	}
	cp.address = "127.0.0.1:" + strconv.Itoa(ports[0])
	serving, servingKey, err := cp.ca.Serving(cp.pki, "kube-apiserver",
		[]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(NodeIP), net.ParseIP(KubernetesServiceIP)},
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc." + ClusterDomain})
	if err != nil {
		return err
	}
	saKey, saPublicKey, err := pki.ServiceAccountKeys(cp.pki)
	if err != nil {
		return err
	}
	flags := map[string]string{
		"etcd-servers":                     etcdURL,
		"secure-port":                      strconv.Itoa(ports[0]),
		"tls-cert-file":                    serving,
		"tls-private-key-file":             servingKey,
		"client-ca-file":                   filepath.Join(cp.pki, pki.CertFile),
		"service-account-issuer":           "https://kubernetes.default.svc." + ClusterDomain,
		"service-account-key-file":         saPublicKey,
		"service-account-signing-key-file": saKey,
		"service-cluster-ip-range":         ServiceCIDR,
		"authorization-mode":               "Node,RBAC",
		"allow-privileged":                 "true",
	}
	if cp.opts.Node {
		kubeletClient, kubeletClientKey, err := cp.ca.Client(cp.pki, "apiserver-kubelet-client", "kube-apiserver-kubelet-client",
			[]string{"system:masters"})
		if err != nil {
			return err
		}
		// Inside the namespace only loopback and the node's interface exist; pods reach the
		// apiserver at NodeIP through the kubernetes Service.
		flags["bind-address"] = "0.0.0.0"
		flags["advertise-address"] = NodeIP
		flags["enable-admission-plugins"] = "NodeRestriction"
		flags["kubelet-client-certificate"] = kubeletClient
		flags["kubelet-client-key"] = kubeletClientKey
		// The node's name is in the namespace's /etc/hosts, not in the machine's resolver.
		flags["kubelet-preferred-address-types"] = "InternalIP,Hostname"
	} else {
		flags["bind-address"] = "127.0.0.1"
		// Without a node, the apiserver is reached on loopback only; the kubernetes Service
		// cannot point there (Endpoints refuse loopback addresses), and nothing would use it.
		flags["advertise-address"] = "127.0.0.1"
		flags["endpoint-reconciler-type"] = "none"
		// No controller creates the namespaces' default ServiceAccounts: admit pods without
		// them, as the tests' pods are only objects.
		flags["disable-admission-plugins"] = "ServiceAccount"
	}
	// The aggregation layer, as kubeadm sets it up: the apiserver proxies aggregated APIs
	// (OLM's packageserver) as front-proxy-client, with the user in request headers.
	frontProxyCA, err := pki.LoadOrCreateNamed(filepath.Join(cp.pki, "front-proxy"), "foo-operator local cluster front-proxy CA")
	if err != nil {
		return err
	}
	proxyClient, proxyClientKey, err := frontProxyCA.Client(cp.pki, "front-proxy-client", "front-proxy-client", nil)
	if err != nil {
		return err
	}
	flags["requestheader-client-ca-file"] = filepath.Join(cp.pki, "front-proxy", pki.CertFile)
	flags["requestheader-allowed-names"] = "front-proxy-client"
	flags["requestheader-username-headers"] = "X-Remote-User"
	flags["requestheader-group-headers"] = "X-Remote-Group"
	flags["requestheader-extra-headers-prefix"] = "X-Remote-Extra-"
	flags["proxy-client-cert-file"] = proxyClient
	flags["proxy-client-key-file"] = proxyClientKey
	if cp.opts.Node {
		// To the aggregated API's pods directly: the apiserver is in the pods' network.
		flags["enable-aggregator-routing"] = "true"
	}
	for name, value := range cp.opts.APIServerFlags {
		flags[name] = value
	}
	cp.apiserverOptions = process.Options{Name: "kube-apiserver", Binary: cp.opts.APIServer, Namespace: c.Namespace, Args: flagList(flags)}
	if c.Namespace != nil {
		if err := c.Namespace.ForwardOut(cp.address); err != nil {
			return err
		}
	}
	adminCert, adminKey, err := cp.ca.Client(cp.pki, "admin", "admin", []string{"system:masters"})
	if err != nil {
		return err
	}
	cp.Config = &rest.Config{
		Host: "https://" + cp.address,
		TLSClientConfig: rest.TLSClientConfig{
			CAData: cp.ca.CertPEM, CertFile: adminCert, KeyFile: adminKey,
		},
		// The library's clients wait on the apiserver's priority and fairness only.
		QPS: -1,
	}
	if err := rest.LoadTLSFiles(cp.Config); err != nil {
		return err
	}
	return cp.runAPIServer(ctx)
}

func (cp *ControlPlane) runAPIServer(ctx context.Context) error {
	var err error
	if cp.apiserver, err = cp.host.Start(cp.apiserverOptions); err != nil {
		return err
	}
	return cp.waitAPIServerReady(ctx)
}

// waitAPIServerReady waits for /readyz to answer ok, as an administrator.
func (cp *ControlPlane) waitAPIServerReady(ctx context.Context) error {
	certificate, err := tls.X509KeyPair(cp.Config.CertData, cp.Config.KeyData)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(cp.ca.CertPEM)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: roots, Certificates: []tls.Certificate{certificate}, MinVersion: tls.VersionTLS12,
	}}}
	defer client.CloseIdleConnections()
	url := "https://" + cp.address + "/readyz"
	return process.Poll(ctx, 90*time.Second, "kube-apiserver to answer "+url, func() (bool, string) {
		if !cp.apiserver.Running() {
			return false, "kube-apiserver ended"
		}
		response, err := client.Get(url)
		if err != nil {
			return false, err.Error()
		}
		_ = response.Body.Close()
		return response.StatusCode == http.StatusOK, "HTTP " + response.Status
	})
}

// StopAPIServer stops kube-apiserver with SIGTERM and leaves the rest running, as an outage
// would. It stops listening at once, then drains: with a node, its process may linger on
// streams that never end, so after 15s it is killed, which is no failure of the stop.
func (cp *ControlPlane) StopAPIServer() error {
	if _, err := cp.apiserver.Stop(15 * time.Second); err != nil && cp.apiserver.Running() {
		return err
	}
	return nil
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, on the same address, etcd
// and certificates, so that every credential handed out stays valid.
func (cp *ControlPlane) StartAPIServer(ctx context.Context) error {
	return cp.runAPIServer(ctx)
}

// KillAPIServer ends kube-apiserver with SIGKILL, as a crash of its machine would, leaving
// the rest running; StartAPIServer brings it back. Unlike StopAPIServer's graceful stop, its
// clients' connections break at once.
func (cp *ControlPlane) KillAPIServer() {
	cp.apiserver.Kill()
}

// EtcdURL is etcd's client URL, inside the node's namespace if there is one.
func (cp *ControlPlane) EtcdURL() string { return cp.etcdURL }

func (cp *ControlPlane) startControllerManager() error {
	kubeconfig, err := cp.componentKubeconfig("kube-controller-manager", "system:kube-controller-manager", nil)
	if err != nil {
		return err
	}
	flags := map[string]string{
		"kubeconfig":                       kubeconfig,
		"authentication-kubeconfig":        kubeconfig,
		"authorization-kubeconfig":         kubeconfig,
		"leader-elect":                     "false",
		"secure-port":                      "0",
		"use-service-account-credentials":  "true",
		"service-account-private-key-file": filepath.Join(cp.pki, "service-account.key"),
		"root-ca-file":                     filepath.Join(cp.pki, pki.CertFile),
		"service-cluster-ip-range":         ServiceCIDR,
	}
	return cp.host.StartRestarting(process.Options{
		Name: "kube-controller-manager", Binary: cp.opts.ControllerManager, Namespace: cp.host.Namespace, Args: flagList(flags),
	})
}

func (cp *ControlPlane) startScheduler() error {
	kubeconfig, err := cp.componentKubeconfig("kube-scheduler", "system:kube-scheduler", nil)
	if err != nil {
		return err
	}
	return cp.host.StartRestarting(process.Options{Name: "kube-scheduler", Binary: cp.opts.Scheduler, Namespace: cp.host.Namespace,
		Args: flagList(map[string]string{
			"kubeconfig":                kubeconfig,
			"authentication-kubeconfig": kubeconfig,
			"authorization-kubeconfig":  kubeconfig,
			"leader-elect":              "false",
			"secure-port":               "0",
		})})
}

// componentKubeconfig writes the kubeconfig of a component that authenticates as user.
func (cp *ControlPlane) componentKubeconfig(name, user string, groups []string) (string, error) {
	path := filepath.Join(cp.pki, name+".kubeconfig")
	return path, cp.WriteKubeconfig(path, user, groups)
}

// WriteKubeconfig writes a kubeconfig for user in groups, with a client certificate the
// cluster's CA signs. Its server is the apiserver's loopback address, the same inside the
// node's namespace and on the machine.
func (cp *ControlPlane) WriteKubeconfig(path, user string, groups []string) error {
	certFile, keyFile, err := cp.ca.Client(cp.pki, "user-"+sanitize(user), user, groups)
	if err != nil {
		return err
	}
	cert, err := os.ReadFile(certFile)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	return cp.writeKubeconfig(path, &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key})
}

// WriteTokenKubeconfig writes a kubeconfig that authenticates with a bearer token, such as a
// ServiceAccount's.
func (cp *ControlPlane) WriteTokenKubeconfig(path, token string) error {
	return cp.writeKubeconfig(path, &clientcmdapi.AuthInfo{Token: token})
}

func (cp *ControlPlane) writeKubeconfig(path string, auth *clientcmdapi.AuthInfo) error {
	config := clientcmdapi.NewConfig()
	config.Clusters["local"] = &clientcmdapi.Cluster{Server: cp.Config.Host, CertificateAuthorityData: cp.ca.CertPEM}
	config.AuthInfos["local"] = auth
	config.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "local"}
	config.CurrentContext = "local"
	return clientcmd.WriteToFile(*config, path)
}

// CAFile is the PEM file of the CA that signed the apiserver's certificate.
func (cp *ControlPlane) CAFile() string { return filepath.Join(cp.pki, pki.CertFile) }

// flagList turns flags into --name=value arguments, sorted so that logs read alike.
func flagList(flags map[string]string) []string {
	args := make([]string, 0, len(flags))
	for name, value := range flags {
		args = append(args, "--"+name+"="+value)
	}
	sort.Strings(args)
	return args
}

func sanitize(name string) string {
	out := []rune(name)
	for i, r := range out {
		allowed := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-'
		if !allowed {
			out[i] = '-'
		}
	}
	return string(out)
}

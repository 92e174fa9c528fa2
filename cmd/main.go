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

// Command manager runs the foo-operator: the Foo controller with its metrics and health
// endpoints, under leader election when asked to.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	"github.com/operator-framework/operator-lib/conditions"
	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/internal/controller"
	"github.com/example/foo-operator/internal/memorylimit"
	"github.com/example/foo-operator/internal/selftest"
	// +kubebuilder:scaffold:imports
)

// watchNamespaceEnv names the environment variable that limits the operator to a
// comma-separated list of namespaces. OLM fills it from the OperatorGroup's target
// namespaces; empty means every namespace.
const watchNamespaceEnv = "WATCH_NAMESPACE"

// operatorConditionEnv is set by OLM to the name of the OperatorCondition it created for
// this operator; unset means the operator does not run under OLM.
const operatorConditionEnv = "OPERATOR_CONDITION_NAME"

// leaderElectionID names the Lease that replicas of the manager compete for.
const leaderElectionID = "foo-operator.tutorial.my.domain"

var (
	scheme   = runtime.NewScheme()
	setupLog = ctrl.Log.WithName("setup")
)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(tutorialv1.AddToScheme(scheme))
	utilruntime.Must(operatorsv2.AddToScheme(scheme))
	// +kubebuilder:scaffold:scheme
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == selftestCommand {
		os.Exit(runSelftest(os.Args[2:]))
	}
	var (
		metricsAddr, probeAddr, pprofAddr                string
		metricsCertPath, metricsCertName, metricsCertKey string
		enableLeaderElection, secureMetrics, enableHTTP2 bool
		maxConcurrentReconciles                          int
		leaderElectionNamespace                          string
		leaseDuration, renewDeadline, retryPeriod        time.Duration
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8443",
		"The address the metrics endpoint binds to: ':8443' for HTTPS, ':8080' for HTTP, or '0' to disable it.")
	flag.BoolVar(&secureMetrics, "metrics-secure", true,
		"Serve metrics over HTTPS, allowing only authenticated and authorized clients. Set false to serve plain HTTP.")
	flag.StringVar(&metricsCertPath, "metrics-cert-path", "",
		"The folder holding the metrics server's certificate. Empty means a self-signed certificate.")
	flag.StringVar(&metricsCertName, "metrics-cert-name", "tls.crt", "The metrics server certificate file name.")
	flag.StringVar(&metricsCertKey, "metrics-cert-key", "tls.key", "The metrics server key file name.")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "The address the health and readiness probes bind to.")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "0",
		"The address the pprof profiling endpoint binds to, such as 'localhost:6060'. '0' disables it.")
	flag.BoolVar(&enableLeaderElection, "leader-elect", false,
		"Elect a leader among replicas of the manager, so that only one reconciles at a time.")
	flag.StringVar(&leaderElectionNamespace, "leader-election-namespace", "",
		"The namespace of the leader election Lease. Empty means the manager's own namespace, which only a manager running in a pod knows.")
	// The defaults are controller-runtime's. Shorter leases fail over faster but cost more
	// apiserver writes and step down sooner when the apiserver is slow.
	flag.DurationVar(&leaseDuration, "leader-elect-lease-duration", 15*time.Second,
		"How long a standby waits after the leader's last renewal before it takes the lease over.")
	flag.DurationVar(&renewDeadline, "leader-elect-renew-deadline", 10*time.Second,
		"How long the leader keeps trying to renew its lease before it gives up leadership and exits. Must be shorter than the lease duration.")
	flag.DurationVar(&retryPeriod, "leader-elect-retry-period", 2*time.Second,
		"How often replicas try to acquire or renew the lease.")
	flag.BoolVar(&enableHTTP2, "enable-http2", false,
		"Serve metrics over HTTP/2 too. Off by default against the HTTP/2 Stream Cancellation and Rapid Reset CVEs.")
	flag.IntVar(&maxConcurrentReconciles, "max-concurrent-reconciles", 1,
		"How many Foos may be reconciled at once. More shortens the time for many Foos to follow one pod event.")
	// No stack trace on error lines: the manager's errors are retried conditions (an
	// apiserver away, a conflict), where a trace of the retry loop only buries the message.
	// --zap-stacktrace-level brings them back.
	zapOpts := zap.Options{Development: false, StacktraceLevel: zapcore.PanicLevel}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()

	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	// Configuration a manager cannot run with, or would run with doing nothing, stops it
	// at once with what is wrong, before it touches the cluster.
	if err := (managerFlags{
		maxConcurrentReconciles: maxConcurrentReconciles, leaderElection: enableLeaderElection,
		leaseDuration: leaseDuration, renewDeadline: renewDeadline, retryPeriod: retryPeriod,
	}).validate(); err != nil {
		setupLog.Error(err, "Invalid flags")
		os.Exit(1)
	}
	namespaces, err := parseNamespaces(os.Getenv(watchNamespaceEnv))
	if err != nil {
		setupLog.Error(err, "Invalid namespaces to watch")
		os.Exit(1)
	}

	var tlsOpts []func(*tls.Config)
	if !enableHTTP2 {
		tlsOpts = append(tlsOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	}

	metricsOptions := metricsserver.Options{
		BindAddress:   metricsAddr,
		SecureServing: secureMetrics,
		TLSOpts:       tlsOpts,
	}
	if secureMetrics {
		metricsOptions.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	var metricsCertWatcher *certwatcher.CertWatcher
	if metricsCertPath != "" {
		metricsCertWatcher, err = certwatcher.New(
			filepath.Join(metricsCertPath, metricsCertName), filepath.Join(metricsCertPath, metricsCertKey))
		if err != nil {
			setupLog.Error(err, "Unable to load the metrics certificate", "path", metricsCertPath)
			os.Exit(1)
		}
		metricsOptions.TLSOpts = append(metricsOptions.TLSOpts, func(c *tls.Config) {
			c.GetCertificate = metricsCertWatcher.GetCertificate
		})
	}

	setupLog.Info("Watching namespaces", "namespaces", namespacesForLog(namespaces))

	// The manager reads the apiserver's discovery as it is made; a replica restarted while
	// the apiserver is away (its leader exits past the renew deadline, by design) waits for
	// it here rather than exit again at once into the kubelet's back-off.
	ctx := ctrl.SetupSignalHandler()
	config := ctrl.GetConfigOrDie()
	if err := waitForAPIServer(ctx, config, apiServerWait); err != nil {
		setupLog.Error(err, "The apiserver did not answer", "host", config.Host, "waited", apiServerWait)
		os.Exit(1)
	}
	mgr, err := ctrl.NewManager(config, ctrl.Options{
		Scheme:                        scheme,
		Cache:                         controller.CacheOptions(namespaces),
		Metrics:                       metricsOptions,
		HealthProbeBindAddress:        probeAddr,
		PprofBindAddress:              pprofAddr,
		LeaderElection:                enableLeaderElection,
		LeaderElectionID:              leaderElectionID,
		LeaderElectionNamespace:       leaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &leaseDuration,
		RenewDeadline:                 &renewDeadline,
		RetryPeriod:                   &retryPeriod,
	})
	if err != nil {
		setupLog.Error(err, "Unable to create the manager")
		os.Exit(1)
	}

	if metricsCertWatcher != nil {
		// Run by the manager, so that a renewed certificate is picked up without a restart.
		if err := mgr.Add(metricsCertWatcher); err != nil {
			setupLog.Error(err, "Unable to watch the metrics certificate")
			os.Exit(1)
		}
	}

	options := controller.Options{MaxConcurrentReconciles: maxConcurrentReconciles}
	if os.Getenv(operatorConditionEnv) != "" {
		if options.Upgradeable, err = upgradeableCondition(mgr); err != nil {
			setupLog.Error(err, "Unable to read the OperatorCondition OLM named", "env", operatorConditionEnv)
			os.Exit(1)
		}
	}
	if err := controller.Setup(ctx, mgr, options); err != nil {
		setupLog.Error(err, "Unable to set up the controllers")
		os.Exit(1)
	}
	// A limit too small for the caches ends in OOM kills; the watchdog names the cause in
	// the log before that happens.
	if err := mgr.Add(&memorylimit.Watchdog{
		Log: ctrl.Log.WithName("memory"), Interval: memorylimit.DefaultInterval, Threshold: memorylimit.DefaultThreshold,
	}); err != nil {
		setupLog.Error(err, "Unable to set up the memory limit watchdog")
		os.Exit(1)
	}
	// +kubebuilder:scaffold:builder

	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		setupLog.Error(err, "Unable to set up the health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("informers", cachesSynced(mgr)); err != nil {
		setupLog.Error(err, "Unable to set up the readiness check")
		os.Exit(1)
	}

	setupLog.Info("Starting manager")
	if err := mgr.Start(ctx); err != nil {
		setupLog.Error(err, "Manager stopped with an error")
		os.Exit(1)
	}
}

// selftestCommand, as the first argument, runs the self-test instead of the manager: the
// Helm chart's test hook runs it from the manager's image, so that `helm test` needs no
// other image.
const selftestCommand = "selftest"

// runSelftest checks that the installed operator serves Foos (internal/selftest) and
// returns the command's exit code.
func runSelftest(args []string) int {
	flags := flag.NewFlagSet(selftestCommand, flag.ExitOnError)
	var options selftest.Options
	flags.StringVar(&options.Namespace, "namespace", "",
		"A namespace the operator watches, for the test's Foo and friend. Empty: a namespace of their own, deleted afterwards.")
	flags.StringVar(&options.Image, "friend-image", "",
		"An image the cluster can pull, for the friend pod (which is never meant to run).")
	flags.DurationVar(&options.Timeout, "timeout", time.Minute, "How long to wait for the operator at each step.")
	zapOpts := zap.Options{Development: false, StacktraceLevel: zapcore.PanicLevel}
	zapOpts.BindFlags(flags)
	_ = flags.Parse(args) // ExitOnError: a bad flag has already ended the command
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	options.Log = ctrl.Log.WithName(selftestCommand)
	if options.Image == "" {
		options.Log.Error(errors.New("--friend-image is required"), "Invalid flags")
		return 2
	}

	config, err := ctrl.GetConfig()
	if err != nil {
		options.Log.Error(err, "Unable to find the cluster")
		return 1
	}
	c, err := client.New(config, client.Options{Scheme: scheme})
	if err != nil {
		options.Log.Error(err, "Unable to reach the cluster", "host", config.Host)
		return 1
	}
	if err := selftest.Run(ctrl.SetupSignalHandler(), c, options); err != nil {
		options.Log.Error(err, "The self-test failed")
		return 1
	}
	return 0
}

// apiServerWait bounds the wait for the apiserver at start: under the liveness probe's first
// failures (config/manager: after 15s, every 20s, three failures), so that the log, not the
// probe, tells why the container ended.
const apiServerWait = 45 * time.Second

// waitForAPIServer waits, at most timeout, until the apiserver answers a discovery request,
// logging each failure with its cause.
func waitForAPIServer(ctx context.Context, config *rest.Config, timeout time.Duration) error {
	discoveryClient, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Cap: 8 * time.Second, Steps: math.MaxInt32}
	var last error
	err = wait.ExponentialBackoffWithContext(ctx, backoff, func(context.Context) (bool, error) {
		if _, last = discoveryClient.ServerVersion(); last != nil {
			setupLog.Info("Waiting for the apiserver", "host", config.Host, "error", last.Error())
			return false, nil
		}
		return true, nil
	})
	if err != nil && last != nil {
		return last
	}
	return err
}

// upgradeableCondition returns the Upgradeable condition of the OperatorCondition named by
// OPERATOR_CONDITION_NAME, through which the operator tells OLM whether it may be upgraded now.
func upgradeableCondition(mgr ctrl.Manager) (conditions.Condition, error) {
	// The OperatorCondition lives in the operator's namespace, which the cache may not
	// watch, so it is read and written directly.
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, err
	}
	return conditions.InClusterFactory{Client: direct}.NewCondition(operatorsv2.ConditionType(operatorsv2.Upgradeable))
}

// cachesSynced reports ready once the manager's informers have filled their caches, so
// that a replica is not counted available before it can see Foos and pods.
func cachesSynced(mgr ctrl.Manager) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), time.Second)
		defer cancel()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return errors.New("informer caches have not synced yet")
		}
		return nil
	}
}

func namespacesForLog(namespaces []string) any {
	if len(namespaces) == 0 {
		return "all"
	}
	return namespaces
}

// parseNamespaces splits WATCH_NAMESPACE's comma-separated list of namespaces, ignoring
// blanks around the names. An empty (or blank) value means every namespace. A name that
// cannot be a namespace's, an empty one between commas included, is an error that names
// it and says why: a manager watching a namespace that cannot exist would run and never
// see a Foo.
func parseNamespaces(value string) ([]string, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	var namespaces []string
	var problems []error
	for i, namespace := range strings.Split(value, ",") {
		namespace = strings.TrimSpace(namespace)
		if namespace == "" {
			problems = append(problems, fmt.Errorf("entry %d is empty (two commas in a row, or one at an end)", i+1))
			continue
		}
		if reasons := validation.IsDNS1123Label(namespace); len(reasons) > 0 {
			problems = append(problems, fmt.Errorf("%q is not a namespace name: %s", namespace, strings.Join(reasons, "; ")))
			continue
		}
		namespaces = append(namespaces, namespace)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s=%q: %w", watchNamespaceEnv, value, errors.Join(problems...))
	}
	return namespaces, nil
}

// managerFlags are the manager's flags whose values can be wrong in ways the flag package
// does not see.
type managerFlags struct {
	maxConcurrentReconciles                   int
	leaderElection                            bool
	leaseDuration, renewDeadline, retryPeriod time.Duration
}

// leaderElectionJitter is client-go's: the leader retries renewing its lease at up to 1.2
// retry periods, which must fit in the renew deadline.
const leaderElectionJitter = 1.2

// validate returns an error naming each flag whose value the manager cannot run with, and
// why, so that it exits at once instead of failing later (or never reconciling).
func (f managerFlags) validate() error {
	var problems []error
	if f.maxConcurrentReconciles < 1 {
		problems = append(problems, fmt.Errorf("--max-concurrent-reconciles=%d: must be at least 1", f.maxConcurrentReconciles))
	}
	for _, duration := range []struct {
		flag  string
		value time.Duration
	}{
		{"--leader-elect-lease-duration", f.leaseDuration},
		{"--leader-elect-renew-deadline", f.renewDeadline},
		{"--leader-elect-retry-period", f.retryPeriod},
	} {
		if duration.value <= 0 {
			problems = append(problems, fmt.Errorf("%s=%s: must be positive", duration.flag, duration.value))
		}
	}
	if len(problems) == 0 && f.leaderElection {
		if f.renewDeadline >= f.leaseDuration {
			problems = append(problems, fmt.Errorf("--leader-elect-renew-deadline=%s: must be shorter than --leader-elect-lease-duration=%s",
				f.renewDeadline, f.leaseDuration))
		}
		if float64(f.renewDeadline) <= leaderElectionJitter*float64(f.retryPeriod) {
			problems = append(problems, fmt.Errorf("--leader-elect-renew-deadline=%s: must be longer than %.1f times --leader-elect-retry-period=%s",
				f.renewDeadline, leaderElectionJitter, f.retryPeriod))
		}
	}
	return errors.Join(problems...)
}

// arbiterctl's commands that read the cluster as kubectl does (docs/arbiterctl.md): jobs, queues,
// explain, and top (which reads arbiter-scheduler's /metrics). The API server is found by kubectl's
// rules (--kubeconfig, $KUBECONFIG,
// ~/.kube/config, --context; in a pod, its service account); the namespace is -n, else the
// context's, else "default"; -A lists every namespace.
#pragma once

#include <string>

#include "arbiter/cmd/connection_flags.h"

namespace arbiterctl {

struct ClusterFlags {
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;
  bool all_namespaces = false;
  std::string output;  // "", "wide", "json" or "yaml"
  arbiter::cmd::ConnectionPolicyFlags connection_policy;
};

// Each returns the process's exit code: 0, 1 when the API server could not answer or the object
// is not there, 2 for bad flags.
int RunJobs(const ClusterFlags& flags);
int RunQueues(const ClusterFlags& flags);
// `target`: NAME (a PodGroup, else a BatchJob), podgroup/NAME, batchjob/NAME or pod/NAME.
int RunExplain(const ClusterFlags& flags, const std::string& target);

struct WhatIfFlags {
  std::string file;  // "-": stdin
  std::string scheduler_name = "arbiter";
  std::string config;  // empty: the built-in configuration
  std::string horizon = "168h";
};

// Reads the cluster as the scheduler does (its watches' first LIST), adds the job in the file as
// if submitted now, and forecasts its start (sim/forecast.h). Writes nothing.
int RunWhatIf(const ClusterFlags& flags, const WhatIfFlags& whatif);

struct TopFlags {
  // Where /metrics is: a URL (http://host:port/metrics); empty: through the API server's proxy to
  // `service` (NAME:PORT) in `service_namespace`, as the Helm chart names it.
  std::string metrics_url;
  std::string service_namespace = "arbiter-system";
  std::string service = "arbiter-scheduler-metrics:metrics";
  std::string interval = "2s";
  bool once = false;  // one frame (after one interval), then exit
};

// A live view, refreshed every interval: sessions per second and their duration, decisions,
// binds, API requests, pending jobs by queue and gate, queues' CPU against their share.
int RunTop(const ClusterFlags& flags, const TopFlags& top);

}  // namespace arbiterctl

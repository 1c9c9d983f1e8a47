// arbiterctl's commands that read the cluster as kubectl does (docs/arbiterctl.md): jobs, queues
// and explain. The API server is found by kubectl's rules (--kubeconfig, $KUBECONFIG,
// ~/.kube/config, --context; in a pod, its service account); the namespace is -n, else the
// context's, else "default"; -A lists every namespace.
#pragma once

#include <string>

namespace arbiterctl {

struct ClusterFlags {
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;
  bool all_namespaces = false;
  std::string output;  // "", "wide", "json" or "yaml"
};

// Each returns the process's exit code: 0, 1 when the API server could not answer or the object
// is not there, 2 for bad flags.
int RunJobs(const ClusterFlags& flags);
int RunQueues(const ClusterFlags& flags);
// `target`: NAME (a PodGroup, else a BatchJob), podgroup/NAME, batchjob/NAME or pod/NAME.
int RunExplain(const ClusterFlags& flags, const std::string& target);

}  // namespace arbiterctl

#!/usr/bin/env bash
# The admission webhook (issue 15): arbiter-controller serves it over TLS on 127.0.0.1 with a CA it
# made at start-up and writes the ValidatingWebhookConfiguration that points kube-apiserver at
# it. Every refusal is tried with `kubectl apply` and must come back with its message, naming the
# field:
#  - a PodGroup naming a missing queue, a Closed queue, a queue whose namespaceSelector excludes
#    its namespace, or minResources beyond the queue's capability; a BatchJob naming a missing
#    queue, or whose tasks' minimum pods need more than the capability;
#  - a change of queue of a group already admitted (the CRD's own rule), right after its pod is
#    bound, with the scheduler holding PodGroup statuses 2 s;
#  - a Queue whose guarantee exceeds its capability, whose children's guarantees exceed their
#    parent's, whose parent does not exist or makes a cycle;
#  - the deletion of a Queue that is Open, or Closed with jobs; allowed once drained;
#  - a pod (in a namespace labelled arbiter.dev/admission=enabled) naming a group whose queue it
#    may not use;
# and nothing that was running is lost along the way. A deleted ValidatingWebhookConfiguration is
# written again.
# shellcheck source-path=SCRIPTDIR disable=SC2119  # optional flags
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_setup admission --nodes 1 --node-cpu 8
# With PodGroup statuses held, an admission must still be written at once: the CRD's rule on
# spec.queue reads status.phase.
e2e_start_scheduler --podgroup-status-hold 2s
e2e_start_controller --webhook-bind-address 127.0.0.1 --webhook-port 0

wait_until "the webhook is configured and answers (a bad queue is refused)" 30 webhook_ready

# refused DESC MESSAGE_REGEX < <(MANIFEST): applies the manifest on stdin, which must be refused
# with a message matching MESSAGE_REGEX (kubectl prints the webhook's message). Not in a pipeline:
# pass and fail must run in this shell.
refused() {
  local desc=$1 want=$2 out
  if out=$(k apply -f - 2>&1); then
    fail "$desc: accepted ($out)"
  fi
  grep -qE -- "$want" <<<"$out" || fail "$desc: refused, but not with /$want/: $out"
  pass "$desc: $(grep -oE -- "$want.*" <<<"$out" | head -c 200)"
}

k create namespace ml-ns >/dev/null
k label namespace ml-ns team=ml >/dev/null
k create namespace web-ns >/dev/null
k label namespace web-ns team=web arbiter.dev/admission=enabled >/dev/null
{
  queue_yaml ml 'capability={cpu: 4}' team=ml
  queue_yaml closed state=Closed
} | apply_yaml

# --- PodGroups and BatchJobs ------------------------------------------------------------------
refused "a PodGroup naming a missing queue" \
  'spec.queue: queue "nope" does not exist' < <(group_yaml g1 queue=nope)
refused "a PodGroup naming a Closed queue" \
  'spec.queue: queue "closed" is Closed' < <(group_yaml g2 queue=closed)
refused "a PodGroup in a namespace its queue excludes" \
  'spec.queue: queue "ml" does not admit namespace "web-ns"' < <(group_yaml g3 queue=ml ns=web-ns)
refused "a PodGroup whose minResources exceed its queue's capability" \
  'spec.minResources.cpu: 6 exceeds the capability of queue "ml"' < <(group_yaml g4 queue=ml ns=ml-ns 'min_resources={cpu: 6}')

bj_yaml() {
  cat <<YAML
apiVersion: arbiter.dev/v1alpha1
kind: BatchJob
metadata: {name: $1, namespace: ml-ns}
spec:
  queue: $2
  tasks:
    - name: worker
      replicas: $3
      template:
        spec:
          containers: [{name: main, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "2"}}}]
YAML
}
refused "a BatchJob naming a missing queue" 'spec.queue: queue "nope" does not exist' \
  < <(bj_yaml bj1 nope 1)
refused "a BatchJob whose minimum pods need more than its queue's capability" \
  'spec.tasks\[\*\].template.spec.containers\[\*\].resources.requests.cpu: 6 exceeds the capability of queue "ml"' < <(bj_yaml bj2 ml 3)

# --- a change of queue once admitted -------------------------------------------------------------
{
  group_yaml running queue=ml ns=ml-ns
  pod_yaml running-0 ns=ml-ns group=running cpu=1
} | apply_yaml
wait_until "a group of queue ml runs" 30 bound_cpu_is arbiter.dev/pod-group=running 1000 ml-ns
out=$(k -n ml-ns patch podgroup running --type merge -p '{"spec":{"queue":"default"}}' 2>&1) &&
  fail "a change of queue after admission was accepted: $out"
grep -q 'spec.queue: Forbidden: spec.queue cannot change once the PodGroup has been admitted' \
  <<<"$out" || fail "a change of queue after admission: refused, but not naming spec.queue: $out"
pass "a change of queue after admission is refused by the CRD's rule, naming spec.queue"

# --- Queues ----------------------------------------------------------------------------------
refused "a Queue whose guarantee exceeds its capability" \
  'spec.guarantee.cpu: 3 exceeds spec.capability.cpu \(2\)' < <(queue_yaml bad 'capability={cpu: 2}' 'guarantee={cpu: 3}')
{
  queue_yaml org 'guarantee={cpu: 4}'
  queue_yaml org-a parent=org 'guarantee={cpu: 3}'
} | apply_yaml
refused "a Queue whose siblings' guarantees and its own exceed the parent's" \
  'spec.guarantee.cpu: with its siblings.* the children of "org" would be guaranteed 5' < <(queue_yaml org-b parent=org 'guarantee={cpu: 2}')
refused "a Queue whose parent does not exist" \
  'spec.parent: queue "nope" does not exist' < <(queue_yaml orphan parent=nope)
refused "a Queue whose parent makes a cycle" \
  'spec.parent: "org-a" makes a cycle' < <(queue_yaml org parent=org-a 'guarantee={cpu: 4}')

# --- deleting a queue ----------------------------------------------------------------------------
out=$(k delete queue ml 2>&1) && fail "deleting an Open queue was accepted: $out"
grep -q 'spec.state: queue "ml" is Open' <<<"$out" || fail "deleting an Open queue: $out"
pass "deleting an Open queue is refused: close it first"
k patch queue ml --type merge -p '{"spec":{"state":"Closed"}}' >/dev/null
out=$(k delete queue ml 2>&1) && fail "deleting a queue with jobs was accepted: $out"
grep -q 'is Closed but still has 1 job(s): PodGroup ml-ns/running' <<<"$out" ||
  fail "deleting a queue with jobs: $out"
pass "deleting a Closed queue that still has a job is refused, naming the job"
expect "the job of that queue still runs" bound_cpu_is arbiter.dev/pod-group=running 1000 ml-ns

# --- pods ----------------------------------------------------------------------------------------
refused "a pod (namespace labelled for it) whose queue may not be used from its namespace" \
  'metadata.annotations\[arbiter.dev/queue\]: queue "ml" does not admit namespace "web-ns"' < <(pod_yaml p1 ns=web-ns group=nogroup annotations='arbiter.dev/queue: ml')

# --- the configuration is kept -------------------------------------------------------------------
k delete validatingwebhookconfiguration arbiter-controller >/dev/null
wait_until "a deleted webhook configuration is written again, and the webhook answers" 30 \
  webhook_ready

# --- drained, then deleted -----------------------------------------------------------------------
k -n ml-ns delete podgroup running --wait=false >/dev/null
k -n ml-ns delete pod running-0 --wait=false >/dev/null
drained_and_deleted() { k delete queue ml >/dev/null 2>&1; }
wait_until "a drained, Closed queue can be deleted" 30 drained_and_deleted

e2e_done

#!/usr/bin/env bash
# The demo: Arbiter gang-scheduling the sample jobs of examples/ on a local cluster.
#   hack/demo.sh          install what is missing, build, start the local cluster "demo" (4 nodes
#                         x 8 CPU x 32Gi), run arbiter-scheduler and arbiter-controller, submit
#                         examples/ and show which pods run, which job waits and why, then submit
#                         a BatchJob (examples/batchjob/tensorflow.yaml), and what to try next
#   hack/demo.sh --no-build   the same, without installing and building (use what is built)
#   hack/demo.sh --down   stop the scheduler, the controller and the cluster
# Running it again reuses the cluster, restarts the daemons and submits the examples afresh.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

name=demo
nodes=4 node_cpu=8 node_memory=32Gi
state_dir=$root/_output/demo
pid_file=$state_dir/scheduler.pid
log_file=$state_dir/scheduler.log
kubeconfig=$root/_output/cluster/$name/kubeconfig
kubectl_bin=$root/_output/bin/kubectl
scheduler_bin=$root/build/bin/arbiter-scheduler
controller_bin=$root/build/bin/arbiter-controller
controller_pid_file=$state_dir/controller.pid
controller_log_file=$state_dir/controller.log
ns=demo

down=0 build=1
while (($#)); do
  case $1 in
    --down) down=1; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

bold='' plain=''
if [[ -t 1 ]]; then bold=$'\033[1m' plain=$'\033[0m'; fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$plain"; }
die() { printf 'demo.sh: %s\n' "$*" >&2; exit 1; }
kubectl() { "$kubectl_bin" --kubeconfig "$kubeconfig" "$@"; }
now_ms() {
  local t=${EPOCHREALTIME//[.,]/}
  echo $((t / 1000))
}

# wait_for DESC TIMEOUT_S CMD...: polls CMD until it succeeds; false after TIMEOUT_S.
wait_for() {
  local desc=$1 timeout=$2
  shift 2
  local deadline=$(($(now_ms) + timeout * 1000))
  printf '    waiting for %s ' "$desc"
  until "$@"; do
    if (($(now_ms) >= deadline)); then
      printf ' not within %s s\n' "$timeout"
      return 1
    fi
    printf '.'
    sleep 0.5
  done
  printf ' ok\n'
}

# The command line of process $1 ('' once it has exited: a zombie has none).
cmdline_of() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true; }

# daemon_pid BINARY PID_FILE: the daemon we started, if it still runs (its pid, and the process
# is still that binary).
daemon_pid() {
  [[ -f $2 ]] || return 1
  local pid
  pid=$(<"$2")
  [[ $pid =~ ^[0-9]+$ && $(cmdline_of "$pid") == *"$1"* ]] || return 1
  echo "$pid"
}
scheduler_pid() { daemon_pid arbiter-scheduler "$pid_file"; }
controller_pid() { daemon_pid arbiter-controller "$controller_pid_file"; }

# stop_daemon BINARY PID_FILE
stop_daemon() {
  local pid
  if pid=$(daemon_pid "$1" "$2"); then
    echo "    stopping $1 (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$(($(now_ms) + 10000))
    while kill -0 "$pid" 2>/dev/null && (($(now_ms) < deadline)); do sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$2"
}
stop_daemons() {
  stop_daemon arbiter-controller "$controller_pid_file"
  stop_daemon arbiter-scheduler "$pid_file"
}

cluster_ready() {
  [[ -f $kubeconfig && -x $kubectl_bin ]] &&
    kubectl get --raw /readyz --request-timeout=5s >/dev/null 2>&1
}

if ((down)); then
  step "Stopping the demo"
  stop_daemons
  hack/cluster/down.sh --name "$name"
  echo "    stopped (the logs stay in ${log_file#"$root"/} and ${controller_log_file#"$root"/})"
  exit 0
fi

# ---- install and build ---------------------------------------------------------------------------
if ((build)); then
  step "Installing missing packages (hack/install-deps.sh)"
  hack/install-deps.sh
  step "Building Arbiter (hack/build.sh; minutes the first time)"
  hack/build.sh
  step "Building the local cluster's binaries (hack/cluster/build.sh; 10-25 minutes the first time, then cached)"
  hack/cluster/build.sh
fi
for bin in "$scheduler_bin" "$controller_bin"; do
  [[ -x $bin ]] || die "$bin is missing: run hack/build.sh (or hack/demo.sh without --no-build)"
done

# ---- cluster -------------------------------------------------------------------------------------
mkdir -p "$state_dir"
if cluster_ready; then
  step "Reusing the running local cluster '$name'"
else
  step "Starting the local cluster '$name': $nodes nodes x $node_cpu CPU x $node_memory"
  # Leftovers of a cluster that no longer answers are ours to clear.
  hack/cluster/down.sh --name "$name" >/dev/null 2>&1 || true
  hack/cluster/up.sh --name "$name" --nodes "$nodes" --node-cpu "$node_cpu" \
    --node-memory "$node_memory" >/dev/null
fi
kubectl get nodes

step "Installing the CRDs (kubectl apply -f deploy/crds/)"
kubectl apply -f deploy/crds/
# kubectl wait fails at once on a CRD whose status has no conditions yet: poll it (60 s at most).
timeout 60 sh -c 'until kubectl wait --for condition=Established --timeout=5s \
    crd/podgroups.arbiter.dev crd/queues.arbiter.dev crd/batchjobs.arbiter.dev >/dev/null 2>&1
  do sleep 0.25; done' || { echo "demo: the CRDs were not Established within 60 s" >&2; exit 1; }

# ---- a clean slate: no daemons, no pods of an earlier run ----------------------------------------
stop_daemons
if kubectl get namespace "$ns" >/dev/null 2>&1; then
  step "Removing the examples of an earlier run"
  kubectl -n "$ns" delete batchjobs,pods,podgroups --all --wait=false
  no_pods_left() { [[ -z $(kubectl -n "$ns" get batchjobs,pods,podgroups -o name 2>/dev/null) ]]; }
  wait_for "the old pods and groups to be gone" 60 no_pods_left || die "old pods remain"
  # Their events too: the new pods have the same names, and `kubectl get events` would mix them.
  kubectl -n "$ns" delete events --all >/dev/null
fi

# ---- the scheduler -------------------------------------------------------------------------------
step "Starting arbiter-scheduler (log: ${log_file#"$root"/})"
{
  echo "---- $(date -Is) hack/demo.sh starts arbiter-scheduler ----"
} >>"$log_file"
# Its own session, stdin from /dev/null: it outlives this script until `hack/demo.sh --down`.
setsid "$scheduler_bin" --kubeconfig "$kubeconfig" -v 2 </dev/null >>"$log_file" 2>&1 &
started=$!
echo "$started" >"$pid_file"
scheduler_up() {
  if ! scheduler_pid >/dev/null; then
    # Until it has exec'd, the child is still a copy of this shell (its command line is ours).
    [[ -n $(cmdline_of "$started") ]] && return 1
    echo
    tail -n 30 "$log_file"
    die "arbiter-scheduler exited"
  fi
  kubectl get queue default >/dev/null 2>&1
}
wait_for "arbiter-scheduler to start (it creates Queue 'default')" 60 scheduler_up ||
  { tail -n 30 "$log_file"; die "arbiter-scheduler did not start"; }

step "Starting arbiter-controller, which runs BatchJobs (log: ${controller_log_file#"$root"/})"
echo "---- $(date -Is) hack/demo.sh starts arbiter-controller ----" >>"$controller_log_file"
setsid "$controller_bin" --kubeconfig "$kubeconfig" -v 2 </dev/null >>"$controller_log_file" 2>&1 &
started=$!
echo "$started" >"$controller_pid_file"
# It logs "starting controller" once the CRDs are served and its watches start.
controller_up() {
  if ! controller_pid >/dev/null; then
    [[ -n $(cmdline_of "$started") ]] && return 1
    echo
    tail -n 30 "$controller_log_file"
    die "arbiter-controller exited"
  fi
  tail -n 5 "$controller_log_file" | grep -q 'starting controller'
}
wait_for "arbiter-controller to start" 60 controller_up ||
  { tail -n 30 "$controller_log_file"; die "arbiter-controller did not start"; }

# ---- the examples --------------------------------------------------------------------------------
step "Submitting the examples (kubectl apply -f examples/)"
kubectl apply -f examples/

# The expected picture: the TensorFlow job and the single pods run (or already finished); one MPI
# job runs whole (5 pods), the other has nothing bound and says why: normally phase Pending (not
# admitted: its minResources do not fit beside the rest), or Inqueue with the gang message when it
# was admitted while the first still waited for its pods (docs/gang.md, rules 2 and 4).
winner="" loser=""
demo_settled() {
  local table
  table=$(kubectl -n "$ns" get pods --no-headers \
    -o custom-columns=APP:.metadata.labels.app,NODE:.spec.nodeName,PHASE:.status.phase) || return 1
  count() { awk -v app="$1" -v want="$2" \
    '$1 == app && (want == "bound" ? $2 != "<none>" : $3 ~ want)' <<<"$table" | wc -l; }
  (($(count tf-mnist 'Running|Succeeded') == 4 && $(count single 'Running|Succeeded') == 3)) ||
    return 1
  local a b
  a=$(count mpi-a bound) b=$(count mpi-b bound)
  if ((a == 5 && b == 0)); then winner=mpi-a loser=mpi-b
  elif ((b == 5 && a == 0)); then winner=mpi-b loser=mpi-a
  else return 1
  fi
  (($(count "$winner" Running) == 5)) || return 1
  # The PodGroups' status has caught up (it is written a session after the pods change).
  pg() { kubectl -n "$ns" get podgroup "$1" -o jsonpath="{$2}"; }
  local tf_running tf_succeeded
  tf_running=$(pg tf-mnist .status.running) tf_succeeded=$(pg tf-mnist .status.succeeded)
  [[ $(pg "$winner" .status.running) == 5 && $(pg "$winner" .status.phase) == Running ]] &&
    [[ $(pg tf-mnist .status.phase) == Running ]] &&
    ((${tf_running:-0} + ${tf_succeeded:-0} == 4)) &&
    [[ $(pg "$loser" '.status.conditions[?(@.type=="Unschedulable")].status') == True ]]
}
if ! wait_for "one MPI job to run whole while the other waits, and the rest to run" 90 demo_settled; then
  kubectl -n "$ns" get podgroups,pods -o wide || true
  echo "---- last 40 lines of ${log_file#"$root"/} ----"
  tail -n 40 "$log_file"
  die "the examples did not reach the expected state (the cluster and scheduler are still up; hack/demo.sh --down stops them)"
fi

# The waiting group's status settles a session or two after the pods do: show it once it stops
# changing.
loser_state() {
  kubectl -n "$ns" get podgroup "$loser" \
    -o jsonpath='{.status.phase} {.status.conditions[?(@.type=="Unschedulable")].message}'
}
loser_stable() {
  local before
  before=$(loser_state) && sleep 1.5 && [[ $(loser_state) == "$before" ]]
}
wait_for "$loser's status to settle" 20 loser_stable || true
loser_phase=$(kubectl -n "$ns" get podgroup "$loser" -o jsonpath='{.status.phase}')

# ---- show it -------------------------------------------------------------------------------------
step "kubectl -n $ns get podgroups"
kubectl -n "$ns" get podgroups
step "kubectl get queues (what queue 'default' deserves and has allocated)"
kubectl get queues
step "kubectl -n $ns get pods -o wide"
kubectl -n "$ns" get pods -o wide
step "Why $loser waits: kubectl -n $ns describe pod $loser-worker-0 (its conditions and events)"
# The Conditions and Events sections of the describe output.
kubectl -n "$ns" describe pod "$loser-worker-0" |
  awk '/^[A-Z][A-Za-z ]*:/ { show = ($0 ~ /^(Conditions|Events):/) } show'
step "The PodGroup's own account: the conditions of kubectl -n $ns get podgroup $loser -o yaml"
kubectl -n "$ns" get podgroup "$loser" -o jsonpath='{range .status.conditions[*]}  {.type}={.status}  reason: {.reason}{"\n"}  message: {.message}{"\n"}{end}'
step "The gate that holds it, and the numbers behind it: arbiterctl explain -n $ns $loser"
"$root/build/bin/arbiterctl" explain --kubeconfig "$kubeconfig" -n "$ns" "$loser" || true

if [[ $loser_phase == Pending ]]; then
  why="it stays Pending (not admitted): what it needs to start, its minResources of 17 CPU, does not
fit in what $winner, tf-mnist and the single pods leave free."
else
  why="it was admitted (phase $loser_phase) while $winner's pods were still being created, but its
5 pods do not fit on the nodes beside $winner, so not one of them is bound."
fi
echo
fmt -w 100 <<EOF
$winner runs whole, beside tf-mnist and the single pods. $loser waits whole and holds nothing:
$why When $winner's pods finish (60 s after they started), $loser starts, all 5 pods in the same
session. The rules: docs/gang.md.
EOF
# ---- a BatchJob ----------------------------------------------------------------------------------
step "A BatchJob: kubectl apply -f examples/batchjob/tensorflow.yaml"
kubectl apply -f examples/batchjob/tensorflow.yaml
bj_running() { [[ $(kubectl -n "$ns" get batchjob tf-train -o jsonpath='{.status.phase}') == Running ]]; }
if ! wait_for "arbiter-controller to make its PodGroup and pods, and the job to run" 60 bj_running; then
  kubectl -n "$ns" get batchjobs,podgroups,pods -o wide || true
  echo "---- last 40 lines of ${controller_log_file#"$root"/} ----"
  tail -n 40 "$controller_log_file"
  die "BatchJob tf-train did not run (the cluster and daemons are still up; hack/demo.sh --down stops them)"
fi
step "kubectl -n $ns get batchjobs"
kubectl -n "$ns" get batchjobs
step "What arbiter-controller made for it: its pods, PodGroup, headless Service and hosts ConfigMap"
kubectl -n "$ns" get pods,podgroups,services,configmaps -l arbiter.dev/job-name=tf-train
echo
fmt -w 100 <<EOF
tf-train's parameter server and 3 workers run as one gang (minMember 3), made by arbiter-controller
from one object. When the workers finish (60 s), the job is Completed, its parameter server is
stopped, and 5 minutes later the job is deleted with everything it owns. docs/batchjob.md.
EOF

cat <<EOF

Try next (in this shell, first):
  export KUBECONFIG=$kubeconfig
  export PATH=$root/_output/bin:$root/build/bin:\$PATH

EOF
try() { printf '  %-54s # %s\n' "$1" "$2"; }
try "kubectl -n $ns get pods -o wide -w" "watch $winner finish and $loser start, whole"
try "kubectl -n $ns get podgroups -w" "phases: Pending -> (Inqueue) -> Running -> Completed"
try "kubectl -n $ns describe podgroup $loser" "its status and conditions"
try "kubectl -n $ns get events --sort-by=.lastTimestamp" "Scheduled / FailedScheduling, and why"
try "kubectl get queues" "the queue's deserved share and what it has allocated"
try "kubectl arbiter jobs -n $ns" "the jobs, and why each waits (arbiterctl as a plugin)"
try "arbiterctl explain -n $ns $loser" "the gate that holds it and its numbers"
try "arbiterctl queues" "the queue tree, with bars of allocated against deserved"
try "tail -f ${log_file#"$root"/}" "its sessions and binds, as they happen"
try "kubectl -n $ns get batchjobs -w" "tf-train: Running -> Completing -> Completed"
try "kubectl apply -f examples/batchjob/" "an MPI-like job and one with a retry policy too"
try "kubectl -n $ns delete batchjobs,pods,podgroups --all" "clear the examples, then submit them again:"
try "kubectl apply -f examples/" "(or just run hack/demo.sh again)"
cat <<EOF

Write your own group: docs/getting-started.md. Start over: hack/demo.sh. Stop: hack/demo.sh --down
EOF

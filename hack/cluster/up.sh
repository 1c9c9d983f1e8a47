#!/usr/bin/env bash
# Starts a local Kubernetes control plane (etcd, kube-apiserver, kwok, optionally kube-scheduler
# and kube-controller-manager) on 127.0.0.1 with N fake nodes, and returns once it is ready.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: hack/cluster/up.sh [options]

Starts a real control plane on 127.0.0.1: etcd (data on tmpfs), kube-apiserver and
kwok (which plays the kubelet of every node), creates N fake nodes and waits until
/readyz, the default namespace and all nodes are Ready. The daemons run detached
(own session, logs in _output/cluster/NAME/); stop them with hack/cluster/down.sh.
Builds missing binaries first (hack/cluster/build.sh; 10-25 min on a cold machine).

Options:
  --name NAME                cluster name (default: local); state in _output/cluster/NAME
  --nodes N                  number of fake nodes (default: 8), named kwok-node-0..N-1
  --node-cpu C               CPU of each node, a Kubernetes quantity (default: 8; e.g. 500m)
  --node-memory M            memory of each node, a quantity (default: 32Gi)
  --node-pods P              pod capacity of each node (default: 110)
  --with-kube-scheduler      also run the upstream kube-scheduler (the baseline scheduler;
                             schedulerName default-scheduler, client QPS/burst 5000)
  --with-controller-manager  also run kube-controller-manager with the controllers that need
                             no kubelet (deployment, replicaset, statefulset, job, cronjob,
                             disruption, garbage collector, namespace, resourcequota: the
                             last fills a ResourceQuota's status.hard, without which the
                             API server refuses pods in its namespace)
  --node-lease-seconds S     node Lease duration kwok keeps renewing every S/4 s, like a
                             kubelet (default: 40); 0 = no leases and no node status heartbeat
                             (cheapest for thousands of nodes)
  --gang-api                 serve Kubernetes' own gang API (alpha in 1.36: feature gate
                             GenericWorkload, API scheduling.k8s.io/v1alpha2: PodGroups with
                             schedulingPolicy.gang.minCount, pods' spec.schedulingGroup); with
                             --with-kube-scheduler, kube-scheduler gang-schedules them too
                             (GangScheduling)
  --apiserver-arg ARG        one more kube-apiserver flag, e.g. --apiserver-arg=--watch-cache=false
                             (repeatable; tests that need etcd's own compaction to show)
  --timeout SEC              give up if the cluster is not ready after SEC s (default: 120)
  -h, --help                 show this help

Environment: ARBITER_KWOK_LOG_LEVEL (default WARN; INFO logs every pod and lease
update), ARBITER_CACHE_DIR and ARBITER_BUILD_JOBS (see build.sh --help).

Nodes get allocatable = capacity = the values above, label type=kwok and no taints.
Nodes added later without status.capacity get the same default size.

On success the last line printed (the only line on stdout) is
  export KUBECONFIG=<absolute path of _output/cluster/NAME/kubeconfig>
so `eval "$(hack/cluster/up.sh)"` works. Beside the kubeconfig: ca.crt (serving CA),
client-ca.crt, admin.crt/admin.key (client certificate, O=system:masters), token
(bearer token of user admin, group system:masters), cluster.env (ports, pids, paths)
and one log per component.
EOF
}

name=local
nodes=8
node_cpu=8
node_memory=32Gi
node_pods=110
with_scheduler=0
with_kcm=0
gang_api=0
lease_seconds=40
timeout=120

need_arg() {
  if (($# < 2)) || [[ -z "$2" ]]; then
    echo "error: $1 needs a value" >&2
    exit 2
  fi
}
apiserver_extra=()
while (($#)); do
  case "$1" in
    --name) need_arg "$@"; name="$2"; shift ;;
    --name=*) name="${1#*=}" ;;
    --nodes) need_arg "$@"; nodes="$2"; shift ;;
    --nodes=*) nodes="${1#*=}" ;;
    --node-cpu) need_arg "$@"; node_cpu="$2"; shift ;;
    --node-cpu=*) node_cpu="${1#*=}" ;;
    --node-memory) need_arg "$@"; node_memory="$2"; shift ;;
    --node-memory=*) node_memory="${1#*=}" ;;
    --node-pods) need_arg "$@"; node_pods="$2"; shift ;;
    --node-pods=*) node_pods="${1#*=}" ;;
    --node-lease-seconds) need_arg "$@"; lease_seconds="$2"; shift ;;
    --node-lease-seconds=*) lease_seconds="${1#*=}" ;;
    --with-kube-scheduler) with_scheduler=1 ;;
    --with-controller-manager) with_kcm=1 ;;
    --gang-api) gang_api=1 ;;
    --apiserver-arg) need_arg "$@"; apiserver_extra+=("$2"); shift ;;
    --apiserver-arg=*) apiserver_extra+=("${1#*=}") ;;
    --timeout) need_arg "$@"; timeout="$2"; shift ;;
    --timeout=*) timeout="${1#*=}" ;;
    -h|--help) usage; exit 0 ;;
    *) echo "error: unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=k8s/versions.env
source "$K8S_MODULE_DIR/versions.env"

# A Kubernetes quantity: sign-less number with optional decimal part and suffix.
quantity_re='^([0-9]+(\.[0-9]*)?|\.[0-9]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][0-9]+)?$'
valid_name "$name" || die "invalid --name '$name' (letters, digits, '.', '_', '-'; at most 63)"
[[ "$nodes" =~ ^[0-9]+$ ]] || die "--nodes must be a number, not '$nodes'"
[[ "$node_cpu" =~ $quantity_re ]] || die "--node-cpu must be a Kubernetes quantity (e.g. 8, 500m), not '$node_cpu'"
[[ "$node_memory" =~ $quantity_re ]] || die "--node-memory must be a Kubernetes quantity (e.g. 32Gi), not '$node_memory'"
[[ "$node_pods" =~ ^[0-9]+$ ]] || die "--node-pods must be a whole number, not '$node_pods'"
[[ "$lease_seconds" =~ ^[0-9]+$ ]] || die "--node-lease-seconds must be a whole number"
[[ "$timeout" =~ ^[0-9]+$ ]] || die "--timeout must be a whole number of seconds"
for tool in openssl curl ss setsid flock; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "'$tool' is required (Debian: apt-get install -y openssl curl iproute2 util-linux)"
done

start_time=$SECONDS
dir="$CLUSTERS_DIR/$name"

# An earlier cluster of this name: refuse if it still runs, else clear what it left.
if [[ -d "$dir" ]]; then
  for f in "$dir"/*.pid; do
    [[ -f "$f" ]] || continue
    if pid_is "$(cat "$f")" "$(basename "$f" .pid)"; then
      die "cluster '$name' is already running ($(basename "$f" .pid) pid $(cat "$f")); stop it with hack/cluster/down.sh --name $name, or use another --name"
    fi
  done
  log "removing stale state of cluster '$name'"
  "$here/down.sh" --name "$name" >&2 || true
  rm -rf "$dir"
fi

# Binaries (idempotent; its stdout goes to stderr so that stdout carries only the export line).
"$here/build.sh" >&2
BIN="$OUTPUT_DIR/bin"

mkdir -p "$dir/pki"
dir="$(cd "$dir" && pwd)"
pki="$dir/pki"

# ---------------------------------------------------------------------------------------------
# Failure handling: stop what was started, show the log tail of the component that failed.
failed_component=""
started=()
cleanup_on_failure() {
  local rc=$?
  ((rc == 0)) && return 0
  trap - EXIT
  log "start-up of cluster '$name' failed${failed_component:+ at $failed_component}; stopping what was started"
  if [[ -n "$failed_component" && -f "$dir/$failed_component.log" ]]; then
    echo "----- last 40 lines of $dir/$failed_component.log -----" >&2
    tail -n 40 "$dir/$failed_component.log" >&2 || true
    echo "-----" >&2
  fi
  "$here/down.sh" --name "$name" --keep-logs >&2 || true
  log "logs kept in $dir"
  exit "$rc"
}
trap cleanup_on_failure EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() { # COMPONENT MESSAGE
  failed_component="$1"
  log "error: $2"
  exit 1
}

# start_daemon COMPONENT BINARY ARGS...: runs BINARY fully detached (new session, stdin from
# /dev/null, output to COMPONENT.log, every other inherited file descriptor closed, so that no
# caller's pipe is held open) and records its pid in COMPONENT.pid. The inner shell writes its
# own pid and then execs the binary, so the pid is the daemon's whether or not setsid forked.
# shellcheck disable=SC2016  # expanded by the inner shell
daemon_wrapper='
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
done
echo $$ >"$0.pid.tmp" && mv "$0.pid.tmp" "$0.pid" && exec "$@"'
start_daemon() {
  local comp="$1"
  shift
  (
    cd "$dir"
    setsid bash -c "$daemon_wrapper" "$dir/$comp" "$@" </dev/null >"$dir/$comp.log" 2>&1 &
  )
  local deadline=$((SECONDS + 10))
  until [[ -s "$dir/$comp.pid" ]]; do
    ((SECONDS < deadline)) || fail "$comp" "$comp did not start"
    sleep 0.05
  done
  started+=("$comp")
  log "started $comp (pid $(cat "$dir/$comp.pid"))"
}

# wait_ready COMPONENT SECONDS DESCRIPTION COMMAND...: polls COMMAND until it succeeds; fails at
# once if the component's process exits.
wait_ready() {
  local comp="$1" secs="$2" what="$3"
  shift 3
  local pid deadline=$((SECONDS + secs))
  pid="$(cat "$dir/$comp.pid")"
  until "$@" >/dev/null 2>&1; do
    pid_alive "$pid" || fail "$comp" "$comp (pid $pid) exited while waiting for $what"
    ((SECONDS < deadline)) || fail "$comp" "timed out after ${secs}s waiting for $what"
    sleep 0.2
  done
}

remaining() { # seconds left of --timeout, at least 5
  local r=$((timeout - (SECONDS - start_time)))
  ((r < 5)) && r=5
  echo "$r"
}

# ---------------------------------------------------------------------------------------------
# Ports: pick them and reserve them in a machine-wide registry under a lock, so that clusters
# started at the same time (from any checkout) never get the same port.
ports_dir="${ARBITER_PORTS_DIR:-${TMPDIR:-/tmp}/arbiter-cluster-ports}"
mkdir -p "$ports_dir"
port_names=(etcd etcd_peer apiserver kwok)
((with_scheduler)) && port_names+=(scheduler)
((with_kcm)) && port_names+=(kcm)
declare -A port=()
{
  flock 8
  # A reservation is live while the cluster directory that made it still exists.
  reserved=()
  for f in "$ports_dir"/*; do
    [[ -f "$f" ]] || continue
    if [[ -d "$(cat "$f" 2>/dev/null)" ]]; then reserved+=("$(basename "$f")"); else rm -f "$f"; fi
  done
  mapfile -t picked < <(pick_ports $((${#port_names[@]} + ${#reserved[@]})))
  i=0
  for p in "${picked[@]}"; do
    [[ " ${reserved[*]} " == *" $p "* ]] && continue
    ((i < ${#port_names[@]})) || break
    port[${port_names[i]}]="$p"
    echo "$dir" >"$ports_dir/$p"
    echo "$p" >>"$dir/ports"
    i=$((i + 1))
  done
} 8>"$ports_dir/.lock"
((i == ${#port_names[@]})) || die "could not find enough free ports"
# kubectl keeps what an API server serves under its host and port for hours, and ports come
# back: a cluster that ran here before with Volcano's PodGroup CRD would make `kubectl get
# podgroup` ask this one for scheduling.volcano.sh and fail with NotFound. A new cluster on
# the port makes that record stale, so it goes.
rm -rf "${KUBECACHEDIR:-$HOME/.kube/cache}/discovery/127.0.0.1_${port[apiserver]}"

# ---------------------------------------------------------------------------------------------
# Certificates and credentials (openssl; EC P-256 keys are generated instantly).
log "writing certificates and credentials to $pki"
(
  cd "$pki"
  umask 077
  newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
  # Serving CA and the apiserver's serving certificate.
  newkey ca.key
  openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "/CN=arbiter-local-ca-$name" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out ca.crt 2>/dev/null
  newkey apiserver.key
  openssl req -new -key apiserver.key -subj "/CN=kube-apiserver" -out apiserver.csr 2>/dev/null
  printf '%s\n' \
    "basicConstraints=critical,CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth" \
    "subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local" \
    >apiserver.ext
  openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -sha256 -days 3650 \
    -extfile apiserver.ext -out apiserver.crt 2>/dev/null
  # Client CA and an admin client certificate (group system:masters via O=).
  newkey client-ca.key
  openssl req -x509 -new -key client-ca.key -sha256 -days 3650 -subj "/CN=arbiter-local-client-ca-$name" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out client-ca.crt 2>/dev/null
  newkey admin.key
  openssl req -new -key admin.key -subj "/O=system:masters/CN=admin" -out admin.csr 2>/dev/null
  printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
    "extendedKeyUsage=clientAuth" >admin.ext
  openssl x509 -req -in admin.csr -CA client-ca.crt -CAkey client-ca.key -CAcreateserial -sha256 \
    -days 3650 -extfile admin.ext -out admin.crt 2>/dev/null
  # Service account token signing key pair.
  newkey sa.key
  openssl pkey -in sa.key -pubout -out sa.pub 2>/dev/null
  rm -f ./*.csr ./*.ext ./*.srl
  # Static bearer token of user admin in group system:masters.
  token="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
  printf '%s\n' "$token" >"$dir/token"
  printf '%s,admin,admin,"system:masters"\n' "$token" >tokens.csv
)
cp "$pki/ca.crt" "$pki/client-ca.crt" "$pki/admin.crt" "$pki/admin.key" "$dir/"
token="$(cat "$dir/token")"

kubeconfig="$dir/kubeconfig"
server="https://127.0.0.1:${port[apiserver]}"
b64() { base64 -w0 <"$1"; }
(
  umask 077
  cat >"$kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: $name
  cluster:
    server: $server
    certificate-authority-data: $(b64 "$pki/ca.crt")
users:
- name: $name-admin
  user:
    token: $token
- name: $name-admin-cert
  user:
    client-certificate-data: $(b64 "$pki/admin.crt")
    client-key-data: $(b64 "$pki/admin.key")
contexts:
- name: $name
  context:
    cluster: $name
    user: $name-admin
- name: $name-cert
  context:
    cluster: $name
    user: $name-admin-cert
current-context: $name
preferences: {}
EOF
)
kubectl() { "$BIN/kubectl" --kubeconfig="$kubeconfig" "$@"; }

# ---------------------------------------------------------------------------------------------
# etcd: data on tmpfs, no fsync (test data only).
if [[ -d /dev/shm && -w /dev/shm ]]; then
  etcd_data="$(mktemp -d "/dev/shm/arbiter-etcd-${name}.XXXXXX")"
else
  etcd_data="$dir/etcd-data"
  mkdir -p "$etcd_data"
fi
echo "$etcd_data" >"$dir/etcd-data-dir"
etcd_url="http://127.0.0.1:${port[etcd]}"
peer_url="http://127.0.0.1:${port[etcd_peer]}"
start_daemon etcd "$BIN/etcd" \
  --name="arbiter-$name" \
  --data-dir="$etcd_data" \
  --listen-client-urls="$etcd_url" --advertise-client-urls="$etcd_url" \
  --listen-peer-urls="$peer_url" --initial-advertise-peer-urls="$peer_url" \
  --initial-cluster="arbiter-$name=$peer_url" --initial-cluster-state=new \
  --unsafe-no-fsync \
  --quota-backend-bytes=8589934592 \
  --log-level=warn
wait_ready etcd 30 "etcd /health" curl -fsS --max-time 2 "$etcd_url/health"

# ---------------------------------------------------------------------------------------------
# kube-apiserver.
gang_gates=()
if ((gang_api)); then
  apiserver_extra+=(--feature-gates=GenericWorkload=true --runtime-config=scheduling.k8s.io/v1alpha2=true)
  gang_gates=("--feature-gates=GenericWorkload=true,GangScheduling=true")
fi
start_daemon kube-apiserver "$BIN/kube-apiserver" \
  --etcd-servers="$etcd_url" \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="${port[apiserver]}" \
  --cert-dir="$pki" \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/client-ca.crt" \
  --token-auth-file="$pki/tokens.csv" \
  --authorization-mode=RBAC \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$pki/sa.pub" \
  --service-account-signing-key-file="$pki/sa.key" \
  --service-cluster-ip-range=10.96.0.0/16 \
  --disable-admission-plugins=ServiceAccount,TaintNodesByCondition \
  --endpoint-reconciler-type=none \
  --allow-privileged=true \
  --profiling=false \
  --v=1 \
  ${apiserver_extra[@]+"${apiserver_extra[@]}"}
wait_ready kube-apiserver "$(remaining)" "kube-apiserver /readyz" \
  curl -fsS --max-time 2 --cacert "$pki/ca.crt" "$server/readyz"
wait_ready kube-apiserver "$(remaining)" "the default namespace" \
  curl -fsS --max-time 2 --cacert "$pki/ca.crt" -H "Authorization: Bearer $token" "$server/api/v1/namespaces/default"

# ---------------------------------------------------------------------------------------------
# kwok: plays the kubelet of every node (--manage-all-nodes), with our stages.
mkdir -p "$dir/kwok"
{
  cat <<EOF
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  # Set explicitly: kwok v0.8.0 leaves options that a config file omits at 0.
  podPlayStageParallelism: 8
  nodePlayStageParallelism: 4
  nodeLeaseParallelism: 4
  podsOnNodeSyncParallelism: 2
---
EOF
  sed -e "s/@NODE_CPU@/$node_cpu/g" -e "s/@NODE_MEMORY@/$node_memory/g" -e "s/@NODE_PODS@/$node_pods/g" \
    "$here/kwok/stages.yaml"
  if ((lease_seconds > 0)); then
    echo "---"
    cat "$here/kwok/node-heartbeat.yaml"
  fi
} >"$dir/kwok.yaml"
# KWOK_WORKDIR keeps kwok from also loading ~/.kwok/kwok.yaml.
KWOK_WORKDIR="$dir/kwok" start_daemon kwok "$BIN/kwok" \
  --kubeconfig="$kubeconfig" \
  --config="$dir/kwok.yaml" \
  --manage-all-nodes=true \
  --node-lease-duration-seconds="$lease_seconds" \
  --cidr=10.0.0.1/12 \
  --node-ip=10.254.0.1 \
  --server-address="127.0.0.1:${port[kwok]}" \
  --v="${ARBITER_KWOK_LOG_LEVEL:-WARN}"
wait_ready kwok 30 "kwok /healthz" curl -fsS --max-time 2 "http://127.0.0.1:${port[kwok]}/healthz"

# ---------------------------------------------------------------------------------------------
# Optional: kube-scheduler (baseline) and kube-controller-manager.
if ((with_scheduler)); then
  cat >"$dir/kube-scheduler.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: $kubeconfig
  qps: 5000
  burst: 5000
leaderElection:
  leaderElect: false
EOF
  start_daemon kube-scheduler "$BIN/kube-scheduler" \
    --config="$dir/kube-scheduler.yaml" \
    --authentication-kubeconfig="$kubeconfig" --authorization-kubeconfig="$kubeconfig" \
    --bind-address=127.0.0.1 --secure-port="${port[scheduler]}" \
    --cert-dir="$dir/kube-scheduler-certs" \
    --profiling=false \
    ${gang_gates[@]+"${gang_gates[@]}"} \
    --v=1
fi
if ((with_kcm)); then
  # Only controllers that work without a kubelet; never node lifecycle (kwok keeps nodes Ready
  # but the fake nodes' pods must not be evicted or the nodes tainted).
  start_daemon kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig="$kubeconfig" \
    --authentication-kubeconfig="$kubeconfig" --authorization-kubeconfig="$kubeconfig" \
    --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port="${port[kcm]}" \
    --cert-dir="$dir/kube-controller-manager-certs" \
    --controllers=replicaset-controller,deployment-controller,statefulset-controller,job-controller,cronjob-controller,disruption-controller,garbage-collector-controller,namespace-controller,resourcequota-controller \
    --kube-api-qps=1000 --kube-api-burst=2000 \
    --profiling=false \
    --v=1
fi

# ---------------------------------------------------------------------------------------------
# Nodes: one kubectl create per chunk of 500 (at most 4 at a time), so 100 nodes take ~1 s.
if ((nodes > 0)); then
  log "creating $nodes nodes (cpu $node_cpu, memory $node_memory, pods $node_pods)"
  mkdir -p "$dir/nodes"
  chunk=500
  for ((c = 0; c * chunk < nodes; c++)); do
    for ((n = c * chunk; n < nodes && n < (c + 1) * chunk; n++)); do
      cat <<EOF
---
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$n
  labels:
    type: kwok
    kubernetes.io/hostname: kwok-node-$n
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
status:
  capacity: {cpu: "$node_cpu", memory: "$node_memory", pods: "$node_pods"}
  allocatable: {cpu: "$node_cpu", memory: "$node_memory", pods: "$node_pods"}
EOF
    done >"$dir/nodes/nodes-$c.yaml"
  done
  printf '%s\n' "$dir"/nodes/nodes-*.yaml |
    timeout "$(remaining)" xargs -P 4 -I{} "$BIN/kubectl" --kubeconfig="$kubeconfig" create -f {} -o name >/dev/null ||
    fail kube-apiserver "creating the nodes failed or took longer than --timeout"
fi

# ---------------------------------------------------------------------------------------------
# Ready: all nodes Ready, then the optional components healthy.
nodes_ready() {
  local want="$1" got
  got="$(kubectl get nodes --no-headers -o 'custom-columns=R:.status.conditions[?(@.type=="Ready")].status' 2>/dev/null | grep -c '^True$' || true)"
  ((got >= want))
}
if ((nodes > 0)); then
  wait_ready kwok "$(remaining)" "$nodes nodes to become Ready" nodes_ready "$nodes"
fi
if ((with_scheduler)); then
  wait_ready kube-scheduler "$(remaining)" "kube-scheduler /healthz" \
    curl -fsSk --max-time 2 "https://127.0.0.1:${port[scheduler]}/healthz"
fi
if ((with_kcm)); then
  wait_ready kube-controller-manager "$(remaining)" "kube-controller-manager /healthz" \
    curl -fsSk --max-time 2 "https://127.0.0.1:${port[kcm]}/healthz"
fi

# ---------------------------------------------------------------------------------------------
# cluster.env: everything a test or benchmark may want to know, in shell syntax.
{
  echo "# Written by hack/cluster/up.sh; source it."
  printf 'CLUSTER_NAME=%q\n' "$name"
  printf 'CLUSTER_DIR=%q\n' "$dir"
  printf 'KUBECONFIG=%q\n' "$kubeconfig"
  printf 'APISERVER_URL=%q\n' "$server"
  printf 'APISERVER_PORT=%q\n' "${port[apiserver]}"
  printf 'ETCD_URL=%q\n' "$etcd_url"
  printf 'ETCD_PEER_PORT=%q\n' "${port[etcd_peer]}"
  printf 'KWOK_URL=%q\n' "http://127.0.0.1:${port[kwok]}"
  ((with_scheduler)) && printf 'KUBE_SCHEDULER_PORT=%q\n' "${port[scheduler]}"
  ((with_kcm)) && printf 'KUBE_CONTROLLER_MANAGER_PORT=%q\n' "${port[kcm]}"
  printf 'TOKEN_FILE=%q\n' "$dir/token"
  printf 'CA_FILE=%q\n' "$dir/ca.crt"
  printf 'CLIENT_CERT_FILE=%q\n' "$dir/admin.crt"
  printf 'CLIENT_KEY_FILE=%q\n' "$dir/admin.key"
  printf 'CLIENT_CA_FILE=%q\n' "$dir/client-ca.crt"
  printf 'NODES=%q\n' "$nodes"
  printf 'KUBERNETES_VERSION=%q\n' "$K8S_VERSION"
  printf 'BIN_DIR=%q\n' "$BIN"
} >"$dir/cluster.env"

trap - EXIT INT TERM
log "cluster '$name' ready in $((SECONDS - start_time))s: $server, $nodes nodes, components: ${started[*]}"
echo "export KUBECONFIG=$kubeconfig"

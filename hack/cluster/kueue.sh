# shellcheck shell=bash
# What running Kueue's manager (sigs.k8s.io/kueue v0.17, built by build-ecosystem.sh) beside a
# local cluster takes, for tests/e2e/ecosystem_kueue_test.sh and bench/e2e/run.sh. Source it; it
# defines functions and one variable only.
#
# The manager runs without its webhooks (the API server here cannot reach a Service), so its
# callers create Jobs suspended, as the webhook would make them. Its webhook and metrics servers
# still need a serving certificate to start, and with internal certificate management off, v0.17
# reads the metrics one from a fixed path, /etc/kueue/metrics/certs: kueue_write_config puts a
# throwaway one there (as root, as CI runs) unless /etc/kueue exists, and kueue_remove_etc takes it
# away again.

kueue_made_etc=0

# kueue_write_config DIR [QPS BURST]: writes DIR/tls.crt, DIR/tls.key and DIR/config.yaml, a
# Configuration for namespace kueue-system with batch/v1 Jobs, no leader election and its servers
# on free ports of 127.0.0.1 (with the client QPS and burst, when given). Sets kueue_made_etc=1 if
# it made /etc/kueue. Fails, saying why on stderr, if it can do neither.
kueue_write_config() {
  local dir=$1 qps=${2:-} burst=${3:-} metrics_certs=/etc/kueue/metrics/certs ports client=""
  mkdir -p "$dir"
  if ! openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=kueue-webhook" \
    -keyout "$dir/tls.key" -out "$dir/tls.crt" 2>/dev/null; then
    echo "kueue_write_config: openssl could not make a certificate in $dir" >&2
    return 1
  fi
  if [[ ! -e /etc/kueue ]]; then
    if ! mkdir -p "$metrics_certs" 2>/dev/null; then
      echo "kueue_write_config: cannot create $metrics_certs, where Kueue v0.17 reads its" \
        "metrics certificate (run as root)" >&2
      return 1
    fi
    kueue_made_etc=1
    cp "$dir/tls.crt" "$dir/tls.key" "$metrics_certs/"
  fi
  if [[ ! -f $metrics_certs/tls.crt ]]; then
    echo "kueue_write_config: $metrics_certs has no tls.crt (and was not made here)" >&2
    return 1
  fi
  read -ra ports < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
  [[ -n $qps ]] && client="clientConnection: {qps: $qps, burst: $burst}"
  cat >"$dir/config.yaml" <<EOF
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
manageJobsWithoutQueueName: false
internalCertManagement: {enable: false}
leaderElection: {leaderElect: false}
$client
metrics: {bindAddress: "127.0.0.1:${ports[0]}"}
health: {healthProbeBindAddress: "127.0.0.1:${ports[1]}"}
webhook: {port: ${ports[2]}, host: 127.0.0.1, certDir: $dir}
integrations: {frameworks: [batch/job]}
featureGates: {VisibilityOnDemand: false}
EOF
}

# kueue_remove_etc: removes /etc/kueue if kueue_write_config made it.
kueue_remove_etc() {
  ((kueue_made_etc)) && rm -rf /etc/kueue
  kueue_made_etc=0
  return 0
}

#!/usr/bin/env bash
# Security (issue 20): how Arbiter's binaries reach the API server, against the real one. Each case
# runs `arbiterctl queues` (the same start-up code as arbiter-scheduler and arbiter-controller:
# runtime::ConnectToApiServer) with a kubeconfig written here:
#   1. the ways in: a token file, client certificate files, and two kubeconfigs merged
#      ($KUBECONFIG a:b and --kubeconfig a:b: the cluster and context in one, the user in the
#      other);
#   2. exec credential plugins: run by default; refused, without being run, under
#      --credential-plugin-policy=DenyAll and under an allowlist that does not name them; run when
#      the allowlist names them (expiry and 401: tests/integration/kubeconfig_connect_test.cc);
#   3. TLS: a wrong CA, a server certificate for another name and an expired one are refused, each
#      saying why, while the same server with a good certificate is accepted (through the fault
#      proxy, which serves the certificate made here); insecure-skip-tls-verify is refused, naming
#      --allow-insecure-tls, by arbiterctl and by arbiter-scheduler, and with the flag it connects
#      and warns.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
# shellcheck source=../reliability/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../reliability/lib.sh"

ARBITERCTL=$(dirname "$ARBITER_SCHEDULER")/arbiterctl
e2e_setup connection --nodes 1
dir=$E2E_TMP/kubeconfigs
mkdir -p "$dir"
cluster=$(cluster_dir)
server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')
sa=$(e2e_service_account arbiter-scheduler)
cp "$sa/token" "$dir/token"
cp "$cluster/ca.crt" "$dir/ca.crt"

# kubeconfig FILE SERVER CLUSTER_FIELDS USER_FIELDS: a kubeconfig of one cluster, user and context
# (fields as flow-map entries, e.g. 'certificate-authority: ca.crt').
kubeconfig() {
  cat >"$dir/$1" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "$2", $3}}]
users: [{name: u, user: {$4}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
EOF
  echo "$dir/$1"
}
# ctl KUBECONFIG [FLAGS...]: arbiterctl queues; its output (both streams) in $E2E_TMP/ctl.out.
ctl() {
  local config=$1
  shift
  "$ARBITERCTL" queues --kubeconfig "$config" "$@" >"$E2E_TMP/ctl.out" 2>&1
}
connects() { ctl "$@" && grep -q '^QUEUE' "$E2E_TMP/ctl.out"; }
# refused ERE KUBECONFIG [FLAGS...]: arbiterctl fails, saying ERE (case-insensitive).
refused() {
  local ere=$1
  shift
  if ctl "$@"; then
    cat "$E2E_TMP/ctl.out"
    return 1
  fi
  grep -qiE -- "$ere" "$E2E_TMP/ctl.out" || {
    cat "$E2E_TMP/ctl.out"
    return 1
  }
}

# --- 1. the ways in -------------------------------------------------------------------------------
good=$(kubeconfig token.yaml "$server" 'certificate-authority: ca.crt' 'tokenFile: token')
expect "a token file and the cluster's CA connect" connects "$good"
cp "$cluster/admin.crt" "$cluster/admin.key" "$dir/"
certs=$(kubeconfig certs.yaml "$server" 'certificate-authority: ca.crt' \
  'client-certificate: admin.crt, client-key: admin.key')
expect "client certificate files connect" connects "$certs"
cat >"$dir/merged-a.yaml" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "$server", certificate-authority: ca.crt}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
EOF
cat >"$dir/merged-b.yaml" <<EOF
apiVersion: v1
kind: Config
users: [{name: u, user: {token: "$(cat "$dir/token")"}}]
EOF
expect "two kubeconfigs merged by --kubeconfig a:b connect" \
  connects "$dir/merged-a.yaml:$dir/merged-b.yaml"
merged_env() { KUBECONFIG="$dir/merged-a.yaml:$dir/merged-b.yaml" "$ARBITERCTL" queues >/dev/null 2>&1; }
expect "and by \$KUBECONFIG a:b" merged_env

# --- 2. exec credential plugins ---------------------------------------------------------------
plugin=$dir/plugin.sh
cat >"$plugin" <<EOF
#!/bin/sh
touch "$dir/plugin-ran"
printf '{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"token": "%s"}}' "\$(cat "$dir/token")"
EOF
chmod 700 "$plugin"
exec_config=$(kubeconfig exec.yaml "$server" 'certificate-authority: ca.crt' \
  "exec: {apiVersion: client.authentication.k8s.io/v1, command: $plugin, interactiveMode: Never}")
expect "an exec plugin runs by default and connects" connects "$exec_config"
expect "(it ran)" test -f "$dir/plugin-ran"
rm -f "$dir/plugin-ran"
expect "--credential-plugin-policy=DenyAll refuses it, naming it" \
  refused "credential plugin \"$plugin\".*DenyAll" "$exec_config" --credential-plugin-policy=DenyAll
expect "an allowlist that does not name it refuses it" \
  refused "credential plugin \"$plugin\".*--credential-plugin-allowlist does not name" \
  "$exec_config" --credential-plugin-policy=Allowlist --credential-plugin-allowlist=/bin/true
expect "a refused plugin never ran" not test -f "$dir/plugin-ran"
expect "an allowlist that names it lets it run" connects "$exec_config" \
  --credential-plugin-policy=Allowlist --credential-plugin-allowlist="/bin/true,$plugin"
expect "(it ran)" test -f "$dir/plugin-ran"
expect "an allowlist without the Allowlist policy is a usage error" \
  refused "only with --credential-plugin-policy=Allowlist" "$exec_config" \
  --credential-plugin-allowlist="$plugin"

# --- 3. TLS ---------------------------------------------------------------------------------------
# A CA of this test's own, and server certificates it signs (openssl ca, for dates in the past).
pki=$dir/pki
mkdir -p "$pki"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=security-test-ca" \
  -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
: >"$pki/index.txt"
echo 01 >"$pki/serial"
cat >"$pki/ca.cnf" <<EOF
[ca]
default_ca = test
[test]
database = $pki/index.txt
serial = $pki/serial
new_certs_dir = $pki
default_md = sha256
policy = any
copy_extensions = copy
unique_subject = no
[any]
commonName = supplied
EOF
# server_cert NAME SAN START END: $pki/NAME.crt and .key, for SAN, valid from START to END
# (openssl's YYYYMMDDHHMMSSZ).
server_cert() {
  openssl req -new -newkey rsa:2048 -nodes -subj "/CN=$1" -addext "subjectAltName=$2" \
    -keyout "$pki/$1.key" -out "$pki/$1.csr" 2>/dev/null
  openssl ca -batch -notext -config "$pki/ca.cnf" -cert "$pki/ca.crt" -keyfile "$pki/ca.key" \
    -startdate "$3" -enddate "$4" -in "$pki/$1.csr" -out "$pki/$1.crt" 2>"$pki/$1.log" ||
    { cat "$pki/$1.log"; fail "openssl ca could not sign $1"; }
}
now=$(date -u +%s)
stamp() { date -u -d "@$1" +%Y%m%d%H%M%SZ; }
server_cert good IP:127.0.0.1 "$(stamp $((now - 3600)))" "$(stamp $((now + 86400)))"
server_cert other-name DNS:wrong.example "$(stamp $((now - 3600)))" "$(stamp $((now + 86400)))"
server_cert expired IP:127.0.0.1 "$(stamp $((now - 172800)))" "$(stamp $((now - 86400)))"
cp "$pki/ca.crt" "$dir/test-ca.crt"

fault_proxy_build || fail "building tests/faultproxy failed"
# proxy_with CERT: a fault proxy (no faults) before the API server, serving $pki/CERT.crt; sets
# PROXY_ADDR to its address. Run in this shell, not in a command substitution: the cleanup kills
# what E2E_EXTRA_PIDS names, and a subshell's additions to it are lost (the proxy then outlives
# the test).
proxy_with() {
  local ready=$E2E_TMP/proxy-$1.json
  "$FAULT_PROXY_BIN" -upstream "$server" -upstream-ca "$cluster/ca.crt" \
    -tls-cert "$pki/$1.crt" -tls-key "$pki/$1.key" -ready-file "$ready" \
    </dev/null >"$E2E_TMP/proxy-$1.log" 2>&1 &
  E2E_EXTRA_PIDS+=("$!")
  wait_until "the proxy serving $1.crt listens" 20 test -s "$ready" >&2
  PROXY_ADDR=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["listen"])' "$ready")
}
# through CERT FILE: sets VIA to a kubeconfig for a proxy serving CERT, trusting the test CA.
through() {
  proxy_with "$1"
  VIA=$(kubeconfig "$2" "https://$PROXY_ADDR" 'certificate-authority: test-ca.crt' 'tokenFile: token')
}
through good via-good.yaml
expect "the same server with a good certificate is accepted (the control)" connects "$VIA"
through other-name via-other-name.yaml
expect "a certificate for another name is refused, saying so" \
  refused "SSL: no alternative certificate subject name matches|does not match" "$VIA"
through expired via-expired.yaml
expect "an expired certificate is refused, saying so" refused "certificate has expired" "$VIA"
wrong_ca=$(kubeconfig wrong-ca.yaml "$server" 'certificate-authority: test-ca.crt' 'tokenFile: token')
expect "the API server under a CA it was not signed by is refused" \
  refused "SSL certificate problem" "$wrong_ca"

insecure=$(kubeconfig insecure.yaml "$server" 'insecure-skip-tls-verify: true' 'tokenFile: token')
expect "insecure-skip-tls-verify is refused without --allow-insecure-tls, naming it" \
  refused "insecure-skip-tls-verify.*--allow-insecure-tls" "$insecure"
scheduler_refuses_insecure() {
  local rc=0
  "$ARBITER_SCHEDULER" --kubeconfig "$insecure" >"$E2E_TMP/sched-insecure.out" 2>&1 || rc=$?
  ((rc == 2)) && grep -q -- "--allow-insecure-tls" "$E2E_TMP/sched-insecure.out"
}
expect "arbiter-scheduler refuses it too, and exits (status 2)" scheduler_refuses_insecure
expect "with --allow-insecure-tls it connects" connects "$insecure" --allow-insecure-tls
expect "and warns that TLS is not verified" grep -q "WARNING: TLS verification" "$E2E_TMP/ctl.out"

e2e_done

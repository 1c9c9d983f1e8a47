#!/usr/bin/env python3
"""Helpers of bench/e2e/run.sh that talk to the API server directly (standard library only).

  bench.py record   --ns NS --expect N --out FILE --ready FILE
      Watches the pods of namespace NS and writes one line per observation, stamped with this
      process's wall clock in milliseconds when the watch event arrived:
          A <pod> <ms>          the first event that shows the pod (it was created)
          B <pod> <ms> <node>   the first event that shows spec.nodeName set (it was bound)
      Touches FILE (--ready) once the watch is established; exits 0 when N pods have been seen
      bound (after the lines "C <its CPU seconds>" and "R <times the watch was resumed>").
  bench.py create   --ns NS --count N --scheduler NAME [--group-size G] [--upstream-groups]
                    [--threads T]
      Creates N pods (100m CPU / 500Mi, as upstream scheduler_perf's pod-default.yaml) named
      pod-0..N-1 with T keep-alive connections in parallel; with G > 0, pod i joins PodGroup
      g-<i/G>: Arbiter's (label arbiter.dev/pod-group), or with --upstream-groups Kubernetes'
      own (spec.schedulingGroup.podGroupName, scheduling.k8s.io/v1alpha2). Prints a JSON summary.
  bench.py podgroups --ns NS --count K --min-member M [--upstream] [--threads T]
      Creates PodGroups g-0..g-(K-1) with spec.minMember M (arbiter.dev/v1alpha1), or with
      --upstream scheduling.k8s.io/v1alpha2 PodGroups with a gang policy of minCount M.
  bench.py jobs     --ns NS --count K --size M --scheduler NAME --queue LQ [--threads T]
      Creates K suspended batch/v1 Jobs j-0..j-(K-1) of M pods each (parallelism = completions =
      M, the pods as `create` makes them), in Kueue's LocalQueue LQ (label
      kueue.x-k8s.io/queue-name): Kueue admits each whole and unsuspends it, and the Job
      controller creates its pods. Suspended at creation, as Kueue's webhook would make them.
  bench.py delete   --ns NS [--podgroups] [--jobs]
      Deletes every pod (grace period 0) of NS with one DELETE of the collection (and both kinds
      of PodGroups; with --jobs first the Jobs and Kueue's Workloads).
  bench.py count    --ns NS
      Prints the number of pods in NS.
  bench.py summarize --events FILE --out FILE [--set KEY=VALUE...]
      Computes a phase's figures from a `record` file (plus the key/values the script measured);
      with `submit_ms` and `gangs` set, also jobs/s from the first submission to the last bind.
  bench.py report   --json OUT PHASE.json...
      Prints the table of every phase and writes all of them as one JSON document.

The server, CA and token come from $ARBITER_CLUSTER_ENV (hack/cluster/up.sh's cluster.env).
"""

import argparse
import http.client
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse


def cluster():
    env = {}
    with open(os.environ["ARBITER_CLUSTER_ENV"], encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                key, value = line.split("=", 1)
                env[key] = value.strip("'\"")
    url = urllib.parse.urlparse(env["APISERVER_URL"])
    with open(env["TOKEN_FILE"], encoding="utf-8") as f:
        token = f.read().strip()
    context = ssl.create_default_context(cafile=env["CA_FILE"])
    return url.hostname, url.port, context, token


class Api:
    """One keep-alive HTTPS connection to the API server (not thread-safe: one per thread)."""

    def __init__(self, timeout=60):
        host, port, context, token = cluster()
        self.conn = http.client.HTTPSConnection(host, port, context=context, timeout=timeout)
        self.headers = {"Authorization": "Bearer " + token, "Accept": "application/json",
                        "Content-Type": "application/json"}

    def call(self, method, path, body=None):
        """(status, parsed body); retries 429, 5xx and dropped connections a few times."""
        for attempt in range(6):
            try:
                # Bytes, so that headers and body leave in one segment (a str body is sent apart,
                # and Nagle's algorithm then holds it for a delayed ACK: 40 ms per request).
                payload = body.encode() if isinstance(body, str) else body
                self.conn.request(method, path, body=payload, headers=self.headers)
                response = self.conn.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException):
                self.conn.close()
                if attempt == 5:
                    raise
                time.sleep(0.1 * 2**attempt)
                continue
            if response.status == 429 or response.status >= 500:
                time.sleep(0.1 * 2**attempt)
                continue
            return response.status, data
        return response.status, data


def cpu_seconds():
    times = os.times()
    return times.user + times.system


def now_ms():
    return time.time_ns() / 1e6


def open_watch(path, resource_version):
    """A watch of the collection at `path` from `resource_version` ("": from now)."""
    host, port, context, token = cluster()
    conn = http.client.HTTPSConnection(host, port, context=context, timeout=120)
    query = "watch=1&allowWatchBookmarks=true&timeoutSeconds=3600"
    if resource_version:
        query += "&resourceVersion=" + resource_version
    conn.request("GET", f"{path}?{query}",
                 headers={"Authorization": "Bearer " + token, "Accept": "application/json"})
    response = conn.getresponse()
    if response.status != 200:
        sys.exit(f"record: watch failed: HTTP {response.status}: {response.read()[:300]!r}")
    return conn, response


class Watch:
    """The objects of a watch on `path`, each with the time (ms) its event arrived; touches
    `ready` once established. When the server ends the watch (e.g. it found this watcher too slow)
    it resumes where it stopped: events that happened meanwhile arrive, and are stamped, late."""

    def __init__(self, path, ready):
        self.path, self.version, self.resumed = path, "", 0
        self.conn, self.response = open_watch(path, "")
        with open(ready, "w", encoding="utf-8"):
            pass

    def next(self, progress):
        """(ms, object) of the next event that is not a bookmark; `progress` names how far the
        caller got, for the message when the watch cannot be resumed."""
        while True:
            try:
                line = self.response.readline()
            except OSError:
                line = b""
            if not line:
                self.conn.close()
                self.resumed += 1
                if self.resumed > 20 or not self.version:
                    sys.exit(f"record: the watch ended after {progress}")
                print(f"record: the watch ended after {progress}; resuming from "
                      f"resourceVersion {self.version}", file=sys.stderr)
                self.conn, self.response = open_watch(self.path, self.version)
                continue
            t = now_ms()
            event = json.loads(line)
            if event.get("type") == "ERROR":
                sys.exit(f"record: watch error: {event.get('object')}")
            obj = event["object"]
            self.version = obj["metadata"].get("resourceVersion", self.version)
            if event.get("type") != "BOOKMARK":
                return t, obj


def record(args):
    watch = Watch(f"/api/v1/namespaces/{args.ns}/pods", args.ready)
    seen, bound = set(), set()
    with open(args.out, "w", encoding="utf-8", buffering=1) as out:
        while len(bound) < args.expect:
            t, pod = watch.next(f"{len(bound)} of {args.expect} binds")
            name = pod["metadata"]["name"]
            if name not in seen:
                seen.add(name)
                out.write(f"A {name} {t:.3f}\n")
            node = pod.get("spec", {}).get("nodeName")
            if node and name not in bound:
                bound.add(name)
                out.write(f"B {name} {t:.3f} {node}\n")
        out.write(f"C {cpu_seconds():.3f}\nR {watch.resumed}\n")


POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "", "labels": {"app": "bench"}},
    "spec": {
        "schedulerName": "",
        "terminationGracePeriodSeconds": 0,
        "containers": [{
            "name": "pause",
            "image": "registry.k8s.io/pause:3.10",
            "ports": [{"containerPort": 80}],
            "resources": {"requests": {"cpu": "100m", "memory": "500Mi"},
                          "limits": {"cpu": "100m", "memory": "500Mi"}},
        }],
    },
}


def run_parallel(count, threads, make_request):
    """Sends make_request(i) for i in 0..count-1 over `threads` connections; (ok, errors, times)."""
    results = {"ok": 0, "errors": [], "first": None, "last": None}
    lock = threading.Lock()

    def worker(k):
        api = Api()
        for i in range(k, count, threads):
            method, path, body = make_request(i)
            status, data = api.call(method, path, body)
            t = now_ms()
            with lock:
                if status in (200, 201):
                    results["ok"] += 1
                    results["first"] = t if results["first"] is None else min(results["first"], t)
                    results["last"] = t if results["last"] is None else max(results["last"], t)
                else:
                    results["errors"].append(f"{path}: HTTP {status}: {data[:200]!r}")

    start = now_ms()
    pool = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    results["seconds"] = (now_ms() - start) / 1000
    return results


def create(args):
    pod = json.loads(json.dumps(POD))
    pod["spec"]["schedulerName"] = args.scheduler
    path = f"/api/v1/namespaces/{args.ns}/pods"

    def request(i):
        pod_i = dict(pod, metadata={"name": f"pod-{i}", "labels": {"app": "bench"}})
        if args.group_size > 0 and args.upstream_groups:
            pod_i["spec"] = dict(pod["spec"],
                                 schedulingGroup={"podGroupName": f"g-{i // args.group_size}"})
        elif args.group_size > 0:
            pod_i["metadata"]["labels"]["arbiter.dev/pod-group"] = f"g-{i // args.group_size}"
        return "POST", path, json.dumps(pod_i)

    results = run_parallel(args.count, args.threads, request)
    print(json.dumps({"created": results["ok"], "errors": len(results["errors"]),
                      "seconds": round(results["seconds"], 3), "cpu_s": round(cpu_seconds(), 3),
                      "pods_per_s": round(results["ok"] / max(results["seconds"], 1e-9), 1)}))
    for error in results["errors"][:5]:
        print("create: " + error, file=sys.stderr)
    return 0 if not results["errors"] else 1


UPSTREAM_PODGROUPS = "/apis/scheduling.k8s.io/v1alpha2/namespaces/{ns}/podgroups"


def podgroups(args):
    if args.upstream:
        path = UPSTREAM_PODGROUPS.format(ns=args.ns)
    else:
        path = f"/apis/arbiter.dev/v1alpha1/namespaces/{args.ns}/podgroups"

    def request(i):
        if args.upstream:
            return "POST", path, json.dumps({
                "apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
                "metadata": {"name": f"g-{i}"},
                "spec": {"schedulingPolicy": {"gang": {"minCount": args.min_member}}}})
        return "POST", path, json.dumps({
            "apiVersion": "arbiter.dev/v1alpha1", "kind": "PodGroup",
            "metadata": {"name": f"g-{i}"}, "spec": {"minMember": args.min_member}})

    results = run_parallel(args.count, args.threads, request)
    for error in results["errors"][:5]:
        print("podgroups: " + error, file=sys.stderr)
    return 0 if not results["errors"] else 1


def jobs(args):
    template = json.loads(json.dumps(POD))
    template["spec"]["schedulerName"] = args.scheduler
    template["spec"]["restartPolicy"] = "Never"
    del template["apiVersion"], template["kind"]
    template["metadata"] = {"labels": {"app": "bench"}}
    path = f"/apis/batch/v1/namespaces/{args.ns}/jobs"

    def request(i):
        return "POST", path, json.dumps({
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": f"j-{i}", "labels": {"kueue.x-k8s.io/queue-name": args.queue}},
            "spec": {"suspend": True, "parallelism": args.size, "completions": args.size,
                     "backoffLimit": 0, "template": template}})

    results = run_parallel(args.count, args.threads, request)
    print(json.dumps({"created": results["ok"], "errors": len(results["errors"]),
                      "seconds": round(results["seconds"], 3), "cpu_s": round(cpu_seconds(), 3),
                      "jobs_per_s": round(results["ok"] / max(results["seconds"], 1e-9), 1)}))
    for error in results["errors"][:5]:
        print("jobs: " + error, file=sys.stderr)
    return 0 if not results["errors"] else 1


def delete(args):
    api = Api(timeout=300)
    paths = []
    if args.jobs:  # first, so that the Job controller does not create the pods again
        paths.append(f"/apis/batch/v1/namespaces/{args.ns}/jobs")
        paths.append(f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{args.ns}/workloads")
    paths.append(f"/api/v1/namespaces/{args.ns}/pods")
    if args.podgroups:
        paths.append(f"/apis/arbiter.dev/v1alpha1/namespaces/{args.ns}/podgroups")
        paths.append(UPSTREAM_PODGROUPS.format(ns=args.ns))
    for path in paths:
        options = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0}
        if "/jobs" in path:  # a Job's pods go with it (its default policy orphans them)
            options["propagationPolicy"] = "Background"
        status, data = api.call("DELETE", path, json.dumps(options))
        if status == 404 and ("scheduling.k8s.io" in path or "kueue" in path):
            continue  # the API server does not serve upstream PodGroups, or Kueue's CRDs
        if status != 200:
            sys.exit(f"delete: {path}: HTTP {status}: {data[:300]!r}")
    return 0


def count(args):
    api = Api()
    n, token = 0, ""
    while True:
        query = "limit=500" + (f"&continue={urllib.parse.quote(token)}" if token else "")
        status, data = api.call("GET", f"/api/v1/namespaces/{args.ns}/pods?{query}")
        if status != 200:
            sys.exit(f"count: HTTP {status}: {data[:300]!r}")
        page = json.loads(data)
        n += len(page["items"])
        token = page["metadata"].get("continue", "")
        if not token:
            print(n)
            return 0


def percentile(sorted_values, p):
    """Nearest-rank percentile of a sorted list."""
    if not sorted_values:
        return None
    rank = max(1, -(-len(sorted_values) * p // 100))
    return sorted_values[int(rank) - 1]


def summarize(args):
    created, bound, recorder_cpu, resumed = {}, {}, None, None
    with open(args.events, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if fields[0] == "A":
                created[fields[1]] = float(fields[2])
            elif fields[0] == "B":
                bound[fields[1]] = float(fields[2])
            elif fields[0] == "C":
                recorder_cpu = float(fields[1])
            elif fields[0] == "R":
                resumed = int(fields[1])
    latencies = sorted(bound[p] - created[p] for p in bound if p in created)
    result = {"pods_created_seen": len(created), "pods_bound": len(bound), "window": args.window}
    if bound and created:
        start = min(created.values()) if args.window == "first-create" else min(bound.values())
        window = (max(bound.values()) - start) / 1000
        result.update({
            "window_s": round(window, 3),
            "pods_per_s": round(len(bound) / window, 1) if window > 0 else None,
            "create_window_s": round((max(created.values()) - min(created.values())) / 1000, 3),
        })
    if bound and created and args.window == "first-create":
        result.update({
            "latency_ms": {"p50": round(percentile(latencies, 50), 1),
                           "p90": round(percentile(latencies, 90), 1),
                           "p99": round(percentile(latencies, 99), 1),
                           "max": round(latencies[-1], 1),
                           "mean": round(sum(latencies) / len(latencies), 1)},
        })
    for kv in args.set or []:
        key, value = kv.split("=", 1)
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            pass
        result[key] = value
    # Jobs per second, from the first job's submission (a PodGroup, or a Kueue Job) until all
    # their pods are bound, as the recorder saw them (its clock and the script's are both the
    # wall clock of this machine).
    submit, gangs = result.get("submit_ms"), result.get("gangs")
    if submit and gangs and bound and len(bound) == result.get("pods"):
        jobs_window = (max(bound.values()) - submit) / 1000
        result["jobs_per_s"] = round(gangs / jobs_window, 1) if jobs_window > 0 else None
    result["recorder_cpu_s"] = recorder_cpu
    result["recorder_watch_resumed"] = resumed
    if result.get("cpu_s") is not None and bound:
        result["cpu_s_per_1000_pods"] = round(result["cpu_s"] / len(bound) * 1000, 3)
    # CPU of the machine not spent by the scheduler, the control plane or this benchmark's own
    # tools: other work sharing the machine, which the figures then include.
    parts = [result.get(k) for k in ("machine_busy_s", "cpu_s", "apiserver_cpu_s", "etcd_cpu_s",
                                      "kwok_cpu_s")]
    if None not in parts:
        parts.append(result.get("kcm_cpu_s") or 0)  # kube-controller-manager, when it runs
        # The recorder's CPU within the window; the creator's, unless it ran before the window.
        tools = (recorder_cpu or 0) - result.get("recorder_cpu_before_s", 0)
        if args.window == "first-create":
            tools += result.get("creator", {}).get("cpu_s", 0)
        result["other_cpu_s"] = round(parts[0] - sum(parts[1:]) - tools, 2)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    lat = result.get("latency_ms", {})
    print(f"{len(bound)} bound, {result.get('pods_per_s')} pods/s, p50 {lat.get('p50')} ms, "
          f"p99 {lat.get('p99')} ms, scheduler CPU {result.get('cpu_s')} s")
    return 0


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def other_cores(phase):
    """Average CPUs busy with work outside the benchmark during the phase (see summarize)."""
    other, window = phase.get("other_cpu_s"), phase.get("cpu_window_s")
    return round(other / window, 2) if other is not None and window else None


def api_write_count(phase):
    """Requests the scheduler sent that were not GETs (see run.sh api_writes); None if unknown."""
    writes = phase.get("api_writes")
    return sum(writes.values()) if isinstance(writes, dict) else None


def report(args):
    phases = []
    for path in args.phases:
        with open(path, encoding="utf-8") as f:
            phases.append(json.load(f))
    by_name = {p["phase"]: p for p in phases}
    null_rate = by_name.get("null-binder", {}).get("pods_per_s")
    kube_cpu = by_name.get("kube-scheduler", {}).get("cpu_s_per_1000_pods")
    for p in phases:
        rate, cpu = p.get("pods_per_s"), p.get("cpu_s_per_1000_pods")
        p["pods_per_s_vs_null"] = round(rate / null_rate, 3) if rate and null_rate else None
        p["cpu_vs_kube_scheduler"] = round(cpu / kube_cpu, 3) if cpu and kube_cpu else None
    header = ("phase", "pods", "pods/s", "p50 ms", "p99 ms", "vs null", "CPU s/1000", "vs kube",
              "others", "sessions", "writes", "jobs/s")
    rows = []
    for p in phases:
        lat = p.get("latency_ms", {})
        rows.append((p["phase"] + ("" if p.get("ok", True) else " (FAILED)"),
                     f"{p.get('pods_bound', 0)}/{p.get('pods', 0)}",
                     fmt(p.get("pods_per_s"), ".0f"),
                     fmt(lat.get("p50"), ".0f"), fmt(lat.get("p99"), ".0f"),
                     fmt(p["pods_per_s_vs_null"], ".2f"), fmt(p.get("cpu_s_per_1000_pods"), ".2f"),
                     fmt(p["cpu_vs_kube_scheduler"], ".2f"), fmt(other_cores(p), ".2f"),
                     fmt(p.get("sessions"), "d"), fmt(api_write_count(p), "d"),
                     fmt(p.get("jobs_per_s"), ".1f")))
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    for r in [header] + rows:
        print("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))))
    busy = [p["phase"] for p in phases if (other_cores(p) or 0) > 0.1]
    if busy:
        print(f"warning: other processes kept more than 0.1 CPU busy during {', '.join(busy)}: "
              "those figures are lower bounds of what this machine can do")
    document = {"run": json.loads(args.run) if args.run else {}, "phases": phases}
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2)
        f.write("\n")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("record")
    p.add_argument("--ns", required=True)
    p.add_argument("--expect", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ready", required=True)
    p = sub.add_parser("create")
    p.add_argument("--ns", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--scheduler", required=True)
    p.add_argument("--group-size", type=int, default=0)
    p.add_argument("--upstream-groups", action="store_true")
    p.add_argument("--threads", type=int, default=4)
    p = sub.add_parser("podgroups")
    p.add_argument("--ns", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--min-member", type=int, required=True)
    p.add_argument("--upstream", action="store_true")
    p.add_argument("--threads", type=int, default=4)
    p = sub.add_parser("jobs")
    p.add_argument("--ns", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--scheduler", required=True)
    p.add_argument("--queue", required=True)
    p.add_argument("--threads", type=int, default=4)
    p = sub.add_parser("delete")
    p.add_argument("--ns", required=True)
    p.add_argument("--podgroups", action="store_true")
    p.add_argument("--jobs", action="store_true")
    p = sub.add_parser("count")
    p.add_argument("--ns", required=True)
    p = sub.add_parser("summarize")
    p.add_argument("--events", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--set", action="append")
    p.add_argument("--window", choices=("first-create", "first-bind"), default="first-create",
                   help="pods/s over [first create, last bind] or [first bind, last bind]")
    p = sub.add_parser("report")
    p.add_argument("--json", required=True)
    p.add_argument("--run", help="JSON object describing the run")
    p.add_argument("phases", nargs="+")
    args = parser.parse_args()
    return {"record": record, "create": create, "podgroups": podgroups, "jobs": jobs,
            "delete": delete, "count": count, "summarize": summarize,
            "report": report}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())

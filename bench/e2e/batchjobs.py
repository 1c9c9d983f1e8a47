#!/usr/bin/env python3
"""Helpers of bench/e2e/batchjobs.sh (standard library only; the API client is bench.py's).

  batchjobs.py write-rate --ns NS --count N [--threads T]
      Creates N small ConfigMaps with T keep-alive connections (T=1: one after the other, as
      arbiter-controller writes) and prints a JSON summary with writes_per_s.
  batchjobs.py record --ns NS --expect N --out FILE --ready FILE
      Watches the BatchJobs of NS and writes, stamped with this process's clock in ms:
          A <job> <ms>   the first event that shows the job (it was created)
          R <job> <ms>   the first event that shows status.phase Running
      Touches FILE once the watch is established; exits when N jobs have been seen Running.
  batchjobs.py create --ns NS --count N [--threads T] [--scheduler NAME]
      Creates BatchJobs job-0..N-1, each a ps (1 pod) and workers (3 pods) of 100m CPU / 500Mi,
      with T connections in parallel. Prints a JSON summary.
  batchjobs.py summarize --events FILE [--pod-events FILE] --out FILE [--set KEY=VALUE...]
      submit -> Running p50/p99, jobs/s, when the last pod was created and bound (seconds after
      the first job was seen), and the key/values the script measured.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import Watch, percentile, run_parallel  # noqa: E402


def write_rate(args):
    path = f"/api/v1/namespaces/{args.ns}/configmaps"

    def request(i):
        return "POST", path, json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                                         "metadata": {"name": f"w{args.threads}-{i}"},
                                         "data": {"k": "v"}})

    results = run_parallel(args.count, args.threads, request)
    print(json.dumps({"writes": results["ok"], "errors": len(results["errors"]),
                      "threads": args.threads, "seconds": round(results["seconds"], 3),
                      "writes_per_s": round(results["ok"] / max(results["seconds"], 1e-9), 1)}))
    for error in results["errors"][:5]:
        print("write-rate: " + error, file=sys.stderr)
    return 0 if not results["errors"] else 1


def record(args):
    watch = Watch(f"/apis/arbiter.dev/v1alpha1/namespaces/{args.ns}/batchjobs", args.ready)
    seen, running = set(), set()
    with open(args.out, "w", encoding="utf-8", buffering=1) as out:
        while len(running) < args.expect:
            t, job = watch.next(f"{len(running)} of {args.expect} jobs Running")
            name = job["metadata"]["name"]
            if name not in seen:
                seen.add(name)
                out.write(f"A {name} {t:.3f}\n")
            if job.get("status", {}).get("phase") == "Running" and name not in running:
                running.add(name)
                out.write(f"R {name} {t:.3f}\n")
        out.write(f"W {watch.resumed}\n")


def task(name, replicas, scheduler):
    container = {"name": "main", "image": "registry.k8s.io/pause:3.10",
                 "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}}}
    spec = {"terminationGracePeriodSeconds": 0, "containers": [container]}
    if scheduler:
        spec["schedulerName"] = scheduler
    return {"name": name, "replicas": replicas, "template": {"spec": spec}}


def create(args):
    path = f"/apis/arbiter.dev/v1alpha1/namespaces/{args.ns}/batchjobs"

    def request(i):
        job = {"apiVersion": "arbiter.dev/v1alpha1", "kind": "BatchJob",
               "metadata": {"name": f"job-{i}"},
               "spec": {"tasks": [task("ps", 1, args.scheduler), task("worker", 3, args.scheduler)]}}
        return "POST", path, json.dumps(job)

    results = run_parallel(args.count, args.threads, request)
    print(json.dumps({"created": results["ok"], "errors": len(results["errors"]),
                      "seconds": round(results["seconds"], 3)}))
    for error in results["errors"][:5]:
        print("create: " + error, file=sys.stderr)
    return 0 if not results["errors"] else 1


def summarize(args):
    created, running = {}, {}
    with open(args.events, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if parts[0] == "A":
                created.setdefault(parts[1], float(parts[2]))
            elif parts[0] == "R":
                running.setdefault(parts[1], float(parts[2]))
    latencies = sorted(running[j] - created[j] for j in running if j in created)
    result = {"jobs_seen": len(created), "jobs_running": len(running)}
    if latencies:
        first, last = min(created.values()), max(running.values())
        result.update({
            "submit_to_running_p50_ms": round(percentile(latencies, 50), 1),
            "submit_to_running_p99_ms": round(percentile(latencies, 99), 1),
            "makespan_s": round((last - first) / 1000, 3),
            "jobs_per_s": round(len(running) / max((last - first) / 1000, 1e-9), 1),
        })
    if args.pod_events and created:
        first = min(created.values())
        pods_created, pods_bound = [], []
        with open(args.pod_events, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if parts[0] == "A":
                    pods_created.append(float(parts[2]))
                elif parts[0] == "B":
                    pods_bound.append(float(parts[2]))
        if pods_created and pods_bound:
            result.update({
                "pods_created": len(pods_created), "pods_bound": len(pods_bound),
                "last_pod_created_s": round((max(pods_created) - first) / 1000, 3),
                "first_pod_bound_s": round((min(pods_bound) - first) / 1000, 3),
                "last_pod_bound_s": round((max(pods_bound) - first) / 1000, 3),
            })
    for kv in args.set or []:
        key, value = kv.split("=", 1)
        result[key] = json.loads(value)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("write-rate")
    p.add_argument("--ns", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--threads", type=int, default=1)
    p = sub.add_parser("record")
    p.add_argument("--ns", required=True)
    p.add_argument("--expect", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ready", required=True)
    p = sub.add_parser("create")
    p.add_argument("--ns", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--scheduler", default="")
    p = sub.add_parser("summarize")
    p.add_argument("--events", required=True)
    p.add_argument("--pod-events", help="bench.py record's file of the jobs' pods")
    p.add_argument("--out", required=True)
    p.add_argument("--set", action="append")
    args = parser.parse_args()
    return {"write-rate": write_rate, "record": record, "create": create,
            "summarize": summarize}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())

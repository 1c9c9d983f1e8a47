#!/usr/bin/env python3
"""Raises and lowers a queue's quota while pods keep arriving, and samples every 100 ms.

Used by quota_test.sh (issue 15): queue QUEUE enforces a quota and owns namespace NS. One thread
keeps creating 1-CPU pods of QUEUE in NS that run for 2 s (the API server refuses those beyond
the quota: that is expected); another applies the merge patches LOW and HIGH in turn, every
2.5 s, to queue FLIP (QUEUE's capability, or a weight that moves QUEUE's entitlement); the main
thread samples the ResourceQuota and the pods every 100 ms and checks that the
scheduler never admits beyond what the quota lets it: whenever a pod is newly bound, the CPU of
the bound, unfinished pods is at most status.hard (the larger of this sample's and the last one's,
since the limit may have moved between them). Prints what it saw; exits 1 on a violation.

    quota_flux.py NS QUEUE FLIP LOW HIGH SECONDS
    e.g. quota_flux.py flux flux flux '{"spec":{"capability":{"cpu":"3"}}}' \
             '{"spec":{"capability":{"cpu":"6"}}}' 12
"""

import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "e2e"))
from bench import Api  # noqa: E402  (the benchmarks' keep-alive client of the local cluster)


def milli(quantity):
    if quantity is None:
        return None
    if quantity.endswith("m"):
        return int(quantity[:-1])
    return int(round(float(quantity) * 1000))


def pod_json(ns, queue, index):
    name = f"flux-{index}"
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns,
                     "labels": {"arbiter.dev/pod-group": name, "e2e": "flux"},
                     "annotations": {"arbiter.dev/queue": queue, "arbiter.dev/run-for": "2s"}},
        "spec": {"schedulerName": "arbiter", "restartPolicy": "Never",
                 "terminationGracePeriodSeconds": 0,
                 "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"requests": {"cpu": "1", "memory": "64Mi"}}}]},
    })


def main():
    ns, queue, flip_queue, low, high = sys.argv[1:6]
    seconds = float(sys.argv[6])
    stop = threading.Event()
    counts = {"created": 0, "refused": 0, "flips": 0}

    def create():
        api = Api()
        index = 0
        while not stop.is_set():
            status, _ = api.call("POST", f"/api/v1/namespaces/{ns}/pods", pod_json(ns, queue, index))
            index += 1
            counts["created" if status == 201 else "refused"] += 1
            stop.wait(0.2)

    def flip():
        api = Api()
        value = low
        while not stop.wait(2.5):
            value = high if value == low else low
            api.headers["Content-Type"] = "application/merge-patch+json"
            status, data = api.call("PATCH", f"/apis/arbiter.dev/v1alpha1/queues/{flip_queue}",
                                    value)
            if status != 200:
                print(f"flip to {value}: HTTP {status} {data[:200]!r}")
            counts["flips"] += 1

    threads = [threading.Thread(target=create), threading.Thread(target=flip)]
    for t in threads:
        t.start()
    api = Api()
    samples = violations = binds = above = 0
    last_hard = None
    bound_before = set()
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            started = time.monotonic()
            status, data = api.call("GET", f"/api/v1/namespaces/{ns}/resourcequotas/"
                                           f"arbiter-queue-{queue}")
            hard = None
            if status == 200:
                quota = json.loads(data)
                hard = milli(quota.get("status", {}).get("hard", {}).get("requests.cpu"))
            status, data = api.call("GET", f"/api/v1/namespaces/{ns}/pods?labelSelector=e2e%3Dflux")
            bound = {}
            for pod in json.loads(data)["items"]:
                if not pod["spec"].get("nodeName"):
                    continue
                if pod.get("status", {}).get("phase") in ("Succeeded", "Failed"):
                    continue
                cpu = pod["spec"]["containers"][0]["resources"]["requests"]["cpu"]
                bound[pod["metadata"]["uid"]] = milli(cpu)
            samples += 1
            used = sum(bound.values())
            new = set(bound) - bound_before
            binds += len(new)
            limits = [h for h in (hard, last_hard) if h is not None]
            if hard is not None and used > hard:
                above += 1  # running beyond a lowered limit: allowed, not admitted
            if new and (not limits or used > max(limits)):
                violations += 1
                print(f"VIOLATION: {len(new)} pod(s) newly bound with {used}m bound "
                      f"against status.hard {hard}m (last sample {last_hard}m)")
            bound_before = set(bound)
            last_hard = hard if hard is not None else last_hard
            time.sleep(max(0.0, 0.1 - (time.monotonic() - started)))
    finally:
        stop.set()
        for t in threads:
            t.join()
    print(f"samples={samples} binds={binds} created={counts['created']} "
          f"refused={counts['refused']} flips={counts['flips']} "
          f"samples_running_beyond_a_lowered_limit={above} violations={violations}")
    if binds < 10 or counts["flips"] < 4:
        print("too little happened to tell anything")
        return 1
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The independent checker of the reliability tests: re-lists from the API server (kubectl) and
checks the "nothing lost" invariants of ARCHITECTURE §6 against what is stored there. It shares no
code with Arbiter: quantities, requests, groups and queues are read here from the API's documented
rules, so that a bug in Arbiter's own readers cannot hide itself.

Always (safety, which must hold at every moment):
  bound-once      no pod of ours has Scheduled events naming two different nodes
  known-node      every bound pod is on a node that exists
  node-fits       on every node, the requests of its non-terminal pods fit its allocatable
                  (cpu, memory, pods, and any other resource a pod requests); with --node-log,
                  a node shrunk below what it holds is over only if none of its pods was bound
                  (Scheduled event; before that is written, its PodScheduled condition) later
                  than 2 s after the shrink
  cordon          with --node-log: no pod was bound (Scheduled event) to a node later than 2 s
                  after it was cordoned and before it was uncordoned
  capability      no queue's pods (its own and its children's) hold more than its capability
  one-leader      with --lease NAMESPACE/NAME: no event written by the scheduler's replicas
                  (reportingController arbiter.dev/scheduler) was observed, by a replica other than
                  the Lease's holder, after the holder acquired it (replicas name themselves in
                  reportingInstance as in holderIdentity): at most one leader writing
Settled (--settled: after the load stopped and the scheduler had time to act):
  placed          every non-terminal pod of ours is bound, or carries PodScheduled=False with a
                  reason and a message
  gang-whole      no PodGroup has between 1 and minMember-1 of its pods bound
  queue-usage     every Queue's status.allocated equals the recount of its own bound pods
  marks           --mark KIND/NAMESPACE/NAME:LABEL=VALUE still holds (another writer's label that
                  Arbiter's own updates must not revert)

--node-log FILE: what a test did to nodes, a line each, "TIME NODE ACTION" with TIME in RFC 3339
UTC and ACTION one of cordon, uncordon, shrink, grow. The 2 s is for a bind decided before the
change reached the scheduler: the API server checks neither allocatable nor cordons at binding,
so such a bind lands (kube-scheduler has the same window); one decided after it must not.

Prints one line per violation and exits 1, or prints what it checked and exits 0.
"""
import argparse
import collections
import datetime
import json
import os
import subprocess
import sys
from fractions import Fraction

SUFFIXES = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
    "Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30), "Ti": Fraction(2**40),
    "Pi": Fraction(2**50), "Ei": Fraction(2**60),
}


def quantity(text):
    """A Kubernetes quantity ("100m", "1.5Gi", "2e3") as an exact Fraction."""
    s = str(text).strip()
    for suffix in sorted(SUFFIXES, key=len, reverse=True):
        if suffix and s.endswith(suffix):
            return Fraction(s[: -len(suffix)]) * SUFFIXES[suffix]
    lower = s.lower()
    if "e" in lower:
        mantissa, exponent = lower.split("e", 1)
        return Fraction(mantissa) * Fraction(10) ** int(exponent)
    return Fraction(s)


def amount(name, text):
    """In the unit the scheduler counts: millicores for cpu, whole units (rounded up) else."""
    q = quantity(text)
    if name == "cpu":
        q *= 1000
    return -((-q.numerator) // q.denominator)  # ceiling


def resources(mapping):
    return {name: amount(name, value) for name, value in (mapping or {}).items()}


def add(into, other, sign=1):
    for name, value in other.items():
        into[name] = into.get(name, 0) + sign * value


def pod_requests(pod):
    """max(sum of containers, each init container) + overhead, and one `pods`."""
    spec = pod.get("spec", {})
    total = {}
    for c in spec.get("containers") or []:
        add(total, resources((c.get("resources") or {}).get("requests")))
    for c in spec.get("initContainers") or []:
        for name, value in resources((c.get("resources") or {}).get("requests")).items():
            total[name] = max(total.get(name, 0), value)
    add(total, resources(spec.get("overhead")))
    total["pods"] = total.get("pods", 0) + 1
    return total


def terminal(pod):
    return pod.get("status", {}).get("phase") in ("Succeeded", "Failed")


def scheduled_condition_time(pod):
    """When the API server stored the pod's binding (PodScheduled True), or None."""
    for c in pod.get("status", {}).get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "True":
            return micro_time(c.get("lastTransitionTime"))
    return None


def micro_time(text):
    """An RFC 3339 time with up to 9 fraction digits (MicroTime), or None."""
    if not text:
        return None
    head, _, zone = str(text).rstrip("Z").partition("+")
    if "." in head:
        head, fraction = head.split(".", 1)
        head += "." + (fraction + "000000")[:6]
    else:
        head += ".000000"
    moment = datetime.datetime.strptime(head, "%Y-%m-%dT%H:%M:%S.%f")
    if zone:
        sys.exit(f"check_invariants: time {text}: want UTC (Z)")
    return moment.replace(tzinfo=datetime.timezone.utc)


def read_node_log(path):
    """[(time, node, action)] from a --node-log file."""
    entries = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            fields = line.split()
            if len(fields) != 3 or fields[2] not in ("cordon", "uncordon", "shrink", "grow"):
                sys.exit(f"check_invariants: {path}:{number}: want TIME NODE "
                         f"cordon|uncordon|shrink|grow, not {line.strip()!r}")
            entries.append((micro_time(fields[0]), fields[1], fields[2]))
    return entries


def key(obj):
    meta = obj["metadata"]
    return f"{meta.get('namespace', '')}/{meta['name']}" if meta.get("namespace") else meta["name"]


# How long after a node changed a bind decided before the change may still land (see above).
NODE_CHANGE_GRACE = datetime.timedelta(seconds=2)


class Checker:
    def __init__(self, opts):
        self.opts = opts
        self.violations = []
        self._events = None
        self.node_log = []

    def events(self):
        if self._events is None:
            self._events = self.get("events.events.k8s.io", "--all-namespaces")
        return self._events

    def binds(self):
        """(pod uid, node, time) of every Scheduled event of ours."""
        for e in self.events():
            note = e.get("note") or ""
            # "Successfully assigned NS/NAME to NODE"
            if e.get("reason") != "Scheduled" or " to " not in note or \
                    e.get("reportingController") != "arbiter.dev/scheduler":
                continue
            yield ((e.get("regarding") or {}).get("uid"), note.rsplit(" to ", 1)[1].strip(),
                   micro_time(e.get("eventTime")))

    def get(self, *what):
        cmd = [self.opts.kubectl, "get", *what, "-o", "json"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            if "the server doesn't have a resource type" in out.stderr:
                return []
            sys.exit(f"check_invariants: {' '.join(cmd)}: {out.stderr.strip()}")
        return json.loads(out.stdout)["items"]

    def violation(self, invariant, text):
        self.violations.append(f"VIOLATION {invariant}: {text}")

    def run(self):
        pods = self.get("pods", "--all-namespaces")
        nodes = {n["metadata"]["name"]: n for n in self.get("nodes")}
        groups = {key(g): g for g in self.get("podgroups.arbiter.dev", "--all-namespaces")}
        queues = {q["metadata"]["name"]: q for q in self.get("queues.arbiter.dev")}
        ours = [p for p in pods if p["spec"].get("schedulerName") == self.opts.scheduler_name]
        if self.opts.node_log:
            # Read after everything listed from the API server: a bind or a shrink seen there
            # then finds the test's entry about the change before it (an uncordon, a shrink).
            self.events()
            self.node_log = read_node_log(self.opts.node_log)

        self.check_bound_once(ours)
        self.check_nodes(pods, nodes)
        self.check_queues(ours, groups, queues)
        if self.opts.lease:
            self.check_one_leader()
        if self.node_log:
            self.check_cordons()
        if self.opts.settled:
            self.check_placed(ours)
            self.check_gangs(ours, groups)
            self.check_marks()

        for v in self.violations:
            print(v)
        bound = sum(1 for p in ours if p["spec"].get("nodeName"))
        print(f"check_invariants: {len(ours)} pods of {self.opts.scheduler_name} ({bound} bound), "
              f"{len(nodes)} nodes, {len(groups)} PodGroups, {len(queues)} Queues"
              f"{' (settled)' if self.opts.settled else ''}: {len(self.violations)} violations")
        return 1 if self.violations else 0

    def check_bound_once(self, ours):
        uids = {p["metadata"]["uid"]: key(p) for p in ours}
        nodes_of = collections.defaultdict(set)
        for uid, node, _ in self.binds():
            if uid in uids:
                nodes_of[uid].add(node)
        for uid, nodes in nodes_of.items():
            if len(nodes) > 1:
                self.violation("bound-once", f"pod {uids[uid]}: Scheduled to {sorted(nodes)}")

    def check_one_leader(self):
        try:
            namespace, name = self.opts.lease.split("/", 1)
        except ValueError:
            sys.exit(f"check_invariants: --lease {self.opts.lease}: want NAMESPACE/NAME")
        out = subprocess.run([self.opts.kubectl, "-n", namespace, "get", "lease", name, "-o",
                              "json"], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"check_invariants: lease {self.opts.lease}: {out.stderr.strip()}")
        spec = json.loads(out.stdout).get("spec") or {}
        holder, acquired = spec.get("holderIdentity"), micro_time(spec.get("acquireTime"))
        if not holder or acquired is None:
            return  # released, or never held: nobody leads, so nobody can be a second writer
        for e in self.events():
            if e.get("reportingController") != "arbiter.dev/scheduler":
                continue
            writer = e.get("reportingInstance") or ""
            # A series is written again each time it is observed: its latest observation counts.
            observed = max(filter(None, (micro_time(e.get("eventTime")),
                                         micro_time((e.get("series") or {}).get(
                                             "lastObservedTime")))), default=None)
            if writer != holder and observed is not None and observed > acquired:
                regarding = e.get("regarding") or {}
                self.violation("one-leader", f"event {key(e)} ({e.get('reason')} about "
                               f"{regarding.get('namespace', '')}/{regarding.get('name')}) "
                               f"observed at {observed.isoformat()} by {writer!r}, after "
                               f"{holder!r} acquired Lease {self.opts.lease} at "
                               f"{acquired.isoformat()}")

    def check_nodes(self, pods, nodes):
        used = collections.defaultdict(dict)
        for p in pods:
            node = p["spec"].get("nodeName")
            if not node or terminal(p):
                continue
            if node not in nodes:
                if p["spec"].get("schedulerName") == self.opts.scheduler_name:
                    self.violation("known-node", f"pod {key(p)} is bound to node {node}, "
                                   "which does not exist")
                continue
            add(used[node], pod_requests(p))
        bound_at = {uid: when for uid, _, when in self.binds() if when is not None}
        for p in pods:
            # A pod whose Scheduled event is not written yet (the recorder may trail the binds by
            # seconds): the API server's own time of the binding, its PodScheduled condition's
            # lastTransitionTime (whole seconds, so up to a second early).
            uid = p["metadata"]["uid"]
            if p["spec"].get("nodeName") and uid not in bound_at:
                when = scheduled_condition_time(p)
                if when is not None:
                    bound_at[uid] = when
        for name, node in nodes.items():
            allocatable = resources(node.get("status", {}).get("allocatable"))
            for resource, value in used[name].items():
                if value <= allocatable.get(resource, 0):
                    continue
                shrunk = [t for t, n, action in self.node_log if n == name and action == "shrink"]
                newest = max((bound_at[p["metadata"]["uid"]] for p in pods
                              if p["spec"].get("nodeName") == name and not terminal(p)
                              and p["metadata"]["uid"] in bound_at), default=None)
                if shrunk and newest is not None and newest <= max(shrunk) + NODE_CHANGE_GRACE:
                    continue  # over since it shrank, and nothing was added since
                self.violation("node-fits", f"node {name}: {resource} requested {value} > "
                               f"allocatable {allocatable.get(resource, 0)}"
                               + (f" (shrunk at {max(shrunk).isoformat()}, a pod bound at "
                                  f"{newest.isoformat()})" if shrunk and newest else "")
                               + self.node_story(name, resource, pods, bound_at))

    def node_story(self, name, resource, pods, bound_at):
        """What a reader of a node-fits violation needs: the test's changes to the node and the
        pods that hold it, each with its request, its bind time and whether it is being deleted."""
        lines = [f"{t.isoformat()} {action}" for t, n, action in self.node_log if n == name]
        for p in pods:
            if p["spec"].get("nodeName") != name or terminal(p):
                continue
            meta = p["metadata"]
            bound = bound_at.get(meta["uid"])
            lines.append(f"{key(p)} {resource}={pod_requests(p).get(resource, 0)} bound "
                         + (bound.isoformat() if bound else "(no time known)")
                         + (f" deleting since {meta['deletionTimestamp']}"
                            if meta.get("deletionTimestamp") else ""))
        return "".join(f"\n    {line}" for line in lines)

    def check_cordons(self):
        for uid, node, when in self.binds():
            if when is None:
                continue
            cordoned = None
            for t, n, action in sorted(self.node_log):
                if n != node or t > when:
                    continue
                if action == "cordon":
                    cordoned = t
                elif action == "uncordon":
                    cordoned = None
            if cordoned is not None and when > cordoned + NODE_CHANGE_GRACE:
                self.violation("cordon", f"pod uid {uid} bound to node {node} at "
                               f"{when.isoformat()}, cordoned since {cordoned.isoformat()}")

    def group_of(self, pod, groups):
        name = (pod["metadata"].get("labels") or {}).get("arbiter.dev/pod-group")
        if not name:
            return None
        return groups.get(f"{pod['metadata']['namespace']}/{name}")

    def queue_of(self, pod, groups):
        group = self.group_of(pod, groups)
        if group is None:
            return "default"
        return group.get("spec", {}).get("queue") or "default"

    def check_queues(self, ours, groups, queues):
        own = collections.defaultdict(dict)
        for p in ours:
            if p["spec"].get("nodeName") and not terminal(p):
                add(own[self.queue_of(p, groups)], pod_requests(p))
        children = collections.defaultdict(list)
        for name, q in queues.items():
            parent = q.get("spec", {}).get("parent")
            if parent:
                children[parent].append(name)

        def subtree(name, seen=()):
            total = dict(own.get(name, {}))
            for child in children.get(name, []):
                if child not in seen:
                    add(total, subtree(child, seen + (name,)))
            return total

        for name, q in queues.items():
            capability = resources(q.get("spec", {}).get("capability"))
            usage = subtree(name)
            for resource, cap in capability.items():
                if usage.get(resource, 0) > cap:
                    self.violation("capability", f"queue {name}: {resource} held "
                                   f"{usage.get(resource, 0)} > capability {cap}")
            if self.opts.settled:
                recorded = resources(q.get("status", {}).get("allocated"))
                counted = {r: v for r, v in own.get(name, {}).items() if r != "pods" and v}
                recorded = {r: v for r, v in recorded.items() if r != "pods" and v}
                if recorded != counted:
                    self.violation("queue-usage", f"queue {name}: status.allocated {recorded} "
                                   f"!= recount {counted}")

    def check_placed(self, ours):
        for p in ours:
            if terminal(p) or p["spec"].get("nodeName") or p["metadata"].get("deletionTimestamp"):
                continue
            conditions = p.get("status", {}).get("conditions") or []
            scheduled = next((c for c in conditions if c.get("type") == "PodScheduled"), None)
            if not scheduled or scheduled.get("status") != "False" or not scheduled.get("reason") \
                    or not scheduled.get("message"):
                self.violation("placed", f"pod {key(p)} is neither bound nor given a reason "
                               f"(PodScheduled: {scheduled})")

    def check_gangs(self, ours, groups):
        bound = collections.Counter()
        for p in ours:
            group = self.group_of(p, groups)
            if group is not None and p["spec"].get("nodeName") and not terminal(p):
                bound[key(group)] += 1
        for name, group in groups.items():
            minimum = int(group.get("spec", {}).get("minMember") or 1)
            phase = group.get("status", {}).get("phase")
            # A gang that ran and is finishing (some pods succeeded) is not a broken start.
            if 0 < bound[name] < minimum and phase not in ("Completed", "Failed"):
                self.violation("gang-whole", f"PodGroup {name}: {bound[name]} of its pods bound, "
                               f"minMember {minimum}")

    def check_marks(self):
        for mark in self.opts.mark:
            try:
                target, label = mark.split(":", 1)
                kind, namespace, name = target.split("/", 2)
                label_key, label_value = label.split("=", 1)
            except ValueError:
                sys.exit(f"check_invariants: --mark {mark}: want KIND/NAMESPACE/NAME:LABEL=VALUE")
            cmd = [self.opts.kubectl, "get", kind, name, "-o", "json"]
            if namespace:
                cmd[2:2] = ["-n", namespace]
            out = subprocess.run(cmd, capture_output=True, text=True)
            labels = json.loads(out.stdout)["metadata"].get("labels") or {} \
                if out.returncode == 0 else None
            if labels is None or labels.get(label_key) != label_value:
                self.violation("marks", f"{target}: label {label_key}={label_value} is gone "
                               f"(labels: {labels})")


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kubectl", default=os.path.join(root, "_output", "bin", "kubectl"))
    parser.add_argument("--scheduler-name", default="arbiter")
    parser.add_argument("--settled", action="store_true")
    parser.add_argument("--mark", action="append", default=[])
    parser.add_argument("--lease", help="NAMESPACE/NAME of the scheduler's leader Lease")
    parser.add_argument("--node-log", help="what the test did to nodes (see above)")
    return Checker(parser.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())

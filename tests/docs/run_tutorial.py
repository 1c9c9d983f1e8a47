#!/usr/bin/env python3
"""Runs a tutorial page (docs/*.md) as a test: its commands on a local cluster, its shown output
compared with what they print.

    tests/docs/run_tutorial.py docs/getting-started.md

The page is read top to bottom. Every ```sh block is run, in order, by bash in the repository's
root with the environment the earlier blocks exported (so `eval "$(hack/cluster/up.sh ...)"` and
`export PATH=...` carry over). A bare ``` block right after an ```sh block is that block's output
and is compared with what it printed:

  * the block's trailing read-only commands (`kubectl [-n NS] get|describe ...`, `arbiterctl
    jobs|queues|explain|whatif ...`, possibly piped into sed or grep) are its answer: the rest
    of the block runs once, then those are run again until their output matches or 60 s pass
    (the cluster catches up: a poll with a deadline, no sleep); a block with no such tail is
    compared on everything it printed (stdout and stderr);
  * before comparing, both sides are normalised: runs of spaces collapse (column widths follow
    the content), ages (`5s`, `2m30s`), RFC 3339 times, IP addresses and kwok node numbers are
    replaced by placeholders; a line `...` in the shown output stands for any number of lines,
    and `...` inside a line for any text (what differs from run to run and is not the point,
    such as which of many identical jobs a preemptor was).

HTML comments steer it, invisible on the rendered page:
  <!-- doctest: skip -->        the next ```sh block is not run (an alternative, or a clean-up
                                the runner does itself);
  <!-- doctest: file NAME -->   the next block (a manifest the page asks to save) is written to
                                NAME, where the later commands find it;
  <!-- doctest: unordered -->   the next output's lines may come in any order (events with the
                                same timestamp);
  <!-- doctest: readonly NAME -->  NAME, a shell function the page defines, only reads: it may
                                end a block's polled tail;
  <!-- doctest: wait SECONDS --> the next block's tail is polled that long (default 60).
The runner substitutes what must differ between runs and is not the reader's business: the cluster
name (`hack/cluster/up.sh|down.sh ... --name NAME` becomes `--name NAME-<pid>`, so runs never
collide), and `hack/build.sh`
(the test runs after the build). At the end it stops any process the page started in the
background and takes the cluster down. Exit code 0 when every output matched, 1 otherwise, with
the block's line, the command, and both outputs.
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
POLL_SECONDS = 60
# Commands that only read: kubectl's get and describe, and arbiterctl's (or the kubectl plugin's)
# views; a line with `;` or `&` runs more than that, so it is not taken for one.
READ_ONLY = re.compile(r"^(kubectl( -n \S+| --namespace \S+)* (get|describe) [^;&]*"
                       r"|(arbiterctl|kubectl arbiter) (jobs|queues|explain|whatif)( [^;&]*)?)$")


def blocks(text):
    """Yields (line, lang, body, markers) for each fenced block, markers from the comments
    between the previous block and this one."""
    lines = text.split("\n")
    markers = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^<!-- doctest: (\w+)(?: (\S+))? -->$", line.strip())
        if m:
            markers[m.group(1)] = m.group(2)
        if line.startswith("```"):
            lang = line[3:].strip()
            start = i + 1
            j = start
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            yield start, lang, "\n".join(lines[start:j]), markers
            markers = {}
            i = j + 1
            continue
        i += 1


def normalise(text):
    out = []
    for line in text.strip("\n").split("\n"):
        line = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "<time>", line)
        line = re.sub(r"\b\d{1,3}(\.\d{1,3}){3}\b", "<ip>", line)
        line = re.sub(r"\bkwok-node-\d+\b", "kwok-node-<n>", line)
        # kubectl's ages (5s, 119s, 2m30s, 45m, 179m, 3h5m, 4d5h), whole tokens only; not CPU
        # quantities such as 6400m, which no age spells (kubectl writes hours past 179m).
        line = re.sub(r"(?<![\w.])(\d+d(\d+h)?|\d+h(\d+m)?|\d+m\d+s|\d{1,3}s|\d{1,3}m)(?![\w.])",
                      lambda m: m.group(0) if re.fullmatch(r"\d+m", m.group(0)) and
                      int(m.group(0)[:-1]) >= 180 else "<age>", line)
        line = re.sub(r"\s+", " ", line).strip()
        out.append(line)
    return out


def line_matches(expected, actual):
    if "..." not in expected:
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


def matches(expected, actual, unordered):
    if unordered:
        # Each shown line takes the first printed line it matches; `...` lets others remain.
        rest = list(actual)
        for l in (l for l in expected if l != "..."):
            found = next((a for a in rest if line_matches(l, a)), None)
            if found is None:
                return False
            rest.remove(found)
        return "..." in expected or not rest
    # Line by line; `...` matches any number of lines.
    memo = {}

    def at(i, j):
        if (i, j) not in memo:
            if i == len(expected):
                memo[(i, j)] = j == len(actual)
            elif expected[i] == "...":
                memo[(i, j)] = any(at(i + 1, k) for k in range(j, len(actual) + 1))
            else:
                memo[(i, j)] = (j < len(actual) and line_matches(expected[i], actual[j]) and
                                at(i + 1, j + 1))
        return memo[(i, j)]

    return at(0, 0)


def split_tail(body, helpers=()):
    """The block's commands before its trailing read-only ones, and those. `helpers` are shell
    functions the page defines that only read (<!-- doctest: readonly NAME -->)."""
    lines = body.split("\n")
    k = len(lines)
    while k > 0:
        line = re.sub(r"\s+#.*$", "", lines[k - 1]).strip()
        if not line:
            k -= 1
            continue
        first = line.split("|")[0].strip()
        if READ_ONLY.match(first) or first.split(" ")[0] in helpers:
            k -= 1
            continue
        break
    return "\n".join(lines[:k]), "\n".join(lines[k:])


class Shell:
    """Blocks run in a directory of their own (the files a page writes land there), which links to
    the repository's directories the commands name."""

    LINKED = ("hack", "deploy", "build", "examples", "_output", "docs", "tests")

    def __init__(self, suffix):
        self.env = dict(os.environ)
        self.suffix = suffix
        self.dir = tempfile.mkdtemp(prefix="doctest.")
        for name in self.LINKED:
            os.symlink(os.path.join(ROOT, name), os.path.join(self.dir, name))
        self.envfile = os.path.join(self.dir, ".env")

    def substitute(self, body):
        body = re.sub(r"(hack/cluster/(?:up|down)\.sh .*--name) ([\w-]+)",
                      lambda m: m.group(1) + " " + m.group(2) + "-" + self.suffix, body)
        body = re.sub(r"^hack/build\.sh\b.*$", "true  # hack/build.sh: built already", body, flags=re.M)
        return body

    def run(self, body):
        # The environment and the shell functions the block leaves carry over to the next.
        prelude = "set -o pipefail\n"
        if os.path.exists(self.envfile + ".functions"):
            prelude += "source " + self.envfile + ".functions\n"
        script = (prelude + self.substitute(body) + "\n__rc=$?\nexport -p > " + self.envfile +
                  "\ndeclare -f > " + self.envfile + ".functions\nexit $__rc\n")
        p = subprocess.run(["bash", "-c", script], cwd=self.dir, env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if os.path.exists(self.envfile):
            env = subprocess.run(["bash", "-c", "set -a; source " + self.envfile + "; env -0"],
                                 cwd=self.dir, env=self.env, stdout=subprocess.PIPE, text=True)
            self.env = dict(item.split("=", 1) for item in env.stdout.split("\0") if "=" in item)
        return p.returncode, p.stdout


def main():
    page = sys.argv[1]
    text = open(os.path.join(ROOT, page)).read()
    shell = Shell(str(os.getpid()))
    failures = 0
    checked = 0
    items = list(blocks(text))
    helpers = {m["readonly"] for _, _, _, m in items if m.get("readonly")}
    helpers |= set(re.findall(r"<!-- doctest: readonly (\S+) -->", text))
    try:
        for n, (line, lang, body, markers) in enumerate(items):
            if markers.get("file"):
                with open(os.path.join(shell.dir, markers["file"]), "w") as f:
                    f.write(body + "\n")
                continue
            if lang != "sh" or "skip" in markers:
                continue
            shown = None
            if n + 1 < len(items) and items[n + 1][1] == "" and items[n + 1][0] <= line + \
                    body.count("\n") + 4:
                shown = items[n + 1]
            head, tail = split_tail(body, helpers)
            print(f"--- {page}:{line}: {body.splitlines()[0] if body else ''}", flush=True)
            if shown is None:
                rc, out = shell.run(body)
                if rc != 0:
                    print(out)
                    print(f"FAIL: {page}:{line}: the block exited {rc}")
                    return 1
                continue
            checked += 1
            expected = normalise(shown[2])
            unordered = "unordered" in shown[3] or "unordered" in markers
            if tail:
                rc, head_out = shell.run(head) if head.strip() else (0, "")
                if rc != 0:
                    print(head_out)
                    print(f"FAIL: {page}:{line}: the block exited {rc}")
                    return 1
                deadline = time.monotonic() + int(markers.get("wait") or POLL_SECONDS)
                seen = []  # what the polls printed, for the report of a failure
                while True:
                    _, out = shell.run(tail)
                    if matches(expected, normalise(out), unordered):
                        break
                    if normalise(out) not in seen:
                        seen.append(normalise(out))
                    if time.monotonic() > deadline:
                        break
                    time.sleep(1)
            else:
                seen = []
                _, out = shell.run(body)
            actual = normalise(out)
            if matches(expected, actual, unordered):
                print(f"PASS: {page}:{line}: the output matches the page ({len(expected)} lines)")
            else:
                failures += 1
                print(f"FAIL: {page}:{line}: the output differs from the page's ({page}:"
                      f"{shown[0]})\n  page:\n    " + "\n    ".join(expected) +
                      "\n  printed:\n    " + "\n    ".join(actual))
                for other in [o for o in seen if o != actual][-3:]:
                    print("  printed by an earlier poll:\n    " + "\n    ".join(other))
    finally:
        for name in re.findall(r"hack/cluster/up\.sh .*--name ([\w-]+)", text):
            cluster = name + "-" + shell.suffix
            # What the page started in the background names this run's cluster (its kubeconfig).
            ours = subprocess.run(["pgrep", "-f", "_output/cluster/" + cluster + "/"],
                                  stdout=subprocess.PIPE, text=True).stdout.split()
            for pid in ours:
                try:
                    os.kill(int(pid), signal.SIGTERM)
                except (ProcessLookupError, ValueError):
                    pass
            subprocess.run(["hack/cluster/down.sh", "--name", cluster], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"{'PASSED' if failures == 0 else 'FAILED'}: {page}: {checked} outputs compared, "
          f"{failures} differ")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

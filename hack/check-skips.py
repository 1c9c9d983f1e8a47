#!/usr/bin/env python3
"""What ran, per label, and no test skipped in CI that tests/allowed-skips.txt does not allow.

    hack/check-skips.py BUILD_DIR JUNIT.xml...

hack/test.sh calls it after its ctest runs, with the JUnit files they wrote (--output-junit). It
prints, per ctest label, how many tests ran, passed, failed and were skipped (a test skips with
exit code 77, GTEST_SKIP, or when ctest could not run it: a missing binary). With CI=true in the
environment, a skipped test that tests/allowed-skips.txt does not name is a failure: a test must
not pass CI by not running. Exit code 1 then, 0 otherwise.

tests/allowed-skips.txt: one test a line, `NAME: reason` (NAME as ctest names it, e.g.
`e2e.chart`; the reason is required); `#` starts a comment.
"""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
ALLOWED = os.path.join(ROOT, "tests", "allowed-skips.txt")


def allowed_skips(path):
    allowed = {}
    if not os.path.exists(path):
        return allowed
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, reason = line.partition(":")
            if not reason.strip():
                sys.exit(f"{path}:{n}: `{line}` gives no reason (want `NAME: reason`)")
            allowed[name.strip()] = reason.strip()
    return allowed


def labels_of(build_dir):
    out = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    labels = {}
    for test in json.loads(out).get("tests", []):
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels[test["name"]] = list(prop.get("value") or [])
        labels.setdefault(test["name"], [])
    return labels


def results(junit_files):
    """Test name -> passed, failed or skipped (a later file's result wins)."""
    status = {}
    for path in junit_files:
        if not os.path.exists(path):
            continue
        for case in ElementTree.parse(path).getroot().iter("testcase"):
            name = case.get("name")
            kind = case.get("status")
            if case.find("failure") is not None or kind == "fail":
                status[name] = "failed"
            elif case.find("skipped") is not None or kind in ("notrun", "disabled"):
                status[name] = "skipped"
            else:
                status[name] = "passed"
    return status


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    build_dir, junit_files = argv[0], argv[1:]
    status = results(junit_files)
    if not status:
        print("check-skips: no test results found")
        return 0
    labels = labels_of(build_dir)
    counts = {}
    for name, result in status.items():
        for label in labels.get(name) or ["(none)"]:
            c = counts.setdefault(label, {"passed": 0, "failed": 0, "skipped": 0})
            c[result] += 1
    print("tests per label:")
    print(f"  {'label':<14} {'ran':>5} {'passed':>7} {'failed':>7} {'skipped':>8}")
    for label in sorted(counts):
        c = counts[label]
        ran = c["passed"] + c["failed"]
        print(f"  {label:<14} {ran:>5} {c['passed']:>7} {c['failed']:>7} {c['skipped']:>8}")
    skipped = sorted(n for n, r in status.items() if r == "skipped")
    if not skipped:
        return 0
    allowed = allowed_skips(ALLOWED)
    bad = [n for n in skipped if n not in allowed]
    for name in skipped:
        why = allowed.get(name)
        print(f"  skipped: {name}" + (f" (allowed: {why})" if why else ""))
    if bad and os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        print(f"check-skips: {len(bad)} test(s) skipped in CI and not in "
              f"tests/allowed-skips.txt: {', '.join(bad)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

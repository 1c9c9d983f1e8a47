#!/usr/bin/env python3
"""Runs clang-tidy over source files in parallel, skipping files whose result is cached.

A file's result is cached (in ~/.cache/arbiter/tidy, outside the checkout so that fresh clones on
the same machine share it) under a hash of: the clang-tidy version, .clang-tidy, the compile
command, and the file's preprocessed text (so a change to any header it includes counts). Only
clean results are cached; a file with findings is checked again next time.

Usage: run-tidy.py --tidy clang-tidy-16 --build build FILE...
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import shlex
import subprocess
import sys


def preprocess_command(entry):
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "-o":
            skip = True
            continue
        if arg == "-c":
            continue
        out.append(arg)
    return out + ["-E", "-P"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tidy", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("files", nargs="+")
    opts = parser.parse_args()

    root = pathlib.Path.cwd()
    db = json.loads((pathlib.Path(opts.build) / "compile_commands.json").read_text())
    entries = {str(pathlib.Path(e["file"]).resolve()): e for e in db}
    cache = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache"))
    cache = cache / "arbiter" / "tidy"
    cache.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([opts.tidy, "--version"], capture_output=True, text=True).stdout
    config = (root / ".clang-tidy").read_text()

    def check(path):
        entry = entries.get(str((root / path).resolve()))
        if entry is None:
            return path, False, f"{path}: not in {opts.build}/compile_commands.json\n", False
        pre = subprocess.run(preprocess_command(entry), cwd=entry["directory"],
                             capture_output=True)
        # The checkout's path is left out, so that fresh clones in other folders share results.
        here = str(root).encode()
        digest = hashlib.sha256()
        # -Werror (CI builds with it, a developer's build may not) changes no finding of
        # clang-tidy, which has its own WarningsAsErrors: left out too.
        command = json.dumps(entry, sort_keys=True).replace(" -Werror", "")
        for part in (version, config, command):
            digest.update(part.encode().replace(here, b"<root>"))
        digest.update(pre.stdout.replace(here, b"<root>"))
        stamp = cache / digest.hexdigest()
        if pre.returncode == 0 and stamp.exists():
            return path, True, "", True
        run = subprocess.run([opts.tidy, "-p", opts.build, "--quiet", path],
                             capture_output=True, text=True)
        ok = run.returncode == 0 and "warning:" not in run.stdout and "error:" not in run.stdout
        if ok and pre.returncode == 0:
            stamp.touch()
        # clang-tidy reports compile errors and its own failures on stderr.
        noise = ("warnings generated", "warning generated", "Suppressed ", "Use -header-filter",
                 "Error while processing")
        errors = "".join(line for line in run.stderr.splitlines(keepends=True)
                         if not any(n in line for n in noise))
        return path, ok, run.stdout + errors, False

    failed = 0
    cached = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for path, ok, output, from_cache in pool.map(check, opts.files):
            cached += from_cache
            if not ok:
                failed += 1
                sys.stdout.write(output)
    print(f"clang-tidy: {len(opts.files)} files, {cached} unchanged since a clean run, "
          f"{failed} with findings")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

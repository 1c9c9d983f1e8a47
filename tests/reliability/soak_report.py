#!/usr/bin/env python3
"""The soak's report: figures, curves and whether they are flat.

    soak_report.py DIR

DIR holds samples.csv (hack/soak.sh writes a row after each round's quiet) and run.txt. Writes
DIR/report.md (the figures, a table per sample) and DIR/curves.svg (RSS, threads, descriptors and
the cache against the LIST over time), prints the verdict, and exits 1 unless:

  - memory is flat: after the warm-up (the first fifth of the run, at least two samples), the
    median RSS of the last third is at most 10 % + 4 MiB above the median of the first third;
  - threads are flat: the most threads in the last third is at most 2 above the most in the first;
  - descriptors are flat: the fewest open in the last third is at most 4 above the fewest in the
    first (a leak raises the floor; a burst of requests, binds waiting out 429s, opens a connection
    per request in flight, and the transport closes each once it has been idle for 90 s), and the
    most open at any sample is at most 52 above that first floor (the pool's cap: 16 idle
    connections of 3 descriptors each, and 4 for a connection being replaced);
  - the cache held what the LIST held at every sample (pods and PodGroups).

A run with fewer than six samples after its warm-up is too short to judge growth: the report says
so, and only the cache is judged.
"""

import csv
import os
import statistics
import sys

# What the transport's pool may hold above its floor: 16 idle connections (max_idle_connections)
# of 3 descriptors each (the socket and curl's wake-up socket pair), and 4 for a connection being
# replaced.
POOL_DESCRIPTORS = 16 * 3 + 4

PANELS = [
    ("RSS (MiB)", [("rss_kb", 1 / 1024, "#1f77b4")]),
    ("threads", [("threads", 1, "#2ca02c")]),
    ("open descriptors", [("fds", 1, "#d62728")]),
    ("pods: cache (line) and LIST (dots)", [("cache_pods", 1, "#9467bd"), ("list_pods", 1, None)]),
]


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for key, value in row.items():
            if key != "fault":
                row[key] = float(value) if value not in ("", None) else 0.0
    return rows


def slope_per_minute(rows, key):
    """Least-squares slope of `key` against time, per minute."""
    if len(rows) < 2:
        return 0.0
    xs = [r["t_s"] / 60 for r in rows]
    ys = [r[key] for r in rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


def judge(rows):
    """(verdict lines, ok)."""
    lines, ok = [], True
    bad_cache = [r for r in rows if r["cache_pods"] != r["list_pods"]
                 or r["cache_podgroups"] != r["list_podgroups"]]
    if bad_cache:
        ok = False
        lines.append(f"FAIL cache: differs from the LIST at {len(bad_cache)} samples "
                     f"(first at {bad_cache[0]['t_s']:.0f} s)")
    else:
        lines.append(f"ok   cache: held what the LIST held at all {len(rows)} samples")
    warm = max(2, len(rows) // 5)
    steady = rows[warm:]
    if len(steady) < 6:
        lines.append(f"--   growth: {len(steady)} samples after the warm-up, too few to judge "
                     "(run longer)")
        return lines, ok
    third = max(1, len(steady) // 3)
    first, last = steady[:third], steady[-third:]
    rss_first = statistics.median(r["rss_kb"] for r in first) / 1024
    rss_last = statistics.median(r["rss_kb"] for r in last) / 1024
    limit = rss_first * 1.10 + 4
    good = rss_last <= limit
    ok &= good
    lines.append(f"{'ok  ' if good else 'FAIL'} memory: median RSS {rss_first:.1f} MiB in the "
                 f"first third, {rss_last:.1f} MiB in the last (at most {limit:.1f}); slope "
                 f"{slope_per_minute(steady, 'rss_kb'):+.1f} KiB/min")
    most_first = max(r["threads"] for r in first)
    most_last = max(r["threads"] for r in last)
    good = most_last <= most_first + 2
    ok &= good
    lines.append(f"{'ok  ' if good else 'FAIL'} threads: at most {most_first:.0f} in the first "
                 f"third, {most_last:.0f} in the last (at most {most_first + 2:.0f})")
    floor_first = min(r["fds"] for r in first)
    floor_last = min(r["fds"] for r in last)
    peak = max(r["fds"] for r in steady)
    good = floor_last <= floor_first + 4 and peak <= floor_first + POOL_DESCRIPTORS
    ok &= good
    lines.append(f"{'ok  ' if good else 'FAIL'} descriptors: at least {floor_first:.0f} in the "
                 f"first third, {floor_last:.0f} in the last (at most {floor_first + 4:.0f}); "
                 f"at most {peak:.0f} at any sample (at most {floor_first + POOL_DESCRIPTORS:.0f})")
    return lines, ok


def svg(rows, path):
    width, height, pad = 720, 170, 46
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height * len(PANELS)}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height * len(PANELS)}" fill="white"/>']
    t_max = max((r["t_s"] for r in rows), default=1) or 1
    for i, (title, series) in enumerate(PANELS):
        top = i * height
        values = [r[key] * scale for r in rows for key, scale, _ in series]
        lo, hi = min(values, default=0), max(values, default=1)
        lo = 0 if lo >= 0 else lo
        hi = hi * 1.1 if hi > 0 else 1
        plot_w, plot_h = width - 2 * pad, height - 2 * pad + 20

        def xy(row, key, scale, top=top, lo=lo, hi=hi, plot_w=plot_w, plot_h=plot_h):
            x = pad + row["t_s"] / t_max * plot_w
            y = top + pad - 10 + plot_h - (row[key] * scale - lo) / (hi - lo) * plot_h
            return x, y

        out.append(f'<text x="{pad}" y="{top + 20}" font-weight="bold">{title}</text>')
        y0 = top + pad - 10 + plot_h
        out.append(f'<line x1="{pad}" y1="{y0}" x2="{width - pad}" y2="{y0}" stroke="#999"/>')
        out.append(f'<line x1="{pad}" y1="{top + pad - 10}" x2="{pad}" y2="{y0}" stroke="#999"/>')
        out.append(f'<text x="{pad - 4}" y="{top + pad - 6}" text-anchor="end">{hi:.0f}</text>')
        out.append(f'<text x="{pad - 4}" y="{y0}" text-anchor="end">{lo:.0f}</text>')
        out.append(f'<text x="{width - pad}" y="{y0 + 14}" text-anchor="end">'
                   f'{t_max / 60:.0f} min</text>')
        for key, scale, colour in series:
            points = [xy(r, key, scale) for r in rows]
            if colour is None:
                out.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2" fill="black"/>'
                           for x, y in points)
            else:
                line = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
                out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
                           f'points="{line}"/>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    rows = read(os.path.join(directory, "samples.csv"))
    if not rows:
        sys.exit(f"{directory}/samples.csv: no samples (the run ended before its first round)")
    verdict, ok = judge(rows)
    svg(rows, os.path.join(directory, "curves.svg"))
    run = ""
    if os.path.exists(os.path.join(directory, "run.txt")):
        with open(os.path.join(directory, "run.txt"), encoding="utf-8") as f:
            run = f.read().strip()
    last, first = rows[-1], rows[0]
    faults = {}
    for r in rows:
        faults[r["fault"]] = faults.get(r["fault"], 0) + 1
    minutes = (last["t_s"] - first["t_s"]) / 60 or 1
    report = [
        "# Soak report", "", "```", run, "```", "",
        "## Verdict", "", *[f"- {line}" for line in verdict], "",
        "## Figures", "",
        f"- rounds: {len(rows)}; faults: "
        + ", ".join(f"{name} ×{n}" for name, n in sorted(faults.items())),
        f"- RSS: {min(r['rss_kb'] for r in rows) / 1024:.1f}–"
        f"{max(r['rss_kb'] for r in rows) / 1024:.1f} MiB; threads "
        f"{min(r['threads'] for r in rows):.0f}–{max(r['threads'] for r in rows):.0f}; "
        f"descriptors {min(r['fds'] for r in rows):.0f}–{max(r['fds'] for r in rows):.0f}",
        f"- binds: {last['binds']:.0f}; sessions: {last['sessions']:.0f}; re-lists: "
        f"{last['relists']:.0f} ({(last['relists'] - first['relists']) / minutes:.2f}/min); "
        f"API requests: {last['api_requests']:.0f}",
        f"- pods at each sample: {min(r['list_pods'] for r in rows):.0f}–"
        f"{max(r['list_pods'] for r in rows):.0f}", "",
        "![curves](curves.svg)", "",
        "## Samples", "",
        "| t (s) | fault | RSS (MiB) | threads | fds | pods cache/LIST | groups cache/LIST |"
        " re-lists | binds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    report += [f"| {r['t_s']:.0f} | {r['fault']} | {r['rss_kb'] / 1024:.1f} | "
               f"{r['threads']:.0f} | {r['fds']:.0f} | {r['cache_pods']:.0f}/"
               f"{r['list_pods']:.0f} | {r['cache_podgroups']:.0f}/{r['list_podgroups']:.0f} | "
               f"{r['relists']:.0f} | {r['binds']:.0f} |" for r in rows]
    with open(os.path.join(directory, "report.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(report) + "\n")
    print("\n".join(verdict))
    print(f"report: {directory}/report.md, curves: {directory}/curves.svg")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

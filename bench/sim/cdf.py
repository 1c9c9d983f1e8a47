#!/usr/bin/env python3
"""Draws the distribution (CDF) of a per-job time from simulator reports, one curve per mode, as
an SVG for the docs (docs/placement.md's charts).

    bench/sim/cdf.py OUT.svg TITLE METRIC MODE=REPORT[,REPORT...] [MODE=...]

METRIC is `wait` (arrival to start) or `completion` (arrival to end); each MODE pools the jobs of
its reports (e.g. the seeds of one off/on run: off=dir/off-1.json,dir/off-2.json). Jobs that
never started (wait) or never ended (completion) are left out, and counted in the legend.
"""
import json
import sys

COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd"]


def times(paths, metric):
    values, missing = [], 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            outcomes = json.load(f)["jobOutcomes"]
        col = {name: i for i, name in enumerate(outcomes["columns"])}
        for row in outcomes["rows"]:
            end = row[col["startMs"] if metric == "wait" else col["finishMs"]]
            if end < 0:
                missing += 1
            else:
                values.append((end - row[col["arrivalMs"]]) / 1000)
    return sorted(values), missing


def percentile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def main():
    if len(sys.argv) < 5 or sys.argv[3] not in ("wait", "completion"):
        sys.exit(__doc__)
    out_path, title, metric = sys.argv[1:4]
    modes = []
    for arg in sys.argv[4:]:
        mode, _, paths = arg.partition("=")
        values, missing = times(paths.split(","), metric)
        if not values:
            sys.exit(f"{mode}: no job in {paths}")
        modes.append((mode, values, missing))

    width, height, pad = 720, 300, 50
    plot_w, plot_h = width - 2 * pad, height - 2 * pad
    # The x axis ends at the largest 99th percentile: the last per cent would squash the rest.
    x_max = max(percentile(v, 0.99) for _, v, _ in modes) or 1
    digits = 1 if x_max < 20 else 0  # tenths of a second for short times
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{pad}" y="20" font-weight="bold">{title}</text>']
    y0 = pad + plot_h
    out.append(f'<line x1="{pad}" y1="{y0}" x2="{width - pad}" y2="{y0}" stroke="#999"/>')
    out.append(f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{y0}" stroke="#999"/>')
    for frac in (0, 0.5, 0.9, 1):
        y = y0 - frac * plot_h
        out.append(f'<text x="{pad - 4}" y="{y + 4:.1f}" text-anchor="end">{frac:.0%}</text>')
        out.append(f'<line x1="{pad}" y1="{y:.1f}" x2="{width - pad}" y2="{y:.1f}" '
                   'stroke="#eee"/>')
    for i in range(5):
        x = pad + i / 4 * plot_w
        out.append(f'<text x="{x:.1f}" y="{y0 + 14}" text-anchor="middle">'
                   f'{x_max * i / 4:.{digits}f} s</text>')
    label = "arrival to start" if metric == "wait" else "arrival to end"
    out.append(f'<text x="{pad + plot_w / 2}" y="{y0 + 30}" text-anchor="middle">'
               f'{label} (share of jobs at or below)</text>')
    for k, (mode, values, missing) in enumerate(modes):
        colour = COLOURS[k % len(COLOURS)]
        points = []
        n = len(values)
        # At most 400 steps (the quantiles), so that the file stays small.
        steps = min(n, 400)
        for s in range(steps):
            i = s * n // steps
            v = values[i]
            if v > x_max:
                break
            x = pad + v / x_max * plot_w
            points.append(f"{x:.1f},{y0 - i / n * plot_h:.1f}")
            points.append(f"{x:.1f},{y0 - (s + 1) * n // steps / n * plot_h:.1f}")
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
                   f'points="{" ".join(points)}"/>')
        note = f", {missing} not {'started' if metric == 'wait' else 'ended'}" if missing else ""
        out.append(f'<text x="{width - pad - 4}" y="{pad + 16 + 16 * k}" text-anchor="end" '
                   f'fill="{colour}">{mode}: {n} jobs, p50 {percentile(values, 0.5):.{digits}f} s, '
                   f'p90 {percentile(values, 0.9):.{digits}f} s{note}</text>')
    out.append("</svg>")
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Draws stencil_bench's measured kernels on the GPU's roofline.

    python3 bench/roofline.py results/bench.json results/bench-roofline.png

Two roofs, both measured in the same run: device memory (the larger of the
device-to-device copy and the streaming copy kernel) and, where the run
measured it, the L2 cache (a copy kernel over buffers the L2 holds). The
compute roof is omitted: every stencil here is far below it. Points carry
numbers; the key beside the chart names each kernel with its bandwidth,
percent of the memory roof and the naive baseline's, so that no label
overlaps another. Needs matplotlib.
"""
import json
import sys


def number_ranges(numbers):
    """[3, 4, 5, 9] -> '3-5, 9'."""
    parts, start = [], numbers[0]
    for prev, cur in zip(numbers, numbers[1:] + [None]):
        if cur != prev + 1 if cur is not None else True:
            parts.append(str(start) if start == prev else f"{start}-{prev}")
            start = cur
    return ", ".join(parts)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: roofline.py BENCH.json OUT.png|OUT.svg")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("roofline.py: matplotlib is missing (Debian: python3-matplotlib)")
    with open(sys.argv[1]) as f:
        bench = json.load(f)
    peaks = bench["peak_gb_s"]
    peak = peaks["peak"]
    l2 = peaks.get("l2_copy", 0.0)
    rows = [r for r in bench["rows"] if r["arithmetic_intensity"] > 0]
    rows.sort(key=lambda r: (r["arithmetic_intensity"], r["kernel"]))
    key_lines = max(len(rows), 1)
    fig, (ax, key) = plt.subplots(
        1, 2, figsize=(16, max(7, 0.22 * key_lines + 2)),
        gridspec_kw={"width_ratios": [3, 2]})
    xs = [0.05, 20]
    ax.plot(xs, [x * peak for x in xs], "k-",
            label=f"memory roof: {peak:.0f} GB/s (measured copy)")
    if l2 > 0:
        ax.plot(xs, [x * l2 for x in xs], "k--",
                label=f"L2 roof: {l2:.0f} GB/s (measured copy, L2-resident)")
    lines = []
    # Points that nearly coincide share one label ("3-11", "19, 22"), level
    # with the first of them, to its right: numbers never stack or overlap.
    clusters = []  # [x, y, numbers]
    for n, r in enumerate(rows, start=1):
        x = r["arithmetic_intensity"]
        y = x * r["gb_s"]
        ax.plot(x, y, "o", color="tab:blue", markersize=4)
        for c in clusters:
            if abs(c[0] / x - 1) < 0.08 and abs(c[1] / y - 1) < 0.12:
                c[2].append(n)
                break
        else:
            clusters.append([x, y, [n]])
        naive = ""
        if r["naive_gb_s"] > 0:
            ax.plot(x, x * r["naive_gb_s"], "x", color="tab:red", markersize=4)
            naive = f'{r["naive_gb_s"]:7.0f}'
        lines.append(f'{n:3d}  {r["kernel"][:34]:34s} {r.get("role", "")[:8]:8s}'
                     f' {r["gb_s"]:7.0f} {r["percent_of_peak"]:5.1f}% {naive}')
    for x, y, numbers in clusters:
        ax.annotate(number_ranges(numbers), (x, y), fontsize=7, va="center",
                    xytext=(5, 0), textcoords="offset points",
                    color="tab:blue")
    ax.plot([], [], "o", color="tab:blue", label="generated kernel (number: key)")
    ax.plot([], [], "x", color="tab:red", label="naive baseline")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop/byte)")
    ax.set_ylabel("GFLOP/s (measured bandwidth x intensity)")
    ax.set_title(f'stencil_bench on {bench["device"]}')
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    key.axis("off")
    header = f'{"#":>3s}  {"kernel":34s} {"role":8s} {"GB/s":>7s} {"%roof":>6s} {"naive":>7s}'
    key.text(0.0, 1.0, "\n".join([header] + lines), family="monospace",
             fontsize=7, va="top", ha="left", transform=key.transAxes)
    fig.savefig(sys.argv[2], dpi=120, bbox_inches="tight")
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Draws stencil_bench's measured kernels on the GPU's roofline.

    python3 bench/roofline.py results/bench.json results/bench-roofline.png

The roof is the peak bandwidth measured in the same run; the compute roof is
omitted (every stencil here is far below it). Needs matplotlib.
"""
import json
import sys


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
    peak = bench["peak_gb_s"]["peak"]
    rows = [r for r in bench["rows"] if r["arithmetic_intensity"] > 0]
    fig, ax = plt.subplots(figsize=(11, 7))
    xs = [0.05, 20]
    ax.plot(xs, [x * peak for x in xs], "k-",
            label=f"memory roof: {peak:.0f} GB/s (measured)")
    for r in rows:
        x = r["arithmetic_intensity"]
        ax.plot(x, x * r["gb_s"], "o", color="tab:blue")
        ax.annotate(f'{r["kernel"]} ({r["percent_of_peak"]:.0f}%)',
                    (x, x * r["gb_s"]), fontsize=6, xytext=(4, -3),
                    textcoords="offset points")
        if r["naive_gb_s"] > 0:
            ax.plot(x, x * r["naive_gb_s"], "x", color="tab:red")
    ax.plot([], [], "o", color="tab:blue", label="generated kernel")
    ax.plot([], [], "x", color="tab:red", label="naive baseline")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop/byte)")
    ax.set_ylabel("GFLOP/s (measured bandwidth x intensity)")
    ax.set_title(f'stencil_bench on {bench["device"]}')
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left")
    fig.savefig(sys.argv[2], dpi=120, bbox_inches="tight")
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()

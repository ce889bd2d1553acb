#!/usr/bin/env python3
"""The table of every shipped kernel from stencil_bench runs: the spec's
own options, the planner's choice of every option (NAME_auto), the tuned
variant where the tuning cache has one, and the naive baseline, each as GB/s
and percent of the same run's peak; even/odd specs also by their hopping
kernel. Usage: options_table.py RUN... [--specs DIR] > table.md

A RUN is stencil_bench's JSON (--json) or its printed output (a run cut
short writes no JSON; its log still has every row it timed). A spec in
several runs is taken from the run that timed more of its rows; rows from
a later run are marked with its number and use its own peak.

With --specs, the spec's column says which options the spec writes."""
import json
import os
import re
import sys

ROW = re.compile(r"^(\S+)\s+(\d+(?:x\d+)*)\s+(apply|tuned|planner|batch20|iter|"
                 r"hop e>o|hop o>e|[a-z]+(?: [a-z>]+)?)\s+([0-9.]+)\s+([0-9.]+)"
                 r"\s+([0-9.]+)(?:\s+([0-9.]+)\s+[0-9.]+x)?\s*$")
# The peak stencil_bench's percentages use (the faster of its two copies,
# as its JSON's "peak"); logs older than that phrase: the streaming copy.
PEAK = re.compile(r"percentages below are of ([0-9.]+) GB/s")
OLD_PEAK = re.compile(r"streaming copy kernel ([0-9.]+) GB/s")
DEVICE = re.compile(r"^stencil_bench: \S+ on (.*?);")


def load_run(path):
    """{"device", "peak", "rows": [{kernel, role, size, gb_s, naive_gb_s}]}"""
    text = open(path).read()
    try:
        data = json.loads(text)
        return {"device": data["device"], "peak": data["peak_gb_s"]["peak"],
                "rows": data["rows"]}
    except ValueError:
        pass
    run = {"device": "?", "peak": None, "rows": []}
    for line in text.splitlines():
        if run["peak"] is None and PEAK.search(line):
            run["peak"] = float(PEAK.search(line).group(1))
        elif run["peak"] is None and OLD_PEAK.search(line):
            run["peak"] = float(OLD_PEAK.search(line).group(1))
        if DEVICE.match(line):
            run["device"] = DEVICE.match(line).group(1)
        m = ROW.match(line)
        if m:
            run["rows"].append({"kernel": m.group(1), "size": m.group(2),
                                "role": m.group(3), "gb_s": float(m.group(5)),
                                "naive_gb_s": float(m.group(7) or 0)})
    if run["peak"] is None:
        sys.exit("%s: neither stencil_bench JSON nor its output" % path)
    return run


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    specs_dir = args[args.index("--specs") + 1] if "--specs" in args else None
    paths = [a for i, a in enumerate(args)
             if a != "--specs" and (i == 0 or args[i - 1] != "--specs")]
    runs = [load_run(p) for p in paths]
    data = {"device": runs[0]["device"]}
    peak = runs[0]["peak"]
    table = {}
    order = []
    for number, run in enumerate(runs, start=1):
        found = {}
        last_spec = None
        for row in run["rows"]:
            name, role = row["kernel"], row["role"]
            if role == "apply":
                last_spec = name
                found[name] = {"size": row["size"], "spec": row["gb_s"],
                               "naive": row["naive_gb_s"],
                               "run": number, "peak": run["peak"]}
            elif last_spec is None or role in ("batch20", "iter"):
                continue
            elif role == "tuned":
                found[last_spec]["tuned"] = row["gb_s"]
            elif role == "planner":
                found[last_spec]["planner"] = row["gb_s"]
            elif role == "along x":
                found[last_spec]["along_x"] = row["gb_s"]
            elif role == "hop e>o":
                key = ("planner_hop" if name.endswith("_auto") else
                       "tuned_hop" if re.search(r"_tuned\d+$", name) else
                       "spec_hop")
                found[last_spec][key] = row["gb_s"]
        # A spec in several runs: the run that timed more of its rows (a run
        # cut short leaves its last spec incomplete).
        for name, entry in found.items():
            if name not in table:
                order.append(name)
                table[name] = entry
            elif len(entry) > len(table[name]):
                table[name] = entry

    def cell(value, row):
        if not value:
            return "-"
        return "%.0f (%.1f%%)" % (value, 100 * value / row["peak"])

    def written(name):
        if not specs_dir:
            return ""
        path = os.path.join(specs_dir, name + ".yaml")
        if not os.path.exists(path):
            return ""
        keys = []
        inside = False
        for line in open(path):
            if line.startswith("kernel:"):
                inside = True
                continue
            if inside and line.strip() and not line.startswith((" ", "\t")):
                break
            stripped = line.strip()
            if inside and stripped and not stripped.startswith("#") and \
                    line.startswith("  ") and not line.startswith("    "):
                keys.append(stripped.split(":")[0])
        return ", ".join(keys) if keys else "none"

    print("Device: %s; peak (the run's copy peak) %.1f GB/s; GB/s (%% of peak)."
          % (data["device"], peak))
    for number, run in enumerate(runs[1:], start=2):
        print("Rows marked [%d]: run %d on %s, peak %.1f GB/s, percentages of "
              "it." % (number, number, run["device"], run["peak"]))
    print()
    header = ("| kernel | size | spec's options | spec's, groups along x | "
              "planner | tuned | naive |")
    if specs_dir:
        header += " options the spec writes |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for name in order:
        r = table[name]
        mark = " [%d]" % r["run"] if r["run"] > 1 else ""
        line = "| %s%s | %s | %s | %s | %s | %s | %s |" % (
            name, mark, r["size"], cell(r.get("spec"), r),
            cell(r.get("along_x"), r),
            cell(r.get("planner"), r), cell(r.get("tuned"), r),
            cell(r.get("naive"), r))
        if specs_dir:
            line += " %s |" % written(name)
        print(line)
        if "spec_hop" in r or "planner_hop" in r:
            hop = "| %s hop e>o%s | %s | %s | - | %s | %s | - |" % (
                name, mark, r["size"], cell(r.get("spec_hop"), r),
                cell(r.get("planner_hop"), r), cell(r.get("tuned_hop"), r))
            if specs_dir:
                hop += " |"
            print(hop)


if __name__ == "__main__":
    main()

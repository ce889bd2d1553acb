#!/usr/bin/env python3
"""The table of every shipped kernel from one stencil_bench JSON: the spec's
own options, the planner's choice of every option (NAME_auto), the tuned
variant where the tuning cache has one, and the naive baseline, each as GB/s
and percent of the same run's peak; even/odd specs also by their hopping
kernel. Usage: options_table.py bench.json [--specs DIR] > table.md

With --specs, the spec's column says which options the spec writes."""
import json
import os
import sys


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    data = json.load(open(args[0]))
    peak = data["peak_gb_s"]["peak"]
    specs_dir = args[args.index("--specs") + 1] if "--specs" in args else None
    table = {}
    order = []
    last_spec = None
    for row in data["rows"]:
        name, role = row["kernel"], row["role"]
        if role == "apply":
            last_spec = name
            order.append(name)
            table[name] = {"size": row["size"], "spec": row["gb_s"],
                           "naive": row["naive_gb_s"]}
        elif last_spec is None or role in ("batch20", "iter"):
            continue
        elif role == "tuned":
            table[last_spec]["tuned"] = row["gb_s"]
        elif role == "planner":
            table[last_spec]["planner"] = row["gb_s"]
        elif role == "hop e>o":
            key = "planner_hop" if name.endswith("_auto") else "spec_hop"
            table[last_spec][key] = row["gb_s"]

    def cell(value):
        if not value:
            return "-"
        return "%.0f (%.1f%%)" % (value, 100 * value / peak)

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

    print("Device: %s; peak (streaming copy) %.1f GB/s; GB/s (%% of peak)."
          % (data["device"], peak))
    print()
    header = "| kernel | size | spec's options | planner | tuned | naive |"
    if specs_dir:
        header += " options the spec writes |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for name in order:
        r = table[name]
        line = "| %s | %s | %s | %s | %s | %s |" % (
            name, r["size"], cell(r.get("spec")), cell(r.get("planner")),
            cell(r.get("tuned")), cell(r.get("naive")))
        if specs_dir:
            line += " %s |" % written(name)
        print(line)
        if "spec_hop" in r or "planner_hop" in r:
            hop = "| %s hop e>o | %s | %s | %s | - | - |" % (
                name, r["size"], cell(r.get("spec_hop")),
                cell(r.get("planner_hop")))
            if specs_dir:
                hop += " |"
            print(hop)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of `scripts/bench --ab`: the same cells measured on two kernels,
in alternating boots on the same disk images. Usage:

    ab.py OUT LABEL_A LABEL_B ROUNDS BOOT COMMAND

reads OUT/<label>-r<N>/boot-<BOOT>/ for every label and round, writes
OUT/ab.json and OUT/ab.md and prints the markdown."""

import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import LABELS, WORKLOADS, cell_figures, parse_boot  # noqa: E402


def cells_of(out, boot):
    """{cell id: {"insns_per_gib", "kernel_insns_per_gib", "mb_s", ...}}"""
    gdir, spans, info, accel = parse_boot(out, boot)
    res = {}
    for cell, s in spans.items():
        if cell.startswith("calib-") or "begin" not in s or "end" not in s:
            continue
        wl = cell.split(".")[3]
        fpath = os.path.join(gdir, "fio", cell + ".json")
        if not os.path.exists(fpath):
            continue
        res[cell] = cell_figures(fpath, WORKLOADS[wl][0], s)
    return res, info.get("kernel", ["?"])[0], accel


def main():
    out, la, lb, rounds, boot, command = sys.argv[1:7]
    rounds = int(rounds)
    runs = {la: [], lb: []}
    kernels, accels = {}, set()
    for r in range(1, rounds + 1):
        for label in (la, lb):
            cells, kernel, accel = cells_of(os.path.join(out, f"{label}-r{r}"), boot)
            runs[label].append(cells)
            kernels[label] = kernel
            accels.add(accel)
    ids = [c for c in runs[la][0] if all(c in x for x in runs[la] + runs[lb])]
    if not ids:
        sys.exit("bench --ab: no cell was measured in every boot")

    def agg(label, cid, key):
        v = [x[cid][key] for x in runs[label] if x[cid].get(key) is not None]
        return {"mean": statistics.mean(v), "min": min(v), "max": max(v), "runs": v} if v else None

    rows = []
    for cid in ids:
        _, cfg, dus, wl = cid.split(".")
        row = {"id": cid, "config": cfg, "label": LABELS.get(cfg, cfg), "data_unit": dus,
               "workload": wl, "workload_label": WORKLOADS[wl][3]}
        for key in ("insns_per_gib", "kernel_insns_per_gib", "mb_s", "lat_p50_us", "lat_p99_us"):
            a, b = agg(la, cid, key), agg(lb, cid, key)
            row[key] = {la: a, lb: b,
                        "ratio": round(b["mean"] / a["mean"], 3) if a and b and a["mean"] else None}
        rows.append(row)

    accel = ",".join(sorted(accels))
    res = {"command": command, "boot": boot, "rounds": rounds, "accelerator": accel,
           "kernels": kernels, "labels": [la, lb], "cells": rows}
    with open(os.path.join(out, "ab.json"), "w") as f:
        json.dump(res, f, indent=1)

    def g(x):
        return f"{x['mean'] / 1e9:.2f}" if x else "—"

    def spread(x):
        if not x or len(x["runs"]) < 2:
            return ""
        return f" ±{(x['max'] - x['min']) / 2 / x['mean'] * 100:.1f}%"

    lines = [f"Accelerator: **{accel}**; boot: {boot} (UFS crypto "
             f"{'on' if boot == 'engine' else 'off'}); {rounds} round(s), boots alternating "
             f"{la}, {lb}, ... on the same disk images.", "",
             f"- {la}: {kernels[la]}", f"- {lb}: {kernels[lb]}", "",
             f"Command: `{command}`", "",
             f"| workload | configuration | DU | G insns/GiB {la} | G insns/GiB {lb} | "
             f"{lb} ÷ {la} insns | MB/s {la} | MB/s {lb} | {lb} ÷ {la} MB/s |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(rows, key=lambda r: (list(WORKLOADS).index(r["workload"]),
                                         list(LABELS).index(r["config"]) if r["config"] in LABELS else 99,
                                         r["data_unit"])):
        i, m = r["insns_per_gib"], r["mb_s"]
        lines.append(
            f"| {r['workload_label']} | {r['label']} | {r['data_unit']} | "
            f"{g(i[la])}{spread(i[la])} | {g(i[lb])}{spread(i[lb])} | **{i['ratio']}** | "
            f"{m[la]['mean']:.1f}{spread(m[la])} | {m[lb]['mean']:.1f}{spread(m[lb])} | {m['ratio']} |")
    lines.append("")
    lines.append("± is half the spread between rounds, relative to the mean.")
    md = "\n".join(lines) + "\n"
    with open(os.path.join(out, "ab.md"), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()

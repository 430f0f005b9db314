#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host half of scripts/bench: turn the boots' raw output into results.json,
a markdown table, gnuplot charts and the generated part of docs/benchmarks.md
(full mode), or the short side-by-side (demo mode)."""

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys

GIB = 1 << 30

WORKLOADS = {
    "seqread": ("read", "1M", 32, "seq read 1 MiB QD32"),
    "seqwrite": ("write", "1M", 32, "seq write 1 MiB QD32"),
    "randread1": ("randread", "4k", 1, "rand read 4 KiB QD1"),
    "randread32": ("randread", "4k", 32, "rand read 4 KiB QD32"),
    "randwrite1": ("randwrite", "4k", 1, "rand write 4 KiB QD1"),
    "randwrite32": ("randwrite", "4k", 32, "rand write 4 KiB QD32"),
}
LABELS = {
    "plain": "plain dm-linear",
    "dmic-engine": "dm-inlinecrypt, UFS engine",
    "dmic-fallback": "dm-inlinecrypt, blk-crypto-fallback",
    "dmcrypt": "dm-crypt (defaults)",
    "dmcrypt-nowq": "dm-crypt no_read/write_workqueue",
    "fscrypt-engine": "fscrypt -o inlinecrypt, UFS engine",
    "fscrypt-fallback": "fscrypt -o inlinecrypt, fallback",
    "fscrypt-sw": "fscrypt software path (no inlinecrypt)",
}
ORDER = list(LABELS)
# Boots: engine on/off, and (full mode) the same on 4 vCPUs with fio
# numjobs=4. The 4-job cells are compared within their own boots only.
BOOTS = ("engine", "noengine", "engine4", "noengine4")
BOOT_TAG = {"engine": "E", "noengine": "N", "engine4": "E4", "noengine4": "N4"}
MULTI_WORKLOADS = ["seqread", "seqwrite", "randread32", "randwrite32"]


def expected_cells(mode):
    """The cells each mode must produce (mirrors scripts/bench.d/guest)."""
    if mode == "full":
        wls = list(WORKLOADS)
        duss = ["512", "4096"]
        boots = {
            "engine": (["plain", "dmic-engine", "dmcrypt", "dmcrypt-nowq"],
                       ["fscrypt-engine", "fscrypt-sw"]),
            "noengine": (["plain", "dmic-fallback", "dmcrypt", "dmcrypt-nowq"],
                         ["fscrypt-fallback", "fscrypt-sw"]),
        }
    elif mode == "quick":
        wls = ["seqread", "randwrite32"]
        duss = ["4096"]
        boots = {
            "engine": (["plain", "dmic-engine", "dmcrypt", "dmcrypt-nowq"],
                       ["fscrypt-engine", "fscrypt-sw"]),
            "noengine": (["dmic-fallback"], ["fscrypt-fallback"]),
        }
    else:
        wls = ["seqread", "randread32"]
        duss = ["4096"]
        boots = {"engine": (["dmic-engine", "dmcrypt"], []),
                 "noengine": (["dmic-fallback"], [])}
    if mode == "full":
        boots["engine4"] = (["plain", "dmic-engine"], [])
        boots["noengine4"] = (["plain", "dmic-fallback", "dmcrypt", "dmcrypt-nowq"], [])
    cells = []
    for boot, (dev, fs) in boots.items():
        for w in (MULTI_WORKLOADS if boot.endswith("4") else wls):
            for c in dev:
                for d in (["-"] if c == "plain" else duss):
                    cells.append(f"{boot}.{c}.{d}.{w}")
            for c in fs:
                cells.append(f"{boot}.{c}.4096.{w}")
    return cells


def read_marks(path):
    """(all instructions, kernel instructions or None) at each mark."""
    marks = []
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"insnmark: mark (\d+) cpu \d+ insns (\d+)(?: kernel (\d+))?", line)
            if m:
                marks.append((int(m.group(2)), int(m.group(3)) if m.group(3) else None))
    return marks


def stat_busy(fields):
    # cpu user nice system idle iowait irq softirq steal ... (USER_HZ ticks)
    v = [int(x) for x in fields[:8]]
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7], sum(v)


def parse_boot(out, boot):
    d = os.path.join(out, f"boot-{boot}")
    gdir = os.path.join(d, "guest", "bench")
    marks = read_marks(os.path.join(d, "insn-plugin.log"))
    phases = []
    with open(os.path.join(gdir, "phases")) as f:
        for line in f:
            p = line.split()
            # <cell> <begin|end> cpu <user> <nice> ...
            phases.append((p[0], p[1], p[3:]))
    if len(marks) != len(phases):
        sys.exit(f"bench: boot {boot}: {len(marks)} plugin marks for "
                 f"{len(phases)} phases: cannot attribute instruction counts")
    info = {}
    with open(os.path.join(gdir, f"info.{boot}")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition(" ")
            info.setdefault(k, []).append(v)
    spans = {}
    for i, (cell, what, st) in enumerate(phases):
        spans.setdefault(cell, {})[what] = (marks[i], stat_busy(st))
    with open(os.path.join(d, "qemu-cmdline")) as f:
        cmd = f.read().split()
    # "-accel tcg,thread=multi": the accelerator is the part before the
    # first comma.
    accel = cmd[cmd.index("-accel") + 1].split(",")[0] if "-accel" in cmd else "unknown"
    return gdir, spans, info, accel


def fio_cell(path, rw):
    with open(path) as f:
        j = json.load(f)
    job = j["jobs"][0]
    side = job["write"] if "write" in rw else job["read"]
    nbytes = job["read"]["io_bytes"] + job["write"]["io_bytes"]
    pct = side.get("clat_ns", {}).get("percentile", {})
    return {
        "mb_s": side["bw_bytes"] / 1e6,
        "iops": side["iops"],
        "lat_p50_us": pct.get("50.000000", 0) / 1e3,
        "lat_p99_us": pct.get("99.000000", 0) / 1e3,
        "bytes": nbytes,
        "runtime_s": job["job_runtime"] / 1e3,
        "fio_sys_cpu_pct": job.get("sys_cpu"),
        "fio_usr_cpu_pct": job.get("usr_cpu"),
    }


def cell_figures(fio_json, rw, span):
    """fio's figures of one cell, and the guest instructions and CPU time
    between its two marks (span: {"begin"|"end": (mark, busy ticks)}),
    absolute and per GiB moved."""
    c = fio_cell(fio_json, rw)
    (m0, (busy0, _)), (m1, (busy1, _)) = span["begin"], span["end"]
    gib = c["bytes"] / GIB
    c["guest_insns"] = m1[0] - m0[0]
    c["guest_kernel_insns"] = m1[1] - m0[1] if m0[1] is not None else None
    c["guest_cpu_s"] = (busy1 - busy0) / 100.0
    c["insns_per_gib"] = (m1[0] - m0[0]) / gib if gib else None
    c["kernel_insns_per_gib"] = (c["guest_kernel_insns"] / gib
                                 if gib and c["guest_kernel_insns"] is not None else None)
    c["cpu_s_per_gib"] = c["guest_cpu_s"] / gib if gib else None
    return c


def host_load(out):
    """The host's 1-minute load average sampled while the boots ran
    (scripts/bench writes "EPOCH LOAD" lines to host-load), or None."""
    try:
        with open(os.path.join(out, "host-load")) as f:
            loads = sorted(float(line.split()[1]) for line in f if len(line.split()) == 2)
    except (OSError, ValueError):
        return None
    if not loads:
        return None
    return {"samples": len(loads), "interval_s": 30, "min": loads[0],
            "median": loads[len(loads) // 2], "max": loads[-1]}


def host_info():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) // 1024
    osname = "unknown"
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return {"cpu": cpu, "cpus": os.cpu_count(), "mem_mib": mem, "os": osname,
            "host_kernel": platform.release()}


def ratio(a, b):
    return round(a / b, 3) if a is not None and b else None


def build(args):
    out = args.out
    cells, meta_boots, accels, calib = {}, {}, set(), {}
    for boot in BOOTS:
        if boot.endswith("4") and not os.path.isdir(os.path.join(out, f"boot-{boot}")):
            continue
        gdir, spans, info, accel = parse_boot(out, boot)
        accels.add(accel)
        meta_boots[boot] = {
            "accelerator": accel,
            "ufs_crypto": "on" if boot.startswith("engine") else "off",
            "numjobs": int(info.get("numjobs", ["1"])[0]),
            "guest_kernel": info.get("kernel", ["?"])[0],
            "guest_cpus_online": int(info.get("cpus", ["0"])[0]),
            "guest_mem_kib": int(info.get("mem_kb", ["0"])[0]),
            "fio": info.get("fio", ["?"])[0],
            "dm_status": info.get("dmstatus", []),
            "dm_status_end": info.get("dmstatus-end", []),
            "keyslot_stats": info.get("keyslot-stat", []),
        }
        ks = [l for l in open(os.path.join(gdir, f"info.{boot}")) if "fscrypt:" in l]
        meta_boots[boot]["fscrypt_impl"] = sorted({re.sub(r"^\[[^]]*\]\s*", "", l.strip())
                                                   for l in ks})
        for name in ("calib-mark", "calib-idle"):
            s = spans.get(name, {})
            if "begin" in s and "end" in s:
                calib.setdefault(boot, {})[name] = s["end"][0][0] - s["begin"][0][0]
        for cell, s in spans.items():
            if cell.startswith("calib-"):
                continue
            b, config, dus, wl = cell.split(".")
            rw, bs, qd, title = WORKLOADS[wl]
            fpath = os.path.join(gdir, "fio", cell + ".json")
            if not os.path.exists(fpath) or "begin" not in s or "end" not in s:
                continue
            c = {"id": cell, "boot": b, "config": config, "label": LABELS[config],
                 "data_unit": None if dus == "-" else int(dus), "workload": wl,
                 "workload_label": title, "rw": rw, "bs": bs, "iodepth": qd,
                 "accelerator": accel}
            c.update(cell_figures(fpath, rw, s))
            cells[cell] = c
    # Ratios: to plain and to dm-crypt of the same boot (else the engine
    # boot's), same data unit size (fscrypt: 4096).
    def ref(boot, config, dus, wl):
        for b in ((boot,) if boot.endswith("4") else (boot, "engine", "noengine")):
            k = f"{b}.{config}.{dus}.{wl}"
            if k in cells:
                return cells[k]
        return None
    for c in cells.values():
        dus = str(c["data_unit"] or 4096)
        p = ref(c["boot"], "plain", "-", c["workload"])
        dc = ref(c["boot"], "dmcrypt", dus, c["workload"])
        dn = ref(c["boot"], "dmcrypt-nowq", dus, c["workload"])
        best = max([x for x in (dc, dn) if x], key=lambda x: x["mb_s"], default=None)
        c["ref_plain"] = p["id"] if p else None
        c["ref_dmcrypt"] = dc["id"] if dc else None
        c["ref_best_dmcrypt"] = best["id"] if best else None
        c["x_plain_mb_s"] = ratio(c["mb_s"], p["mb_s"]) if p else None
        c["x_plain_insns"] = ratio(c["insns_per_gib"], p["insns_per_gib"]) if p else None
        c["x_dmcrypt_mb_s"] = ratio(c["mb_s"], dc["mb_s"]) if dc else None
        c["x_dmcrypt_insns"] = ratio(c["insns_per_gib"], dc["insns_per_gib"]) if dc else None
        c["x_best_dmcrypt_mb_s"] = ratio(c["mb_s"], best["mb_s"]) if best else None
        c["x_best_dmcrypt_insns"] = ratio(c["insns_per_gib"], best["insns_per_gib"]) if best else None

    want = expected_cells(args.mode)
    missing = [k for k in want if k not in cells]
    qemu = args.qemu_version
    kernel = meta_boots["engine"]["guest_kernel"]
    meta = {
        "command": args.command,
        "mode": args.mode,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "accelerator": ",".join(sorted(accels)),
        "guest_kernel": kernel,
        "qemu": qemu,
        "host": host_info(),
        "boots": meta_boots,
        "elapsed_s": args.elapsed,
        "insn_counting": "TCG plugin scripts/bench.d/insnmark-plugin.c, per translation "
                         "block, all vCPUs, kernel and user (kernel_insns_per_gib: upper-half "
                         "addresses), read at FNOP marks set by fio exec_prerun/exec_postrun",
        "cpu_time": "guest /proc/stat busy ticks (user+nice+system+irq+softirq+steal) "
                    "between the same marks",
        "calibration_insns": calib,
        "host_load": host_load(args.out),
    }
    res = {"meta": meta, "expected_cells": want, "missing_cells": missing,
           "cells": [cells[k] for k in sorted(cells, key=sortkey)]}
    return res


def sortkey(cid):
    b, c, d, w = cid.split(".")
    return (1 if b.endswith("4") else 0, list(WORKLOADS).index(w),
            0 if d == "-" else int(d), ORDER.index(c), BOOTS.index(b))


def f(v, fmt):
    return "—" if v is None else format(v, fmt)


def markdown(res):
    m = res["meta"]
    L = []
    multi = [c for c in res["cells"] if c["boot"].endswith("4")]
    L.append(f"Accelerator: **{m['accelerator'].upper()}** (guest kernel {m['guest_kernel']}, "
             f"{m['qemu']}, guest CPUs online: {m['boots']['engine']['guest_cpus_online']}, "
             f"guest RAM {m['boots']['engine']['guest_mem_kib'] // 1024} MiB). "
             "Boot *E* = UFS crypto engine on, *N* = engine off (same disk images); "
             "*E4*, *N4*: the same on 4 vCPUs, every cell 4 fio jobs.")
    L.append("")
    L.append("×plain / ×dm-crypt: ratio to plain dm-linear and to dm-crypt (defaults), "
             "same boot and data unit size (fscrypt: 4096); MB/s ratio, then guest "
             "instructions/GiB ratio. Latency: fio completion latency.")
    sets = [("", [c for c in res["cells"] if not c["boot"].endswith("4")])]
    if multi:
        b4 = m["boots"].get("engine4", m["boots"].get("noengine4"))
        sets.append((f", {b4['guest_cpus_online']} vCPUs, fio numjobs={b4['numjobs']}", multi))
    for suffix, cells in sets:
        by_wl = {}
        for c in cells:
            by_wl.setdefault(c["workload"], []).append(c)
        for wl, cs in by_wl.items():
            markdown_workload(L, m, wl, cs, suffix)
    return "\n".join(L) + "\n"


def markdown_workload(L, m, wl, cs, suffix):
    L.append("")
    L.append(f"#### {WORKLOADS[wl][3]}{suffix} ({m['accelerator'].upper()})")
    L.append("")
    L.append("| configuration | boot | DU | MB/s | IOPS | p50 µs | p99 µs | CPU s/GiB "
             "| G insns/GiB | ×plain MB/s | ×plain insns | ×dm-crypt MB/s | ×dm-crypt insns |")
    L.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in cs:
        L.append(
            f"| {c['label']} | {BOOT_TAG[c['boot']]} "
            f"| {c['data_unit'] or '—'} | {c['mb_s']:.1f} | {c['iops']:.0f} "
            f"| {c['lat_p50_us']:.0f} | {c['lat_p99_us']:.0f} "
            f"| {f(c['cpu_s_per_gib'], '.2f')} | {f(c['insns_per_gib'] and c['insns_per_gib'] / 1e9, '.2f')} "
            f"| {f(c['x_plain_mb_s'], '.2f')} | {f(c['x_plain_insns'], '.2f')} "
            f"| {f(c['x_dmcrypt_mb_s'], '.2f')} | {f(c['x_dmcrypt_insns'], '.2f')} |")


def verdict(ratio, want_low):
    """'yes', 'no' or '≈' (within 2 %) for a ratio that should be <= 1
    (want_low) or >= 1."""
    if ratio is None:
        return "—"
    ok = ratio <= 1.0 if want_low else ratio >= 1.0
    if ok:
        return "yes"
    return "≈ (within 2 %)" if abs(ratio - 1.0) <= 0.02 else "**no**"


def targets(res, eb="engine", nb="noengine", suffix=""):
    """The issue's two targets as tables, computed from this run's cells:
    the engine against plain (boot eb), the fallback against the better
    dm-crypt measured in the same boot (nb)."""
    get = {c["id"]: c for c in res["cells"]}
    accel = res["meta"]["accelerator"].upper()
    L = ["", f"#### Target: dm-inlinecrypt on the UFS engine within 1.10× of plain, "
         f"guest instructions per GiB ({accel}, boot {BOOT_TAG[eb]}{suffix})", "",
         "| workload | DU | dm-inlinecrypt engine ×plain | dm-crypt defaults ×plain "
         "| dm-crypt no_*_workqueue ×plain | met? |",
         "|---|---|---:|---:|---:|---|"]
    for wl in WORKLOADS:
        for dus in ("512", "4096"):
            e = get.get(f"{eb}.dmic-engine.{dus}.{wl}")
            if not e:
                continue
            d = get.get(f"{eb}.dmcrypt.{dus}.{wl}")
            n = get.get(f"{eb}.dmcrypt-nowq.{dus}.{wl}")
            x = e["x_plain_insns"]
            L.append(f"| {WORKLOADS[wl][3]} | {dus} | **{f(x, '.2f')}** "
                     f"| {f(d and d['x_plain_insns'], '.2f')} | {f(n and n['x_plain_insns'], '.2f')} "
                     f"| {'yes' if x is not None and x <= 1.10 else '**no**'} |")
    L += ["", f"#### Target: dm-inlinecrypt on blk-crypto-fallback at least as fast as the "
          f"better dm-crypt, and no more instructions ({accel}, boot {BOOT_TAG[nb]}{suffix}, "
          "same boot)", "",
          "| workload | DU | fallback MB/s | better dm-crypt MB/s | ×MB/s | MB/s met? "
          "| fallback G insns/GiB | cheaper dm-crypt G insns/GiB | ×insns | insns met? |",
          "|---|---|---:|---:|---:|---|---:|---:|---:|---|"]
    for wl in WORKLOADS:
        for dus in ("512", "4096"):
            fb = get.get(f"{nb}.dmic-fallback.{dus}.{wl}")
            dcs = [c for c in (get.get(f"{nb}.dmcrypt.{dus}.{wl}"),
                               get.get(f"{nb}.dmcrypt-nowq.{dus}.{wl}")) if c]
            if not fb or not dcs:
                continue
            fast = max(dcs, key=lambda c: c["mb_s"])
            cheap = min(dcs, key=lambda c: c["insns_per_gib"])
            xm = ratio(fb["mb_s"], fast["mb_s"])
            xi = ratio(fb["insns_per_gib"], cheap["insns_per_gib"])
            name = {"dmcrypt": "defaults", "dmcrypt-nowq": "nowq"}
            L.append(f"| {WORKLOADS[wl][3]} | {dus} | {fb['mb_s']:.1f} "
                     f"| {fast['mb_s']:.1f} ({name[fast['config']]}) | {f(xm, '.2f')} "
                     f"| {verdict(xm, False)} | {fb['insns_per_gib'] / 1e9:.2f} "
                     f"| {cheap['insns_per_gib'] / 1e9:.2f} ({name[cheap['config']]}) "
                     f"| {f(xi, '.2f')} | {verdict(xi, True)} |")
    # The noise floor of this run: configurations measured in both boots.
    dm, di, paired = [], [], []
    for c in res["cells"]:
        if c["boot"] != eb:
            continue
        o = get.get(f"{nb}." + c["id"].split(".", 1)[1])
        if o and o["mb_s"] and o["insns_per_gib"]:
            dm.append(abs(c["mb_s"] / o["mb_s"] - 1))
            di.append(abs(c["insns_per_gib"] / o["insns_per_gib"] - 1))
            if c["label"] not in paired:
                paired.append(c["label"])
    if dm:
        dm.sort()
        di.sort()
        L += ["", f"Noise floor of this run: the {len(dm)} cells measured in both boots "
              f"({', '.join(paired)}) differ between "
              f"the boots by a median of {dm[len(dm) // 2] * 100:.0f} % (max "
              f"{dm[-1] * 100:.0f} %) in MB/s and {di[len(di) // 2] * 100:.1f} % (max "
              f"{di[-1] * 100:.1f} %) in instructions per GiB; ratios closer to 1 than "
              "that are not measured differences."]
    return "\n".join(L) + "\n"


def charts(res, imgdir, tag=""):
    """Two clustered-bar charts (data unit 4096, engine boot for configs that
    exist there, the fallback ones from the second boot)."""
    os.makedirs(imgdir, exist_ok=True)
    cells = res["cells"]
    wls = [w for w in WORKLOADS if any(c["workload"] == w for c in cells)]
    cfgs = []
    pick = {}
    for cfg in ORDER:
        for wl in wls:
            for boot in ("engine", "noengine"):
                k = [c for c in cells if c["config"] == cfg and c["workload"] == wl
                     and c["boot"] == boot and c["data_unit"] in (None, 4096)]
                if k:
                    pick[(cfg, wl)] = k[0]
                    break
        if any((cfg, wl) in pick for wl in wls):
            cfgs.append(cfg)
    accel = res["meta"]["accelerator"].upper()
    outs = []
    for what, key, scale, ylabel, fname in (
            ("throughput", "mb_s", 1, "MB/s", "bench-throughput.png"),
            ("insns", "insns_per_gib", 1e9, "guest instructions per GiB (billions)",
             "bench-insns.png")):
        dat = os.path.join(imgdir, f".{what}.dat")
        with open(dat, "w") as fh:
            fh.write("workload " + " ".join(f'"{LABELS[c]}"' for c in cfgs) + "\n")
            for wl in wls:
                vals = []
                for cfg in cfgs:
                    c = pick.get((cfg, wl))
                    v = c[key] / scale if c and c[key] is not None else None
                    vals.append("?" if v is None else f"{v:.4f}")
                short = WORKLOADS[wl][3].replace("rand ", "rnd ").replace(" read", " rd") \
                    .replace(" write", " wr").replace(" MiB", "M").replace(" KiB", "K")
                fh.write(f'"{short}" ' + " ".join(vals) + "\n")
        png = os.path.join(imgdir, fname)
        title = (f"{'Throughput (log scale)' if what == 'throughput' else 'Guest instructions per GiB'}"
                 f" per configuration, data unit 4096, {accel}, {res['meta']['mode']} run"
                 " (fallback: engine-off boot; others: engine-on boot)")
        gp = f"""set terminal pngcairo size 1300,700 font ",10" noenhanced
set output "{png}"
set title "{title}"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel "{ylabel}"
set key below maxrows 3
set grid ytics
set xtics nomirror
set datafile missing "?"
{'set logscale y' if what == 'throughput' else ''}
plot for [i=2:{len(cfgs) + 1}] "{dat}" using i:xtic(1) title columnheader(i)
"""
        try:
            r = subprocess.run(["gnuplot"], input=gp, text=True, capture_output=True)
        except FileNotFoundError:
            print("bench: gnuplot not installed: no charts", file=sys.stderr)
            return []
        if r.returncode != 0:
            # pngcairo may be missing in gnuplot-nox: fall back to png.
            gp = gp.replace("pngcairo size 1300,700 font \",10\"", "png size 1300,700")
            r = subprocess.run(["gnuplot"], input=gp, text=True, capture_output=True)
        os.unlink(dat)
        if r.returncode != 0:
            print(f"bench: gnuplot failed: {r.stderr.strip()[:300]}", file=sys.stderr)
            continue
        outs.append(png)
    return outs


def demo_table(res):
    accel = res["meta"]["accelerator"].upper()
    get = {(c["config"], c["workload"]): c for c in res["cells"]}
    print(f"    same emulated UFS disk, accelerator {accel}, data unit 4096, "
          f"{res['meta']['boots']['engine']['guest_cpus_online']} guest CPU(s); "
          "instructions counted by a TCG plugin")
    print(f"    {'configuration':38} {'seq rd 1M QD32':>15} {'rnd rd 4K QD32':>15} "
          f"{'G insns/GiB (seq)':>18}")
    for cfg in ("dmic-engine", "dmic-fallback", "dmcrypt"):
        s, r = get.get((cfg, "seqread")), get.get((cfg, "randread32"))
        if not s or not r:
            continue
        print(f"    {LABELS[cfg]:38} {s['mb_s']:10.1f} MB/s {r['iops']:10.0f} IOPS "
              f"{s['insns_per_gib'] / 1e9:18.2f}")
    print(f"    ({accel}: guest AES is emulated, so wall-clock figures overstate "
          "software crypto; compare the instruction counts. Full figures: docs/benchmarks.md)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--top", required=True)
    ap.add_argument("--docs", type=int, default=0)
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--command", default="")
    ap.add_argument("--qemu-version", default="")
    args = ap.parse_args()
    res = build(args)
    with open(os.path.join(args.out, "results.json"), "w") as fh:
        json.dump(res, fh, indent=1)
    table = markdown(res)
    if args.mode == "full":
        table += targets(res)
        if any(c["boot"].endswith("4") for c in res["cells"]):
            b4 = res["meta"]["boots"].get("noengine4", {})
            table += targets(res, "engine4", "noengine4",
                             f", {b4.get('guest_cpus_online', '?')} vCPUs, "
                             f"numjobs={b4.get('numjobs', '?')}")
    with open(os.path.join(args.out, "table.md"), "w") as fh:
        fh.write(table)
    if res["missing_cells"]:
        print("bench: missing cells: " + " ".join(res["missing_cells"]), file=sys.stderr)
        sys.exit(1)
    if args.mode == "demo":
        demo_table(res)
        return
    imgdir = os.path.join(args.top, "docs", "img") if args.docs else os.path.join(args.out, "img")
    pngs = charts(res, imgdir)
    if args.docs:
        update_docs(args, res, table, pngs)
        # The data behind every figure of docs/benchmarks.md, committed with it.
        with open(os.path.join(args.top, "docs", "bench-results.json"), "w") as fh:
            json.dump(res, fh, indent=1)
    print(f"bench: {len(res['cells'])} cells, accelerator {res['meta']['accelerator'].upper()}, "
          f"{args.elapsed} s; {os.path.join(args.out, 'results.json')}, "
          f"{os.path.join(args.out, 'table.md')}"
          + (f", charts: {', '.join(os.path.relpath(p, args.top) for p in pngs)}" if pngs else ""),
          file=sys.stderr)


def update_docs(args, res, table, pngs):
    m = res["meta"]
    h = m["host"]
    doc = os.path.join(args.top, "docs", "benchmarks.md")
    gen = []
    gen.append("<!-- bench:begin (generated by scripts/bench; edits here are overwritten) -->")
    gen.append("")
    gen.append(f"Run: `{m['command']}` on {m['date']}, {m['elapsed_s'] // 60} min "
               f"{m['elapsed_s'] % 60} s.")
    gen.append("")
    gen.append("| | |")
    gen.append("|---|---|")
    gen.append(f"| accelerator | **{m['accelerator'].upper()}** (every boot) |")
    gen.append(f"| guest kernel | Linux {m['guest_kernel']} (Debian linux-source-6.12 + patches/series) |")
    gen.append(f"| QEMU | {m['qemu']} + qemu/patches (UFS crypto engine) |")
    gen.append(f"| guest | boots E, N: {m['boots']['engine']['guest_cpus_online']} CPU(s) "
               f"online of 2 configured, fio numjobs=1"
               + (f"; boots E4, N4: {m['boots']['engine4']['guest_cpus_online']} of 4, "
                  f"numjobs={m['boots']['engine4']['numjobs']}" if "engine4" in m["boots"] else "")
               + f"; {m['boots']['engine']['guest_mem_kib'] // 1024} MiB RAM, "
               f"{m['boots']['engine']['fio']} |")
    gen.append(f"| host | {h['cpu']}, {h['cpus']} CPUs, {h['mem_mib']} MiB, {h['os']}, "
               f"Linux {h['host_kernel']} |")
    hl = m.get("host_load")
    if hl:
        gen.append(f"| host load | 1-minute load average during the boots: min {hl['min']:.1f}, "
                   f"median {hl['median']:.1f}, max {hl['max']:.1f} ({hl['samples']} samples, every "
                   f"{hl['interval_s']} s) on {h['cpus']} CPUs"
                   + (": above the CPU count the guests waited for a core, so MB/s and latency "
                      "are not comparable across runs; instruction counts are"
                      if hl["max"] > h["cpus"] else "") + " |")
    cal = m["calibration_insns"].get("engine", {})
    if cal:
        gen.append(f"| calibration | one mark pair costs {cal.get('calib-mark', 0) / 1e6:.2f} M "
                   f"instructions; an idle guest runs {cal.get('calib-idle', 0) / 5e6:.2f} M "
                   "instructions/s |")
    gen.append("")
    for p in pngs:
        gen.append(f"![{os.path.basename(p)}](img/{os.path.basename(p)})")
        gen.append("")
    gen.append(table)
    gen.append("<!-- bench:end -->")
    text = "\n".join(gen)
    if os.path.exists(doc):
        old = open(doc).read()
        if "<!-- bench:begin" in old and "<!-- bench:end -->" in old:
            a = old.index("<!-- bench:begin")
            b = old.index("<!-- bench:end -->") + len("<!-- bench:end -->")
            new = old[:a] + text + old[b:]
        else:
            new = old.rstrip("\n") + "\n\n## Figures\n\n" + text + "\n"
    else:
        new = "# Benchmarks\n\n## Figures\n\n" + text + "\n"
    with open(doc, "w") as fh:
        fh.write(new)


if __name__ == "__main__":
    main()

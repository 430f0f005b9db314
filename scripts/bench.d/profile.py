#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/bench --profile: resolve the kernel blocks the insnmark plugin
counted in one cell (insnprof lines) to functions with System.map, and print
where the cell's guest kernel instructions went, per GiB moved."""

import bisect
import json
import re
import sys

GIB = 1 << 30


def diff(a, b, top=25):
    """Print the functions whose instructions per GiB differ most, B - A."""
    pa, pb = json.load(open(a)), json.load(open(b))
    fa, fb = pa["functions"], pb["functions"]
    print(f"{pb['title']}  minus  {pa['title']}")
    print(f"  total: {pb['insns_per_gib'] / 1e6:.0f} - {pa['insns_per_gib'] / 1e6:.0f} = "
          f"{(pb['insns_per_gib'] - pa['insns_per_gib']) / 1e6:+.0f} M insns/GiB; kernel: "
          f"{(pb['kernel_insns_per_gib'] - pa['kernel_insns_per_gib']) / 1e6:+.0f} M/GiB; "
          f"per I/O ({pb['bs']}): {(pb['insns_per_gib'] - pa['insns_per_gib']) / pb['ios_per_gib']:+.0f}")
    names = set(fa) | set(fb)
    d = sorted(((fb.get(n, 0) - fa.get(n, 0), n) for n in names), key=lambda x: -abs(x[0]))
    print(f"  {'M insns/GiB':>12} {'per I/O':>8}  kernel function")
    for v, n in d[:top]:
        print(f"  {v / 1e6:+12.1f} {v / pb['ios_per_gib']:+8.0f}  {n}")


def diff_all(d):
    """Each blk-crypto-fallback profile against the dm-crypt ones (same
    workload and data unit) and plain, when they were profiled too."""
    import glob
    import os
    for fb in sorted(glob.glob(os.path.join(d, "profile-dmic-fallback-*.json"))):
        rest = os.path.basename(fb)[len("profile-dmic-fallback-"):-len(".json")]
        wl = rest.rsplit("-", 1)[0]
        for other in (f"dmcrypt-nowq-{rest}", f"dmcrypt-{rest}", f"plain-{wl}--"):
            o = os.path.join(d, f"profile-{other}.json")
            if os.path.exists(o):
                print()
                diff(o, fb)


def main():
    if sys.argv[1] == "diff":
        diff(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "diff-all":
        diff_all(sys.argv[2])
        return
    log, sysmap, fiojson, title = sys.argv[1:5]
    syms = []
    with open(sysmap) as f:
        for line in f:
            a, t, name = line.split()[:3]
            if t in "tTwW":
                syms.append((int(a, 16), name))
    syms.sort()
    addrs = [a for a, _ in syms]
    funcs, marks = {}, []
    with open(log, errors="replace") as f:
        for line in f:
            m = re.match(r"insnprof: ([0-9a-f]+) (\d+)", line)
            if m:
                a, n = int(m.group(1), 16), int(m.group(2))
                if a >= 0xffffffffc0000000:
                    name = "[module code: dm-inlinecrypt]"
                else:
                    i = bisect.bisect_right(addrs, a) - 1
                    name = syms[i][1] if i >= 0 else "?"
                funcs[name] = funcs.get(name, 0) + n
                continue
            m = re.match(r"insnmark: mark (\d+) cpu \d+ insns (\d+) kernel (\d+)", line)
            if m:
                marks.append((int(m.group(2)), int(m.group(3))))
    with open(fiojson) as f:
        job = json.load(f)["jobs"][0]
    nbytes = job["read"]["io_bytes"] + job["write"]["io_bytes"]
    gib = nbytes / GIB
    # marks: 0,1 calibration (mark pair), 2,3 calibration (idle), 4,5 the cell
    tot = marks[5][0] - marks[4][0]
    ker = marks[5][1] - marks[4][1]
    prof = sum(funcs.values())
    print(f"{title}: {nbytes / 1e6:.0f} MB moved; guest instructions {tot / gib / 1e6:.0f} M/GiB, "
          f"kernel {ker / gib / 1e6:.0f} M/GiB ({100 * ker / tot:.0f}%), "
          f"user {(tot - ker) / gib / 1e6:.0f} M/GiB")
    print(f"  (profile covers {prof / gib / 1e6:.0f} M kernel instructions/GiB, "
          "calibration marks included)")
    bs = job["job options"].get("bs", "4k")
    ios = {"4k": 256 * 1024, "1M": 1024}.get(bs, 1)
    if len(sys.argv) > 5:
        with open(sys.argv[5], "w") as fh:
            json.dump({"title": title, "bs": bs, "ios_per_gib": ios,
                       "insns_per_gib": tot / gib, "kernel_insns_per_gib": ker / gib,
                       "functions": {k: v / gib for k, v in funcs.items()}}, fh)
    print(f"  {'M insns/GiB':>12} {'share':>6}  kernel function")
    for name, n in sorted(funcs.items(), key=lambda x: -x[1])[:30]:
        print(f"  {n / gib / 1e6:12.1f} {100 * n / prof:5.1f}%  {name}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Times `gpudoctor fleet` over a fixed corpus of reports against a bare Python loop that only loads the same
files and counts their results' statuses (issue 16's goal: fleet no slower than the loop), and prints both
figures and their ratio.

    bench/bench_fleet.py [path/to/gpudoctor] [--nodes 10000] [--runs 3] [--corpus DIR]

The corpus is made once (and reused while its stamp matches) from the real H200 machine's report, replayed
with `check --from tests/machines/nvidia-h200-real/snapshot --format json` (about 67 KB): node i gets its own
host name and GPU UUID, and a fixed pseudo-random few (seed 16) another driver, another kernel, an NCCL
variable or an error, so the drift tables have odd ones out to name. Both sides read the corpus folder (fleet
walks it, the loop lists it), run as their own processes after one warm-up run each (page cache), and the
median wall time of --runs runs is reported, with each side's peak resident memory (the largest of its runs,
from wait4's rusage of that very process). fleet's JSON output is discarded.
"""
import argparse
import copy
import json
import os
import random
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
SNAPSHOT = os.path.join(SOURCE, "tests", "machines", "nvidia-h200-real", "snapshot")
SEED = 16

# The baseline: load every report in the folder and count the statuses of its results; nothing else.
PY_LOOP = r"""
import json, os, sys
from collections import Counter
counts = Counter()
folder = sys.argv[1]
for name in sorted(os.listdir(folder)):
    if name.endswith(".json"):
        with open(os.path.join(folder, name)) as f:
            report = json.load(f)
        counts.update(x["status"] for x in report["results"])
print(dict(counts))
"""


def base_report(gpudoctor):
    out = subprocess.run([gpudoctor, "check", "--from", SNAPSHOT, "--format", "json"], capture_output=True,
                         check=False)
    if out.returncode not in (0, 1):
        sys.exit(f"check --from {SNAPSHOT} failed: {out.stderr.decode(errors='replace')}")
    return json.loads(out.stdout)


def node(base, i, rng):
    roll = rng.random()
    r = copy.deepcopy(base) if roll < 0.023 else base  # names and UUIDs are rewritten for every node
    r["host"]["hostname"] = f"gpu{i:05d}"
    nvidia = r["facts"]["drivers"]["nvidia"]
    for g, gpu in enumerate(nvidia["smi_gpus"]):
        gpu["uuid"] = f"GPU-{i:08x}-{g:04x}-4000-8000-{rng.getrandbits(48):012x}"
    if roll < 0.01:
        nvidia["kernel_module_version"]["value"] = "570.86.15"
    elif roll < 0.015:
        r["host"]["kernel"] = "6.8.0-45-generic"
    elif roll < 0.02:
        r["facts"]["environment"]["gpu_variables"]["NCCL_DEBUG"] = "INFO"
    elif roll < 0.023:
        for x in r["results"]:
            if x["id"] == "driver.nvidia-mismatch":
                x["status"] = "error"
    return r


def make_corpus(gpudoctor, folder, nodes):
    stamp = os.path.join(folder, ".corpus")
    want = f"h200 x {nodes}, seed {SEED}\n"
    if os.path.exists(stamp) and open(stamp).read() == want:
        return
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        if name.endswith(".json"):
            os.unlink(os.path.join(folder, name))
    base = base_report(gpudoctor)
    rng = random.Random(SEED)
    started = time.perf_counter()
    for i in range(nodes):
        with open(os.path.join(folder, f"gpu{i:05d}.json"), "w") as f:
            json.dump(node(base, i, rng), f, indent=2)  # as gpudoctor writes it: 67 KB
    with open(stamp, "w") as f:
        f.write(want)
    print(f"corpus: {nodes} reports written to {folder} in {time.perf_counter() - started:.1f} s", file=sys.stderr)


def timed(argv):
    """(wall seconds, peak resident bytes) of one run of argv."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not every child's maximum
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        sys.exit(f"{argv[0]} exited {proc.returncode}")
    return elapsed, usage.ru_maxrss * 1024  # Linux reports KiB


def median_of(argv, runs):
    timed(argv)  # warm the page cache
    runs = [timed(argv) for _ in range(runs)]
    return statistics.median(t for t, _ in runs), max(m for _, m in runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gpudoctor", nargs="?", default=os.path.join(SOURCE, "build", "gpudoctor"))
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--corpus", default=os.path.join(SOURCE, "build", "bench-fleet-corpus"))
    args = ap.parse_args()

    make_corpus(args.gpudoctor, args.corpus, args.nodes)
    size = statistics.mean(os.path.getsize(os.path.join(args.corpus, n))
                           for n in os.listdir(args.corpus) if n.endswith(".json"))
    fleet, fleet_rss = median_of([args.gpudoctor, "fleet", args.corpus, "--format", "json"], args.runs)
    loop, loop_rss = median_of([sys.executable, "-c", PY_LOOP, args.corpus], args.runs)
    mib = 1024 * 1024
    print(f"corpus:      {args.nodes} reports of {size / 1000:.1f} KB on average ({args.corpus})")
    print(f"fleet:       {fleet:.2f} s, peak {fleet_rss / mib:.0f} MiB  ({args.gpudoctor}, {os.cpu_count()} cores)")
    print(f"python loop: {loop:.2f} s, peak {loop_rss / mib:.0f} MiB  ({sys.executable}: json.load and count statuses)")
    print(f"ratio:       fleet takes {fleet / loop:.2f} x the loop's time ({loop / fleet:.1f} x faster), "
          f"{fleet_rss / loop_rss:.2f} x its memory")
    print(f"load:        {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min averages at the end)")


if __name__ == "__main__":
    main()

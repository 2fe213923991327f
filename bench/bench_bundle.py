#!/usr/bin/env python3
"""Times `gpudoctor bundle` on this machine and weighs what it writes (issue 31's goal: under 1 s, median of
5, and a .tar.gz under 200 KB), with the CPU time of the run and its children (getrusage through wait4,
steadier than wall time on a shared machine) and the largest members of the archive.

    bench/bench_bundle.py [path/to/gpudoctor] [--runs 5] [--keep DIR]

Each run writes a new bundle into a fresh temporary folder (0700) after one warm-up run (page cache); the
archive of the last run is weighed and, with --keep, kept.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)


def one_run(gpudoctor, out):
    """(wall seconds, CPU seconds of the run and its children) of one `bundle -o out`."""
    start = time.perf_counter()
    proc = subprocess.Popen([gpudoctor, "bundle", "-o", out], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"gpudoctor bundle exited {os.waitstatus_to_exitcode(status)}: {err[-2000:]}")
    # wait4's rusage covers the process and the children it waited for.
    return elapsed, usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gpudoctor", nargs="?", default=os.path.join(SOURCE, "build", "gpudoctor"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", help="a folder to copy the last bundle to")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpudoctor-bench-bundle-") as tmp:
        one_run(args.gpudoctor, os.path.join(tmp, "warm.tar.gz"))
        runs = [one_run(args.gpudoctor, os.path.join(tmp, f"b{i}.tar.gz")) for i in range(args.runs)]
        last = os.path.join(tmp, f"b{args.runs - 1}.tar.gz")
        size = os.path.getsize(last)
        with tarfile.open(last) as t:
            members = sorted((m for m in t.getmembers() if m.isfile()), key=lambda m: -m.size)
            total = sum(m.size for m in members)
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            shutil.copy(last, args.keep)
    wall = statistics.median(t for t, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    print(f"bundle:   median {wall:.2f} s wall, {cpu:.2f} s CPU (run and children) of {args.runs} runs "
          f"({min(t for t, _ in runs):.2f}-{max(t for t, _ in runs):.2f} s)")
    print(f"archive:  {size / 1000:.0f} KB gzip'd, {total / 1000:.0f} KB in {len(members)} files")
    print("largest:  " + ", ".join(f"{m.name} {m.size / 1000:.0f} KB" for m in members[:5]))
    print(f"load:     {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min averages at the end)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Times `gpudoctor check --format json` against `python3 -m torch.utils.collect_env`, the report people paste
into bug reports today, on this machine: median wall time, CPU time and peak memory over N runs each, and the
ratios (goals: gpudoctor at least 50 times faster, under 5 % of the peak memory). The runs of the two
alternate, so that the load of a shared machine weighs on both alike.

    bench/bench_check.py [path/to/gpudoctor] [--runs N] [--cold]

gpudoctor remembers what each python3 and nvcc said of itself (docs/architecture.md, "Interpreter answers
remembered"): the warm-up run fills that cache, so the figures are those of every run after the first. With
--cold, gpudoctor runs with GPUDOCTOR_NO_CACHE=1 and asks them every time, as a first run does.

collect_env runs under the first python3 that imports torch: the one on PATH, else /usr/bin/python3.
Wall time is measured around each run; CPU time is user + system of the run and the children it waited for,
steadier than wall time on a shared machine; peak memory is the largest resident set of the run's processes
(GNU time's %M where /usr/bin/time exists, else wait4's ru_maxrss, which also counts this script's copy).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


# A child forked from this script starts as a copy of it, and the kernel keeps the larger of that copy's
# resident size and the program's in ru_maxrss: from Python every peak would read at least this
# interpreter's 13-15 MiB. GNU time (a 1 MiB process) forks the program instead and writes its peak; its
# own start would count in the wall time, so the peaks come from runs of their own (every third run).
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def measure(argv, env=None, peak_only=False):
    """(wall, peak, CPU) of one run; with peak_only, under GNU time, and only the peak counts."""
    peak_file = None
    if peak_only and GNU_TIME:
        fd, peak_file = tempfile.mkstemp(prefix="bench-peak-")
        os.close(fd)
        argv = [GNU_TIME, "-f", "%M", "-o", peak_file] + argv
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    # ru_maxrss is in KiB on Linux; wait4's rusage covers the children the process waited for.
    peak = usage.ru_maxrss / 1024.0
    if peak_file:
        with open(peak_file) as f:
            peak = int(f.read().split()[-1]) / 1024.0
        os.unlink(peak_file)
    return wall, peak, usage.ru_utime + usage.ru_stime


def side_by_side(a, b, runs, a_env=None):
    """Medians of (wall, peak, CPU) for a and for b, their runs alternating: a shared machine's load, which drifts
    over a minute, then weighs on both alike."""
    measure(a, a_env)  # warm the page cache (and gpudoctor's, unless a_env turns it off)
    measure(b)
    samples_a, samples_b, peaks_a, peaks_b = [], [], [], []
    for i in range(runs):
        samples_a.append(measure(a, a_env))
        samples_b.append(measure(b))
        if GNU_TIME and i % 3 == 0:
            peaks_a.append(measure(a, a_env, peak_only=True)[1])
            peaks_b.append(measure(b, peak_only=True)[1])

    def medians(samples, peaks):
        wall, peak, cpu = (statistics.median(s[i] for s in samples) for i in range(3))
        return wall, statistics.median(peaks) if peaks else peak, cpu

    return medians(samples_a, peaks_a), medians(samples_b, peaks_b)


def torch_python():
    for candidate in (shutil.which("python3"), "/usr/bin/python3"):
        if candidate and subprocess.run([candidate, "-c", "import torch"], capture_output=True).returncode == 0:
            return candidate
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gpudoctor", nargs="?", default=shutil.which("gpudoctor"))
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--cold", action="store_true", help="gpudoctor without its interpreter cache")
    args = parser.parse_args()
    if not args.gpudoctor or not os.access(args.gpudoctor, os.X_OK):
        sys.exit("usage: bench_check.py path/to/gpudoctor [--runs N]")
    python = torch_python()
    if not python:
        sys.exit("no python3 imports torch here: collect_env cannot run")

    (g_wall, g_mem, g_cpu), (c_wall, c_mem, c_cpu) = side_by_side(
        [args.gpudoctor, "check", "--format", "json"], [python, "-m", "torch.utils.collect_env"], args.runs,
        dict(os.environ, GPUDOCTOR_NO_CACHE="1") if args.cold else None)
    print(f"machine: kernel {os.uname().release}, {os.cpu_count()} cores; {args.runs} runs each; "
          f"collect_env via {python}; peak memory by {GNU_TIME or 'wait4 (includes this script)'}; load {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    print(f"{'command':<40} {'wall (ms)':>10} {'CPU (ms)':>9} {'peak (MiB)':>11}")
    label = "gpudoctor check --format json" + (" (cold)" if args.cold else "")
    print(f"{label:<40} {g_wall * 1000:>10.1f} {g_cpu * 1000:>9.1f} {g_mem:>11.1f}")
    print(f"{'python3 -m torch.utils.collect_env':<40} {c_wall * 1000:>10.1f} {c_cpu * 1000:>9.1f} {c_mem:>11.1f}")
    print(f"ratios: wall {g_wall / c_wall:.3f} ({c_wall / g_wall:.0f}x faster), CPU {g_cpu / c_cpu:.3f}, "
          f"peak memory {100 * g_mem / c_mem:.1f}% (goals: <= 0.02, < 5%)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The probe outputs of the fixtures (tests/machines/probe-*/snapshot/cmd) are what the probes print.

A fixture made from scenarios has a folder probes/ beside its snapshot:
  <backend>.mock  the mock runtime's scenario for the CUDA or HIP probe programs (tests/probe_mock/README.md)
  torch.json      the fake torch's scenario for the framework probe (key python-gpu)
For every command in snapshot/commands.json whose key is probe-<name>@<backend> or python-gpu and that has a
scenario, this runs the probe program built over the mock runtime (or probes/framework_probe.py over the fake
torch) and compares what it prints with the fixture's stdout file, ignoring the wall time ("ms") of end lines.
--write rewrites the files instead. Outputs without a scenario are real captures and are left alone.
Exit status: 0 all equal, 1 a difference, 2 bad usage.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys

HANG_SECONDS = 2  # what a scenario that hangs is given; the others finish on their own
LIMIT_SECONDS = 120


def normalised(text):
    return re.sub(r'("ms":\s*)\d+', r"\g<1>0", text)


def run(argv, env, timeout):
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    return out.decode()


def compiled_output(bin_dir, scenario, name, backend):
    program = "gpudoctor-probe-" + backend + ("-kernels" if name in ("kernel", "memory-bandwidth") else "")
    env = dict(os.environ, GPUDOCTOR_PROBE_MOCK=scenario)
    with open(scenario) as f:
        hangs = ("hang=%s\n" % name) in f.read()
    return run([os.path.join(bin_dir, program), name], env, HANG_SECONDS if hangs else LIMIT_SECONDS)


def framework_output(source, scenario):
    with open(scenario) as f:
        wanted = json.load(f)
    env = dict(os.environ, FAKE_TORCH=scenario,
               PYTHONPATH=os.path.join(source, "tests", "probe_mock", "fake_torch"))
    with open(os.path.join(source, "probes", "framework_probe.py")) as f:
        script = f.read()
    out = run([sys.executable, "-c", script], env, HANG_SECONDS if wanted.get("hang") else LIMIT_SECONDS)
    # The start line names the interpreter that ran it: the fixture's, not this one.
    lines = out.splitlines(keepends=True)
    if lines and '"event": "start"' in lines[0]:
        start = json.loads(lines[0])
        start["python"] = wanted.get("python", start["python"])
        start["executable"] = wanted.get("executable", start["executable"])
        lines[0] = json.dumps(start) + "\n"
    return "".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder of the probe programs built over the mock")
    parser.add_argument("--machines", required=True, help="tests/machines")
    parser.add_argument("--source", required=True, help="the source folder")
    parser.add_argument("--write", action="store_true", help="rewrite the fixtures' outputs")
    args = parser.parse_args()

    checked, differ = 0, []
    for machine in sorted(os.listdir(args.machines)):
        scenarios = os.path.join(args.machines, machine, "probes")
        snapshot = os.path.join(args.machines, machine, "snapshot")
        if not os.path.isdir(scenarios):
            continue
        with open(os.path.join(snapshot, "commands.json")) as f:
            commands = json.load(f)
        for command in commands:
            key, stdout = command["key"], command.get("stdout")
            match = re.fullmatch(r"probe-([a-z0-9-]+)@(cuda|hip)", key)
            if match and os.path.exists(os.path.join(scenarios, match.group(2) + ".mock")):
                scenario = os.path.join(scenarios, match.group(2) + ".mock")
                got = compiled_output(args.bin, scenario, *match.groups())
            elif key == "python-gpu" and os.path.exists(os.path.join(scenarios, "torch.json")):
                got = framework_output(args.source, os.path.join(scenarios, "torch.json"))
            else:
                continue
            checked += 1
            path = os.path.join(snapshot, stdout) if stdout else None
            if args.write:
                if path is None:
                    sys.exit("%s: %s has no stdout file to write" % (machine, key))
                with open(path, "w") as f:
                    f.write(got)
                continue
            have = open(path).read() if path and os.path.exists(path) else ""
            if normalised(have) != normalised(got):
                differ.append("%s: %s\n--- fixture\n%s--- probe prints\n%s" % (machine, key, have, got))
    for d in differ:
        print(d)
    print("%d probe outputs %s, %d differ" % (checked, "written" if args.write else "compared", len(differ)))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

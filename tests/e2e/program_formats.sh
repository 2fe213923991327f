#!/usr/bin/env bash
# The formats for programs (docs/fleet.md), judged by the programs' own readers and against the JSON report
# of the same run: `--format prometheus` (promtool check metrics; one series per check id and subject, its
# value the status, no status label), `--output` (the same text, replaced atomically, mode 0644, nothing left
# beside it), `--format junit` (an XML parser; one test case per result, failures per --strict; the element and
# attribute rules of Jenkins' xunit schema junit-10.xsd, tests/data/junit; no classname and name twice), and
# `--format npd` (node-problem-detector's exit statuses and message length).
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

promtool=$(command -v promtool || true)
[[ -n $promtool ]] || skip "promtool is missing (Debian's prometheus package; ./install.sh --test installs it)"

# nvidia-h200-xid48-63-94-remap-pending: three Xid results on one GPU (told apart by their keys).
machines=(nvidia-no-driver-bound nvidia-h200-real amd-2gpu-pcie-rccl amd-mi210-healthy nvidia-8gpu-nccl-misconfigured
  nvidia-h200-xid48-63-94-remap-pending)
for machine in "${machines[@]}"; do
  snap=$source_dir/tests/machines/$machine/snapshot
  out=$work/$machine
  "$gpudoctor" check --from "$snap" --format json >"$out.json" || true
  before=$(date +%s)
  status=0
  "$gpudoctor" check --from "$snap" --format prometheus >"$out.prom" || status=$?
  after=$(date +%s)
  expected_status=$(jq_py "$out.json" "1 if r['summary']['error'] else 0")
  [[ $status == "$expected_status" ]] || fail "$machine: prometheus exited $status, json says $expected_status"

  lint=$("$promtool" check metrics <"$out.prom" 2>&1) || fail "$machine: promtool rejects the metrics: $lint"
  [[ -z $lint ]] || fail "$machine: promtool has remarks on the metrics: $lint"
  pass "$machine: promtool check metrics accepts the output"

  "$py" - "$out.json" "$out.prom" "$before" "$after" <<'PY' || fail "$machine: the metrics do not say what the JSON report says"
import json, re, sys
report = json.load(open(sys.argv[1]))
text = open(sys.argv[2], encoding="utf-8").read()
before, after = int(sys.argv[3]), int(sys.argv[4])
value_of = {"pass": 0, "skip": 1, "info": 2, "warn": 3, "error": 4}
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')  # the exposition format's metric name
label = re.compile(r'([A-Za-z_]+)="((?:[^"\\]|\\.)*)"')
series = {}
for line in text.splitlines():
    if line.startswith("#"):
        continue
    m = sample.match(line)
    assert m, f"not a sample line: {line!r}"
    labels = dict(label.findall(m.group(3) or ""))
    series.setdefault(m.group(1), []).append((labels, float(m.group(4))))
results = series["gpudoctor_check_result"]
gpu_labels = {"gpu", "UUID", "pci_bus_id", "bdf"}
assert all({"id", "subject"} <= set(l) <= {"id", "subject", "key"} | gpu_labels for l, _ in results), \
    "gpudoctor_check_result has labels other than id, subject, key and a GPU's"
# A result about a GPU carries that GPU's labels, as gpudoctor_gpu_info does.
info = {l["bdf"]: {k: v for k, v in l.items() if k in gpu_labels} for l, _ in series.get("gpudoctor_gpu_info", [])}
by_subject = {f'gpu{g["index"]} ({g["bdf"]})': info.get(g["bdf"]) for g in report["facts"].get("gpus", [])}
seen = {}
for l, v in results:
    key = (l["id"], l["subject"], l.get("key", ""))
    assert key not in seen, f"two series for {key}"
    seen[key] = v
    assert {k: x for k, x in l.items() if k in gpu_labels} == (by_subject.get(l["subject"]) or {}), l
want = {}
for r in report["results"]:
    key = (r["id"], r["subject"], r["key"])
    want[key] = max(want.get(key, 0), value_of[r["status"]])
assert seen == want, f"series {sorted(set(seen.items()) ^ set(want.items()))[:5]} differ from the report"
failed = {(l["id"], l["subject"], l.get("key", "")): v for l, v in series["gpudoctor_check_failed"]}
assert failed == {k: float(v == 4) for k, v in seen.items()}, "gpudoctor_check_failed is 1 exactly for errors"
counts = {l["status"]: v for l, v in series["gpudoctor_results"]}
assert counts == {k: float(n) for k, n in report["summary"].items()}, (counts, report["summary"])
gpus = report["facts"].get("gpus", [])
assert len(series.get("gpudoctor_gpu_info", [])) == len(gpus), "one gpudoctor_gpu_info per GPU"
assert {l["bdf"] for l, _ in series.get("gpudoctor_gpu_info", [])} == {g["bdf"] for g in gpus}
[(_, stamp)] = series["gpudoctor_last_run_timestamp_seconds"]
assert before - 1 <= stamp <= after + 1, f"timestamp {stamp} outside the run [{before}, {after}]"
[(_, duration)] = series["gpudoctor_run_duration_seconds"]
assert 0 <= duration
[(build, _)] = series["gpudoctor_build_info"]
assert build["source"] == "snapshot" and build["version"] == report["tool"]["version"]
PY
  pass "$machine: one series per check id, subject and key, valued by status, with its GPU's labels; failed; counts, GPUs, time"

  # --output: the same report, replaced atomically (a temporary file in the same folder, renamed).
  mkdir -p "$work/textfile"
  echo stale >"$work/textfile/gpudoctor.prom"
  "$gpudoctor" check --from "$snap" --format prometheus --output "$work/textfile/gpudoctor.prom" >"$out.stdout" || true
  [[ ! -s $out.stdout ]] || fail "$machine: --output also printed to stdout"
  diff <(grep -v '_seconds ' "$out.prom") <(grep -v '_seconds ' "$work/textfile/gpudoctor.prom") >/dev/null ||
    fail "$machine: --output wrote something else than stdout"
  [[ $(stat -c %a "$work/textfile/gpudoctor.prom") == 644 ]] || fail "$machine: the textfile is not mode 0644"
  [[ $(find "$work/textfile" -mindepth 1 | wc -l) == 1 ]] || fail "$machine: --output left files beside the textfile"
  pass "$machine: --output replaces the file with the report, mode 0644, nothing left beside it"

  # JUnit: what an XML parser reads, against the JSON report.
  for strict in "" --strict; do
    "$gpudoctor" check --from "$snap" --format junit $strict >"$out.xml" || true
    "$py" - "$out.json" "$out.xml" "$strict" <<'PY' || fail "$machine: the JUnit XML ($strict) does not say what the JSON report says"
import json, sys, xml.etree.ElementTree as ET
report = json.load(open(sys.argv[1]))
strict = sys.argv[3] == "--strict"
root = ET.parse(sys.argv[2]).getroot()
assert root.tag == "testsuites"
[suite] = root.findall("testsuite")
cases = suite.findall("testcase")
results = report["results"]
assert len(cases) == len(results), (len(cases), len(results))
for case, r in zip(cases, results):
    failed = r["status"] == "error" or (strict and r["status"] == "warn")
    assert (case.find("failure") is not None) == failed, (r["id"], r["status"])
    assert (case.find("skipped") is not None) == (r["status"] == "skip"), r["id"]
    assert case.get("name").startswith(r["id"]), (case.get("name"), r["id"])
    if r["status"] in ("warn", "info") and not failed:
        assert r["message"] in case.find("system-out").text, r["id"]
    if failed:
        assert case.find("failure").get("message") == r["title"], r["id"]
        if "action" in r:  # what to do goes with the failure
            assert r["action"]["text"] in case.find("failure").text, r["id"]
s = report["summary"]
fails = s["error"] + (s["warn"] if strict else 0)
assert int(suite.get("failures")) == fails and int(suite.get("skipped")) == s["skip"]
assert int(suite.get("tests")) == len(results) and int(root.get("failures")) == fails
PY
  done
  "$py" "$source_dir/tests/e2e/junit_rules.py" "$source_dir/tests/data/junit/junit-10-rules.json" "$out.xml" >/dev/null ||
    fail "$machine: the JUnit breaks a rule of Jenkins' xunit schema or repeats a test case's name"
  pass "$machine: JUnit: one test case per result; errors fail, warnings only with --strict, skips skipped; junit-10.xsd's rules, no name twice"

  # node-problem-detector: exit 0 OK / 1 NonOK, one line within max_output_length bytes.
  for max in 80 40 300; do
    status=0
    "$gpudoctor" check --from "$snap" --format npd --max-output-length "$max" >"$out.npd" || status=$?
    [[ $status == "$expected_status" ]] || fail "$machine: npd exited $status, expected $expected_status"
    [[ $(wc -l <"$out.npd") == 1 ]] || fail "$machine: the npd message is not one line"
    bytes=$(($(wc -c <"$out.npd") - 1))
    ((bytes <= max)) || fail "$machine: the npd message has $bytes bytes, over $max"
    "$py" -c 'import sys; open(sys.argv[1], encoding="utf-8").read()' "$out.npd" ||
      fail "$machine: the npd message was cut inside a character"
    if ((status == 1)); then
      first=$(jq_py "$out.json" "[x['id'] for x in r['results'] if x['status']=='error'][0]")
      [[ $(head -c ${#first} "$out.npd") == "$first" ]] ||
        fail "$machine: the npd message does not start with the first error's id $first: $(cat "$out.npd")"
    fi
  done
  pass "$machine: npd: exit $expected_status, one line within 40, 80 and 300 bytes: $(cat "$out.npd")"
done

# A report that cannot be written is an error (exit 2), and the old file stays.
mkdir -p "$work/ro" && echo old >"$work/ro/gpudoctor.prom"
status=0
"$gpudoctor" check --from "$source_dir/tests/machines/amd-mi210-healthy/snapshot" --format prometheus \
  --output "$work/ro/gpudoctor.prom/x" 2>"$work/ro.err" || status=$?
[[ $status == 2 ]] || fail "an unwritable --output exited $status, not 2"
[[ $(cat "$work/ro/gpudoctor.prom") == old ]] || fail "an unwritable --output changed the old file"
pass "an unwritable --output exits 2 and says why: $(head -c 200 "$work/ro.err")"

#!/usr/bin/env bash
# The metrics as an admin graphs and alerts on them (docs/fleet.md, "Prometheus"): Debian's node_exporter and
# Prometheus, started here on loopback ports (stopped within 10 s, their data in the test's folder), scrape
# the textfiles of a multi-GPU machine (an HGX H200 fixture with Xid lines added on two GPUs), then those of
# a machine's check and probe run written side by side (an RTX 3090 with recorded probe outputs: the probe
# unit's own textfile). For every
# family the textfiles hold, one PromQL query returns the value per `gpu` label that the JSON report of the
# same machine says; a family the test has no query for fails it. node_exporter reports no textfile error,
# promtool is silent, and every expression of the Grafana dashboard (contrib/grafana) names only exported
# metrics and is accepted by Prometheus.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

exporter=$(command -v prometheus-node-exporter || command -v node_exporter || true)
prometheus=$(command -v prometheus || true)
promtool=$(command -v promtool || true)
[[ -n $exporter && -n $prometheus && -n $promtool ]] ||
  skip "prometheus, promtool or prometheus-node-exporter is missing (./install.sh --test installs them)"

# ---- the machines -------------------------------------------------------------------------------------
nvidia=$work/hgx
cp -r "$source_dir/tests/machines/nvidia-hgx-h200-fabric-manager-mismatch/snapshot" "$nvidia"
cat >>"$nvidia/cmd/2-dmesg.out" <<'EOF'
[ 3021.500000] NVRM: Xid (PCI:0000:18:00): 13, pid=4410, name=python3, Graphics Exception: ESR 0x514730=0x2000e
[ 3055.200000] NVRM: Xid (PCI:0000:18:00): 13, pid=4410, name=python3, Graphics Exception: ESR 0x514730=0x2000e
[ 3060.000000] NVRM: Xid (PCI:0000:18:00): 43, pid=4410, name=python3, Ch 00000008
[ 4100.000000] NVRM: Xid (PCI:0000:3a:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
EOF
# Its NVLinks as nvidia-smi nvlink -s and -e print them (18 a GPU, all active), link 5 of GPU 1 with errors.
"$py" - "$nvidia" <<'PY'
import json, re, sys
snap = sys.argv[1]
commands = json.load(open(f"{snap}/commands.json"))
xml = open(f"{snap}/cmd/1-nvidia-smi-xml.out").read()
uuids = re.findall(r"<uuid>(GPU-[^<]+)</uuid>", xml)
status = errors = ""
for i, uuid in enumerate(uuids):
    head = f"GPU {i}: NVIDIA H200 (UUID: {uuid})\n"
    status += head + "".join(f"\t Link {k}: 26.562 GB/s\n" for k in range(18))
    errors += head
    for k in range(18):
        replay, crc = (3, 40) if (i, k) == (1, 5) else (0, 0)
        errors += f"\t Link {k}: Replay Errors: {replay}\n\t Link {k}: Recovery Errors: 0\n\t Link {k}: CRC Errors: {crc}\n"
for key, argv, out in [("nvidia-smi-nvlink-s", ["nvidia-smi", "nvlink", "-s"], status),
                       ("nvidia-smi-nvlink-e", ["nvidia-smi", "nvlink", "-e"], errors)]:
    name = f"cmd/{len(commands) + 1}-{key}.out"
    open(f"{snap}/{name}", "w").write(out)
    commands.append({"key": key, "argv": argv, "found": True, "exit": 0, "timed_out": False, "duration_ms": 12,
                     "timeout_ms": 5000, "stdout": name})
json.dump(commands, open(f"{snap}/commands.json", "w"))
PY
# A machine as the timer sees it (no probe ran: the probe outputs of the fixture left out) and as the probe
# unit does.
probed_snap=$source_dir/tests/machines/probe-nvidia-rtx3090-healthy/snapshot
timer_snap=$work/probed
cp -r "$probed_snap" "$timer_snap"
"$py" - "$timer_snap/commands.json" <<'PY'
import json, sys
commands = json.load(open(sys.argv[1]))
json.dump([c for c in commands if not (c["key"].startswith("probe-") or c["key"] == "python-gpu")], open(sys.argv[1], "w"))
PY
mkdir -p "$work/textfile" "$work/reports"
"$gpudoctor" check --from "$nvidia" --format json >"$work/reports/nvidia.json" || [[ $? == 1 ]] || fail "check --from the HGX copy failed"
"$gpudoctor" check --from "$timer_snap" --format json >"$work/reports/timer.json" || [[ $? == 1 ]] || fail "check --from the copy without probe outputs failed"
"$gpudoctor" probe --from "$probed_snap" --format json >"$work/reports/probes.json" || [[ $? == 1 ]] ||
  fail "probe --from the probe fixture failed"

textfiles() { # SNAPSHOT [PROBED]: the timer's textfile of SNAPSHOT and, with PROBED, the probe unit's beside it
  rm -f "$work/textfile"/*.prom
  "$gpudoctor" check --from "$1" --textfile "$work/textfile/gpudoctor.prom" >/dev/null || [[ $? == 1 ]] ||
    fail "check --textfile failed"
  if [[ -n ${2:-} ]]; then
    "$gpudoctor" probe --from "$2" --textfile "$work/textfile/gpudoctor-probe.prom" >/dev/null || [[ $? == 1 ]] ||
      fail "probe --textfile failed"
  fi
  for f in "$work/textfile"/*.prom; do
    lint=$("$promtool" check metrics <"$f" 2>&1) || fail "promtool rejects $(basename "$f"): $lint"
    [[ -z $lint ]] || fail "promtool has remarks on $(basename "$f"): $lint"
    cp "$f" "$work/reports/$(basename "$f" .prom)-$(basename "$1").prom"
  done
}
textfiles "$nvidia"

# ---- node_exporter and Prometheus on loopback ---------------------------------------------------------
free_port() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
node_port=$(free_port)
prom_port=$(free_port)
"$exporter" --web.listen-address="127.0.0.1:$node_port" --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$work/textfile" >"$work/exporter.log" 2>&1 &
exporter_pid=$!
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:$node_port"]
EOF
"$prometheus" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
prometheus_pid=$!
trap 'stop_service "$prometheus_pid" prometheus; stop_service "$exporter_pid" node_exporter; rm -rf "$work"' EXIT

# Answers every query given on stdin (one a line, "$instance" for the instance) with its JSON result, or exits
# 1 naming the query Prometheus refused. Also waits for a scrape that holds `--wait-for` (a file's stamp).
query_tool=$work/query.py
cat >"$query_tool" <<'PY'
import json, sys, time, urllib.parse, urllib.request
port = sys.argv[1]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy
def query(q):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
    try:
        body = json.load(opener.open(url, timeout=5))
    except urllib.error.HTTPError as e:  # a refused query answers JSON; a server still starting may not
        body = json.load(e)
    if body.get("status") != "success":
        raise SystemExit(f"Prometheus refused {q!r}: {body.get('error')}")
    return body["data"]["result"]
if sys.argv[2] == "--wait-for":
    stamp = float(sys.argv[3])
    for _ in range(300):  # 30 s
        try:
            r = query("gpudoctor_last_run_timestamp_seconds")
            if r and abs(float(r[0]["value"][1]) - stamp) < 0.01:
                raise SystemExit(0)
        except (OSError, ValueError):  # not listening yet, or not ready (503 without JSON)
            pass
        time.sleep(0.1)
    raise SystemExit(f"no scrape of the textfile stamped {stamp} within 30 s")
print(json.dumps({q: query(q) for q in (line.rstrip("\n") for line in sys.stdin) if q}))
PY
stamp_of() { sed -n 's/^gpudoctor_last_run_timestamp_seconds //p' "$work/textfile/gpudoctor.prom"; }
"$py" "$query_tool" "$prom_port" --wait-for "$(stamp_of)" ||
  fail "Prometheus did not scrape node_exporter: $(tail -n 3 "$work/prometheus.log") $(tail -n 3 "$work/exporter.log")"
pass "node_exporter serves the HGX machine's textfile; Prometheus scraped it"

# ---- one query per family: the values per gpu label are the report's ------------------------------------
check_families() { # REPORT TEXTFILES...: every family of the textfiles asked, each answer the report's
  "$py" - "$py" "$query_tool" "$prom_port" "$@" <<'PY'
import json, re, subprocess, sys
py, tool, port, report_file, *textfiles = sys.argv[1:]
r = json.load(open(report_file))
facts = r["facts"]
families = set()
for f in textfiles:
    families |= set(re.findall(r"^# TYPE (\S+) gauge$", open(f).read(), re.M))
gpus = facts["gpus"]
subject = {f'gpu{g["index"]} ({g["bdf"]})': g for g in gpus}
# gpudoctor's `gpu` label: nvidia-smi's order for NVIDIA, the KFD nodes' order for AMD.
smi = facts["drivers"]["nvidia"]["smi_gpus"]
def bdf_of_bus(bus):  # "00000000:18:00.0" -> "0000:18:00.0"
    d, rest = bus.split(":", 1)
    return (d[-4:] + ":" + rest).lower()
gpu_label = {bdf_of_bus(s["bus_id"]): str(i) for i, s in enumerate(smi)}
amd = sorted((g for g in gpus if g["vendor"] == "AMD"), key=lambda g: ((g.get("kfd") or {}).get("node_id", 1 << 30), g["bdf"]))
gpu_label.update({g["bdf"]: str(i) for i, g in enumerate(amd)})
health = {bdf_of_bus(x["bus_id"]): x["health"] for x in facts["health"]["nvidia_gpus"]}
smi_by = {bdf_of_bus(s["bus_id"]): s for s in smi}
nvlinks = facts["drivers"]["nvidia"].get("nvlink") or []
nvlink_label = {s["uuid"]: str(i) for i, s in enumerate(smi)}
value_of = {"pass": 0, "skip": 1, "info": 2, "warn": 3, "error": 4}
def per_gpu(pairs):  # {bdf: value} -> {gpu label: value}, unknown values left out
    return {gpu_label[b]: float(v) for b, v in pairs.items() if v is not None and b in gpu_label}
def link(state, field):
    return per_gpu({g["bdf"]: (g.get("link") or {}).get(f"{field}_{state}") for g in gpus})
def speed(state):
    return per_gpu({g["bdf"]: float(v.split()[0]) * 1e9 if v else None
                    for g in gpus for v in [(g.get("link") or {}).get(f"speed_{state}")]})
worst, failed = {}, {}
for x in r["results"]:
    g = subject.get(x["subject"])
    if g:
        k = gpu_label[g["bdf"]]
        worst[k] = max(worst.get(k, 0), value_of[x["status"]])
        failed[k] = failed.get(k, 0) + (x["status"] == "error")
xids = {}
for e in facts["health"]["kernel_log"]["events"]:
    if e["kind"] == "xid" and e["boot"] == "this" and e["pci"] in gpu_label:
        k = (gpu_label[e["pci"]], str(e["code"]))
        xids[k] = xids.get(k, 0) + e["count"]
probes = (facts.get("probes") or {}).get("backends") or []
def probe_best(kind, test=None):  # the best of each GPU's runs of `kind`, in bytes a second
    out = {}
    for b in probes:
        by_dev = {d["index"]: d["pci_bus_id"] for d in b["devices"]}
        for h in b[kind]:
            k = gpu_label.get(by_dev.get(h["device"]))
            if (test is None or h["test"] == test) and h.get("best_gbps") is not None and k is not None:
                out[k] = max(out.get(k, 0), h["best_gbps"] * 1e9)
    return out
by = lambda *labels: lambda m: tuple(m["metric"].get(l, "") for l in labels) if len(labels) > 1 else m["metric"].get(labels[0], "")
# family -> (query, how an answer is keyed, what the report says)
table = {
  "gpudoctor_check_result": ("max by (gpu) (gpudoctor_check_result{gpu!=''})", by("gpu"), worst),
  "gpudoctor_check_failed": ("sum by (gpu) (gpudoctor_check_failed{gpu!=''})", by("gpu"), failed),
  "gpudoctor_results": ("gpudoctor_results", by("status"), r["summary"]),
  "gpudoctor_gpu_info": ("gpudoctor_gpu_info", by("gpu"), {gpu_label[g["bdf"]]: 1 for g in gpus}),
  "gpudoctor_gpu_ecc_errors": ("gpudoctor_gpu_ecc_errors{severity='corrected',counter='aggregate'}", by("gpu"),
                               per_gpu({b: h.get("aggregate_correctable") for b, h in health.items()})),
  "gpudoctor_gpu_remapped_rows": ("gpudoctor_gpu_remapped_rows{severity='uncorrectable'}", by("gpu"),
                                  per_gpu({b: h.get("remapped_rows_uncorrectable") for b, h in health.items()})),
  "gpudoctor_gpu_remap_pending": ("gpudoctor_gpu_remap_pending", by("gpu"),
                                  per_gpu({b: h["remap_pending"] for b, h in health.items()})),
  "gpudoctor_gpu_remap_failure": ("gpudoctor_gpu_remap_failure", by("gpu"),
                                  per_gpu({b: h["remap_failure"] for b, h in health.items()})),
  "gpudoctor_gpu_temperature_celsius": ("gpudoctor_gpu_temperature_celsius", by("gpu"),
                                        per_gpu({b: s.get("temperature_celsius") for b, s in smi_by.items()})),
  "gpudoctor_gpu_power_watts": ("gpudoctor_gpu_power_watts", by("gpu"),
                                per_gpu({b: s.get("power_draw_watts") for b, s in smi_by.items()})),
  "gpudoctor_gpu_power_limit_watts": ("gpudoctor_gpu_power_limit_watts", by("gpu"),
                                      per_gpu({b: s.get("power_limit_watts") for b, s in smi_by.items()})),
  "gpudoctor_gpu_clock_hertz": ("gpudoctor_gpu_clock_hertz{clock='sm'}", by("gpu"),
                                per_gpu({b: s["sm_clock_mhz"] * 1e6 for b, s in smi_by.items() if s.get("sm_clock_mhz") is not None})),
  "gpudoctor_gpu_mig_mode": ("gpudoctor_gpu_mig_mode{state='current'}", by("gpu"),
                             per_gpu({b: int(s["mig_current"] == "Enabled") for b, s in smi_by.items()
                                      if s.get("mig_current") in ("Enabled", "Disabled")})),
  "gpudoctor_gpu_mig_devices": ("gpudoctor_gpu_mig_devices", by("gpu"),
                                per_gpu({b: s.get("mig_devices") for b, s in smi_by.items() if s.get("mig_current") == "Enabled"})),
  "gpudoctor_gpu_bar1_bytes": ("gpudoctor_gpu_bar1_bytes", by("gpu"),
                               per_gpu({b: s["bar1_total_mib"] * 1048576 for b, s in smi_by.items() if s.get("bar1_total_mib") is not None})),
  "gpudoctor_gpu_nvlinks": ("gpudoctor_gpu_nvlinks{state='active'}", by("gpu"),
                            {nvlink_label[n["uuid"]]: sum(l["active"] for l in n["links"]) for n in nvlinks}),
  "gpudoctor_gpu_nvlink_errors": ("sum by (gpu) (gpudoctor_gpu_nvlink_errors{counter='replay'})", by("gpu"),
                                  {nvlink_label[n["uuid"]]: sum(l["replay_errors"] or 0 for l in n["links"]) for n in nvlinks}),
  "gpudoctor_gpu_clocks_event_reason": ("sum by (gpu) (gpudoctor_gpu_clocks_event_reason)", by("gpu"),
                                        per_gpu({b: len(h["clocks_held_by"]) for b, h in health.items()})),
  "gpudoctor_gpu_pcie_link_width": ("gpudoctor_gpu_pcie_link_width{state='max'}", by("gpu"), link("max", "width")),
  "gpudoctor_gpu_pcie_link_speed_transfers_per_second": ("gpudoctor_gpu_pcie_link_speed_transfers_per_second{state='max'}",
                                                          by("gpu"), speed("max")),
  "gpudoctor_gpu_xid_events": ("sum by (gpu, code) (gpudoctor_gpu_xid_events)", by("gpu", "code"), xids),
  "gpudoctor_software_info": ("count(gpudoctor_software_info)", lambda m: "", None),
  "gpudoctor_os_info": ("gpudoctor_os_info", by("id"), {facts["os"]["id"]["value"]: 1}),
  "gpudoctor_build_info": ("gpudoctor_build_info", by("source"), {"snapshot": 1}),
  "gpudoctor_last_run_timestamp_seconds": ("count(gpudoctor_last_run_timestamp_seconds)", lambda m: "", {"": 1}),
  "gpudoctor_run_duration_seconds": ("count(gpudoctor_run_duration_seconds)", lambda m: "", {"": 1}),
  "gpudoctor_probe_result": ("max by (gpu) (gpudoctor_probe_result{gpu!=''})", by("gpu"), None),
  "gpudoctor_probe_host_bandwidth_bytes_per_second": ("gpudoctor_probe_host_bandwidth_bytes_per_second{direction='h2d'}",
                                                      by("gpu"), probe_best("host_bandwidth", "h2d")),
  "gpudoctor_probe_memory_bandwidth_bytes_per_second": ("max by (gpu) (gpudoctor_probe_memory_bandwidth_bytes_per_second)",
                                                        by("gpu"), probe_best("memory_bandwidth")),
  "gpudoctor_probe_p2p_bandwidth_bytes_per_second": ("max by (gpu) (gpudoctor_probe_p2p_bandwidth_bytes_per_second)",
                                                     by("gpu"), probe_best("p2p_bandwidth")),
  "gpudoctor_probe_p2p_bandwidth_floor_bytes_per_second": ("gpudoctor_probe_p2p_bandwidth_floor_bytes_per_second",
                                                           by("gpu", "peer_bdf"), None),
  "gpudoctor_probe_host_bandwidth_floor_bytes_per_second": (  # the floors the measured copies are above
      "gpudoctor_probe_host_bandwidth_floor_bytes_per_second <= on (instance, gpu) "
      "min by (instance, gpu) (gpudoctor_probe_host_bandwidth_bytes_per_second)", by("gpu"), None),
  "gpudoctor_probe_memory_bandwidth_floor_bytes_per_second": ("gpudoctor_probe_memory_bandwidth_floor_bytes_per_second",
                                                              by("gpu"), None),
  "gpudoctor_probe_last_run_timestamp_seconds": ("count(gpudoctor_probe_last_run_timestamp_seconds)", lambda m: "", {"": 1}),
}
missing = sorted(families - set(table))
assert not missing, f"families without a query in this test: {missing}"
asked = sorted(families)
answers = json.loads(subprocess.run([py, tool, port, "--ask"], input="\n".join(table[f][0] for f in asked),
                                    capture_output=True, text=True, check=True).stdout)
for f in asked:
    q, key, want = table[f]
    got = {key(m): float(m["value"][1]) for m in answers[q]}
    assert got, f"{f}: {q} returned nothing"
    if want is not None:
        want = {k: float(v) for k, v in want.items()}
        assert got == want, f"{f}: {q} gave {got}, the report says {want}"
    print(f"PASS: {f}: {q} -> {len(got)} value(s){'' if want is None else ', as the report says'}")
PY
}
check_families "$work/reports/nvidia.json" "$work/textfile/gpudoctor.prom" ||
  fail "the HGX machine's series are not what its report says"
scrape=$("$py" -c 'import sys, urllib.request
print(urllib.request.build_opener(urllib.request.ProxyHandler({})).open(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode())' "$node_port")
grep -q '^node_textfile_scrape_error 0$' <<<"$scrape" || fail "node_exporter: $(grep textfile <<<"$scrape")"

# The two textfiles of the AMD machine side by side: no series twice, the probe families queried too.
textfiles "$timer_snap" "$probed_snap"
"$py" "$query_tool" "$prom_port" --wait-for "$(stamp_of)" || fail "Prometheus did not scrape the second machine's textfiles"
for _ in $(seq 50); do # the probe file is scraped in the same scrape; its series appear with it
  [[ $(echo "count(gpudoctor_probe_result)" | "$py" "$query_tool" "$prom_port" --ask) != *'[]'* ]] && break
  sleep 0.1
done
check_families "$work/reports/timer.json" "$work/textfile/gpudoctor.prom" ||
  fail "the second machine's series are not what its report says"
check_families "$work/reports/probes.json" "$work/textfile/gpudoctor-probe.prom" ||
  fail "the probe series are not what the probe run says"
scrape=$("$py" -c 'import sys, urllib.request
print(urllib.request.build_opener(urllib.request.ProxyHandler({})).open(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode())' "$node_port")
grep -q '^node_textfile_scrape_error 0$' <<<"$scrape" ||
  fail "node_exporter cannot read the timer's and the probe unit's textfiles together: $(grep textfile <<<"$scrape")"
pass "the timer's and the probe unit's textfiles are read together without error"

# ---- the dashboard ------------------------------------------------------------------------------------
"$py" - "$source_dir/contrib/grafana/gpudoctor-nodes.json" "$work"/reports/*.prom <<'PY' >"$work/dashboard-exprs" ||
import json, re, sys
dash = json.load(open(sys.argv[1]))
exported = set()
for f in sys.argv[2:]:
    exported |= set(re.findall(r"^# TYPE (\S+) gauge$", open(f).read(), re.M))
functions = {"sum", "max", "min", "count", "avg", "time", "rate", "increase", "label_replace", "topk", "abs"}
keywords = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset"}
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
assert exprs and all(p.get("datasource", {}).get("type") == "prometheus" for p in dash["panels"])
for e in exprs:
    bare = re.sub(r'\{[^}]*\}', "", e)               # label matchers
    bare = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', "", bare)  # label lists
    names = {n for n in re.findall(r"[A-Za-z_:][A-Za-z0-9_:]*", bare)} - functions - keywords
    unknown = {n for n in names if n not in exported}
    assert not unknown, f"the dashboard names {unknown}, which gpudoctor does not export: {e}"
    print(e.replace("$instance", ".*"))
PY
  fail "the dashboard names metrics gpudoctor does not export"
"$py" "$query_tool" "$prom_port" --ask <"$work/dashboard-exprs" >/dev/null || fail "Prometheus refuses a dashboard expression"
pass "the dashboard's $(wc -l <"$work/dashboard-exprs") expressions name only exported metrics, and Prometheus accepts each"

# The alert rules docs/fleet.md gives an admin to copy: promtool accepts them, Prometheus evaluates each.
"$py" - "$source_dir/docs/fleet.md" >"$work/rules.yml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
at = text.index("Alerting rules an admin copies")
print(re.search(r"```yaml\n(.*?)```", text[at:], re.S).group(1))
PY
lint=$("$promtool" check rules "$work/rules.yml" 2>&1) || fail "promtool rejects the alert rules of docs/fleet.md: $lint"
"$py" - "$work/rules.yml" >"$work/rule-exprs" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"\s*expr: (.*)$", line)
    if m:
        print(m.group(1))
PY
"$py" "$query_tool" "$prom_port" --ask <"$work/rule-exprs" >/dev/null || fail "Prometheus refuses an alert rule's expression"
pass "the alert rules of docs/fleet.md: promtool check rules accepts them, Prometheus evaluates their $(wc -l <"$work/rule-exprs") expressions"

stop_service "$prometheus_pid" prometheus || fail "Prometheus did not stop"
stop_service "$exporter_pid" node_exporter || fail "node_exporter did not stop"
pass "Prometheus and node_exporter stopped"

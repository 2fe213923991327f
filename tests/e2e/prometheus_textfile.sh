#!/usr/bin/env bash
# Prometheus for real (docs/fleet.md): the command of gpudoctor-metrics.service, as the unit runs it (its
# history kept in the test's folder, never this machine's), writes its textfile into a folder; Debian's prometheus-node-exporter, started here on a free loopback port with
# that folder as its textfile directory, serves gpudoctor's series on /metrics over HTTP, with the values of
# the JSON report of the same machine; node_exporter reports no textfile error. Stopped within 10 s.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

exporter=$(command -v prometheus-node-exporter || command -v node_exporter || true)
[[ -n $exporter ]] || skip "prometheus-node-exporter is missing (./install.sh --test installs it)"

unit=$source_dir/contrib/systemd/gpudoctor-metrics.service.in
textfile_dir=/var/lib/prometheus/node-exporter
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[[ $exec_start == *" check --history --textfile $textfile_dir/gpudoctor.prom" ]] ||
  fail "the unit's ExecStart is not what this test knows: $exec_start"
# The unit's command, with this build's binary and folders of the test's own for the textfile and the history.
read -r -a unit_words <<<"${exec_start//@CMAKE_INSTALL_FULL_BINDIR@\/gpudoctor/$gpudoctor}"
command=()
for word in "${unit_words[@]//$textfile_dir/$work/textfile}"; do
  [[ $word == --history ]] && word=--history-dir=$work/history
  command+=("$word")
done
mkdir -p "$work/textfile"

port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$work/textfile" >"$work/exporter.log" 2>&1 &
exporter_pid=$!
trap 'stop_service "$exporter_pid" node_exporter; rm -rf "$work"' EXIT

scrape() { # the /metrics text, or nothing
  "$py" - "$port" <<'PY'
import sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy
try:
    print(opener.open(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode())
except OSError:
    pass
PY
}
for _ in $(seq 100); do [[ -n $(scrape) ]] && break; sleep 0.1; done
[[ -n $(scrape) ]] || fail "node_exporter does not answer on 127.0.0.1:$port: $(tail -5 "$work/exporter.log")"

# 1. This machine, with the unit's own command.
status=0
"${command[@]}" >/dev/null || status=$? # the text report: discarded, as the unit does
((status <= 1)) || fail "the unit's command exited $status: ${command[*]}"
scrape >"$work/live.metrics"
grep -q '^gpudoctor_build_info{source="live",version="' "$work/live.metrics" ||
  fail "node_exporter does not serve gpudoctor's textfile: $(grep -i textfile "$work/live.metrics" | sed -n 1,5p)"
grep -q '^node_textfile_scrape_error 0$' "$work/live.metrics" ||
  fail "node_exporter has an error reading the textfile: $(grep textfile "$work/live.metrics")"
pass "the unit's command ($((status)) = exit status) writes a textfile node_exporter serves without error"
[[ $(find "$work/history" -name '*.json' | wc -l) == 1 ]] || fail "the unit's command kept no report in the history"
pass "and keeps the report in the history in the same run"

# 2. A machine with known problems: the values scraped are those of the JSON report.
snap=$source_dir/tests/machines/nvidia-no-driver-bound/snapshot
"$gpudoctor" check --from "$snap" --format json >"$work/report.json" || true
"${command[@]}" --from "$snap" >/dev/null || true
scrape >"$work/snap.metrics"
"$py" - "$work/report.json" "$work/snap.metrics" <<'PY' || fail "the scraped series are not the report's results"
import json, re, sys
report = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
value_of = {"pass": 0, "skip": 1, "info": 2, "warn": 3, "error": 4}
# node_exporter sorts labels by name (UUID, bdf, gpu, id, key, pci_bus_id, subject).
got = {}
for labels, value in re.findall(r'^gpudoctor_check_result\{(.*)\} (\S+)$', text, re.M):
    l = dict(re.findall(r'([A-Za-z_]+)="([^"]*)"', labels))
    got[(l["id"], l["subject"], l.get("key", ""))] = float(value)
    if l["subject"] == "gpu0 (0000:00:04.0)":
        assert l["bdf"] == "0000:00:04.0" and l["gpu"] == "0" and l["pci_bus_id"] == "00000000:00:04.0", l
want = {}
for r in report["results"]:
    k = (r["id"], r["subject"], r["key"])
    want[k] = max(want.get(k, 0), value_of[r["status"]])
assert got == want, sorted(set(got.items()) ^ set(want.items()))[:5]
assert got[("driver.not-bound", "gpu0 (0000:00:04.0)", "")] == 4
assert re.search(r'^gpudoctor_gpu_info\{.*bdf="0000:00:04.0".*\} 1$', text, re.M)
PY
pass "scraped over HTTP: gpudoctor_check_result per check, subject and key, with the GPU's labels and the report's values (driver.not-bound = 4)"

stop_service "$exporter_pid" node_exporter || fail "node_exporter did not stop"
pass "node_exporter stopped"

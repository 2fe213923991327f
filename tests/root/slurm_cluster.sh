#!/usr/bin/env bash
# Slurm for real (docs/fleet.md): Debian's munged, slurmctld and slurmd started here on loopback (one node, a
# generated slurm.conf and munge key in a temporary folder, free ports), with
# contrib/slurm/gpudoctor-slurm-healthcheck as the HealthCheckProgram:
#   1. a fault injected (the wrapper judges the snapshot of a machine whose GPU has no driver bound): slurmd
#      runs the health check, the node drains, `sinfo -R` shows "gpudoctor: driver.not-bound, ...";
#   2. the fault gone (a healthy snapshot): the node resumes;
#   3. an admin's drain: the wrapper neither replaces its reason nor resumes the node;
#   4. `srun gpudoctor check --format json` through the cluster gives a report.
# Every daemon is stopped at the end, also on failure; each wait is bounded. Needs root (slurmd runs jobs as
# their user, and munged's checks of its files).
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/../e2e/common.bash"

[[ $(id -u) -eq 0 ]] || skip "needs root (slurmd, munged)"
for tool in munged slurmctld slurmd scontrol sinfo srun timeout; do
  command -v "$tool" >/dev/null || skip "$tool is missing (apt-get install slurm-wlm munge)"
done

wrapper=$source_dir/contrib/slurm/gpudoctor-slurm-healthcheck
broken=$source_dir/tests/machines/nvidia-no-driver-bound/snapshot
healthy=$source_dir/tests/machines/amd-mi210-healthy/snapshot
dir=$work/slurm
mkdir -p "$dir"/{state,spool,munge} && chmod 0755 "$dir" "$dir"/{state,spool} && chmod 0755 "$dir/munge"
node=$(hostname -s)
free_port() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port)
slurmd_port=$(free_port)
cpus=$(nproc)

pids=()
stop_all() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  pids=()
}
trap 'stop_all; rm -rf "$work"' EXIT
logs() { for f in "$dir"/*.log; do echo "== $f"; tail -n 15 "$f"; done >&2; }
# wait_for SECONDS DESCRIPTION COMMAND...: until COMMAND succeeds, else fail.
wait_for() {
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq $((seconds * 5))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  logs
  fail "not within $seconds s: $what"
}

# ---- munge: a generated key, its own socket ------------------------------------------------------------
head -c 1024 /dev/urandom >"$dir/munge/munge.key" && chmod 0400 "$dir/munge/munge.key"
munged --foreground --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" \
  >>"$dir/munged.log" 2>&1 &
pids+=($!)
wait_for 10 "munged listens" test -S "$dir/munge/munge.sock"

# ---- slurm.conf: one node, loopback, the wrapper as health check ----------------------------------------
# The wrapper's settings come from its configuration file; slurmd starts it with an environment of its own.
cat >"$dir/healthcheck.conf" <<CONF
GPUDOCTOR=$gpudoctor
GPUDOCTOR_ARGS="--from $broken"
GPUDOCTOR_NODE=$node
CONF
cat >"$dir/healthcheck" <<SH
#!/bin/sh
SLURM_CONF=$dir/slurm.conf GPUDOCTOR_HEALTHCHECK_CONF=$dir/healthcheck.conf exec $wrapper 2>>$dir/healthcheck.log
SH
chmod 0755 "$dir/healthcheck"
cat >"$dir/slurm.conf" <<CONF
ClusterName=gpudoctor-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
HealthCheckProgram=$dir/healthcheck
HealthCheckInterval=2
HealthCheckNodeState=ANY
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=10 State=UP
CONF
export SLURM_CONF=$dir/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" >>"$dir/slurmctld.log" 2>&1 &
pids+=($!)
wait_for 20 "slurmctld answers" scontrol ping
slurmd -D -N "$node" -f "$SLURM_CONF" >>"$dir/slurmd.log" 2>&1 &
pids+=($!)
wait_for 30 "slurmd registers" sh -c "sinfo -h -n '$node' -o '%T' | grep -v -e unknown -e '^down'"
pass "munged, slurmctld and slurmd run on loopback (ports $ctld_port, $slurmd_port)"

reason() { sinfo -h -R -n "$node" -o '%E'; }

# ---- 1. the fault: slurmd's health check drains the node with the check ids as the reason --------------
wait_for 30 "the health check drains $node" sh -c "sinfo -h -R -n '$node' -o '%E' | grep '^gpudoctor: '"
sinfo -R -o "%50E %9u %19H %N" >"$work/sinfo-R.txt"
r=$(reason)
[[ $r == "gpudoctor: driver.not-bound, cuda.no-driver" ]] || fail "the drain reason is '$r', not the check ids"
[[ $(sinfo -h -n "$node" -o '%T') == drain* ]] || fail "$node is not drained: $(sinfo -h -n "$node" -o '%T')"
pass "slurmd's health check drained $node; sinfo -R: $(tail -n 1 "$work/sinfo-R.txt")"

# ---- 2. the fault gone: the node resumes ----------------------------------------------------------------
sed -i "s|^GPUDOCTOR_ARGS=.*|GPUDOCTOR_ARGS=\"--from $healthy\"|" "$dir/healthcheck.conf"
wait_for 30 "the health check resumes $node" sh -c "[ -z \"\$(sinfo -h -R -n '$node' -o '%E')\" ]"
wait_for 10 "$node is idle" sh -c "[ \"\$(sinfo -h -n '$node' -o '%T')\" = idle ]"
pass "the fault gone, the health check resumed $node"

# ---- 3. an admin's drain is not the wrapper's to change ------------------------------------------------
scontrol update nodename="$node" state=drain reason="admin: replacing a fan"
sed -i "s|^GPUDOCTOR_ARGS=.*|GPUDOCTOR_ARGS=\"--from $broken\"|" "$dir/healthcheck.conf"
: >"$dir/healthcheck.log"
wait_for 20 "the health check runs over the admin's drain" grep -q "already out" "$dir/healthcheck.log"
[[ $(reason) == "admin: replacing a fan" ]] || fail "the wrapper replaced the admin's reason: $(reason)"
sed -i "s|^GPUDOCTOR_ARGS=.*|GPUDOCTOR_ARGS=\"--from $healthy\"|" "$dir/healthcheck.conf"
sleep 5 # two health check intervals
[[ $(reason) == "admin: replacing a fan" ]] || fail "the wrapper resumed a node an admin drained: $(reason)"
scontrol update nodename="$node" state=resume
pass "an admin's drain keeps its reason, and the wrapper does not resume it"

# ---- 4. a job through the cluster ----------------------------------------------------------------------
wait_for 10 "$node is idle" sh -c "[ \"\$(sinfo -h -n '$node' -o '%T')\" = idle ]"
status=0
timeout 60 srun -N1 -n1 -t 1 "$gpudoctor" check --format json >"$work/srun.json" 2>"$work/srun.err" || status=$?
((status <= 1)) || { logs; fail "srun gpudoctor check exited $status: $(tail -n 5 "$work/srun.err")"; }
expect "$work/srun.json" "r['format'] == 'gpudoctor-report' and r['source']['kind'] == 'live' and len(r['results']) > 20" \
  "srun gpudoctor check --format json: a live report from the node"

stop_all
pass "all daemons stopped"

#!/usr/bin/env bash
# contrib/slurm/gpudoctor_gpu.nhc against NHC's check-function contract (NHC's README, "Writing Checks"; NHC is
# not packaged in Debian, so its contract is what is tested): the file is sourced by bash with NHC's
# functions stubbed as NHC defines them (die RC MESSAGE marks the node's failure, log and dbg write to NHC's
# log), and check_gpu_gpudoctor must return 0 on a healthy machine without calling die, and on a broken one
# call `die 1 "gpudoctor: <check ids>: ..."` and return 1; a gpudoctor that cannot judge (a snapshot that does
# not exist) is logged, not a failure; its arguments go to `gpudoctor check`.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

nhc_file=$source_dir/contrib/slurm/gpudoctor_gpu.nhc
bash -n "$nhc_file" || fail "bash rejects $nhc_file"

# run_check ARGS...: sources the file as NHC does (NHC's functions defined first), runs the check, prints
# "return=N", then each die/log/dbg call on a line of its own.
run_check() {
  env -i PATH=/usr/bin:/bin GPUDOCTOR_NHC_BIN="$gpudoctor" bash -c '
    die() { echo "die rc=$1 msg=${*:2}"; }
    log() { echo "log $*"; }
    dbg() { echo "dbg $*"; }
    source "$1"; shift
    calls=$(check_gpu_gpudoctor "$@"); rc=$?
    echo "return=$rc"; printf "%s\n" "$calls"' _ "$nhc_file" "$@"
}

broken=$source_dir/tests/machines/nvidia-no-driver-bound/snapshot
healthy=$source_dir/tests/machines/amd-mi210-healthy/snapshot

out=$(run_check --from "$broken")
grep -qx "return=1" <<<"$out" || fail "a broken machine did not return 1: $out"
# The NPD line, with what to do where it fits (docs/checks.md: actions).
grep -qx "die rc=1 msg=gpudoctor: driver.not-bound, cuda.no-driver: GPU without a kernel driver \[gpu0 (0000:00:04.0)\] → gpudoctor fix install-nvidia" <<<"$out" ||
  fail "a broken machine did not die 1 with the check ids: $out"
pass "broken machine: die 1 \"$(sed -n 's/^die rc=1 msg=//p' <<<"$out")\", return 1"

out=$(run_check --from "$healthy")
grep -qx "return=0" <<<"$out" || fail "a healthy machine did not return 0: $out"
grep -q "^die" <<<"$out" && fail "a healthy machine called die: $out"
grep -q "^dbg gpudoctor: no problems" <<<"$out" || fail "a healthy machine did not say so in the debug log: $out"
pass "healthy machine: return 0, no die"

out=$(run_check --from "$broken" --only driver.nouveau)
grep -qx "return=0" <<<"$out" || fail "the arguments did not reach gpudoctor check (--only): $out"
warned=$source_dir/tests/machines/amd-2gpu-pcie-rccl/snapshot # warnings, no error
out=$(run_check --from "$warned")
grep -qx "return=0" <<<"$out" || fail "warnings failed the node without --strict: $out"
out=$(run_check --from "$warned" --strict)
grep -qx "return=1" <<<"$out" || fail "--strict did not reach gpudoctor check: $out"
pass "the check's arguments are gpudoctor check's options"

out=$(run_check --from "$work/no-such-snapshot")
grep -qx "return=0" <<<"$out" || fail "a gpudoctor that cannot judge failed the node: $out"
grep -q "^log gpudoctor could not judge this node (exit 2)" <<<"$out" || fail "it was not logged: $out"
# The log line says why (gpudoctor's --format npd prints the reason on stdout), not only the exit status.
grep -q "^log gpudoctor could not judge this node (exit 2): gpudoctor could not judge this node: cannot read snapshot" <<<"$out" ||
  fail "the log line does not say why: $out"
grep -q "^die" <<<"$out" && fail "it called die: $out"
pass "gpudoctor unable to judge (exit 2): logged with the reason, return 0"

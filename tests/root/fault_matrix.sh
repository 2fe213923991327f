#!/usr/bin/env bash
# The fault matrix (issue 21's proof): a migration that survives its own failures. For each of the four plans
# (migrate --to nvidia on the ROCm 6 workstation of lib.bash, --to amd on its CUDA 12 server, and the same two
# on Debian 13 machines running the distribution's own ROCm and NVIDIA driver: issue 29), for one step of
# each kind (prepare, download, install incoming, module build, purge, profile edit, reboot stop, post-check),
# for each fault (the step's main command fails; SIGKILL of the run mid-step; the disk fills), three recoveries
# branch from the same faulted root: the same `migrate --apply` again, `migrate --resume`, `undo` (after the
# rerun and the resume, a final `undo` too). After the fault and after each recovery, the invariants:
#   packages   the installed packages (name, version, architecture, apt's mark, hold) are those of before or
#              those of a step boundary of the plan (a clean run's); after an undo, those of before
#   driver     never a machine with neither vendor's driver package installed with its module built for the
#              running kernel and the kernel that boots next
#   dpkg       dpkg --audit says nothing and apt-get check passes
#   undo       undo puts back the packages, marks, holds, sources, keys, pins and profiles of before exactly
#   claims     no step reports success that it did not do (a finished migration is the plan's end state; the
#              post-check ran; every step the state calls done has its step-done in the journal)
#   recovers   the fault gone, the same migrate --apply again and --resume finish the migration (--resume may
#              refuse where the faulted run closed it: a first run that rolled back)
#   rollback   a failure in the prepare stage (or the download) leaves the sources, keys and pins of before
#              (the step that failed is the run's step-failed event: a fault may stop a later step)
# The faults come from outside the product (faults.bash: wrappers in the root chosen by a file in the root, a
# killer outside it, a small tmpfs). Each cell starts from a root cached at its step boundary: one clean run of
# each plan pauses at every step (the wrapper of uname, which every step's preflight runs) while its overlay's
# upper folder is copied; a cell is an overlay over that copy, and its recoveries overlays over the faulted
# one. A cell at the first step (prepare) starts from the machine itself with the user's `migrate --apply`; a
# later one continues the run its boundary froze with `migrate --resume` (same script, same run).
# A plan's clean run must end in its end state (check_clean_run: what it takes out, puts in and keeps).
# GPUDOCTOR_FAULT_MATRIX=full runs every cell (96); the default set is the cells named below; a list of cells
# ("nvidia.purge.kill amd.download.disk") runs those. docs/fixes.md has the figures.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/faults.bash"
root_setup
start_all=$SECONDS

kinds=(prepare download install module purge profile reboot check)
faults=(fail kill disk)
# The default set (what CI runs): every fault at least twice, the steps that remove or install a driver (purge
# three times: a vendor's stack, Debian's ROCm, Debian's driver with its DKMS module), the prepare stage's
# rollback and the reboot, every plan (docs/fixes.md, "The fault matrix"). nvidia.purge.kill found the
# selection bug of Safety rule 1. The profile and post-check kinds run
# in the full matrix, by hand, before a change to fixes/lib.bash, the apply state or undo lands.
default_cells="nvidia.purge.kill nvidia.prepare.disk amd.download.fail nvidia.install.kill amd.module.kill
amd.reboot.disk nvidia-d13.purge.fail amd-d13.purge.kill"
case ${GPUDOCTOR_FAULT_MATRIX:-default} in
full) wanted=all ;;
default) wanted=${default_cells//$'\n'/ } ;;
*) wanted=$GPUDOCTOR_FAULT_MATRIX ;;
esac
want_cell() { [[ $wanted == all || " $wanted " == *" $1 "* ]]; }
want_plan() { [[ $wanted == all || " $wanted " == *" $1."* ]]; }

# The step of each kind: the first step whose id matches.
declare -A kind_re=(
  [prepare]='^install-(nvidia|rocm)\.repositor(y|ies)$'
  [download]='^prepare\.download$'
  [install]='^install-(nvidia|rocm)\.driver$'
  [module]='^install-(nvidia|rocm)\.(module|modules|dkms|driver-module|build)$'
  [purge]='^purge-(rocm|nvidia)\.packages$'
  [profile]='^purge-(rocm|nvidia)\.profiles$'
  [reboot]='^reboot\.reboot$'
  [check]='(^|\.)check$'
)
# Each fault of each kind: the wrapper's line (STEP filled in) or, for a disk, FOLDER SIZE and the line that
# fills it ("prefill": full before the step begins). The main command of each kind: the key and source
# writes of the repository step, apt's download, the driver's install (dpkg unpacks, then configures), the
# DKMS build, apt's purge (dpkg removes), the profiles' rename, the reboot request's journal sync, the
# journal of the post-check.
declare -A fault_line=(
  [prepare.fail]='mv fail@2 - *' [prepare.kill]='mv kill@2 - *' [prepare.disk]='/var/log/gpudoctor 1m|mv fill@2 /var/log/gpudoctor *'
  [download.fail]='apt-get fail - *--download-only*' [download.kill]='apt-get kill-after - *--download-only*'
  [download.disk]='/var/cache/gpudoctor 160m|apt-get fill /var/cache/gpudoctor *--download-only*'
  [install.fail]='apt-get fail - install -y*' [install.kill]='dpkg kill-after - *--unpack*'
  [install.disk]='/var/log/gpudoctor 1m|dpkg fill /var/log/gpudoctor *--unpack*'
  [module.fail]='fake-dkms' [module.kill]='dkms kill - install*'
  [module.disk]='/var/log/gpudoctor 1m|dkms fill /var/log/gpudoctor install*'
  [purge.fail]='apt-get fail - purge -y*' [purge.kill]='dpkg kill-after - *--remove*'
  [purge.disk]='/var/log/gpudoctor 1m|dpkg fill /var/log/gpudoctor *--remove*'
  [profile.fail]='mv fail - *' [profile.kill]='mv kill@2 - *' [profile.disk]='/var/log/gpudoctor 1m|cp fill /var/log/gpudoctor *'
  [reboot.fail]='sync fail - *' [reboot.kill]='sync kill - *' [reboot.disk]='/var/log/gpudoctor 1m|prefill'
  [check.fail]='gpudoctor fail - *' [check.kill]='gpudoctor kill - *' [check.disk]='/var/log/gpudoctor 1m|prefill'
)
# A plan whose step has fewer of the commands a trigger counts: the CUDA server has one profile with CUDA
# variables, so its profile step renames once and the kill comes at that rename (the ROCm workstation's
# profile step renames twice: the kill between the two).
# amd-d13 keeps Debian's driver packages (266 MiB) for undo in the download's folder: its space check needs 380
# MiB there before apt runs, so 160 MiB stopped the step before the fault could fire.
declare -A plan_fault_line=([amd.profile.kill]='mv kill@1 - *'
  [amd-d13.download.disk]='/var/cache/gpudoctor 420m|apt-get fill /var/cache/gpudoctor *--download-only*')
# A kind whose step has nothing to do on a plan's machine, so that its faults cannot fire: the Debian 13
# machines' profiles set nothing of the stacks (the distributions install them in /usr), and their profile
# step renames nothing.
declare -A kind_idle=([nvidia-d13.profile]="no profile of the machine sets a ROCm variable (Debian's ROCm is in /usr)"
  [amd-d13.profile]="no profile of the machine sets a CUDA variable (Debian's driver is in /usr)")

# The vendors' proxy lives 30 minutes (lib.bash); the matrix runs longer: a new one when it is gone, and the
# root mounted now wired to it, before each command that may fetch.
keep_proxy() {
  if [[ -z $proxy_pid ]] || ! kill -0 "$proxy_pid" 2>/dev/null; then
    rm -f "$work/proxy.port"
    start_proxy
  fi
  wire_root "$1"
}

# ---- the plans ---------------------------------------------------------------------------------------------
# nvidia, amd: lib.bash's ROCm 6 workstation and CUDA 12 server (the vendors' stacks, a venv's PyTorch).
# nvidia-d13, amd-d13: Debian 13 machines running the distribution's own stack (lib.bash's distro_rocm: Debian's
# ROCm on the kernel's amdgpu, OpenMPI's libucx0 needing its HIP runtime; distro_nvidia: Debian's 550 driver),
# whose purge takes the distribution's packages (issue 29).
plans=(nvidia amd nvidia-d13 amd-d13)
declare -A machine_of=([nvidia]=rocm6 [amd]=cuda12 [nvidia-d13]=distro_rocm [amd-d13]=distro_nvidia)
declare -A incoming_module=([nvidia]=nvidia [amd]=amdgpu [nvidia-d13]=nvidia [amd-d13]=amdgpu)
declare -A plan_gpu=([nvidia-d13]="RTX 3090" [amd-d13]="Radeon PRO W7900")
# What the clean run of a plan must have done besides ending done: the packages it takes out, puts in, and
# keeps (what others need). The Debian 13 plans' are what issue 29 asks of a plan on a distribution's stack.
declare -A plan_gone=([nvidia-d13]="${debian_rocm_packages[*]}" [amd-d13]="${debian_nvidia_packages[*]}")
declare -A plan_in=([nvidia]=nvidia-open-580 [amd]=rocm [nvidia-d13]="nvidia-open-580 cuda-toolkit-13-0"
  [amd-d13]="rocm amdgpu-dkms")
declare -A plan_kept=([nvidia-d13]="${debian_rocm_kept[*]} libucx0")
declare -A outgoing_vendor=([nvidia]=amd [amd]=nvidia [nvidia-d13]=amd [amd-d13]=nvidia)
plan_args() {
  printf '%s\n' --to "${1%-d13}" --mirror file:///srv/mirror
  if [[ -n ${plan_gpu[$1]:-} ]]; then
    printf '%s\n' --gpu "${plan_gpu[$1]}"
  else
    printf '%s\n' --python /home/sam/venv/bin/python3
  fi
}
images=$roots/images
mkdir -p "$images"
# Where every root of the test is mounted in turn (layer_mount).
mnt=$roots/root

# A stand-in for update-initramfs (minbase has none): it writes the image to /boot, as the real one does, so a
# full /boot fails it.
add_fake_initramfs() {
  cat >"$1/usr/local/sbin/update-initramfs" <<'SH'
#!/bin/sh
echo "update-initramfs $*" >>/var/log/fake-initramfs.log
for k in $(ls /lib/modules 2>/dev/null || uname -r); do
  head -c 262144 /dev/zero >"/boot/initrd.img-$k.new" && mv "/boot/initrd.img-$k.new" "/boot/initrd.img-$k" || exit 1
done
SH
  chmod 0755 "$1/usr/local/sbin/update-initramfs"
}

# The migration's state: "STEPS|DONE|STATUS" (space-separated ids), from root's record (migration.json, or
# 0.1.0's migrate.json). Not tabs: `read` merges tabs as it merges blanks, so an empty DONE took the status.
state_of() {
  local f
  for f in "$1/var/lib/gpudoctor/migration.json" "$1/var/lib/gpudoctor/migrate.json"; do
    [[ -f $f ]] || continue
    "$host_python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(d.get("steps", [])) + "|" + " ".join(d.get("done", [])) + "|" + str(d.get("status", "")))' "$f"
    return 0
  done
  printf '||none\n'
}

# At a pause of the clean run: the step about to run is the first one not done. Its packages are a boundary's,
# its root is copied (the first time the step comes: the reboot step comes again after the reboot).
capture_boundary() {
  local k=$1 steps done_steps next='' s
  IFS='|' read -r steps done_steps _ < <(state_of "$mnt")
  ((k == 1)) && printf '%s\n' "$steps" >"$images/$plan/steps"
  for s in $steps; do
    if [[ " $done_steps " != *" $s "* ]]; then next=$s && break; fi
  done
  [[ -n $next ]] || return 0
  pkg_state "$mnt" >"$images/$plan/boundary-$k.pkgs"
  [[ -n $(awk -F '\t' -v s="$next" '$1 == s' "$images/$plan/order" 2>/dev/null) ]] && return 0
  printf '%s\t%s\n' "$next" "$GPUDOCTOR_BOOT_ID" >>"$images/$plan/order"
  local t=$EPOCHREALTIME
  layer_snapshot "$roots/$plan.run" "$images/$plan/$next"
  snapshot_us=$((snapshot_us + ${EPOCHREALTIME/./} - ${t/./}))
}
snapshot_us=0

# The step of each kind: the first whose id matches; the module build's is where the clean run's DKMS built
# the incoming module (the driver package's postinst, as Debian's DKMS packages do; else its own step).
map_kinds() {
  local kind step module=$1
  for kind in "${kinds[@]}"; do
    step=
    if [[ $kind == module ]]; then
      step=$(awk -F '\t' -v m="$module" '$2 == "dkms" && $3 ~ /^(install|build)/ && index($3, m) { print $1 }' \
        "$images/$plan/calls.log" | sed -n 1p)
    fi
    if [[ -z $step ]]; then step=$(tr ' ' '\n' <"$images/$plan/steps" | grep -E "${kind_re[$kind]}" | sed -n 1p || true); fi
    printf '%s\n' "$step" >"$images/$plan/kind.$kind"
  done
}

# check_clean_run ROOT: the clean run's end state is the plan's: its packages out, in and kept, the outgoing
# vendor's DKMS module gone for every kernel that counts, dpkg and apt content; a Debian 13 plan's script (the
# one the run kept) passes shellcheck (those of lib.bash's machines are checked by migrate_order.sh and
# migrate_cuda_to_amd.sh). A wrong end state fails the test at once (every cell is judged against it).
check_clean_run() {
  local root=$1 p k health
  for p in ${plan_gone[$plan]:-}; do ! is_installed "$root" "$p" || fail "the clean $plan run left $p installed"; done
  for p in ${plan_in[$plan]:-}; do is_installed "$root" "$p" || fail "the clean $plan run did not install $p"; done
  for p in ${plan_kept[$plan]:-}; do is_installed "$root" "$p" || fail "the clean $plan run took $p, which others need"; done
  while read -r k; do
    # shellcheck disable=SC2086 # the module names, one word each
    ! module_present "$root" "$k" ${driver_modules[${outgoing_vendor[$plan]}]} ||
      fail "the clean $plan run left the ${outgoing_vendor[$plan]} driver module of kernel $k"
  done < <(root_kernels "$root")
  health=$(dpkg_health "$root")
  [[ -z $health ]] || fail "after the clean $plan run: $health"
  if [[ -n ${plan_gpu[$plan]:-} ]]; then
    shellcheck "$root"/var/lib/gpudoctor/scripts/*.sh || fail "the $plan migration script does not pass shellcheck"
  fi
}

# prepare_plan PLAN: the machine (base layer), its state before, and a clean run's boundaries.
prepare_plan() {
  plan=$1
  local base=$roots/$plan.base start=$SECONDS args
  mapfile -t args < <(plan_args "$plan")
  if [[ -n ${plan_gpu[$plan]:-} && -z ${real_archive:-} ]]; then
    ensure_real_archive trixie "${debian_stacks[@]}"
    serve_real_archive
  fi
  new_machine "${machine_of[$plan]}" "$base"
  add_local_mirror "$base"
  add_fake_initramfs "$base"
  if [[ $plan == amd* ]]; then add_fake_systemctl "$base" nvidia-persistenced nvidia-fabricmanager docker containerd; fi
  fault_install "$base"
  fault_gpudoctor_stub "$base" "$gpudoctor"
  mkdir -p "$images/$plan"
  pkg_state "$base" >"$images/$plan/before.pkgs"
  config_state "$base" >"$images/$plan/before.config"
  driver_state "$base" >"$images/$plan/before.driver"
  # The clean run, paused at every step.
  layer_mount "$mnt" "$roots/$plan.run" "$base"
  fault_arm "$mnt" '* uname pause - -n'
  fault_on_pause=capture_boundary
  keep_proxy "$mnt"
  GPUDOCTOR_BOOT_ID=boot-one fault_run "$mnt" "$work/$plan.clean1.out" \
    "$gpudoctor" migrate "${args[@]}" --root "$mnt" --yes --events json --apply
  ((fault_status == 0)) || fail "the clean $plan run failed ($fault_status): $(tail -20 "$work/$plan.clean1.out")"
  keep_proxy "$mnt"
  GPUDOCTOR_BOOT_ID=boot-two fault_run "$mnt" "$work/$plan.clean2.out" \
    "$gpudoctor" migrate --resume --root "$mnt" --yes --events json
  ((fault_status == 0)) || fail "the clean $plan run's resume failed ($fault_status): $(tail -20 "$work/$plan.clean2.out")"
  fault_on_pause=
  pkg_state "$mnt" >"$images/$plan/end.pkgs"
  driver_state "$mnt" >"$images/$plan/end.driver"
  cp "$mnt$fault_dir/calls.log" "$images/$plan/calls.log"
  local plan_status
  IFS='|' read -r _ _ plan_status < <(state_of "$mnt")
  [[ $plan_status == "done" ]] || fail "the clean $plan run ended '$plan_status', not done"
  check_clean_run "$mnt"
  fault_disarm "$mnt"
  layer_umount "$mnt" "$roots/$plan.run"
  rm -rf "$roots/$plan.run"
  map_kinds "${incoming_module[$plan]}"
  echo "the $plan plan: $(wc -w <"$images/$plan/steps") steps, in $((SECONDS - start)) s (the clean run, paused at each step;" \
    "$(wc -l <"$images/$plan/order") boundaries copied in $((snapshot_us / 1000)) ms, $(du -sm "$images/$plan" | cut -f1) MiB)"
  snapshot_us=0
  for kind in "${kinds[@]}"; do echo "  $kind: $(cat "$images/$plan/kind.$kind")"; done
}

# ---- the invariants ----------------------------------------------------------------------------------------
checks=0
failures=()
cell_failed=()
# check_invariant CELL WHAT OK-OR-MESSAGE
note_check() {
  checks=$((checks + 1))
  cell_checks=$((cell_checks + 1))
  if [[ -n $2 ]]; then
    failures+=("$cell_name $1: $2")
    cell_failed+=("$1")
    echo "  FAILED $1: $2" >&2
  fi
}

# packages ROOT WHEN: the installed packages are those of before or of a boundary ("before" only: undo).
check_packages() {
  local root=$1 when=$2 only_before=${3:-} now f
  now=$(pkg_state "$root")
  if [[ $now == "$(cat "$images/$plan/before.pkgs")" ]]; then
    note_check "$when/packages" ""
    return
  fi
  if [[ -z $only_before ]]; then
    for f in "$images/$plan"/*.pkgs; do
      if [[ $now == "$(cat "$f")" ]]; then
        note_check "$when/packages" ""
        return
      fi
    done
  fi
  local d
  d=$(diff <(cat "$images/$plan/before.pkgs") <(echo "$now") | grep -c '^[<>]' || true)
  note_check "$when/packages" "$(if [[ -n $only_before ]]; then echo "not the packages of before"; else echo "neither the packages of before nor of a step boundary"; fi) ($d lines differ from before: $(diff <(cat "$images/$plan/before.pkgs") <(echo "$now") | grep '^[<>]' | sed -n 1,4p | tr '\n' ';'))"
}

check_driver() {
  local root=$1 when=$2 s
  s=$(driver_state "$root")
  if [[ $modules_checkable == yes ]]; then
    [[ $s == *package+module* ]] && note_check "$when/driver" "" && return
    note_check "$when/driver" "no vendor's driver with its module ($s)"
  else
    [[ $s == *package* ]] && note_check "$when/driver" "" && return
    # A machine that ran on the kernel's own driver and no vendor's package (Debian's ROCm on the kernel's
    # amdgpu) must keep that at least.
    [[ $kernel_driver_counts == yes && $s == *:kernel* ]] && note_check "$when/driver" "" && return
    note_check "$when/driver" "no vendor's driver package installed ($s)"
  fi
}

check_dpkg() {
  local h
  h=$(dpkg_health "$1")
  note_check "$2/dpkg" "${h//$'\n'/ }"
}

check_undo() {
  local root=$1 when=$2 d
  check_packages "$root" "$when" before
  d=$(diff <(cat "$images/$plan/before.config") <(config_state "$root") | grep '^[<>]' | sed -n 1,6p | tr '\n' ';' || true)
  note_check "$when/undo-config" "${d:+sources, keys, pins or profiles differ from before: $d}"
}

# check_claims ROOT WHEN OUT STATUS: what the command said it did, against the root.
check_claims() {
  local root=$1 when=$2 out=$3 status=$4 steps done_steps st msg='' s
  IFS='|' read -r steps done_steps st < <(state_of "$root")
  if ((status == 0)) && [[ $st == "done" ]] && ! grep -q '^gpudoctor check' "$root/var/log/gpudoctor-stub.log" 2>/dev/null; then
    msg+="the migration says done, but its check step never ran gpudoctor check; "
  fi
  if ((status == 0)) && [[ $st == "done" ]] && [[ $(pkg_state "$root") != "$(cat "$images/$plan/end.pkgs")" ]]; then
    msg+="the migration says done but the packages are not the plan's end state; "
  fi
  for s in $done_steps; do
    if [[ -z $(awk -F '\t' -v s="$s" '$3 == s && $4 == "step-done"' "$root"/var/log/gpudoctor/*.journal 2>/dev/null) ]]; then
      msg+="the state calls $s done, no journal says so; "
    fi
  done
  note_check "$when/claims" "${msg%; }"
}

# check_recovers WHEN OUT STATUS FAULTED-STATUS: the fault is gone before the recoveries (disarmed, the small
# folder released), so the same migrate --apply again, or --resume, must finish the migration; --resume may
# refuse only where the faulted run closed it (its first run rolled back or stopped: nothing to resume).
check_recovers() {
  local when=$1 out=$2 status=$3 faulted_status=$4 how
  how=$(outcome "$out" "$status")
  if [[ $how == finished ]]; then note_check "$when/recovers" "" && return; fi
  if [[ $when == resume && $how == refused && $faulted_status =~ ^(rolled-back|stopped)$ ]]; then
    note_check "$when/recovers" "" && return
  fi
  note_check "$when/recovers" "the $when did not finish the migration once the fault was gone ($how, the faulted run left it $faulted_status): $(grep -v '^{' "$out" | tail -n 2 | tr '\n' ' ')"
}

# outcome OUT STATUS: finished | reboot | failed | killed | refused. The runs report their events as JSON lines
# (--events json, docs/fixes.md "Events"): a reboot is the engine's reboot-needed event, not its prose.
outcome() {
  if (($2 == 137)); then echo killed
  elif (($2 == 0)) && grep -q '{"event":"reboot-needed"' "$1"; then echo reboot
  elif (($2 == 0)); then echo finished
  elif (($2 == 2)); then echo refused
  else echo failed; fi
}

# The step a run's events say failed ("" when none did).
failed_step() { sed -n 's/^{"event":"step-failed","step":"\([^"]*\)".*/\1/p' "$1" | tail -n 1; }

# in_prepare_stage PLAN STEP: STEP comes no later than the download in PLAN's steps (the prepare stage:
# sources, keys, holds, then the downloads; docs/fixes.md).
in_prepare_stage() {
  local s
  for s in $(cat "$images/$1/steps"); do
    if [[ $s == "$2" ]]; then return 0; fi
    if [[ $s == prepare.download ]]; then return 1; fi
  done
  return 1
}

# ---- one cell ----------------------------------------------------------------------------------------------
modules_checkable=no kernel_driver_counts=no
results=()
# finish ROOT WHEN OUT BOOT CMD...: CMD, and after a reboot stop `migrate --resume` in the next boot (as the
# admin does), until the migration ends or fails; the last command's output and status in OUT and last_status.
finish() {
  local root=$1 when=$2 out=$3 boot=$4 n=0
  shift 4
  keep_proxy "$root"
  GPUDOCTOR_BOOT_ID=$boot "$@" >"$out" 2>&1 </dev/null && last_status=0 || last_status=$?
  while [[ $(outcome "$out" "$last_status") == reboot ]] && ((n < 3)); do
    check_claims "$root" "$when-before-reboot" "$out" "$last_status"
    n=$((n + 1))
    boot=$boot-after-$n
    keep_proxy "$root"
    GPUDOCTOR_BOOT_ID=$boot "$gpudoctor" migrate --resume --root "$root" --yes --events json >"$out" 2>&1 </dev/null && last_status=0 || last_status=$?
  done
}

run_cell() {
  local kind=$1 fault=$2 step first boot lowers=() spec dir='' size='' cell=$mnt args cmd=()
  cell_name=$plan.$kind.$fault
  cell_checks=0
  cell_failed=()
  local t0=$SECONDS
  step=$(cat "$images/$plan/kind.$kind")
  if [[ -z $step ]]; then
    results+=("$cell_name|n/a|no step of this kind in the plan")
    echo "$cell_name: no step of this kind in the $plan plan"
    return
  fi
  if [[ -n ${kind_idle[$plan.$kind]:-} ]]; then
    results+=("$cell_name|n/a|$step does nothing: ${kind_idle[$plan.$kind]}")
    echo "$cell_name: $step does nothing here (${kind_idle[$plan.$kind]})"
    return
  fi
  mapfile -t args < <(plan_args "$plan")
  first=$(sed -n 1p "$images/$plan/order" | cut -f1)
  boot=$(awk -F '\t' -v s="$step" '$1 == s { print $2 }' "$images/$plan/order")
  if [[ $step == "$first" ]]; then
    lowers=("$roots/$plan.base")
    cmd=("$gpudoctor" migrate "${args[@]}" --root "$cell" --yes --events json --apply)
  else
    lowers=("$images/$plan/$step" "$roots/$plan.base")
    cmd=("$gpudoctor" migrate --resume --root "$cell" --yes --events json)
  fi
  spec=${plan_fault_line[$plan.$kind.$fault]:-${fault_line[$kind.$fault]}}
  if [[ $fault == disk ]]; then
    read -r dir size <<<"${spec%%|*}"
    spec=${spec#*|}
  fi
  rm -rf "$roots/faulted"
  layer_mount "$cell" "$roots/faulted" "${lowers[@]}"
  if [[ $spec == prefill || $spec == fake-dkms ]]; then
    fault_arm "$cell"
  else
    fault_arm "$cell" "$step $spec"
  fi
  # The fake dkms (tools/fake_dkms.sh) fails the incoming module's builds with a compiler error's make.log.
  if [[ $spec == fake-dkms ]]; then mkdir -p "$cell/etc/fake-dkms" && echo "${incoming_module[$plan]}" >"$cell/etc/fake-dkms/fail"; fi
  if [[ -n $dir ]]; then
    fault_small_fs "$cell" "$dir" "$size"
    if [[ $spec == prefill ]]; then fault_fill "$cell" "$dir"; fi
  fi
  keep_proxy "$cell"
  GPUDOCTOR_BOOT_ID=$boot fault_run "$cell" "$work/cell.out" "${cmd[@]}"
  local fstatus=$fault_status fired
  fired=$(fault_fired "$cell")
  if [[ $spec == fake-dkms ]]; then
    # Every build of the module fails while the file is there: it fired when dkms was asked to build it (the
    # failed driver's purge may have taken DKMS's tree and its make.log with it).
    fired=$(awk -F '\t' -v m="${incoming_module[$plan]}" '$2 == "dkms" && $3 ~ /^(install|build)/ && index($3, m)' \
      "$cell$fault_dir/calls.log" 2>/dev/null)
    rm -rf "$cell/etc/fake-dkms"
  fi
  [[ -n $fired || $spec == prefill ]] || note_check "fault" "the fault ($spec in $step) did not fire: $(tail -3 "$work/cell.out" | tr '\n' ' ')"
  fault_disarm "$cell"
  if [[ -n $dir ]]; then fault_release_fs "$cell" "$dir"; fi
  echo "$cell_name: $step, fault '$spec'${dir:+ on $dir ($size)}: exit $fstatus ($(outcome "$work/cell.out" "$fstatus"))"
  check_driver "$cell" faulted
  check_claims "$cell" faulted "$work/cell.out" "$fstatus"
  local faulted_status
  IFS='|' read -r _ _ faulted_status < <(state_of "$cell")
  # A step of the prepare stage (or the download) that failed puts back what the run added: sources, keys,
  # holds. Which step failed is the run's to say: a fault in one step may stop a later one (a disk that fills
  # in the prepare stage stops the first step that cannot reserve its journal's room), and a failure past the
  # prepare stage leaves the machine at a step boundary, which the other invariants judge.
  local stopped
  stopped=$(failed_step "$work/cell.out")
  if [[ -n $stopped && $stopped != "$step" ]]; then echo "  the run stopped in a later step: $stopped"; fi
  if [[ $(outcome "$work/cell.out" "$fstatus") == failed ]] && in_prepare_stage "$plan" "$stopped"; then
    local d
    d=$(diff <(cat "$images/$plan/before.config") <(config_state "$cell") | grep '^[<>]' | sed -n 1,6p | tr '\n' ';' || true)
    note_check "faulted/rollback" "${d:+the failed prepare stage left sources, keys or pins changed: $d}"
  fi
  cp "$work/cell.out" "$work/$cell_name.fault.out"
  layer_umount "$cell" "$roots/faulted"
  local faulted=$roots/faulted recovery rec=$mnt out
  for recovery in rerun resume undo; do
    layer_mount "$rec" "$roots/recovery" "$faulted" "${lowers[@]}"
    out=$work/$cell_name.$recovery.out
    case $recovery in
    rerun) finish "$rec" rerun "$out" "$boot" "$gpudoctor" migrate "${args[@]}" --root "$rec" --yes --events json --apply ;;
    resume) finish "$rec" resume "$out" "$boot" "$gpudoctor" migrate --resume --root "$rec" --yes --events json ;;
    undo) GPUDOCTOR_BOOT_ID=$boot "$gpudoctor" undo --root "$rec" --yes --events json >"$out" 2>&1 </dev/null && last_status=0 || last_status=$? ;;
    esac
    echo "  $recovery: exit $last_status ($(outcome "$out" "$last_status"))"
    if [[ $recovery == undo ]]; then
      check_undo "$rec" undo
    else
      check_packages "$rec" "$recovery"
      check_claims "$rec" "$recovery" "$out" "$last_status"
      check_recovers "$recovery" "$out" "$last_status" "$faulted_status"
    fi
    check_driver "$rec" "$recovery"
    check_dpkg "$rec" "$recovery"
    if [[ $recovery != undo ]]; then
      GPUDOCTOR_BOOT_ID=$boot "$gpudoctor" undo --root "$rec" --yes --events json >"$out.undo" 2>&1 </dev/null && last_status=0 || last_status=$?
      echo "  $recovery, then undo: exit $last_status"
      check_undo "$rec" "$recovery+undo"
      check_driver "$rec" "$recovery+undo"
      check_dpkg "$rec" "$recovery+undo"
    fi
    layer_umount "$rec" "$roots/recovery"
    rm -rf "$roots/recovery"
  done
  rm -rf "$faulted"
  if ((${#cell_failed[@]})); then
    results+=("$cell_name|FAIL|$cell_checks checks, failed: $(printf '%s\n' "${cell_failed[@]}" | sort -u | tr '\n' ' ')")
  else
    results+=("$cell_name|held|$cell_checks checks")
  fi
  echo "  $cell_name: $cell_checks checks, $((SECONDS - t0)) s"
}

# ---- the matrix --------------------------------------------------------------------------------------------
for plan in "${plans[@]}"; do
  want_plan "$plan" || continue
  prepare_plan "$plan"
  kernel_driver_counts=no
  if [[ $(cat "$images/$plan/before.driver") != *package* ]]; then kernel_driver_counts=yes; fi
  if [[ $(cat "$images/$plan/end.driver") == *package+module* && $(cat "$images/$plan/before.driver") == *package+module* ]]; then
    modules_checkable=yes
  else
    modules_checkable=no
    echo "the $plan plan's machines have no driver module to check (before: $(cat "$images/$plan/before.driver"), after: $(cat "$images/$plan/end.driver")): the driver invariant checks the packages only"
  fi
  for kind in "${kinds[@]}"; do
    for fault in "${faults[@]}"; do
      want_cell "$plan.$kind.$fault" && run_cell "$kind" "$fault"
    done
  done
done

echo
echo "The fault matrix: $(printf '%s\n' "${results[@]}" | grep -vc '|n/a|' || true) cells, $checks invariant checks, $((SECONDS - start_all)) s"
echo "CPU time (the test, then its children: user system): $(times | tr '\n' ' ')"
printf '%-26s %-5s %s\n' cell result details
for r in "${results[@]}"; do
  IFS='|' read -r name res detail <<<"$r"
  printf '%-26s %-5s %s\n' "$name" "$res" "$detail"
done
if ((${#failures[@]})); then
  echo
  echo "Invariants that failed (${#failures[@]}):"
  printf '  %s\n' "${failures[@]}"
  fail "${#failures[@]} of $checks invariant checks failed"
fi
pass "every invariant held in every cell ($checks checks)"

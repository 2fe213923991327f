#!/usr/bin/env bash
# `gpudoctor fix install-rocm` on a Debian 13 (trixie) root holding Debian's own ROCm: the real packages of
# `apt install rocminfo hipcc rocm-smi libucx0` from Debian's archive (Maintainer the Debian ROCm Team;
# ensure_real_archive), OpenMPI's libucx0 needing Debian's HIP runtime. Debian's rocminfo 6.1.2 outranks AMD's
# 1.0.0.70200, which AMD's rocm-hip-runtime requires exactly: before the plan knew the distribution's builds,
# the install stopped in apt.
#   1. The plan replaces them in the rocm step (told by Maintainer), keeps what libucx0 needs and says why;
#      apt accepts the result: AMD's ROCm 7.2 installed, Debian's packages gone, libucx0 still working.
#   2. undo puts Debian's packages back from the script's cache and takes AMD's out.
#   3. The rocm install failing after the purge (apt-get fails) puts Debian's packages back at once: the
#      machine is left as it was, the step failed, and undo still works.
#   4. Killed between the purge and the install: undo puts Debian's back; the same command again installs.
#   5. Killed there, then the same command again to the end, then undo: Debian's back (one apply, two runs).
# migrate --to nvidia on this machine is fault_matrix.sh's nvidia-d13 plan: its clean run must purge Debian's
# ROCm, keep what libucx0 needs and put NVIDIA's stack in; its cells' undo must give Debian's ROCm back.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/faults.bash"
root_setup
ensure_real_archive trixie "${debian_stacks[@]}"
serve_real_archive

# killed_after_purge ROOT: a fresh machine at ROOT whose install-rocm --apply is SIGKILLed right after the rocm
# step's purge of Debian's packages (before AMD's are installed).
killed_after_purge() {
  local root=$1
  new_machine distro_rocm "$root"
  add_local_mirror "$root"
  fault_install "$root"
  fault_arm "$root" 'install-rocm.rocm apt-get kill-after - purge*'
  fault_run "$root" "$work/killed.out" "$gpudoctor" fix install-rocm --mirror file:///srv/mirror --root "$root" --apply --yes
  fault_disarm "$root"
  [[ $fault_status == 137 ]] || fail "the run was not killed after the purge (status $fault_status): $(tail -5 "$work/killed.out")"
}

# ==== 1. the plan and its run ===============================================================================
A=$roots/rootA
new_machine distro_rocm "$A"
add_local_mirror "$A"
[[ $(installed_version "$A" rocminfo) == "ii  6.1.2-2" ]] || fail "the root does not hold Debian's rocminfo"
"$gpudoctor" fix install-rocm --mirror file:///srv/mirror --root "$A" --emit "$A/tmp/gd/install.sh" 2>"$work/emit.err" ||
  fail "fix install-rocm --root: $(cat "$work/emit.err")"
shellcheck "$A/tmp/gd/install.sh" || fail "the install script does not pass shellcheck"
replaced=$(sed -n 's/^  gd_install_packages rocm -- //p' "$A/tmp/gd/install.sh" | tr ' ' '\n' | sed 's/=.*//' | tr '\n' ' ')
[[ $replaced == "${debian_rocm_packages[*]} " ]] ||
  fail "the rocm step does not replace Debian's ROCm: $(grep -n 'gd_install_packages rocm' "$A/tmp/gd/install.sh")"
# The notes are wrapped comment lines: read them as one text.
grep -q "kept: [^;]*libamdhip64-5[^;]*which libucx0 needs" <<<"$(sed -n 's/^#  *//p' "$A/tmp/gd/install.sh" | tr '\n' ' ')" ||
  fail "the plan does not say that libucx0's HIP runtime stays"
pass "the plan replaces Debian's ${debian_rocm_packages[*]} in the rocm step and keeps what libucx0 needs, saying so"

"$gpudoctor" fix install-rocm --mirror file:///srv/mirror --root "$A" --apply --yes >"$work/run.out" 2>&1 ||
  fail "fix install-rocm --apply failed: $(tail -20 "$work/run.out")"
[[ $(installed_version "$A" rocminfo) == "ii  1.0.0.70200-43~22.04" ]] ||
  fail "rocminfo is not AMD's: $(installed_version "$A" rocminfo)"
for p in rocm rocm-hip-runtime rocm-core amdgpu-dkms; do is_installed "$A" "$p" || fail "$p is not installed"; done
for p in "${debian_rocm_packages[@]}"; do
  [[ $p == rocminfo ]] || ! is_installed "$A" "$p" || fail "Debian's $p is still installed"
done
for p in "${debian_rocm_kept[@]}" libucx0; do is_installed "$A" "$p" || fail "$p went: libucx0 needs it"; done
[[ -z $(in_root "$A" dpkg --audit) ]] || fail "dpkg --audit: $(in_root "$A" dpkg --audit)"
in_root "$A" apt-get check -q >/dev/null 2>&1 || fail "apt-get check fails after the install"
pass "apt accepts the result: AMD's ROCm 7.2 (rocminfo 1.0.0.70200), Debian's ROCm gone, libucx0 and its HIP runtime kept"

# ==== 2. undo ===============================================================================================
"$gpudoctor" undo --root "$A" --yes >"$work/undo.out" 2>&1 || fail "undo failed: $(tail "$work/undo.out")"
[[ $(installed_version "$A" rocminfo) == "ii  6.1.2-2" ]] ||
  fail "undo did not put Debian's rocminfo back: $(installed_version "$A" rocminfo); $(tail -5 "$work/undo.out")"
for p in "${debian_rocm_packages[@]}" "${debian_rocm_kept[@]}" libucx0; do is_installed "$A" "$p" || fail "undo left $p out"; done
for p in rocm rocm-hip-runtime rocm-core; do ! is_installed "$A" "$p" || fail "undo left AMD's $p"; done
pass "undo puts Debian's ROCm back from the script's cache and takes AMD's out"
rm -rf "$A" # each root holds Debian's clang and LLVM: one at a time in the tmpfs

# ==== 3. the rocm install fails after the purge =============================================================
B=$roots/rootB
new_machine distro_rocm "$B"
add_local_mirror "$B"
fault_install "$B"
"$gpudoctor" fix install-rocm --mirror file:///srv/mirror --root "$B" --emit "$B/tmp/gd/install.sh" 2>"$work/emitB.err" ||
  fail "fix install-rocm --root: $(cat "$work/emitB.err")"
fault_arm "$B" 'install-rocm.rocm apt-get fail 100 install*rocm'
if "$gpudoctor" fix install-rocm --mirror file:///srv/mirror --root "$B" --apply --yes >"$work/runB.out" 2>&1; then
  fail "the apply went on past a failing install"
fi
fault_disarm "$B"
grep -q "could not install .*rocm" "$work/runB.out" || fail "the failure is not said: $(tail -5 "$work/runB.out")"
grep -q "the distribution packages it replaced are put back" "$work/runB.out" ||
  fail "the script does not say Debian's packages are back: $(tail -5 "$work/runB.out")"
[[ $(installed_version "$B" rocminfo) == "ii  6.1.2-2" ]] ||
  fail "a failed install left Debian's rocminfo out: $(installed_version "$B" rocminfo)"
for p in "${debian_rocm_packages[@]}" "${debian_rocm_kept[@]}" libucx0; do is_installed "$B" "$p" || fail "the failed install left $p out"; done
! is_installed "$B" rocm || fail "rocm is installed after its install failed"
[[ -z $(in_root "$B" dpkg --audit) ]] || fail "dpkg --audit after the failure: $(in_root "$B" dpkg --audit)"
"$gpudoctor" undo --root "$B" --yes >"$work/undoB.out" 2>&1 || fail "undo after the failure: $(tail "$work/undoB.out")"
[[ $(installed_version "$B" rocminfo) == "ii  6.1.2-2" ]] || fail "undo after the failure lost Debian's rocminfo"
! is_installed "$B" amdgpu-dkms || fail "undo after the failure left amdgpu-dkms"
pass "a failing rocm install puts Debian's ROCm back at once; undo then takes out what the run installed"
rm -rf "$B"

# ==== 4. killed between the purge and the install; the run again, and undo ===================================
C=$roots/rootC
killed_after_purge "$C"
! is_installed "$C" rocminfo || fail "the kill came before the purge: rocminfo $(installed_version "$C" rocminfo)"
for p in "${debian_rocm_kept[@]}" libucx0; do is_installed "$C" "$p" || fail "the killed purge took $p"; done
# undo puts back what the killed run did: Debian's ROCm, from the script's cache.
"$gpudoctor" undo --root "$C" --yes >"$work/undoC.out" 2>&1 || fail "undo after the kill: $(tail "$work/undoC.out")"
[[ $(installed_version "$C" rocminfo) == "ii  6.1.2-2" ]] ||
  fail "undo after the kill did not put Debian's rocminfo back: $(installed_version "$C" rocminfo); $(tail -5 "$work/undoC.out")"
for p in "${debian_rocm_packages[@]}" "${debian_rocm_kept[@]}" libucx0; do is_installed "$C" "$p" || fail "undo after the kill left $p out"; done
# Then the same command again does the whole install.
"$gpudoctor" fix install-rocm --mirror file:///srv/mirror --root "$C" --apply --yes >"$work/runC2.out" 2>&1 ||
  fail "the run after the kill and undo failed: $(tail -15 "$work/runC2.out")"
[[ $(installed_version "$C" rocminfo) == "ii  1.0.0.70200-43~22.04" ]] || fail "the run after undo did not finish the install"
is_installed "$C" rocm || fail "the run after undo did not install rocm"
pass "killed between the purge and the install: undo puts Debian's ROCm back, and the same command again installs AMD's"
rm -rf "$C"

# ==== 5. killed between the purge and the install; the same command again; then undo =========================
# The rerun is one more run of the same apply: undo puts back what both did, the first run's purge too.
D=$roots/rootD
killed_after_purge "$D"
"$gpudoctor" fix install-rocm --mirror file:///srv/mirror --root "$D" --apply --yes >"$work/runD2.out" 2>&1 ||
  fail "the run after the kill failed: $(tail -15 "$work/runD2.out")"
[[ $(installed_version "$D" rocminfo) == "ii  1.0.0.70200-43~22.04" ]] || fail "the second run did not finish the install"
"$gpudoctor" undo --root "$D" --yes >"$work/undoD.out" 2>&1 || fail "undo after the kill and the rerun: $(tail "$work/undoD.out")"
[[ $(installed_version "$D" rocminfo) == "ii  6.1.2-2" ]] ||
  fail "undo after the rerun lost what the killed run purged: rocminfo $(installed_version "$D" rocminfo)"
for p in "${debian_rocm_packages[@]}" "${debian_rocm_kept[@]}" libucx0; do is_installed "$D" "$p" || fail "undo after the rerun left $p out"; done
! is_installed "$D" rocm || fail "undo after the rerun left AMD's rocm"
pass "killed after the purge, run again to the end, then undo: Debian's ROCm is back (the rerun is one apply with the first run)"
rm -rf "$D"

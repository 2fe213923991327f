#!/usr/bin/env bash
# Install before remove, every install simulated, the prepare stage put back on failure (issue 21 items 2-4;
# docs/fixes.md, "The scripts"), each in a copy of the ROCm 6 workstation of tests/root/lib.bash migrating to
# NVIDIA through the root's local mirror, asserted by what dpkg, modinfo, the sources and the journal say:
#   a DKMS build that fails (the fake dkms of tests/root/tools, told so by /etc/fake-dkms/fail): nothing of ROCm is
#     removed, the make.log's last lines are shown and a copy kept, what the failed install unpacked is purged
#     again (dpkg --audit empty, apt-get check passes);
#   a kernel that boots next (a newer linux-image installed): its headers come in and the nvidia module is built
#     and found by modinfo -k for both kernels before the first package of ROCm is purged;
#   a site package with a Conflicts: on the new driver: the run stops before anything is removed, naming it and
#     the relation; the prepare stage's source and key are put back; the package stays;
#   an admin's apt pin on nvidia-*: the run stops in the prepare stage naming apt's E: line and the pin's file,
#     and puts NVIDIA's source and key back.
source "$(dirname "$0")/lib.bash"
root_setup

mirror_args=(--mirror file:///srv/mirror --python /home/sam/venv/bin/python3)
migrate_apply() {
  local root=$1
  shift
  GPUDOCTOR_BOOT_ID=boot-one "$gpudoctor" migrate --to nvidia --root "$root" --yes --apply "${mirror_args[@]}" "$@"
}
amd_packages() { graph_packages rocm-6.2.4.txt rocm-6.1.0-versioned.txt amdgpu-6.2.4.txt | grep -Fxf <(installed_names "$1"); }
sources_of() { cat "$1"/etc/apt/sources.list "$1"/etc/apt/sources.list.d/*.list 2>/dev/null | grep -v '^#' | sort; }
# dpkg has nothing half-done and apt's dependencies hold.
package_manager_clean() {
  [[ -z $(in_root "$1" dpkg --audit) ]] || fail "$2: dpkg --audit: $(in_root "$1" dpkg --audit | sed -n 1,5p)"
  in_root "$1" apt-get check >"$work/check.out" 2>&1 || fail "$2: apt-get check: $(tail -3 "$work/check.out")"
}
journal_of() { cat "$1"/var/log/gpudoctor/*.journal; }
# shellcheck disable=SC2016 # dpkg-query's format
nvidia_present() { in_root "$1" dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 !~ /^.[nc]/ && $2 ~ /nvidia/ { print $2 }'; }

# ==== a DKMS build that fails ========================================================================================
A=$roots/dkms-fails
new_machine rocm6 "$A"
add_local_mirror "$A"
amd_before=$(amd_packages "$A")
mkdir -p "$A/etc/fake-dkms"
echo nvidia >"$A/etc/fake-dkms/fail"
status=0
migrate_apply "$A" >"$work/dkms.out" 2>&1 || status=$?
[[ $(amd_packages "$A") == "$amd_before" ]] ||
  fail "a failed DKMS build left ROCm removed: gone $(comm -23 <(echo "$amd_before") <(amd_packages "$A") | wc -l) packages, $(comm -23 <(echo "$amd_before") <(amd_packages "$A") | sed -n 1,5p | tr '\n' ' ')"
[[ $status == 1 ]] || fail "the migration with a failing DKMS build exited $status, not 1: $(tail -5 "$work/dkms.out")"
[[ $(in_root "$A" modinfo -k "$kernel" -F version amdgpu) == 6.8.5-2044426.22.04 ]] || fail "the amdgpu module is gone"
grep -q 'fatal error: linux/gpudoctor-missing.h' "$work/dkms.out" || fail "the make.log's last lines are not shown: $(tail -8 "$work/dkms.out")"
grep -q 'DKMS could not build the module; the last lines of /var/lib/dkms/nvidia/580.95.05/build/make.log' "$work/dkms.out" ||
  fail "the make.log is not named"
copy=$(journal_of "$A" | awk -F '\t' '$4 == "dkms-build-failed" { print $6 }' | sed -n 1p)
[[ -n $copy && $(cat "$A$copy") == *gpudoctor-missing.h* ]] || fail "no copy of the make.log kept (journal: ${copy:-none})"
package_manager_clean "$A" "after the failed DKMS build"
[[ -z $(nvidia_present "$A") ]] || fail "the failed install left NVIDIA's packages: $(nvidia_present "$A" | tr '\n' ' ')"
grep -q $'\tinstall-rolled-back\tnvidia-dkms-580-open' <<<"$(journal_of "$A")" || fail "the rollback of the install is not journaled"
grep -q $'\tpurge-package\t' <<<"$(journal_of "$A")" && fail "the journal has a purge although the build failed"
pass "a failing DKMS build: exit 1, all $(wc -l <<<"$amd_before") ROCm packages and the amdgpu module still there, make.log's tail shown and kept, the half-installed driver purged again (dpkg --audit empty, apt-get check)"
same_plan_from_snapshot "$A" --to nvidia "${mirror_args[@]}"
rm -rf "$A"

# ==== the kernel that boots next ======================================================================================
N=$roots/next-kernel
new_machine rocm6 "$N"
add_local_mirror "$N"
in_root "$N" apt-get update -q >/dev/null 2>&1
in_root "$N" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "linux-image-$next_kernel" >"$work/image.out" 2>&1 ||
  fail "cannot install the next kernel's image: $(tail -3 "$work/image.out")"
"$gpudoctor" migrate --to nvidia --root "$N" "${mirror_args[@]}" --emit "$N/tmp/gd/next.sh" 2>/dev/null
migrate_apply "$N" >"$work/next.out" 2>&1 || fail "the migration with a second kernel failed: $(tail -25 "$work/next.out")"
for k in "$kernel" "$next_kernel"; do
  [[ $(in_root "$N" modinfo -k "$k" -F version nvidia) == 580.95.05 ]] || fail "modinfo -k $k finds no nvidia 580 module"
  first_ready=$(journal_of "$N" | grep -n $'\tmodule-ready\tnvidia\t'"$k"$'\t' | sed -n 1p | cut -d: -f1)
  first_purge=$(journal_of "$N" | grep -n $'\tpurge-package\t' | sed -n 1p | cut -d: -f1)
  [[ -n $first_ready && -n $first_purge && $first_ready -lt $first_purge ]] ||
    fail "the nvidia module for $k was not checked before the purge (journal lines: ready ${first_ready:-none}, first purge ${first_purge:-none})"
done
is_installed "$N" "linux-headers-$next_kernel" || fail "the next kernel's headers were not installed"
{ sed '$d' "$N/tmp/gd/next.sh" && echo gd_target_kernels; } >"$N/tmp/gd/kernels.sh"
[[ $(in_root "$N" bash /tmp/gd/kernels.sh | tr '\n' ' ') == "$kernel $next_kernel " ]] ||
  fail "the script's kernels are not the running and the next one: $(in_root "$N" bash /tmp/gd/kernels.sh 2>&1 | tr '\n' ' ')"
[[ -z $(amd_packages "$N") ]] || fail "ROCm's packages stayed: $(amd_packages "$N" | sed -n 1,5p | tr '\n' ' ')"
package_manager_clean "$N" "after the migration"
pass "a second kernel: its headers installed, nvidia 580 built by DKMS and found by modinfo -k for $kernel and $next_kernel, both checked (journal: module-ready) before the first purge"
rm -rf "$N"

# ==== a site package that conflicts with the new driver ================================================================
C=$roots/conflict
new_machine rocm6 "$C"
add_local_mirror "$C"
in_root "$C" apt-get update -q >/dev/null 2>&1
in_root "$C" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q acme-node-health >/dev/null 2>&1 || fail "cannot install the site package"
sources_before=$(sources_of "$C")
packages_before=$(installed_names "$C")
status=0
migrate_apply "$C" >"$work/conflict.out" 2>&1 || status=$?
is_installed "$C" acme-node-health || fail "the site package that conflicts with the new driver was removed"
[[ $(installed_names "$C") == "$packages_before" ]] ||
  fail "the packages changed: $(diff <(echo "$packages_before") <(installed_names "$C") | sed -n 1,8p | tr '\n' ' ')"
[[ $status == 1 ]] || fail "the migration exited $status, not 1: $(tail -5 "$work/conflict.out")"
grep -q "would remove acme-node-health; acme-node-health conflicts with libnvidia-compute-580" "$work/conflict.out" ||
  fail "the refusal does not name the package and the conflict: $(grep 'gpudoctor script' "$work/conflict.out" | sed -n 1,3p)"
[[ $(sources_of "$C") == "$sources_before" ]] || fail "the sources of the prepare stage stayed: $(diff <(echo "$sources_before") <(sources_of "$C"))"
[[ -e $C/etc/apt/keyrings/cuda-archive.asc ]] && fail "the key of the prepare stage stayed"
grep -q $'\trolled-back' <<<"$(journal_of "$C")" || fail "the rollback is not journaled"
package_manager_clean "$C" "after the refusal"
pass "a site package with Conflicts: libnvidia-compute-580: the run stops before it changes a package, naming it and the conflict; NVIDIA's source and key put back; it stays installed"
rm -rf "$C"

# ==== an admin's apt pin on nvidia-* ===================================================================================
P=$roots/pin
new_machine rocm6 "$P"
add_local_mirror "$P"
printf 'Explanation: this cluster stays on its driver\nPackage: nvidia-*\nPin: release *\nPin-Priority: -1\n' \
  >"$P/etc/apt/preferences.d/no-nvidia"
"$gpudoctor" migrate --to nvidia --root "$P" "${mirror_args[@]}" --emit "$P/tmp/gd/pin.sh" 2>/dev/null
grep -A2 "an admin's apt pin in /etc/apt/preferences.d/no-nvidia" "$P/tmp/gd/pin.sh" | tr '\n' ' ' | grep 'applies to nvidia-open-580' >/dev/null ||
  fail "the plan does not name the admin's pin: $(grep -c "admin's apt pin in" "$P/tmp/gd/pin.sh") mentions"
sources_before=$(sources_of "$P")
expect_refusal "$P" "a migration under a pin on nvidia-*" "$work/pin.out" migrate_apply "$P"
grep -q "E: Package 'nvidia-open-580' has no installation candidate" "$work/pin.out" || fail "apt's reason is not said: $(grep 'gpudoctor script' "$work/pin.out" | sed -n 1,3p)"
grep -q "the admin's apt pins that apply: /etc/apt/preferences.d/no-nvidia (Package: nvidia-\*; Pin: release \*; Pin-Priority: -1)" "$work/pin.out" ||
  fail "the pin's file is not named: $(grep 'gpudoctor script' "$work/pin.out" | sed -n 1,3p)"
grep -q 'put back: removed /etc/apt/sources.list.d/cuda-gpudoctor.list; removed /etc/apt/keyrings/cuda-archive.asc' "$work/pin.out" ||
  fail "the rollback does not say what it put back"
[[ $(sources_of "$P") == "$sources_before" ]] || fail "NVIDIA's source stayed"
[[ -e $P/etc/apt/keyrings/cuda-archive.asc ]] && fail "NVIDIA's key stayed"
pass "an admin's pin on nvidia-*: the run stops in the prepare stage with apt's E: line and the pin's file, NVIDIA's source and key put back"
same_plan_from_snapshot "$P" --to nvidia "${mirror_args[@]}"
pass "the plans made --from a bundle of the roots are the live ones"
rm -rf "$P"

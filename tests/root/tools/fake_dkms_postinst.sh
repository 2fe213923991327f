#!/bin/sh
# The root tests' /usr/lib/dkms/common.postinst MODULE VERSION (a DKMS package's postinst calls it, as
# dh_dkms's do): the module is added, then built and installed for the running kernel and for the newest
# kernel in /lib/modules, as Debian's common.postinst does; a kernel without its headers is skipped with
# dkms's message; a build that fails fails the postinst (dpkg then leaves the package half-configured, as
# "nvidia-dkms-NNN: post-installation script subprocess returned error exit status 10" does).
set -u
module=$1 version=$2
dkms add -m "$module" -v "$version" >/dev/null || exit $?
current=$(uname -r)
newest=$(for dir in /lib/modules/*; do [ -d "$dir" ] && echo "${dir##*/}"; done | sort -V | tail -n 1)
kernels=$current
if [ -n "$newest" ] && [ "$newest" != "$current" ]; then kernels="$current $newest"; fi
for kernel in $kernels; do
  if [ ! -e "/lib/modules/$kernel/build" ] && [ ! -d "/usr/src/linux-headers-$kernel" ]; then
    echo "Module build for kernel $kernel was skipped since the kernel headers for this kernel do not seem to be installed."
    continue
  fi
  dkms install -m "$module" -v "$version" -k "$kernel" || exit $?
done

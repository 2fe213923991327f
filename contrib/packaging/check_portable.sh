#!/usr/bin/env bash
# Whether a gpudoctor binary runs on every x86_64 distribution with glibc 2.34 or newer (RHEL 9, Ubuntu
# 22.04+, Debian 12+; docs/packaging.md): it needs no shared library but libc, libm, libgcc_s and the
# dynamic loader (libstdc++ and the rest linked in; libarchive and libcurl are opened at run time), and no
# glibc symbol version above 2.34. Prints what it found; exits 1 on a breach.
#
#   contrib/packaging/check_portable.sh path/to/gpudoctor
set -euo pipefail
binary=${1:?usage: check_portable.sh path/to/gpudoctor}
[[ -f $binary ]] || { echo "check_portable: $binary is not a file" >&2; exit 2; }
allowed=" libc.so.6 libm.so.6 libgcc_s.so.1 ld-linux-x86-64.so.2 "
glibc_max=2.34
status=0

needed=$(readelf -d -- "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
for lib in $needed; do
  [[ $allowed == *" $lib "* ]] || { echo "NEEDED $lib: not one of libc, libm, libgcc_s and the loader" >&2; status=1; }
done
echo "NEEDED: $(tr '\n' ' ' <<<"$needed")"

# The versions of the dynamic symbols it imports (objdump -T: "GLIBC_2.34", "GLIBCXX_3.4.30", ...).
versions=$(objdump -T -- "$binary" | grep -oE '\b(GLIBC|GLIBCXX|CXXABI)_[0-9.]+' | sort -u || true)
newest=$(grep '^GLIBC_' <<<"$versions" | sed 's/^GLIBC_//' | sort -V | tail -n 1)
echo "newest glibc symbol version: GLIBC_$newest"
if [[ $(printf '%s\n%s\n' "$newest" "$glibc_max" | sort -V | tail -n 1) != "$glibc_max" ]]; then
  echo "symbols of glibc $newest: above $glibc_max ($(objdump -T -- "$binary" |
    grep -E "GLIBC_$newest\b" | awk '{print $NF}' | paste -sd' '))" >&2
  status=1
fi
# libgcc_s: nothing newer than the nodes GCC 7 to 11 define (RHEL 9's libgcc is GCC 11's).
gcc_newest=$(objdump -T -- "$binary" | grep -oE '\bGCC_[0-9.]+' | sed 's/^GCC_//' | sort -V | tail -n 1 || true)
echo "newest libgcc_s symbol version: GCC_${gcc_newest:-none}"
if [[ -n $gcc_newest && $(printf '%s\n7.0.0\n' "$gcc_newest" | sort -V | tail -n 1) != 7.0.0 ]]; then
  echo "symbols of libgcc_s GCC_$gcc_newest: newer than RHEL 9's libgcc has" >&2
  status=1
fi
if grep -qE '^(GLIBCXX|CXXABI)_' <<<"$versions"; then
  echo "it imports libstdc++ symbols ($(grep -E '^(GLIBCXX|CXXABI)_' <<<"$versions" | paste -sd' ')): not linked in" >&2
  status=1
fi
exit "$status"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run one Kconfiglib tool (Debian python3-kconfiglib) for ARCH, failing on
# any warning it prints. Usage: kconfig.sh TOOL ARCH OUTDIR [args...]
set -euo pipefail
tool=$1 arch=$2 out=$3
shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/include/generated"
export ARCH=$arch srctree=$top KCONFIG_CONFIG=$out/.config
export KCONFIG_WARN_UNDEF_ASSIGN=y
log=$(mktemp)
trap 'rm -f "$log"' EXIT
case $tool in
menuconfig)
	/usr/bin/python3 -m menuconfig "$top/Kconfig"
	;;
genconfig | olddefconfig)
	/usr/bin/python3 -m "$tool" "$@" "$top/Kconfig" 2> >(tee "$log" >&2) >/dev/null
	;;
*)
	/usr/bin/python3 -m "$tool" --kconfig "$top/Kconfig" "$@" 2> >(tee "$log" >&2) >/dev/null
	;;
esac
wait
if grep -qi warning "$log"; then
	echo "kconfig: warnings are errors" >&2
	exit 1
fi

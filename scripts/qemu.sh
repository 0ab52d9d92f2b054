#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The one place that knows keel's QEMU command lines (make run, the boot
# matrix in tests/qemu/ and users share it).
#
#   scripts/qemu.sh ARCH [options] [-- extra qemu args]
#
#   --kernel FILE     boot FILE with -kernel (x86_64: multiboot1 ELF)
#   --iso FILE        boot a GRUB ISO from CD instead (x86_64)
#   --uefi            firmware OVMF (/usr/share/ovmf/OVMF.fd) instead of SeaBIOS
#   --smp SPEC        CPUs: N, or QEMU's N,sockets=S,cores=C,threads=T,
#                     maxcpus=M (default 1)
#   --mem SIZE        RAM (-m; default 512M, or the sum of the NUMA nodes)
#   --numa SPEC       NxSIZE (N equal nodes, e.g. 2x512M) or SIZE,SIZE,...;
#                     one memory backend per node (size 0: a CPU-only node),
#                     socket i on node i (N sockets of --smp/N cores unless
#                     --smp gives the topology), distance 20 between nodes
#   --cpu-nodes LIST  node of each socket, e.g. 0,1 (then nodes not listed
#                     are memory-only)
#   --dist LIST       distances A-B=V,... (others stay 20); symmetric
#   --no-dist         no -numa dist (firmware gives no SLIT)
#   --file-backed DIR sparse file-backed node memory in DIR (huge RAM on a
#                     small host; only touched pages cost)
#   --machine M       pc (default) or q35
#   --cpu MODEL       CPU model (default max)
#   --append STR      kernel command line (with --kernel)
#   --timeout S       kill QEMU after S seconds (exit status 124)
#   --dry-run         print the command instead of running it
#
# The serial console is stdio. x86_64 exit status: 33 = KEEL: PASS and
# 35 = FAIL with after=exit (isa-debug-exit at 0xf4: (v << 1) | 1);
# 0 = powered off (after=poweroff); 124 = timeout.
set -euo pipefail

# The comment block at the top. usage 0: asked for (stdout, exit 0);
# otherwise a usage error (stderr, exit 2).
usage() {
	local text
	text=$(sed -n '3,/^[^#]/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//')
	if [ "${1:-2}" = 0 ]; then
		echo "$text"
		exit 0
	fi
	echo "$text" >&2
	exit 2
}

die() {
	echo "qemu.sh: error: $*" >&2
	exit 2
}

# Size with K/M/G/T suffix -> MiB (QEMU's -m unit).
size_mib() {
	local s=${1^^} n unit
	n=${s%[KMGT]}
	unit=${s:${#n}}
	[[ $n =~ ^[0-9]+$ ]] || die "bad size '$1'"
	case $unit in
	K) echo $((n / 1024)) ;;
	M | "") echo "$n" ;;
	G) echo $((n * 1024)) ;;
	T) echo $((n * 1024 * 1024)) ;;
	esac
}

[ $# -ge 1 ] || usage
case $1 in -h | --help) usage 0 ;; esac
arch=$1
shift
kernel= iso= uefi=0 smp=1 mem= numa= dist=1 filedir= machine=pc cpu=max
append= timeout_s= dry=0 cpu_nodes= dists=
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--iso) iso=$2; shift 2 ;;
	--uefi) uefi=1; shift ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--numa) numa=$2; shift 2 ;;
	--no-dist) dist=0; shift ;;
	--cpu-nodes) cpu_nodes=$2; shift 2 ;;
	--dist) dists=$2; shift 2 ;;
	--file-backed) filedir=$2; shift 2 ;;
	--machine) machine=$2; shift 2 ;;
	--cpu) cpu=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--dry-run) dry=1; shift ;;
	--) shift; extra=("$@"); break ;;
	-h | --help) usage 0 ;;
	*) die "unknown option '$1'" ;;
	esac
done
[[ $smp =~ ^[0-9]+(,[a-z]+=[0-9]+)*$ ]] && [ "${smp%%,*}" -ge 1 ] ||
	die "bad --smp '$smp'"
smp_n=${smp%%,*}

# NUMA: node sizes in MiB.
nodes=()
if [ -n "$numa" ]; then
	if [[ $numa =~ ^([0-9]+)x(.+)$ ]]; then
		for ((i = 0; i < BASH_REMATCH[1]; i++)); do
			nodes+=("$(size_mib "${BASH_REMATCH[2]}")")
		done
	else
		IFS=, read -ra parts <<<"$numa"
		for p in "${parts[@]}"; do nodes+=("$(size_mib "$p")"); done
	fi
	[ ${#nodes[@]} -ge 1 ] || die "bad --numa '$numa'"
fi

args=()
case $arch in
x86_64)
	qemu=qemu-system-x86_64
	args+=(-machine "$machine" -accel tcg -cpu "$cpu")
	args+=(-display none -monitor none -serial stdio -no-reboot)
	args+=(-device isa-debug-exit,iobase=0xf4,iosize=0x04)
	if [ "$uefi" = 1 ]; then
		[ -r /usr/share/ovmf/OVMF.fd ] || die "OVMF missing (package ovmf)"
		args+=(-bios /usr/share/ovmf/OVMF.fd)
	fi
	if [ -n "$iso" ]; then
		[ -z "$kernel" ] || die "--kernel and --iso are exclusive"
		[ -z "$append" ] || die "--append needs --kernel (the ISO's grub.cfg has the command line)"
		args+=(-cdrom "$iso" -boot d)
	elif [ -n "$kernel" ]; then
		args+=(-kernel "$kernel")
		[ -z "$append" ] || args+=(-append "$append")
	else
		die "need --kernel FILE or --iso FILE"
	fi
	;;
*)
	die "arch '$arch' is not supported here yet"
	;;
esac

if [ ${#nodes[@]} -gt 0 ]; then
	n=${#nodes[@]}
	total=0
	for s in "${nodes[@]}"; do total=$((total + s)); done
	[ -z "$mem" ] || [ "$(size_mib "$mem")" = "$total" ] ||
		die "--mem $mem differs from the NUMA nodes' sum (${total}M)"
	if [ -n "$cpu_nodes" ]; then
		IFS=, read -ra sock_node <<<"$cpu_nodes"
	else
		sock_node=()
		for ((i = 0; i < n; i++)); do sock_node+=("$i"); done
	fi
	ns=${#sock_node[@]}
	if [[ $smp == *sockets=* ]]; then
		args+=(-m "${total}M" -smp "$smp")
	else
		[ $((smp_n % ns)) = 0 ] || die "--smp $smp is not a multiple of $ns sockets"
		args+=(-m "${total}M" -smp "$smp,sockets=$ns,cores=$((smp_n / ns)),threads=1")
	fi
	for ((i = 0; i < n; i++)); do
		if [ "${nodes[i]}" = 0 ]; then
			args+=(-numa "node,nodeid=$i")
			continue
		fi
		if [ -n "$filedir" ]; then
			args+=(-object "memory-backend-file,id=m$i,size=${nodes[i]}M,mem-path=$filedir/keel-node$i.mem,share=on")
		else
			args+=(-object "memory-backend-ram,id=m$i,size=${nodes[i]}M")
		fi
		args+=(-numa "node,nodeid=$i,memdev=m$i")
	done
	for ((i = 0; i < ns; i++)); do
		args+=(-numa "cpu,node-id=${sock_node[i]},socket-id=$i")
	done
	if [ "$dist" = 1 ]; then
		for ((i = 0; i < n; i++)); do
			for ((j = i + 1; j < n; j++)); do
				v=20
				IFS=, read -ra dl <<<"$dists"
				for d in "${dl[@]}"; do
					case $d in
					"$i-$j="* | "$j-$i="*) v=${d#*=} ;;
					esac
				done
				args+=(-numa "dist,src=$i,dst=$j,val=$v")
			done
		done
	fi
else
	args+=(-m "$(size_mib "${mem:-512M}")M" -smp "$smp")
fi
args+=("${extra[@]}")

cmd=("$qemu" "${args[@]}")
if [ -n "$timeout_s" ]; then
	cmd=(timeout --foreground -k 5 "$timeout_s" "${cmd[@]}")
fi
if [ "$dry" = 1 ]; then
	printf '%q ' "${cmd[@]}"
	echo
	exit 0
fi
exec "${cmd[@]}"

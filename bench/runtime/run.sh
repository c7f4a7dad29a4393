#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh RECORDMCOUNT LIBMCOUNT [FUNCTIONS] [MCTRACE] - runtime benchmarks.
#
# 1. Boot-time patching cost: a program of FUNCTIONS (default 100000)
#    small -pg -mfentry functions, recorded with our tool; mcount_boot()
#    timed alone, median of 5 runs, as ns per site.  Then the same
#    program after `recordmcount --finalize --prepatch` (its hooks in
#    their disabled form from the file: boot only verifies them), the
#    two run alternately.  Minor faults and private pages mapped during
#    boot, the estimate for a fresh machine (CPU + those pages x 9.1 µs
#    a 4 KiB page), and the first
#    call after boot that needs every site's record (mcount_verify).
# 2. The cost of an untraced hook: calls per second of a small function
#    built without -pg, with -pg -mfentry after boot (the hook is a NOP),
#    and before boot (the hook still calls the runtime's `ret` stub).
# 3. The build gate: `recordmcount --check` and `--finalize` on the boot
#    program of 1.
# 4. Live patching's latency (toggle.c): see 2b below.
# 5. With MCTRACE: `mctrace record -p`'s attach and detach against the
#    number of sites (attach.sh): see 2c below.
# Prints a Markdown table, with the machine's load when it started.  Work files go to $BENCH_OUT.
set -eu
tool=$1
lib=$2
n=${3:-100000}
mctrace=${4:-}
out=${BENCH_OUT:-build/bench/runtime}
here=bench/runtime
parts=4
mkdir -p "$out"
load=$(cut -d' ' -f1-3 /proc/loadavg)

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# 1. Boot: generate the functions in a few files, compile in parallel.
i=0
while [ $i -lt $parts ]; do
	python3 $here/gen.py $((n / parts)) "$out/funcs$i.c"
	sed -i "s/f##i/f${i}_##i/" "$out/funcs$i.c"
	gcc -O1 -pg -mfentry -c "$out/funcs$i.c" -o "$out/funcs$i.o" &
	i=$((i + 1))
done
wait
"$tool" "$out"/funcs*.o
gcc -O2 -Iruntime/include -c $here/boot.c -o "$out/boot.o"
gcc -o "$out/boot" "$out/boot.o" "$out"/funcs*.o "$lib" -Wl,-T,lds/mcount.lds
cp "$out/boot" "$out/boot-pre"
"$tool" --finalize --prepatch "$out/boot-pre"
: > "$out/boot.txt"
: > "$out/boot-pre.txt"
for r in 1 2 3 4 5; do
	"$out/boot" >> "$out/boot.txt"
	"$out/boot-pre" >> "$out/boot-pre.txt"
done
sites=$(awk '{ print $2 }' "$out/boot.txt" | head -1)
ns=$(awk '{ print $10 }' "$out/boot.txt" | median)
ms=$(awk '{ print $8 }' "$out/boot.txt" | median)
cpu_ns=$(awk '{ print $12 }' "$out/boot.txt" | median)
faults=$(awk '{ print $14 }' "$out/boot.txt" | median)
pre_written=$(awk '{ print $4 }' "$out/boot-pre.txt" | sort -n | tail -1)
pre_ns=$(awk '{ print $10 }' "$out/boot-pre.txt" | median)
pre_cpu_ns=$(awk '{ print $12 }' "$out/boot-pre.txt" | median)
pre_faults=$(awk '{ print $14 }' "$out/boot-pre.txt" | median)
use_cpu=$(awk '{ print $16 }' "$out/boot.txt" | median)
use_faults=$(awk '{ print $18 }' "$out/boot.txt" | median)
pages=$(awk '{ print $20 }' "$out/boot.txt" | median)
pre_pages=$(awk '{ print $20 }' "$out/boot-pre.txt" | median)
use_pages=$(awk '{ print $22 }' "$out/boot.txt" | median)
# On a fresh machine (its free memory handed back to the host) each 4 KiB
# touched first costs some 9.1 µs (bench/RESULTS.md, issue 30): the CPU
# a site here plus, at that price, the private pages the boot mapped
# (copies of text pages and new memory, 512 for a huge page: boot.c).
fresh() { awk -v c="$1" -v f="$2" -v n="$sites" \
	'BEGIN { printf "%.1f", c + f * 9100 / n }'; }
fresh_ns=$(fresh "$cpu_ns" "$pages")
pre_fresh_ns=$(fresh "$pre_cpu_ns" "$pre_pages")

# 2. Untraced calls.
gcc -O2 $here/hot.c -o "$out/hot-plain"
gcc -O2 -pg -mfentry -c $here/hot.c -o "$out/hot.o"
"$tool" "$out/hot.o"
gcc -o "$out/hot-hooked" "$out/hot.o" "$lib" -Wl,-T,lds/mcount.lds
rate() { for r in 1 2 3 4 5; do "$@"; done | awk '{ print $6 }' | median; }
plain=$(rate "$out/hot-plain")
nopped=$(rate "$out/hot-hooked")
stub=$(MCOUNT_NO_AUTOBOOT=1 rate "$out/hot-hooked")

# 2a. The disabled form against a NOP in its place, same process,
# interleaved rounds (hotab.c): the untraced path's cost of live
# patching.
gcc -O2 -pg -mfentry -Iruntime/include -c $here/hotab.c -o "$out/hotab.o"
"$tool" "$out/hotab.o"
gcc -o "$out/hotab" "$out/hotab.o" "$lib" -Wl,-T,lds/mcount.lds
for r in 1 2 3; do "$out/hotab"; done > "$out/hotab.txt"
ab_ratio=$(awk '{ print $6 }' "$out/hotab.txt" | median)

# 2b. Live patching (toggle.c, with the boot program's functions): one
# function enabled and disabled 2,000 times (each toggle's wall time,
# their median; this thread's CPU per toggle; its context switches per
# toggle, voluntary and not), then 10,000 functions in one batch each
# way (µs per function); alone, and with a second thread calling hooked
# code (each toggle's membarrier then has another core to reach).
# Median of 5 runs of each.
gcc -O2 -Iruntime/include -c $here/toggle.c -o "$out/toggle.o"
gcc -o "$out/toggle" "$out/toggle.o" "$out"/funcs*.o "$lib" \
	-Wl,-T,lds/mcount.lds -lpthread
for busy in 0 1; do
	for r in 1 2 3 4 5; do "$out/toggle" 10000 $busy; done \
		> "$out/toggle$busy.txt"
done
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' \
	"$out/toggle$1.txt" | median; }
tog_wall=$(field 0 single_us) tog_cpu=$(field 0 single_cpu_us)
tog_busy=$(field 1 single_us) tog_busy_cpu=$(field 1 single_cpu_us)
tog_busy_p90=$(field 1 single_p90_us)
tog_busy_csw="$(field 1 vcsw) / $(field 1 ivcsw)"
batch_on=$(field 0 enable_us_per_fn) batch_off=$(field 0 disable_us_per_fn)
batch_busy=$(field 1 enable_us_per_fn)

# 2c. mctrace record -p against targets of 100, 1,000 and 10,000 sites
# (attach.sh): threads held at the attach, the detach, and the whole
# run less its 200 ms window, medians of 5 (ms).
attach_rows=
if [ -n "$mctrace" ]; then
	attach_rows=$(sh $here/attach.sh "$mctrace" "$out/attach" |
		awk '{ printf "| mctrace record -p, %d sites: threads held at the attach / the detach / whole run less the window (ms) | %s / %s / %s |\n", $1, $2, $3, $4 }')
fi

# 3. The build gate on the boot program: --check, median of 5, and
# --finalize of a copy (ms of wall time).
ms_of() { s=$(date +%s%N); "$@" >/dev/null || true; e=$(date +%s%N)
	echo $(((e - s) / 1000000)); }
check_ms=$(for r in 1 2 3 4 5; do ms_of "$tool" --check "$out/boot"; done |
	median)
cp "$out/boot" "$out/boot-fin"
finalize_ms=$(ms_of "$tool" --finalize "$out/boot-fin")

cat <<EOT
load average at the start: $load; at the end: $(cut -d" " -f1-3 /proc/loadavg); $(uname -r); $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2)

| runtime measure | value |
|---|---:|
| sites patched by mcount_boot() | $sites |
| boot time, median of 5 (ms) | $ms |
| boot cost per site (ns) | $ns |
| boot CPU per site, this thread, user + kernel (ns) | $cpu_ns |
| minor faults during mcount_boot() | $faults |
| after --finalize --prepatch: sites written at boot | $pre_written |
| after --finalize --prepatch: boot cost per site, wall / CPU (ns; target 25) | $pre_ns / $pre_cpu_ns |
| after --finalize --prepatch: minor faults during mcount_boot() | $pre_faults |
| private 4 KiB pages mapped during mcount_boot(): as linked / prepatched | $pages / $pre_pages |
| fresh-machine estimate, CPU + those pages x 9.1 µs, per site: as linked / prepatched (ns; target 25) | $fresh_ns / $pre_fresh_ns |
| first use of the records after boot (mcount_verify): CPU per site (ns) / minor faults / private pages | $use_cpu / $use_faults / $use_pages |
| small function, no -pg (million calls/s) | $plain |
| same, -pg -mfentry, hook a NOP after boot (million calls/s) | $nopped |
| same, before boot: hook calls the runtime's stub (million calls/s) | $stub |
| NOP'd hook vs no -pg | $(awk -v a="$nopped" -v b="$plain" 'BEGIN { printf "%.2fx", a / b }') |
| disabled live form vs a NOP in its place, calls/s, median of 3 x 11 interleaved rounds | ${ab_ratio}x |
| one toggle, alone: median wall / this thread's CPU (µs; target 20) | $tog_wall / $tog_cpu |
| one toggle, another thread running hooked code: median wall / 90th percentile / CPU (µs; target 10) | $tog_busy / $tog_busy_p90 / $tog_busy_cpu |
| same: context switches per toggle, voluntary / involuntary | $tog_busy_csw |
| batch of 10,000: enable / disable, per function (µs; target 1) | $batch_on / $batch_off |
| batch of 10,000 enabled, another thread running (µs per function) | $batch_busy |
| recordmcount --check of the boot program, median of 5 (ms) | $check_ms |
| recordmcount --finalize of the boot program (ms) | $finalize_ms |
${attach_rows}
EOT

# SPDX-License-Identifier: GPL-2.0-only
# rounds.awk - bench/trace/run.sh's figures from its interleaved rounds.
#
# Input, one line a run: ROUND LOAD NAME CPU_NS WALL_NS WRITER_NS PASSES
# LOST, where NAME is one of run.sh's variants (untraced, ours,
# ufplain, uftrace and the start-up runs untraced1,
# ours1, ufplain1, uftrace1); the last three are ours' only
# (MCOUNT_TRACE_STATS), "-" elsewhere.  -v calls=C: the calls of one
# `hot` run of the pair ours/untraced (and uftrace/ufplain); -v clock=
# names the CPU clock, -v machine= the CPUs and the load.
#
# Every quantity is formed within one round (ours against the untraced
# run of the same round, and so on), so that load that changes between
# rounds weighs on both sides of a difference alike; across rounds it
# prints the median, the range, and an interval for the median from
# the order statistics (distribution-free: with n rounds, the k-th
# smallest and k-th largest values hold the median with probability
# 1 - 2 P(Binomial(n, 1/2) < k); k is the largest that keeps this at
# least 95%, or 1 when n is too small for 95%, with the level printed).
# Rounds whose recording lost calls are left out of the summary (a lost
# call skips most of the work: such a round is flattered) and shown in
# their own rows.
# Prints Markdown: a table of the quantities, then one row a round.

# one Markdown row: the median, range and interval of q over the
# rounds kept (idx[1..m]), in fmt
function row(label, q, fmt,	j, v, s) {
	for (j = 1; j <= m; j++)
		v[j] = q[idx[j]]
	sorted(v, m, s)
	printf "| %s | " fmt " | " fmt " to " fmt " | " fmt " to " fmt " |\n",
		label, median(s, m), s[1], s[m], s[K], s[m + 1 - K]
}

# the median of q over the rounds kept
function kept_median(q,	j, v, s) {
	for (j = 1; j <= m; j++)
		v[j] = q[idx[j]]
	sorted(v, m, s)
	return median(s, m)
}

{
	r = $1; rounds[r] = 1; load[r] = $2
	cpu[r, $3] = $4; wall[r, $3] = $5
	if ($3 == "ours") {
		writer[r] = $6; passes[r] = $7; lost_in[r] = $8; lost += $8
		lost_rounds += $8 > 0
	}
}

END {
	if (calls <= 0) {
		print "rounds.awk: -v calls=N, the calls of one run, please" > "/dev/stderr"
		exit 1
	}
	n = 0
	for (r in rounds)
		n++
	if (n == 0) {
		print "rounds.awk: no rounds" > "/dev/stderr"
		exit 1
	}
	split("untraced ours ufplain uftrace untraced1 " \
		"ours1 ufplain1 uftrace1", names)
	for (i = 1; i <= n; i++)
		for (j in names)
			if (!((i, names[j]) in cpu) || cpu[i, names[j]] <= 0) {
				printf "rounds.awk: round %d has no %s run\n", i,
					names[j] > "/dev/stderr"
				exit 1
			}
	# A round whose recording lost calls did less work a call than the
	# others: its figures are left out (and shown in its row below),
	# unless every round lost some.
	m = 0
	for (i = 1; i <= n; i++)
		if (lost_in[i] == 0)
			idx[++m] = i
	if (m == 0)
		for (i = 1; i <= n; i++)
			idx[++m] = i
	K = interval_k(m)
	for (i = 1; i <= n; i++) {
		untraced_ms[i] = cpu[i, "untraced"] / 1e6
		ours_ms[i] = cpu[i, "ours"] / 1e6
		ours[i] = (cpu[i, "ours"] - cpu[i, "untraced"]) / calls
		thread[i] = (cpu[i, "ours"] - writer[i] - cpu[i, "untraced"]) / calls
		writer_ns[i] = writer[i] / calls
		pass[i] = passes[i]
		ours_wall[i] = (wall[i, "ours"] - wall[i, "untraced"]) / calls
		ufplain_ms[i] = cpu[i, "ufplain"] / 1e6
		uft_ms[i] = cpu[i, "uftrace"] / 1e6
		uft[i] = (cpu[i, "uftrace"] - cpu[i, "ufplain"]) / calls
		uft_wall[i] = (wall[i, "uftrace"] - wall[i, "ufplain"]) / calls
		ratio[i] = ours[i] / uft[i]
		ours_start[i] = (cpu[i, "ours1"] - cpu[i, "untraced1"]) / 1e6
		uft_start[i] = (cpu[i, "uftrace1"] - cpu[i, "ufplain1"]) / 1e6
		ratio_warm[i] = (ours[i] - ours_start[i] * 1e6 / calls) / \
			(uft[i] - uft_start[i] * 1e6 / calls)
	}
	kept = lost_rounds < n ? m " kept: those that lost no call" : \
		"all kept, though each lost calls: ours flattered"
	printf "| trace measure (%d calls, %s%d rounds interleaved, %s; CPU by %s) | median | range | the median's %.0f%% interval |\n",
		calls, machine == "" ? "" : machine ", ", n, kept,
		clock == "" ? "perf task-clock" : clock, conf
	print "|---|---:|---:|---:|"
	row("ours not recording (hooks NOPs), CPU (ms)", untraced_ms, "%.0f")
	row("ours recording, CPU (ms)", ours_ms, "%.0f")
	row("**ours per traced call, entry + exit, CPU (ns)**", ours, "%.1f")
	row("of which the traced thread, CPU (ns)", thread, "%.1f")
	row("of which the writer thread, CPU (ns)", writer_ns, "%.1f")
	row("writer's passes over the rings that found events", pass, "%.0f")
	row("ours per traced call, wall (ns)", ours_wall, "%.1f")
	row("uftrace's binary alone, CPU (ms)", ufplain_ms, "%.0f")
	row("uftrace record, CPU (ms)", uft_ms, "%.0f")
	row("**uftrace per traced call, CPU (ns)**", uft, "%.1f")
	row("uftrace per traced call, wall (ns)", uft_wall, "%.1f")
	row("**ours / uftrace per call, CPU, paired in each round**", ratio, "%.3f")
	row("start-up and end, ours: `hot 1` recording minus not, CPU (ms)", ours_start, "%.1f")
	row("start-up and end, uftrace: `hot 1` recorded minus alone, CPU (ms)", uft_start, "%.1f")
	row("ours / uftrace per call, both start-ups taken out, paired", ratio_warm, "%.3f")
	printf "| ours / uftrace per call, CPU, ratio of the medians | %.3f | | |\n",
		kept_median(ours) / kept_median(uft)
	printf "| calls lost, all rounds' recordings | %d in %d rounds | | |\n",
		lost, lost_rounds
	print ""
	print "| round (order) | load (1 min) | ours, ns a call | calls lost (round left out) | uftrace, ns a call | ours / uftrace |"
	print "|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++)
		printf "| %d (%s) | %s | %.1f | %d | %.1f | %.3f |\n", i,
			i % 2 ? "fwd" : "rev", load[i], ours[i], lost_in[i], uft[i],
			ratio[i]
}

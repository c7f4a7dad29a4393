# SPDX-License-Identifier: GPL-2.0-only
# pairs.awk - bench/trace/untraced.sh's table: what each build with
# hooks costs over the same compiler's build without, not recording.
#
# -v rounds_file=F: one line a run, ROUND LOAD BUILD CPU_NS; -v calls=C
# the calls of one run; -v machine= the CPUs and the load; -v insn_load,
# rec_fentry and rec_pad (leaf, mid, top and main's calls recorded).
# Input (facts.txt): "insn BUILD INSTRUCTIONS_PER_CALL SAVES_RBX" lines
# (SAVES_RBX: whether mid() saves %rbx around its calls to leaf(), yes
# or no; gcc without hooks does not, as it knows leaf() leaves it be:
# -fipa-ra).
#
# Each cost is formed within a round (the build against its plain run
# of the same round), then summarised across rounds: the median and a
# distribution-free interval for it (the k-th smallest and largest of n
# hold the median with probability 1 - 2 P(Binomial(n, 1/2) < k); k the
# largest that keeps this at least 95%).  Prints Markdown.

# one row: BUILD against BASE, paired in each round
function cost_row(label, build, base,	i, n, d, s, k, med, verdict) {
	if (!((build) in has))
		return
	n = 0
	for (i = 1; i <= nrounds; i++)
		if (cpu[i, build] > 0 && cpu[i, base] > 0)
			d[++n] = 100 * (cpu[i, build] - cpu[i, base]) / cpu[i, base]
	sorted(d, n, s)
	k = interval_k(n)
	med = median(s, n)
	# a claim only from an interval at 95%, and none for the A/A pair
	verdict = build == "plain2" ? "(the measure: no difference)" : \
		conf < 95 ? "too few rounds" : \
		s[n + 1 - k] <= 1 ? "**yes**" : s[k] > 1 ? "no, over 1%" : \
		"not shown"
	printf "| %s | %s / %s | %+.2f | %+.2f to %+.2f | %+.2f to %+.2f | %s / %s | %s |\n",
		label, insn[build] == "" ? "-" : insn[build],
		insn[base] == "" ? "-" : insn[base], med, s[k], s[n + 1 - k],
		s[1], s[n], ipa[build], ipa[base], verdict
}

$1 == "insn" { insn[$2] = $3; ipa[$2] = $4 }

END {
	while ((getline line < rounds_file) > 0) {
		split(line, f, " ")
		cpu[f[1], f[3]] = f[4]
		has[f[3]] = 1
		if (f[1] > nrounds)
			nrounds = f[1]
	}
	k = interval_k(nrounds)
	printf "| untraced cost over the same compiler's build without hooks (%d calls a run, %s, %d rounds interleaved; CPU by perf task-clock, instructions by callgrind at load %s) | instructions a call, this / without hooks | median cost, CPU (%%) | its %.0f%% interval | range | mid() saves %%rbx, this / without hooks | at most 1%% |\n",
		calls, machine, nrounds, insn_load, conf
	print "|---|---:|---:|---:|---:|---:|---:|"
	cost_row("A/A: gcc, no hooks, against a copy of itself", "plain2", "plain")
	cost_row("gcc -pg -mfentry (the hooks NOPs): **the -pg row**", "fentry", "plain")
	cost_row("gcc -fpatchable-function-entry=5: **the pad row**", "pad", "plain")
	cost_row("gcc -pg -mfentry -mnop-mcount -mrecord-mcount, no PIE (against no hooks, no PIE)", "nop", "plain-nopie")
	cost_row("clang -pg -mfentry (against clang, no hooks)", "cfentry", "cplain")
	cost_row("clang -fpatchable-function-entry=5 (against clang, no hooks)", "cpad", "cplain")
	printf "| the pad build recorded, calls of leaf, mid, top, main (the -pg build's: %s) | %s | | | | | %s |\n",
		rec_fentry, rec_pad, rec_pad == rec_fentry ? "same" : "**differ**"
}

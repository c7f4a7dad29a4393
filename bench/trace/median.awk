# SPDX-License-Identifier: GPL-2.0-only
# median.awk - the median of rounds and a distribution-free interval for
# it, shared by rounds.awk and pairs.awk (awk -f median.awk -f ...).
#
# With n values, the k-th smallest and k-th largest hold the median with
# probability 1 - 2 P(Binomial(n, 1/2) < k); interval_k gives the
# largest k that keeps this at least 95% (or 1 when n is too small),
# and leaves the level reached in the global conf.

function sorted(src, n, dst,	i, j, v) {
	for (i = 1; i <= n; i++) {
		v = src[i]
		for (j = i - 1; j >= 1 && dst[j] > v; j--)
			dst[j + 1] = dst[j]
		dst[j + 1] = v
	}
}

function median(s, n) {
	return n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
}

# the k of the median's interval for n values; its level in conf
function interval_k(n,	k, tail, c) {
	k = 1
	tail = 1 / 2 ^ n	# P(B < k), B ~ Binomial(n, 1/2)
	c = n			# C(n, k)
	while (2 * (tail + c / 2 ^ n) <= 0.05) {
		tail += c / 2 ^ n
		k++
		c = c * (n - k + 1) / k
	}
	conf = 100 * (1 - 2 * tail)
	return k
}

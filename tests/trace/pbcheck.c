/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pbcheck.c - mctrace's protobuf writer (mctrace/pb.c) on lengths and
 * values at the edges of a varint's bytes, for protoc to decode against
 * tests/trace/perfetto.proto (perfetto.sh; perfetto.py wire holds what
 * protoc reads to the same tables).
 *
 * Packet i is a TrackDescriptor of uuid VALUES[i] and a name of
 * LENGTHS[i] times the letter 'a' + i, with a ProcessDescriptor of pid
 * i and two cmdline strings: the name again, then "x".  Each of the
 * three nested messages is longer than the one inside it, so their
 * lengths cross 127 and 16383 (a varint's second and third byte) at
 * different depths.
 */
#include <stdio.h>
#include <string.h>

#include "../../mctrace/pb.h"

static const size_t lengths[] = { 0, 1, 127, 128, 300, 16383, 16384, 20000 };
static const unsigned long long values[] = {
	0, 1, 127, 128, 16384, 4294967296ull, 9223372036854775808ull,
	18446744073709551615ull,
};

int main(void)
{
	static char s[20001];
	struct pb b = { 0 };

	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		size_t packet = pb_open(&b, 1), track = pb_open(&b, 60), proc;

		memset(s, 'a' + (int)i, lengths[i]);
		s[lengths[i]] = '\0';
		pb_varint(&b, 1, values[i]);
		pb_string(&b, 2, s);
		proc = pb_open(&b, 3);
		pb_varint(&b, 1, i);
		pb_string(&b, 2, s);
		pb_string(&b, 2, "x");
		pb_close(&b, proc);
		pb_close(&b, track);
		pb_close(&b, packet);
	}
	if (fwrite(b.p, 1, b.n, stdout) != b.n)
		return 1;
	pb_free(&b);
	return 0;
}

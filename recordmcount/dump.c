/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump.c - `recordmcount --dump`: what a table says and what the code
 * at each listed site really is (the analysis is survey.c's; this file
 * prints it).
 */
#define _GNU_SOURCE
#include "dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "survey.h"

static void no_warnings(const struct mc_object *obj,
			const struct mc_options *opt, const char *msg)
{
	(void)obj;
	(void)opt;
	(void)msg;
}

static void hex_bytes(struct mc_survey *d, const struct mc_entry *e,
		      size_t len, char *out, size_t n, const char *sep)
{
	struct mc_section *sec = mc_entry_section(d, e);
	size_t size = 0, used = 0;
	const uint8_t *code = sec ? mc_section_bytes(d->obj, sec, &size) : NULL;

	out[0] = 0;
	/* Stops before `out` overflows: a MIPS long call is 32 bytes. */
	for (size_t i = 0; code && i < len && e->offset + i < size &&
			   used + 3 + strlen(sep) <= n; i++)
		used += (size_t)snprintf(out + used, n - used, "%s%02x",
					 i ? sep : "", code[e->offset + i]);
}

static void print_place_json(struct mc_survey *d, size_t shndx,
			     uint64_t offset, uint64_t address)
{
	int64_t fo;
	uint64_t value = d->linked ? address : offset;
	const struct mc_symbol *f;

	printf("\"section\":");
	mc_json_string(d->obj->sections[shndx]->name);
	printf(",\"offset\":%" PRIu64 ",\"address\":", offset);
	if (d->linked)
		printf("%" PRIu64, address);
	else
		printf("null");
	f = mc_survey_function(d, shndx, value, &fo);
	printf(",\"function\":");
	if (f) {
		mc_json_string(f->name);
		printf(",\"function_offset\":%" PRId64, fo);
	} else {
		printf("null,\"function_offset\":null");
	}
}

static void print_entry_json(struct mc_survey *d, size_t k)
{
	const struct mc_entry *e = &d->entries[k];
	struct mc_verdict v = mc_survey_judge(d, e);
	char bytes[64];

	printf("%s{\"index\":%zu,", k ? "," : "", k);
	if (!e->resolved) {
		printf("\"section\":null,\"address\":%" PRIu64 ",\"state\":"
		       "\"unknown\"}", e->address);
		return;
	}
	print_place_json(d, e->shndx, e->offset, e->address);
	hex_bytes(d, e, v.len, bytes, sizeof(bytes), "");
	printf(",\"bytes\":\"%s\",\"state\":\"%s\",\"symbol\":", bytes,
	       v.state);
	if (v.symbol)
		mc_json_string(v.symbol);
	else
		printf("null");
	printf(",\"target_address\":");
	if (v.has_target)
		printf("%" PRIu64, v.target_address);
	else
		printf("null");
	printf(",\"indirect\":%s,\"nops\":", v.indirect ? "true" : "false");
	if (v.nops)
		printf("%u", v.nops);
	else
		printf("null");
	putchar('}');
}

static void print_entry_text(struct mc_survey *d, size_t k)
{
	const struct mc_entry *e = &d->entries[k];
	char bytes[64];
	struct mc_place p;

	if (!e->resolved) {
		printf("  %5zu  0x%-30" PRIx64 " %s\n", k, e->address,
		       e->cleared ? "(cleared)" : "(outside every section)");
		return;
	}
	struct mc_verdict v = mc_survey_judge(d, e);
	mc_survey_place(d, e->shndx, e->offset, e->address, &p);
	hex_bytes(d, e, v.len, bytes, sizeof(bytes), " ");
	printf("  %5zu  %-24s %-28s %-23s %s%s%s\n", k, mc_place_site(&p),
	       mc_place_func(&p), bytes, v.state, *v.target ? " " : "",
	       v.target);
	mc_place_free(&p);
}

/*
 * Which hooks the table lists, one flag per hook: each entry is looked
 * up in the sorted hook list (a scan of the table per hook made a
 * 100,000-function object take half a minute).  NULL when memory ran
 * out.
 */
static bool *listed_hooks(const struct mc_survey *d)
{
	bool *listed = calloc(d->hooks.n ? d->hooks.n : 1, sizeof(*listed));

	for (size_t k = 0; listed && k < d->n_entries; k++) {
		const struct mc_entry *e = &d->entries[k];
		const struct mc_hook_site *h = e->resolved ?
			mc_survey_hook_at(d, e->shndx, e->offset) : NULL;

		if (h)
			listed[h - d->hooks.v] = true;
	}
	return listed;
}

static void print_unrecorded(struct mc_survey *d, const bool *listed,
			     bool json)
{
	size_t shown = 0;

	for (size_t i = 0; i < d->hooks.n; i++) {
		const struct mc_hook_site *h = &d->hooks.v[i];
		struct mc_place p;

		if (listed[i])
			continue;
		if (json) {
			printf("%s{", shown ? "," : "");
			print_place_json(d, h->shndx, h->offset, 0);
			printf(",\"form\":\"%s\",\"traced_section\":%s}",
			       h->form->name, h->traced ? "true" : "false");
		} else {
			mc_survey_place(d, h->shndx, h->offset, 0, &p);
			printf("  %-24s %-28s %s%s\n", mc_place_site(&p),
			       mc_place_func(&p), h->form->name,
			       h->traced ? "" : " (untraced section)");
			mc_place_free(&p);
		}
		shown++;
	}
}

static void print_text(struct mc_survey *d, const bool *listed)
{
	printf("%s: %s %s, %zu table entr%s\n", d->obj->path, d->arch->name,
	       mc_survey_kind(d), d->n_entries, d->n_entries == 1 ? "y" : "ies");
	if (d->n_entries)
		printf("  %5s  %-24s %-28s %-23s %s\n", "ENTRY", "SITE",
		       "FUNCTION", "BYTES", "STATE");
	for (size_t k = 0; k < d->n_entries; k++)
		print_entry_text(d, k);
	if (d->linked)
		return;
	size_t n = 0;

	for (size_t i = 0; i < d->hooks.n; i++)
		n += !listed[i];
	printf("hooks not in the table: %zu\n", n);
	print_unrecorded(d, listed, false);
}

/*
 * One JSON document per file, on one line (JSON Lines), whether the
 * file could be read or not; DUMP_SCHEMA_VERSION changes when a field
 * changes meaning or goes away.
 */
#define DUMP_SCHEMA_VERSION 1

static void print_json_error(const char *path, const char *error)
{
	printf("{\"schema_version\":%d,\"file\":", DUMP_SCHEMA_VERSION);
	mc_json_string(path);
	printf(",\"error\":");
	mc_json_string(error);
	printf("}\n");
}

static void print_json(struct mc_survey *d, const bool *listed)
{
	printf("{\"schema_version\":%d,\"file\":", DUMP_SCHEMA_VERSION);
	mc_json_string(d->obj->path);
	printf(",\"arch\":\"%s\",\"type\":\"%s\",\"entries\":[", d->arch->name,
	       mc_survey_kind(d));
	for (size_t k = 0; k < d->n_entries; k++)
		print_entry_json(d, k);
	printf("],\"unrecorded\":");
	if (d->linked) {
		printf("null}\n");
		return;
	}
	putchar('[');
	print_unrecorded(d, listed, true);
	printf("]}\n");
}

int mc_dump_file(const char *path, const struct mc_options *opt)
{
	struct mc_object obj;
	struct mc_survey d;
	bool ok = mc_survey_open(&d, &obj, path, opt, no_warnings);
	bool *listed = ok ? listed_hooks(&d) : NULL;

	/* Never "every hook unrecorded" for want of memory: fail instead. */
	if (ok && !listed)
		ok = mc_fail(&obj, "out of memory");
	if (ok && opt->format == MC_FORMAT_JSON)
		print_json(&d, listed);
	else if (ok)
		print_text(&d, listed);
	else
		fprintf(stderr, "recordmcount: %s: %s\n", path, obj.error);
	if (!ok && opt->format == MC_FORMAT_JSON)
		print_json_error(path, obj.error);
	fflush(stdout);
	free(listed);
	mc_survey_free(&d);
	mc_object_close(&obj);
	return ok ? 0 : 1;
}

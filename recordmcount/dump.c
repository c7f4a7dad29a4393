/*
 * dump.c - `recordmcount --dump`: what a table says and what the code
 * at each listed site really is.
 *
 * For a relocatable object the table's entries are relocations (anchor
 * symbol + addend) and hooks are relocations too, so the dump can also
 * list hooks that the table misses.  For a linked executable or shared
 * object the entries are addresses (in a PIE, R_*_RELATIVE addends) and
 * the bytes at each address are decoded by the architecture.
 */
#define _GNU_SOURCE
#include "dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/arch.h"
#include "../elf/object.h"
#include "sites.h"
#include "table.h"


struct entry {
	size_t shndx;		/* section holding the site, 0 if none */
	uint64_t offset;	/* within that section */
	uint64_t address;	/* linked images only */
	bool resolved;		/* the entry names a place we could find */
};

struct dump {
	struct mc_object *obj;
	const struct mc_arch *arch;
	const struct mc_options *opt;
	bool linked;
	struct entry *entries;
	size_t n_entries;
	struct mc_site_list hooks;	/* objects only */
	struct relative *relative;	/* a PIE's R_*_RELATIVE, by offset */
	size_t n_relative;
	bool relative_read;
};

struct relative {
	uint64_t offset;
	uint64_t addend;
};

static void no_warnings(const struct mc_object *obj,
			const struct mc_options *opt, const char *msg)
{
	(void)obj;
	(void)opt;
	(void)msg;
}

/* An object's entry k: anchor symbol + addend of the slot's relocation. */
static bool object_entries(struct dump *d, struct mc_section *table,
			   size_t base)
{
	struct mc_object *obj = d->obj;
	struct mc_section *rel = mc_reloc_section_of(obj, table->index);
	size_t size;
	const uint8_t *slots = mc_section_bytes(table, &size);

	for (size_t i = 0; rel && i < mc_reloc_count(rel); i++) {
		struct mc_reloc r;

		if (!mc_reloc_get(obj, rel, i, &r))
			return false;
		if (r.sym >= obj->n_symbols || r.offset >= size ||
		    r.offset % d->arch->addr_size)
			return mc_fail(obj, "%s: corrupt relocation %zu",
				       rel->name, i);
		size_t k = base + r.offset / d->arch->addr_size;
		const struct mc_symbol *s = &obj->symbols[r.sym];
		/* RELA slots are 0 but where the addend lives there (SH). */
		int64_t slot = (int64_t)mc_load_address(obj, slots + r.offset);
		if (d->arch->addr_size == 4)
			slot = (int32_t)slot;
		/* Address arithmetic wraps, as the linker's does. */
		uint64_t addend = (uint64_t)r.addend + (uint64_t)slot;
		d->entries[k] = (struct entry){
			.shndx = s->shndx,
			.offset = s->sym.st_value + (uint64_t)addend,
			.resolved = s->shndx > 0 && s->shndx < obj->n_sections,
		};
	}
	return true;
}

static int compare_relative(const void *a, const void *b)
{
	const struct relative *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Every R_*_RELATIVE of the image's dynamic relocations, sorted. */
static void read_relative(struct dump *d)
{
	struct mc_object *obj = d->obj;
	size_t n = 0;

	d->relative_read = true;
	for (size_t i = 1; i < obj->n_sections; i++)
		if (obj->sections[i].shdr.sh_type == SHT_RELA &&
		    (obj->sections[i].shdr.sh_flags & SHF_ALLOC))
			n += mc_reloc_count(&obj->sections[i]);
	d->relative = malloc((n + 1) * sizeof(*d->relative));
	if (!d->relative)
		return;
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *s = &obj->sections[i];

		if (s->shdr.sh_type != SHT_RELA || !(s->shdr.sh_flags & SHF_ALLOC))
			continue;
		for (size_t j = 0; j < mc_reloc_count(s); j++) {
			struct mc_reloc r;

			if (mc_reloc_get(obj, s, j, &r) &&
			    r.type == d->arch->relative_reloc)
				d->relative[d->n_relative++] = (struct relative){
					r.offset, (uint64_t)r.addend };
		}
	}
	qsort(d->relative, d->n_relative, sizeof(*d->relative),
	      compare_relative);
}

/* In a PIE the dynamic relocation, not the slot, holds the address. */
static bool relative_addend(struct dump *d, uint64_t where, uint64_t *value)
{
	struct relative key = { where, 0 };
	const struct relative *r;

	if (!d->relative_read)
		read_relative(d);
	r = d->n_relative ? bsearch(&key, d->relative, d->n_relative,
				    sizeof(key), compare_relative) : NULL;
	if (r)
		*value = r->addend;
	return r != NULL;
}

static void linked_entries(struct dump *d, struct mc_section *table,
			   uint64_t start, size_t first, size_t n)
{
	size_t size;
	const uint8_t *slots = mc_section_bytes(table, &size);
	uint64_t base = start - table->shdr.sh_addr;

	for (size_t k = first; k < first + n; k++) {
		uint64_t where = start + (k - first) * d->arch->addr_size;
		uint64_t a = mc_load_address(d->obj, slots + base +
					     (k - first) * d->arch->addr_size);
		struct mc_section *sec;

		relative_addend(d, where, &a);
		sec = mc_section_at_address(d->obj, a);
		d->entries[k] = (struct entry){
			.shndx = sec ? sec->index : 0,
			.offset = sec ? a - sec->shdr.sh_addr : 0,
			.address = a,
			.resolved = sec != NULL,
		};
	}
}

/* Sections that hold table entries: ours, and the compiler's pads. */
static bool is_table(const struct mc_section *s)
{
	return s->shdr.sh_type == SHT_PROGBITS &&
	       (strcmp(s->name, MC_TABLE_SECTION) == 0 ||
		strcmp(s->name, MC_PADS_SECTION) == 0);
}

static bool alloc_entries(struct dump *d, uint64_t bytes)
{
	if (bytes % d->arch->addr_size)
		return mc_fail(d->obj, "%s size %" PRIu64 " is not a multiple "
			       "of %u", MC_TABLE_SECTION, bytes, d->arch->addr_size);
	d->n_entries = bytes / d->arch->addr_size;
	d->entries = calloc(d->n_entries + 1, sizeof(*d->entries));
	return d->entries || mc_fail(d->obj, "out of memory");
}

/*
 * A linked image made with our linker script has the whole table
 * between __start_mcount_loc and __stop_mcount_loc.
 */
static bool read_linked_range(struct dump *d, size_t a, size_t b)
{
	struct mc_object *obj = d->obj;
	uint64_t start = obj->symbols[a].sym.st_value;
	uint64_t bytes = obj->symbols[b].sym.st_value - start;
	struct mc_section *t = bytes ? mc_section_at_address(obj, start) : NULL;

	if (bytes && (!t || start + bytes > t->shdr.sh_addr + t->shdr.sh_size))
		return mc_fail(obj, "__start_mcount_loc..__stop_mcount_loc is "
			       "not inside one section");
	if (!alloc_entries(d, bytes))
		return false;
	if (t)
		linked_entries(d, t, start, 0, d->n_entries);
	return true;
}

/* Otherwise every table section, one after the other. */
static bool read_table_sections(struct dump *d)
{
	struct mc_object *obj = d->obj;
	uint64_t bytes = 0;
	size_t k = 0;

	for (size_t i = 1; i < obj->n_sections; i++)
		if (is_table(&obj->sections[i]))
			bytes += obj->sections[i].shdr.sh_size;
	if (!alloc_entries(d, bytes))
		return false;
	for (size_t i = 1; i < obj->n_sections; i++) {
		struct mc_section *t = &obj->sections[i];
		size_t n = t->shdr.sh_size / d->arch->addr_size;

		if (!is_table(t))
			continue;
		if (!d->linked && !object_entries(d, t, k))
			return false;
		if (d->linked)
			linked_entries(d, t, t->shdr.sh_addr, k, n);
		k += n;
	}
	return true;
}

static bool read_entries(struct dump *d)
{
	size_t a = mc_symbol_by_name(d->obj, "__start_mcount_loc");
	size_t b = mc_symbol_by_name(d->obj, "__stop_mcount_loc");

	if (d->linked && a != SIZE_MAX && b != SIZE_MAX)
		return read_linked_range(d, a, b);
	return read_table_sections(d);
}

static const struct mc_hook_site *hook_at(const struct dump *d, size_t shndx,
					  uint64_t offset)
{
	for (size_t i = 0; i < d->hooks.n; i++)
		if (d->hooks.v[i].shndx == shndx &&
		    d->hooks.v[i].offset == offset)
			return &d->hooks.v[i];
	return NULL;
}

/* What a site holds, in words, plus how many bytes make it up. */
struct verdict {
	const char *state;	/* "call", "nop", "unexpected", "unknown" */
	char target[128];
	size_t len;
};

static void name_target(const struct dump *d, uint64_t target, bool indirect,
			char *out, size_t n)
{
	const struct mc_symbol *s = indirect ? NULL : mc_symbol_at(d->obj, target);

	if (s)
		snprintf(out, n, "%s", s->name);
	else
		snprintf(out, n, "%s0x%" PRIx64, indirect ? "*" : "", target);
}

/*
 * A -fpatchable-function-entry pad: the architecture's pad NOPs, perhaps
 * with an end-branch marker among them where the function starts.
 */
static void pad_verdict(const struct dump *d, const uint8_t *p, size_t avail,
			struct verdict *v)
{
	const struct mc_arch *a = d->arch;
	size_t at = 0, len;
	unsigned nops = 0;
	bool prefix = false;

	for (;;) {
		len = mc_match_insn(a->pad_nops, a->n_pad_nops, p + at,
				    avail - at);
		if (len) {
			nops++;
			at += len;
			continue;
		}
		if (prefix)
			break;
		len = mc_match_insn(a->entry_prefixes, a->n_entry_prefixes,
				    p + at, avail - at);
		if (!len)
			break;
		prefix = true;
		at += len;
	}
	if (nops == 0)
		return;
	v->state = "pad";
	v->len = at;
	snprintf(v->target, sizeof(v->target), "%u NOP%s", nops,
		 nops == 1 ? "" : "s");
}

static struct verdict judge(const struct dump *d, const struct entry *e)
{
	struct verdict v = { .state = "unknown", .len = 0 };
	struct mc_section *sec = &d->obj->sections[e->shndx];
	size_t size;
	const uint8_t *code = e->resolved ? mc_section_bytes(sec, &size) : NULL;

	if (!code || e->offset >= size)
		return v;
	const struct mc_hook_site *h = d->linked ? NULL :
		hook_at(d, e->shndx, e->offset);
	if (h) {
		struct mc_reloc r;
		mc_reloc_get(d->obj, &d->obj->sections[h->rel_shndx],
			     h->reloc_index, &r);
		v.state = "call";
		v.len = h->form->len;
		snprintf(v.target, sizeof(v.target), "%s",
			 d->obj->symbols[r.sym].name);
		return v;
	}
	uint64_t addr = d->linked ? e->address : e->offset;
	struct mc_site s = d->arch->decode_site(code + e->offset,
						size - e->offset, addr);
	v.len = s.len ? s.len : (size - e->offset < 4 ? size - e->offset : 4);
	switch (s.kind) {
	case MC_SITE_NOP:
		v.state = "nop";
		break;
	case MC_SITE_CALL:
	case MC_SITE_CALL_INDIRECT:
		/* In an object, a call with no hook relocation is not ours. */
		v.state = d->linked ? "call" : "unexpected";
		name_target(d, s.target, s.kind == MC_SITE_CALL_INDIRECT,
			    v.target, sizeof(v.target));
		break;
	default:
		v.state = "unexpected";
		pad_verdict(d, code + e->offset, size - e->offset, &v);
	}
	return v;
}

static void hex_bytes(const struct dump *d, const struct entry *e, size_t len,
		      char *out, size_t n, const char *sep)
{
	size_t size, used = 0;
	const uint8_t *code = mc_section_bytes(&d->obj->sections[e->shndx],
					       &size);

	out[0] = 0;
	/* Stops before `out` overflows: a MIPS long call is 32 bytes. */
	for (size_t i = 0; code && i < len && e->offset + i < size &&
			   used + 3 + strlen(sep) <= n; i++)
		used += (size_t)snprintf(out + used, n - used, "%s%02x",
					 i ? sep : "", code[e->offset + i]);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/*
 * The function a site belongs to: the one containing it, or for a pad
 * whose NOPs start before the function's symbol, the one it runs into
 * (a negative offset).
 */
static void function_of(const struct dump *d, size_t shndx, uint64_t value,
			const char **name, int64_t *off)
{
	const struct mc_symbol *f = mc_function_at(d->obj, shndx, value);

	for (uint64_t ahead = 1; !f && ahead <= MC_MAX_SITE_LEN; ahead++)
		if ((f = mc_function_at(d->obj, shndx, value + ahead)) &&
		    f->sym.st_value != value + ahead)
			f = NULL;
	*name = f ? f->name : NULL;
	*off = f ? (int64_t)(value - f->sym.st_value) : 0;
}

static void print_place_json(const struct dump *d, size_t shndx,
			     uint64_t offset, uint64_t address)
{
	const char *fn;
	int64_t fo;
	uint64_t value = d->linked ? address : offset;

	printf("\"section\":");
	json_string(d->obj->sections[shndx].name);
	printf(",\"offset\":%" PRIu64 ",\"address\":", offset);
	if (d->linked)
		printf("%" PRIu64, address);
	else
		printf("null");
	function_of(d, shndx, value, &fn, &fo);
	printf(",\"function\":");
	if (fn) {
		json_string(fn);
		printf(",\"function_offset\":%" PRId64, fo);
	} else {
		printf("null,\"function_offset\":null");
	}
}

static void print_entry_json(const struct dump *d, size_t k)
{
	const struct entry *e = &d->entries[k];
	struct verdict v = judge(d, e);
	char bytes[64];

	printf("%s{\"index\":%zu,", k ? "," : "", k);
	if (!e->resolved) {
		printf("\"section\":null,\"address\":%" PRIu64 ",\"state\":"
		       "\"unknown\"}", e->address);
		return;
	}
	print_place_json(d, e->shndx, e->offset, e->address);
	hex_bytes(d, e, v.len, bytes, sizeof(bytes), "");
	printf(",\"bytes\":\"%s\",\"state\":\"%s\",\"target\":", bytes,
	       v.state);
	if (*v.target)
		json_string(v.target);
	else
		printf("null");
	putchar('}');
}

static void describe_place(const struct dump *d, size_t shndx,
			   uint64_t offset, uint64_t address, char *site,
			   size_t sn, char *func, size_t fn)
{
	const char *name;
	int64_t fo;

	if (d->linked)
		snprintf(site, sn, "0x%" PRIx64, address);
	else
		snprintf(site, sn, "%s+0x%" PRIx64, d->obj->sections[shndx].name,
			 offset);
	function_of(d, shndx, d->linked ? address : offset, &name, &fo);
	if (name)
		snprintf(func, fn, "%s%s0x%" PRIx64, name, fo < 0 ? "-" : "+",
			 (uint64_t)(fo < 0 ? -fo : fo));
	else
		snprintf(func, fn, "?");
}

static void print_entry_text(const struct dump *d, size_t k)
{
	const struct entry *e = &d->entries[k];
	char site[160], func[160], bytes[64];

	if (!e->resolved) {
		printf("  %5zu  0x%-30" PRIx64 " (outside every section)\n", k,
		       e->address);
		return;
	}
	struct verdict v = judge(d, e);
	describe_place(d, e->shndx, e->offset, e->address, site, sizeof(site),
		       func, sizeof(func));
	hex_bytes(d, e, v.len, bytes, sizeof(bytes), " ");
	printf("  %5zu  %-24s %-28s %-20s %s%s%s\n", k, site, func, bytes,
	       v.state, *v.target ? " " : "", v.target);
}

static bool in_table(const struct dump *d, const struct mc_hook_site *h)
{
	for (size_t k = 0; k < d->n_entries; k++)
		if (d->entries[k].resolved && d->entries[k].shndx == h->shndx &&
		    d->entries[k].offset == h->offset)
			return true;
	return false;
}

static size_t count_unrecorded(const struct dump *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->hooks.n; i++)
		n += !in_table(d, &d->hooks.v[i]);
	return n;
}

static void print_unrecorded(const struct dump *d, bool json)
{
	size_t shown = 0;

	for (size_t i = 0; i < d->hooks.n; i++) {
		const struct mc_hook_site *h = &d->hooks.v[i];
		char site[160], func[160];

		if (in_table(d, h))
			continue;
		if (json) {
			printf("%s{", shown ? "," : "");
			print_place_json(d, h->shndx, h->offset, 0);
			printf(",\"form\":\"%s\",\"traced_section\":%s}",
			       h->form->name, h->traced ? "true" : "false");
		} else {
			describe_place(d, h->shndx, h->offset, 0, site,
				       sizeof(site), func, sizeof(func));
			printf("  %-24s %-28s %s%s\n", site, func, h->form->name,
			       h->traced ? "" : " (untraced section)");
		}
		shown++;
	}
}

static const char *kind_name(struct mc_object *obj)
{
	switch (obj->ehdr.e_type) {
	case ET_REL: return "relocatable";
	case ET_EXEC: return "executable";
	}
	/* A PIE is ET_DYN too; only an executable asks for an interpreter. */
	return mc_section_by_name(obj, ".interp") ? "pie executable"
						  : "shared object";
}

static void print_text(const struct dump *d)
{
	printf("%s: %s %s, %zu table entr%s\n", d->obj->path, d->arch->name,
	       kind_name(d->obj), d->n_entries, d->n_entries == 1 ? "y" : "ies");
	if (d->n_entries)
		printf("  %5s  %-24s %-28s %-20s %s\n", "ENTRY", "SITE",
		       "FUNCTION", "BYTES", "STATE");
	for (size_t k = 0; k < d->n_entries; k++)
		print_entry_text(d, k);
	if (d->linked)
		return;
	size_t n = count_unrecorded(d);
	printf("hooks not in the table: %zu\n", n);
	print_unrecorded(d, false);
}

static void print_json(struct dump *d)
{
	printf("{\"file\":");
	json_string(d->obj->path);
	printf(",\"arch\":\"%s\",\"type\":\"%s\",\"entries\":[", d->arch->name,
	       kind_name(d->obj));
	for (size_t k = 0; k < d->n_entries; k++)
		print_entry_json(d, k);
	printf("],\"unrecorded\":");
	if (d->linked) {
		printf("null}\n");
		return;
	}
	putchar('[');
	print_unrecorded(d, true);
	printf("]}\n");
}

static bool open_for_dump(struct mc_object *obj, const char *path,
			  const struct mc_arch **arch)
{
	if (!mc_object_open(obj, path))
		return false;
	unsigned t = obj->ehdr.e_type;
	if (t != ET_REL && t != ET_EXEC && t != ET_DYN)
		return mc_fail(obj, "not an object, executable or shared "
			       "object (ELF type %u)", t);
	*arch = mc_object_arch(obj);
	if (!*arch)
		return mc_fail(obj, "unsupported machine %u (ELF class %u, "
			       "flags 0x%x)", (unsigned)obj->ehdr.e_machine,
			       (unsigned)obj->ehdr.e_ident[EI_CLASS],
			       (unsigned)obj->ehdr.e_flags);
	return true;
}

int mc_dump_file(const char *path, const struct mc_options *opt)
{
	struct mc_object obj;
	struct dump d = { .obj = &obj, .opt = opt };
	bool ok = open_for_dump(&obj, path, &d.arch);

	if (ok) {
		d.linked = obj.ehdr.e_type != ET_REL;
		ok = read_entries(&d) &&
		     (d.linked || !obj.symtab ||
		      mc_find_sites(&obj, d.arch, opt, &d.hooks, no_warnings));
	}
	if (ok && opt->format == MC_FORMAT_JSON)
		print_json(&d);
	else if (ok)
		print_text(&d);
	else
		fprintf(stderr, "recordmcount: %s: %s\n", path, obj.error);
	fflush(stdout);
	free(d.entries);
	free(d.relative);
	mc_site_list_free(&d.hooks);
	mc_object_close(&obj);
	return ok ? 0 : 1;
}

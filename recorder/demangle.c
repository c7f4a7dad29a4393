/* SPDX-License-Identifier: MIT */
/*
 * demangle.c - a C++ name as people read it in a profile: the function's
 * qualified name alone, as uftrace's default (simple) demangling shows
 * it, made from the full name the toolchain's demangler gives.  The
 * recorder's filters pick functions by it, and mctrace shows it: one
 * file, so that the two always agree.
 *
 * The full name of a function carries its return type (only a template
 * function's), template arguments, parameter list and qualifiers:
 * "void std::vector<int, std::allocator<int> >::_M_realloc_insert<int
 * const&>(__gnu_cxx::__normal_iterator<...>, int const&) const".  Kept:
 * "std::vector::_M_realloc_insert".  What the demangler prints is
 * regular enough to cut by brackets, but for operator names, whose
 * brackets are not brackets ("operator<", "operator()", "operator->"):
 * those are copied whole.  A name that does not read as expected is
 * kept as the demangler gave it, never guessed at.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/*
 * At s + i, the length of an operator's name ("operator<<=", "operator()",
 * "operator-" before a template's "<"), if one starts there; 0 if none.
 * Named operators ("operator new", a conversion "operator int") are only
 * the keyword: their words follow as words do.  The longest spelling
 * wins, and the demangler puts a space between an operator ending in
 * '<' and its template arguments.
 */
static size_t operator_at(const char *s, size_t i)
{
	static const char kw[] = "operator";
	static const char *const sym[] = {
		"->*", "<=>", "<<=", ">>=",
		"()", "[]", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&",
		"||", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "&=",
		"|=", "+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=",
		"<", ">", ",",
	};
	size_t n = sizeof(kw) - 1;

	if (strncmp(s + i, kw, n) || (i && ident_char(s[i - 1])) ||
	    ident_char(s[i + n]))
		return 0;
	for (size_t k = 0; k < sizeof(sym) / sizeof(sym[0]); k++)
		if (!strncmp(s + i + n, sym[k], strlen(sym[k])))
			return n + strlen(sym[k]);
	return n;
}

/*
 * Where the parameter list of the function `s` names begins: its last
 * parenthesis at depth 0, whatever follows it (" const", " &&",
 * " [clone .cold]"); `len` if it has none (not a function's name).
 */
static size_t params_at(const char *s, size_t len)
{
	size_t at = len, depth = 0;

	for (size_t i = 0; i < len; i++) {
		size_t op = operator_at(s, i);

		if (op) {
			i += op - 1;
			continue;
		}
		if (strchr("(<{[", s[i])) {
			if (!depth && s[i] == '(')
				at = i;
			depth++;
		} else if (strchr(")>}]", s[i]) && depth) {
			depth--;
		}
	}
	return at;
}

/*
 * s[0..len) without its template arguments and ABI tags ("[abi:cxx11]",
 * which no one writes), into out (room for len + 1): false if its angle
 * brackets do not pair.
 */
static bool drop_templates(const char *s, size_t len, char *out)
{
	size_t depth = 0, n = 0;

	for (size_t i = 0; i < len; i++) {
		size_t op = operator_at(s, i);

		if (op) {
			if (!depth)
				memcpy(out + n, s + i, op), n += op;
			i += op - 1;
			continue;
		}
		if (!strncmp(s + i, "[abi:", 5) && strchr(s + i, ']') &&
		    strchr(s + i, ']') < s + len) {
			i = (size_t)(strchr(s + i, ']') - s);
			continue;
		}
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && !depth)
			return false;
		else if (s[i] == '>')
			depth--;
		else if (!depth)
			out[n++] = s[i];
	}
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return depth == 0;
}

/*
 * Where the name starts in s[0..len), past a template function's return
 * type: after its last space outside brackets, but none in or after an
 * operator's name ("operator new", "operator int").
 */
static size_t name_at(const char *s, size_t len)
{
	size_t at = 0, depth = 0;

	for (size_t i = 0; i < len && s[i]; i++) {
		if (operator_at(s, i))
			break;
		if (strchr("({[<", s[i]))
			depth++;
		else if (strchr(")}]>", s[i]) && depth)
			depth--;
		else if (s[i] == ' ' && !depth)
			at = i + 1;
	}
	return at;
}

/*
 * The demangler's words before a special function's name ("non-virtual
 * thunk to A::f()"): kept, and the name after them cut as any other.
 */
static size_t special_prefix(const char *full)
{
	static const char *const words[] = {
		"non-virtual thunk to ", "virtual thunk to ",
		"covariant return thunk to ",
	};

	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (!strncmp(full, words[k], strlen(words[k])))
			return strlen(words[k]);
	return 0;
}

/*
 * Whether the parameter list at s + cut follows a declarator's ')'
 * ("void (*f(int))(int)": a function that returns a function's pointer),
 * not a name ("A::operator()(int)").
 */
static bool declarator_before(const char *s, size_t cut)
{
	return cut && s[cut - 1] == ')' &&
	       !(cut >= 10 && !strncmp(s + cut - 10, "operator()", 10));
}

char *rec_demangle_simple(const char *full)
{
	size_t len = strlen(full), pre = special_prefix(full);
	const char *s = full + pre;
	size_t cut = params_at(s, len - pre);
	char *out = malloc(len + 1);

	if (!out)
		return NULL;
	memcpy(out, full, pre);
	/* a function returning a function's pointer: "void (*f(int))(int)" */
	if (declarator_before(s, cut) || !drop_templates(s, cut, out + pre) ||
	    !out[pre]) {
		memcpy(out, full, len + 1);
		return out;
	}
	size_t at = name_at(out + pre, strlen(out + pre));

	memmove(out + pre, out + pre + at, strlen(out + pre + at) + 1);
	return out;
}

const char *rec_demangle_sans_return(const char *full)
{
	size_t len = strlen(full), pre = special_prefix(full);

	return full + pre + name_at(full + pre, params_at(full + pre, len - pre));
}

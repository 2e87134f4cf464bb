/* Small helpers over cJSON trees: read a member by a dotted path, set a member whether or not it
 * exists, keep only the members a list names. Every package that reads or builds JSON uses these
 * instead of its own copies.
 *
 * Owns: path lookup and typed reads with a default; replacing-or-adding a member; pruning an
 * object to a list of keys. Knows nothing of Kubernetes objects, BenchmarkRuns or result keys
 * (those are pkg/kube, pkg/controller and pkg/bench/fields.h). Setters abort on a NULL value:
 * after util_json_init cJSON returns NULL only for a NULL argument, which is a bug. Returned
 * pointers are borrowed from the tree, valid while it is. */
#ifndef PGBO_UTIL_JSON_H
#define PGBO_UTIL_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "pkg/util/buf.h"

/* Makes cJSON allocate through mem.h (cJSON_InitHooks with util_xmalloc and free), so every
 * cJSON constructor, adder, duplicate and printer is total: it aborts when memory runs out and
 * returns NULL only for a NULL or invalid argument, never for memory. Every main, the unit-test
 * environment and the fuzz targets call it first, before any cJSON call. */
void util_json_init(void);

/* The member at path "a.b.c" (each part an object member, case-sensitive); NULL when absent, when
 * an intermediate is not an object, or when a part is 128 bytes or longer. */
const cJSON *util_jget(const cJSON *o, const char *path);
/* The string at path; NULL when absent or not a string. */
const char *util_jstr(const cJSON *o, const char *path);
/* The number at path; def when absent or not a number. */
double util_jnum(const cJSON *o, const char *path, double def);
/* A string member whose key may contain dots (labels, annotations); NULL when absent. */
const char *util_jkey(const cJSON *o, const char *key);

/* Sets member k of object o to v (takes ownership), replacing the member when it exists. */
void util_jset(cJSON *o, const char *k, cJSON *v);
void util_jset_str(cJSON *o, const char *k, const char *v);
void util_jset_num(cJSON *o, const char *k, double v);

/* Deletes every member of object o whose key is not in keys (a NULL-terminated list; keys are
 * case-sensitive, member order is kept); does nothing when o is not an object. An informer's
 * transform uses it to cache only what the controller reads. */
void util_jkeep_keys(cJSON *o, const char *const *keys);
/* The same with a predicate: keeps the members for which keep(key, ctx) is true. */
void util_jkeep_if(cJSON *o, bool (*keep)(const char *key, void *ctx), void *ctx);

/* The shortest decimal that strtod reads back as exactly v ("1742.7", not "1742.70000000000005";
 * 17 digits only where 17 are needed), in %g's form; whole numbers below 1e15 without exponent
 * ("1000"); "null" for NaN and infinities (JSON has no such numbers). len >= 32. */
void util_fmt_double(char *out, size_t len, double v);
/* Every number in the tree o rounded to `digits` significant digits (15, DBL_DIG, is what a
 * double holds of a decimal: a value read from text keeps its digits, a computed one such as a
 * mean loses its binary noise, 2.2916514682134688 -> 2.29165146821347), for output to people
 * and spreadsheets. */
void util_jround(cJSON *o, int digits);
/* v rounded to `digits` significant digits (util_jround's rounding of one number). */
double util_round_digits(double v, int digits);
/* Appends v as JSON text indented by two spaces per level (kubectl's -o json layout), numbers as
 * util_fmt_double writes them, a newline at the end. Returns 0 or buf's -E2BIG. */
int util_json_print(struct buf *out, const cJSON *v);

#endif

/* The out-of-memory policy of the whole program, and the allocators that carry it out.
 *
 * Policy (Redis's zmalloc): allocation failure is not an error a caller handles. It logs one line
 * naming the size and aborts. So callers never check a util_x* result for NULL, never return
 * -ENOMEM, and never turn such a return into abort() themselves. cJSON allocates through
 * util_xmalloc once util_json_init() (json.h) has run, as every main runs it first: a cJSON
 * constructor (cJSON_Create*, cJSON_Add*, cJSON_Duplicate, cJSON_Print*) then never returns NULL
 * for memory, and needs no check. util_must is for another library's constructor whose only
 * failure is allocation (curl_easy_init). Real errors (bad input, a full capped buffer, I/O) are
 * still returned.
 *
 * Owns: malloc/calloc/realloc/strdup that never return NULL. Knows nothing of JSON beyond
 * util_must's pointer, nor of Kubernetes or pgbench. */
#ifndef PGBO_UTIL_MEM_H
#define PGBO_UTIL_MEM_H

#include <stddef.h>

void *util_xmalloc(size_t n);              /* n == 0 allocates 1 byte */
void *util_xcalloc(size_t n, size_t size); /* zeroed */
void *util_xrealloc(void *p, size_t n);
char *util_xstrdup(const char *s);
char *util_xstrndup(const char *s, size_t n); /* n bytes of s and a NUL */

/* Returns p; logs and aborts when it is NULL (the result of an allocating call such as
 * curl_easy_init). Typed as void * so it serves every pointer:
 * `CURL *e = util_must(curl_easy_init());`. Around a cJSON constructor it is redundant. */
void *util_must(void *p);

/* Logs "out of memory" with n and aborts: the one exit of the policy, for code that allocates
 * by other means. */
_Noreturn void util_oom(size_t n);

#endif

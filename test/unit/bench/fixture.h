/* Test helper: read a fixture file (paths relative to the repo root). */
#ifndef TEST_BENCH_FIXTURE_H
#define TEST_BENCH_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

static inline char *fixture_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap *= 2;
            s = realloc(s, cap);
        }
        size_t r = fread(s + n, 1, 4096, f);
        n += r;
        if (r == 0)
            break;
    }
    fclose(f);
    s[n] = '\0';
    if (len)
        *len = n;
    return s;
}

#endif

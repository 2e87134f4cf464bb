/* Small text helpers shared by the bench parsers. */
#include "pkg/bench/text.h"
#include "pkg/util/mem.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (len == 3 && s[0] == 0xe0 && s[1] < 0xa0)
        return 0;
    if (len == 3 && s[0] == 0xed && s[1] >= 0xa0)
        return 0;
    if (len == 4 && s[0] == 0xf0 && s[1] < 0x90)
        return 0;
    if (len == 4 && s[0] == 0xf4 && s[1] >= 0x90)
        return 0;
    return len;
}

/* Copies s[0..n) into dst (cap bytes with the NUL), whole UTF-8 characters only, invalid bytes as
 * '?'. Control characters become '?' (tab kept), or with as_space every run of them one space. */
static void copy_clean(char *dst, size_t cap, const char *s, size_t n, bool as_space)
{
    size_t o = 0;
    if (cap == 0)
        return;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n && u[i];) {
        size_t l = utf8_len(u + i, n - i);
        bool ctl = l == 1 && (u[i] < 0x20 || u[i] == 0x7f);
        if (ctl && as_space) {
            while (i < n && (u[i] < 0x20 || u[i] == 0x7f) && u[i])
                i++;
            if (o + 1 >= cap)
                break;
            dst[o++] = ' ';
            continue;
        }
        if (l == 0 || (ctl && u[i] != '\t')) {
            if (o + 1 >= cap)
                break;
            dst[o++] = '?';
            i++;
            continue;
        }
        if (o + l >= cap)
            break;
        memcpy(dst + o, u + i, l);
        o += l;
        i += l;
    }
    dst[o] = '\0';
}

void bench__copy_clean(char *dst, size_t cap, const char *s, size_t n)
{
    copy_clean(dst, cap, s, n, false);
}

void bench__copy_message(char *dst, size_t cap, const char *s, size_t n)
{
    copy_clean(dst, cap, s, n, true);
}

char *bench__strndup_clean(const char *s, size_t n, size_t max)
{
    size_t cap = n + 1 < max ? n + 1 : max;
    char *d = util_xmalloc(cap ? cap : 1);
    bench__copy_clean(d, cap ? cap : 1, s, n);
    return d;
}

char *bench__strndup_message(const char *s, size_t n, size_t max)
{
    size_t cap = n + 1 < max ? n + 1 : max;
    char *d = util_xmalloc(cap ? cap : 1);
    bench__copy_message(d, cap ? cap : 1, s, n);
    return d;
}

int bench__take(const char **p, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(*p, prefix, n) != 0)
        return 0;
    *p += n;
    return 1;
}

void bench__skip_spaces(const char **p)
{
    while (**p == ' ' || **p == '\t')
        (*p)++;
}

int bench__int64(const char **p, int64_t *out)
{
    char *end;
    if (!(isdigit((unsigned char)**p) || **p == '-'))
        return -EINVAL;
    errno = 0;
    long long v = strtoll(*p, &end, 10);
    if (end == *p || errno)
        return -EINVAL;
    *out = v;
    *p = end;
    return 0;
}

int bench__count(const char **p, int *out)
{
    int64_t n;
    if (bench__int64(p, &n) || n < 0 || n > INT32_MAX)
        return -EINVAL;
    *out = (int)n;
    return 0;
}

int bench__double(const char **p, double *out)
{
    char *end;
    const char *s = *p;
    if (!(isdigit((unsigned char)*s) || *s == '-' || *s == '+' || *s == '.' || *s == 'n' ||
          *s == 'N' || *s == 'i' || *s == 'I'))
        return -EINVAL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE)
        return -EINVAL;
    *out = v;
    *p = end;
    return 0;
}

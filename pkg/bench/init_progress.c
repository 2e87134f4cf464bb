/* pgbench -i's progress from its output lines and from the bytes it wrote (init_progress.h). */
#include "pkg/bench/init_progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *prefix;
    enum bench_init_step step;
    const char *name;
} steps[] = {
    {"dropping old tables...", BENCH_INIT_STEP_DROP, "drop tables"},
    {"creating tables...", BENCH_INIT_STEP_CREATE, "create tables"},
    {"generating data (client-side)...", BENCH_INIT_STEP_GENERATE_CLIENT, "generate (client-side)"},
    {"generating data (server-side)...", BENCH_INIT_STEP_GENERATE_SERVER, "generate (server-side)"},
    {"generating data...", BENCH_INIT_STEP_GENERATE_CLIENT, NULL}, /* pgbench 12 */
    {"vacuuming...", BENCH_INIT_STEP_VACUUM, "vacuum"},
    {"creating primary keys...", BENCH_INIT_STEP_PRIMARY_KEYS, "primary keys"},
    {"creating foreign keys...", BENCH_INIT_STEP_FOREIGN_KEYS, "foreign keys"},
    {"done", BENCH_INIT_STEP_DONE, "done"},
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

const char *bench_init_step_name(enum bench_init_step s)
{
    for (size_t i = 0; i < NSTEPS; i++)
        if (steps[i].step == s && steps[i].name)
            return steps[i].name;
    return "start";
}

/* "N of M tuples (P%) [of TABLE ]done (elapsed E s, remaining R s)": false for another line or
 * another table than pgbench_accounts. */
static bool rows_line(struct bench_init_progress *p, const char *line)
{
    char *end;
    long long n = strtoll(line, &end, 10);
    if (end == line || strncmp(end, " of ", 4) != 0)
        return false;
    const char *q = end + 4;
    long long total = strtoll(q, &end, 10);
    if (end == q || strncmp(end, " tuples (", 9) != 0 || n < 0 || total <= 0)
        return false;
    const char *rest = strchr(end, ')');
    if (!rest)
        return false;
    rest++;
    if (strncmp(rest, " of ", 4) == 0) {
        rest += 4;
        if (strncmp(rest, "pgbench_accounts ", 17) != 0)
            return false;
        rest += 17;
    } else {
        rest++;
    }
    if (strncmp(rest, "done (elapsed ", 14) != 0)
        return false;
    double el = strtod(rest + 14, &end);
    if (end == rest + 14)
        return false;
    p->rows = n;
    p->rows_total = total;
    p->elapsed_s = el;
    return true;
}

bool bench_init_progress_line(struct bench_init_progress *p, const char *line, size_t len)
{
    char buf[512];
    if (len >= sizeof(buf))
        return false;
    memcpy(buf, line, len);
    buf[len] = '\0';
    for (size_t i = 0; i < NSTEPS; i++) {
        if (strncmp(buf, steps[i].prefix, strlen(steps[i].prefix)) == 0) {
            p->step = steps[i].step;
            return true;
        }
    }
    return rows_line(p, buf);
}

long long bench_init_accounts_rows(int scale)
{
    return 100000LL * (scale > 0 ? scale : 0);
}

/* pgbench_accounts' heap tuple: 24 header + 12 of int4 + 85 of filler (char(84) with its short
 * varlena header) = 121, MAXALIGNed to 128, and its line pointer. */
#define ACCOUNT_TUPLE_BYTES 128
#define LINE_POINTER_BYTES 4
#define PAGE_HEADER_BYTES 24

double bench_init_rows_from_bytes(double bytes, int fillfactor, int block_size)
{
    if (!(bytes > 0) || block_size <= PAGE_HEADER_BYTES)
        return 0;
    int ff = fillfactor >= 10 && fillfactor <= 100 ? fillfactor : 100;
    /* heap_insert uses a page while its free space, less a line pointer, still holds the tuple
     * and the fillfactor's reserve (RelationGetTargetPageFreeSpace) */
    double reserve = (double)block_size * (100 - ff) / 100;
    double per_page = floor(((double)(block_size - PAGE_HEADER_BYTES) - floor(reserve)) /
                            (ACCOUNT_TUPLE_BYTES + LINE_POINTER_BYTES));
    if (per_page < 1)
        per_page = 1;
    return floor(bytes / block_size * per_page);
}

/* pkg/bench/init_progress: how far `pgbench -i` is, from what it prints and from the size of
 * what it writes.
 *
 * pgbench -i names each step on stderr as it begins ("generating data (server-side)...",
 * "vacuuming...") and, generating client-side, prints rows lines ("2000000 of 5000000 tuples (40%)
 * done (elapsed 4.10 s, remaining 6.15 s)", pgbench 16+ with "of pgbench_accounts" before "done").
 * Server-side generation (step G, one INSERT ... SELECT generate_series in one transaction) prints
 * nothing until it is done, and other sessions cannot see its rows (nor, under its lock, the
 * table); what they can see is the files it writes growing (pg_database_size sums the files of the
 * database, uncommitted ones too), so the rows loaded are estimated from that growth and
 * pgbench_accounts' row size (bench_init_rows_from_bytes). Pure: no I/O. */
#ifndef PGBO_BENCH_INIT_PROGRESS_H
#define PGBO_BENCH_INIT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

enum bench_init_step {
    BENCH_INIT_STEP_NONE = 0,
    BENCH_INIT_STEP_DROP,            /* d: "dropping old tables..." */
    BENCH_INIT_STEP_CREATE,          /* t: "creating tables..." */
    BENCH_INIT_STEP_GENERATE_CLIENT, /* g: "generating data (client-side)..." ("generating data..."
                                        before pgbench 13) */
    BENCH_INIT_STEP_GENERATE_SERVER, /* G: "generating data (server-side)..." */
    BENCH_INIT_STEP_VACUUM,          /* v: "vacuuming..." */
    BENCH_INIT_STEP_PRIMARY_KEYS,    /* p: "creating primary keys..." */
    BENCH_INIT_STEP_FOREIGN_KEYS,    /* f: "creating foreign keys..." */
    BENCH_INIT_STEP_DONE,            /* "done in 3.52 s (...)." ("done." before 13) */
};

/* What the lines so far said. */
struct bench_init_progress {
    enum bench_init_step step;
    long long rows;       /* pgbench_accounts rows generated client-side (its last rows line) */
    long long rows_total; /* that line's total; 0 before the first rows line */
    double elapsed_s;     /* that line's elapsed seconds (since the generation began) */
};

/* Reads one line of pgbench -i's output (without its newline). Returns true when it was a step
 * line or a rows line of pgbench_accounts (p updated), false for anything else (NOTICEs, errors,
 * rows lines of pgbench_branches/tellers, which pgbench 16+ prints too). */
bool bench_init_progress_line(struct bench_init_progress *p, const char *line, size_t len);

/* "generate (server-side)", "vacuum", ...: the step's name in progress records and status. */
const char *bench_init_step_name(enum bench_init_step s);

/* pgbench_accounts rows at a scale: 100,000 per scale unit. */
long long bench_init_accounts_rows(int scale);

/* Rows of pgbench_accounts that `bytes` of heap hold: pgbench's account row (aid, bid, abalance
 * int4, filler char(84)) is a 121-byte tuple, 128 aligned, plus its 4-byte line pointer; a heap
 * page of block_size bytes (24 of header) is filled up to fillfactor percent (0 = 100): 61 rows
 * per 8 KiB page at 100, 55 at 90. The estimate the server-side progress reports. */
double bench_init_rows_from_bytes(double bytes, int fillfactor, int block_size);

#endif

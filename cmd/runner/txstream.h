/* Streams pgbench's per-transaction logs (-l) into the latency histogram while the run goes on:
 * every poll reads the complete lines appended to each <dir>/pgbench_log.* file since the last
 * poll, feeds them to a bench_txlog, and punches the consumed bytes out of the file
 * (FALLOC_FL_PUNCH_HOLE), so a long run does not fill the pod's disk with logs. Runner-specific. */
#ifndef PGBO_RUNNER_TXSTREAM_H
#define PGBO_RUNNER_TXSTREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pkg/bench/pgbench.h"

#define TXSTREAM_MAX_FILES 1024

struct txstream {
    char dir[4096];
    struct bench_txlog *tl; /* borrowed */
    int nfiles;
    struct {
        int fd;
        off_t off; /* bytes consumed */
    } files[TXSTREAM_MAX_FILES];
    char names[TXSTREAM_MAX_FILES][64];
    uint64_t bytes;   /* consumed in total */
    uint64_t punched; /* bytes released from disk */
    bool punch_off;   /* the file system refused hole punching; stop trying */
    int error;        /* first error (negative errno), 0 if none */
};

void txstream_init(struct txstream *s, const char *dir, struct bench_txlog *tl);
/* Reads what is new. final: also the last partial line of each file (the writer is gone), then
 * bench_txlog_finish. Returns 0 or a negative errno (also kept in s->error). */
int txstream_poll(struct txstream *s, bool final);
/* Closes the files. */
void txstream_close(struct txstream *s);

#endif

/* Live reading of pgbench -l logs (see txstream.h). */
#include "cmd/runner/txstream.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/util/mem.h"
#include "pkg/util/log.h"

#define CHUNK (1 << 20)

void txstream_init(struct txstream *s, const char *dir, struct bench_txlog *tl)
{
    memset(s, 0, sizeof(*s));
    const char *p = getenv("BENCH_TXLOG_PUNCH"); /* "0": keep the consumed bytes on disk */
    s->punch_off = p && strcmp(p, "0") == 0;
    (void)snprintf(s->dir, sizeof(s->dir), "%s", dir);
    s->tl = tl;
}

static void set_error(struct txstream *s, int err)
{
    if (!s->error)
        s->error = err;
}

/* Opens the log files that appeared since the last poll. */
static void scan(struct txstream *s)
{
    DIR *d = opendir(s->dir);
    if (!d) {
        set_error(s, -errno);
        return;
    }
    size_t plen = strlen(BENCH_PGBENCH_LOG_PREFIX);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, BENCH_PGBENCH_LOG_PREFIX, plen) != 0 || e->d_name[plen] != '.')
            continue;
        bool known = false;
        for (int i = 0; i < s->nfiles && !known; i++)
            known = strcmp(s->names[i], e->d_name) == 0;
        if (known)
            continue;
        if (s->nfiles == TXSTREAM_MAX_FILES || strlen(e->d_name) >= sizeof(s->names[0])) {
            set_error(s, -EMFILE);
            continue;
        }
        int fd = openat(dirfd(d), e->d_name, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            set_error(s, -errno);
            continue;
        }
        memcpy(s->names[s->nfiles], e->d_name, strlen(e->d_name) + 1); /* length checked */
        s->files[s->nfiles].fd = fd;
        s->files[s->nfiles].off = 0;
        s->nfiles++;
    }
    closedir(d);
}

static int read_file(struct txstream *s, int i, bool final, char *buf)
{
    int fd = s->files[i].fd;
    for (;;) {
        ssize_t n = pread(fd, buf, CHUNK, s->files[i].off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return 0;
        size_t use = (size_t)n;
        if (!final || n == CHUNK) {
            /* whole lines only: the writer may be in the middle of one */
            const char *nl = memrchr(buf, '\n', (size_t)n);
            if (!nl)
                return 0; /* no complete line yet (lines are far shorter than CHUNK) */
            use = (size_t)(nl - buf) + 1;
        }
        bench_txlog_feed(s->tl, buf, use);
        if (buf[use - 1] != '\n')
            bench_txlog_feed(s->tl, "\n", 1); /* a cut last line stays in its file */
        s->files[i].off += (off_t)use;
        s->bytes += use;
        if ((size_t)n < CHUNK)
            return 0;
    }
}

static void punch(struct txstream *s, int i)
{
    if (s->punch_off)
        return;
    off_t upto = s->files[i].off & ~(off_t)4095;
    if (upto <= 0)
        return;
    if (fallocate(s->files[i].fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, upto) != 0) {
        log_info("runner",
                 "transaction logs: cannot release consumed bytes (%s); they stay on "
                 "disk until the run ends",
                 strerror(errno));
        s->punch_off = true;
        return;
    }
    s->punched = 0;
    for (int k = 0; k < s->nfiles; k++)
        s->punched += (uint64_t)(s->files[k].off & ~(off_t)4095);
}

int txstream_poll(struct txstream *s, bool final)
{
    scan(s);
    char *buf = util_xmalloc(CHUNK);
    for (int i = 0; i < s->nfiles; i++) {
        int rc = read_file(s, i, final, buf);
        if (rc) {
            set_error(s, rc);
            continue;
        }
        punch(s, i);
    }
    free(buf);
    if (final)
        bench_txlog_finish(s->tl);
    return s->error;
}

void txstream_close(struct txstream *s)
{
    for (int i = 0; i < s->nfiles; i++)
        close(s->files[i].fd);
    s->nfiles = 0;
}

/* An LD_PRELOAD shim for a PostgreSQL server: every pread() of a relation's data file (a path
 * under the data directory's base/) waits SLOW_PREAD_MS milliseconds (default 0: none) before
 * reading, as a slow disk would. WAL, the control file and everything else read at full speed.
 * Build: cc -shared -fPIC -O1 -o slow-pread.so slow-pread.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int is_data_file(int fd)
{
    char link[64], path[4096];
    (void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n <= 0)
        return 0;
    path[n] = '\0';
    return strstr(path, "/base/") != NULL;
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
    static ssize_t (*real)(int, void *, size_t, off_t);
    static long ms = -1;
    if (!real)
        real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    if (ms < 0) {
        const char *v = getenv("SLOW_PREAD_MS");
        ms = v ? atol(v) : 0;
    }
    if (ms > 0 && is_data_file(fd)) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return real(fd, buf, count, offset);
}

/* CPU quota from the cgroup file systems, and CPU affinity. */
#include "pkg/util/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATHLEN 4096

double util_cgroup_parse_cpu_max(const char *text)
{
    char q[32];
    long long period;
    if (!text || sscanf(text, "%31s %lld", q, &period) != 2 || period <= 0)
        return NAN;
    if (strcmp(q, "max") == 0)
        return 0;
    char *end;
    long long quota = strtoll(q, &end, 10);
    return *end || quota <= 0 ? NAN : (double)quota / (double)period;
}

double util_cgroup_parse_cfs(const char *quota, const char *period)
{
    char *e1, *e2;
    if (!quota || !period)
        return NAN;
    long long q = strtoll(quota, &e1, 10), p = strtoll(period, &e2, 10);
    if (e1 == quota || e2 == period || (*e1 && *e1 != '\n') || (*e2 && *e2 != '\n') || p <= 0)
        return NAN;
    return q < 0 ? 0 : (double)q / (double)p;
}

/* A small file's first line into out; false when it cannot be read. */
static bool read_line(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(out, (int)n, f) != NULL;
    (void)fclose(f);
    return ok;
}

/* The quota at dir (v2: cpu.max; v1: the cfs pair), NAN when the files are not there. */
static double quota_at(const char *dir, bool v2)
{
    char p[PATHLEN + 32], a[64], b[64];
    if (v2) {
        (void)snprintf(p, sizeof(p), "%s/cpu.max", dir);
        return read_line(p, a, sizeof(a)) ? util_cgroup_parse_cpu_max(a) : NAN;
    }
    (void)snprintf(p, sizeof(p), "%s/cpu.cfs_quota_us", dir);
    if (!read_line(p, a, sizeof(a)))
        return NAN;
    (void)snprintf(p, sizeof(p), "%s/cpu.cfs_period_us", dir);
    return read_line(p, b, sizeof(b)) ? util_cgroup_parse_cfs(a, b) : NAN;
}

/* The smallest quota from base/path up to base; *seen when a file was read on the way. */
static double walk_up(const char *base, const char *path, bool v2, bool *seen)
{
    char dir[PATHLEN];
    double best = 0;
    (void)snprintf(dir, sizeof(dir), "%s%s", base, path);
    size_t blen = strlen(base);
    for (;;) {
        size_t l = strlen(dir);
        while (l > blen && dir[l - 1] == '/')
            dir[--l] = '\0';
        double q = quota_at(dir, v2);
        if (isfinite(q)) {
            *seen = true;
            if (q > 0 && (best == 0 || q < best))
                best = q;
        }
        char *slash = strrchr(dir + blen, '/');
        if (l <= blen || !slash)
            break;
        *slash = '\0';
    }
    return best;
}

/* The v1 line of the cpu controller ("4:cpu,cpuacct:/path"): its controllers and path. */
static bool v1_cpu_line(const char *line, size_t len, char *ctrl, size_t cn, char *path, size_t pn)
{
    const char *c1 = memchr(line, ':', len);
    const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
    if (!c2 || c2 == c1 + 1)
        return false;
    size_t clen = (size_t)(c2 - c1 - 1);
    bool cpu = false;
    for (const char *p = c1 + 1; p < c2;) {
        const char *comma = memchr(p, ',', (size_t)(c2 - p));
        const char *end = comma ? comma : c2;
        if (end - p == 3 && strncmp(p, "cpu", 3) == 0)
            cpu = true;
        p = end + 1;
    }
    if (!cpu || clen >= cn)
        return false;
    memcpy(ctrl, c1 + 1, clen);
    ctrl[clen] = '\0';
    (void)snprintf(path, pn, "%.*s", (int)(len - (size_t)(c2 + 1 - line)), c2 + 1);
    return true;
}

int util_cgroup_cpu_quota(const char *root, const char *self_cgroup, double *cores,
                          const char **version)
{
    *cores = 0;
    *version = "none";
    char path[PATHLEN], ctrl[256], base[PATHLEN];
    bool seen = false;
    /* v1 first: a hybrid system (v1 controllers, a v2 tree without cpu) has its limits there */
    for (const char *l = self_cgroup; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if (v1_cpu_line(l, len, ctrl, sizeof(ctrl), path, sizeof(path))) {
            (void)snprintf(base, sizeof(base), "%s/%s", root, ctrl);
            double q = walk_up(base, path, false, &seen);
            if (!seen) {
                (void)snprintf(base, sizeof(base), "%s/cpu", root);
                q = walk_up(base, path, false, &seen);
            }
            if (seen) {
                *cores = q;
                *version = "v1";
                return 0;
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    for (const char *l = self_cgroup; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if (len >= 3 && strncmp(l, "0::", 3) == 0) {
            (void)snprintf(path, sizeof(path), "%.*s", (int)(len - 3), l + 3);
            double q = walk_up(root, path, true, &seen);
            if (seen) {
                *cores = q;
                *version = "v2";
                return 0;
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    return -ENOENT;
}

int util_cgroup_self_cpu_quota(const char *root, double *cores, const char **version)
{
    char self[8192];
    FILE *f = fopen("/proc/self/cgroup", "r");
    size_t n = f ? fread(self, 1, sizeof(self) - 1, f) : 0;
    if (f)
        (void)fclose(f);
    self[n] = '\0';
    return util_cgroup_cpu_quota(root, self, cores, version);
}

int util_cpus_allowed(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

int util_sched_parse(const char *text, double *run_s, double *wait_s)
{
    unsigned long long run, wait, slices;
    if (!text || sscanf(text, "%llu %llu %llu", &run, &wait, &slices) != 3)
        return -EINVAL;
    *run_s = (double)run / 1e9;
    *wait_s = (double)wait / 1e9;
    return 0;
}

int util_sched_read(const char *proc, int pid, struct util_sched *out)
{
    char path[PATHLEN];
    (void)snprintf(path, sizeof(path), "%s/%d/task", proc, pid);
    DIR *dir = opendir(path);
    if (!dir)
        return -ENOENT;
    *out = (struct util_sched){0};
    const struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char file[PATHLEN + 300], text[128];
        (void)snprintf(file, sizeof(file), "%s/%s/schedstat", path, e->d_name);
        FILE *f = fopen(file, "r");
        if (!f)
            continue; /* the thread ended meanwhile */
        size_t n = fread(text, 1, sizeof(text) - 1, f);
        (void)fclose(f);
        text[n] = '\0';
        double run, wait;
        if (util_sched_parse(text, &run, &wait) == 0) {
            out->run_s += run;
            out->wait_s += wait;
            out->tasks++;
        }
    }
    (void)closedir(dir);
    return out->tasks > 0 ? 0 : -ENOENT;
}

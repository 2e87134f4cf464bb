/* The CPU a process may use, from its cgroup (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us)
 * and its CPU affinity: what a container's CPU limit amounts to, read from inside it. */
#ifndef PGBO_UTIL_CGROUP_H
#define PGBO_UTIL_CGROUP_H

/* cpu.max ("max 100000", "50000 100000"): the quota in CPUs, 0 for "max" (no limit), NAN when
 * the text is not that. Pure. */
double util_cgroup_parse_cpu_max(const char *text);

/* cpu.cfs_quota_us and cpu.cfs_period_us: the quota in CPUs, 0 for -1 (no limit), NAN when the
 * texts are not numbers. Pure. */
double util_cgroup_parse_cfs(const char *quota, const char *period);

/* The CPU quota of the cgroup a process is in. self_cgroup: the text of /proc/<pid>/cgroup; root:
 * where the cgroup file systems are mounted ("/sys/fs/cgroup"). v2 ("0::/path") reads
 * root/path/cpu.max, v1 (the "cpu" controller's line) root/<controllers>/path/cpu.cfs_*_us (also
 * root/cpu/path), each from the process's cgroup up to the mount root, the smallest quota on the
 * way. *cores: the quota in CPUs, 0 when unlimited; *version: "v2", "v1" or "none" (no readable
 * CPU controller). Returns 0 or -ENOENT (none). */
int util_cgroup_cpu_quota(const char *root, const char *self_cgroup, double *cores,
                          const char **version);

/* util_cgroup_cpu_quota for this process (/proc/self/cgroup). */
int util_cgroup_self_cpu_quota(const char *root, double *cores, const char **version);

/* The CPUs this process may run on (sched_getaffinity), at least 1. */
int util_cpus_allowed(void);

/* A process's threads' scheduler times, summed over its threads: on a CPU, and runnable but
 * waiting for one in a run queue (another task had it, or the cgroup's quota was spent). */
struct util_sched {
    double run_s, wait_s;
    int tasks;
};
/* One /proc/<pid>/task/<tid>/schedstat ("<on cpu ns> <run queue ns> <timeslices>"): *run_s and
 * *wait_s in seconds. Returns 0, or -EINVAL when the text is not that. Pure. */
int util_sched_parse(const char *text, double *run_s, double *wait_s);
/* The threads of pid under proc ("/proc"), summed. Returns 0, or -ENOENT (no such process, or a
 * kernel without schedstat). */
int util_sched_read(const char *proc, int pid, struct util_sched *out);

#endif

/* The runner's one child-process driver, for pgbench init, pgbench run and fio alike.
 *
 * Two layers: `struct child` is a process on the libuv loop whose stdout and stderr are read
 * through pipes and handed to a callback as they arrive (stdin is /dev/null); `struct
 * child_drive` runs one such process to its end for a subcommand: it logs the command line,
 * spawns it, keeps the tail of its stderr, forwards SIGTERM/SIGINT to it (a signal before the
 * start ends the drive without it), stops it at a watchdog limit or at the run's deadline
 * (SIGTERM, then SIGKILL 5 s later) and records how it ended. It knows nothing of pgbench or
 * fio: what the output means is the subcommand's, through the hooks. Runner-specific glue. */
#ifndef PGBO_RUNNER_CHILD_H
#define PGBO_RUNNER_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "pkg/util/buf.h"

/* Set to the signal number by the early SIGTERM/SIGINT handler (before the libuv loop takes the
 * signals over), so that blocking waits can stop and a result is still printed (output.c
 * defines it; the child driver hands it to the loop once it runs). */
extern volatile sig_atomic_t runner_stop_signal;

struct child;
/* stream: 1 = stdout, 2 = stderr. data is valid during the call only. */
typedef void (*child_data_cb)(struct child *c, int stream, const char *data, size_t len, void *ctx);
/* Called once after the process exited and both pipes reached EOF. */
typedef void (*child_done_cb)(struct child *c, void *ctx);

struct child {
    uv_loop_t *loop;
    uv_process_t proc;
    uv_pipe_t out, err;
    int pending; /* process exit + two EOFs */
    int open_handles;
    bool running;
    bool exited;
    int64_t exit_status; /* valid once exited */
    int term_signal;     /* signal that killed it, 0 when it exited */
    pid_t pid;
    child_data_cb on_data;
    child_done_cb on_done;
    void *ctx;
};

/* Spawns argv[0] (looked up in PATH when it has no '/') with env (NULL = inherit). On success
 * the callbacks run from the loop; on failure (returns a negative libuv error) they never run
 * and nothing needs closing. c is owned by the caller and must live until on_done ran and
 * child_close's handles are closed (child_close then uv_run). */
int child_spawn(struct child *c, uv_loop_t *loop, char *const *argv, char **env,
                child_data_cb on_data, child_done_cb on_done, void *ctx);
/* Sends a signal when the child still runs. Returns 0 or a negative libuv error. */
int child_kill(struct child *c, int signum);
/* Closes the handles (after on_done); safe to call once. */
void child_close(struct child *c);

/* Runs argv to completion on a private loop, capturing stdout (up to cap bytes; more is an
 * error -E2BIG) into *out (malloc'd, NUL-terminated). stderr is discarded. *status gets the exit
 * status (-1 when killed). Returns 0 or a negative errno. */
int child_run_capture(char *const *argv, size_t cap, char **out, int *status);

struct child_drive;
/* Hooks of a drive; each may be NULL. d->ctx is the subcommand's. */
struct child_drive_hooks {
    /* output as it arrives (stream 1 = stdout, 2 = stderr), after the stderr tail is kept */
    void (*on_data)(struct child_drive *d, int stream, const char *data, size_t len);
    /* with echo: each line of output as it is logged (stream 1 = stdout, 2 = stderr; without
     * its newline; one longer than the echo buffer comes in pieces) */
    void (*on_line)(struct child_drive *d, int stream, const char *line, size_t len);
    /* the child was spawned: start what samples it (timers, diagnostics) */
    void (*on_start)(struct child_drive *d);
    /* once, when the drive ends (child and pipes done, spawn failed, or ended before the start):
     * stop and close the subcommand's own handles */
    void (*on_end)(struct child_drive *d);
};

struct child_drive {
    /* set by the caller after child_drive_init, before the start */
    double watchdog_s; /* stop a child that runs this long; 0 = no limit */
    double
        deadline_at; /* Unix seconds: stop the child there (when before the watchdog); 0 = none */
    size_t err_keep; /* stderr bytes kept in err (the last ones); 0 = none */
    bool echo;       /* log every line of the child's stdout/stderr as an "output" record */
    /* set by child_drive_init */
    uv_loop_t *loop;
    char *const *argv;
    const struct child_drive_hooks *hooks;
    void *ctx;
    /* the outcome */
    struct child child;
    bool started;        /* spawned */
    bool ended;          /* on_end ran */
    int spawn_error;     /* negative libuv error when the spawn failed */
    int signal;          /* SIGTERM/SIGINT received, 0 = none */
    int watchdog_fired;  /* 1 = SIGTERM sent at the limit, 2 = SIGKILL sent */
    bool deadline_armed; /* the limit was the deadline */
    double start, end;   /* wall clock of the spawn and of the child's end */
    struct buf err;      /* the stderr tail (err_keep) */
    char line[2][1024];  /* echo: the unfinished line of stdout [0] and stderr [1] */
    size_t line_len[2];
    /* handles */
    uv_signal_t sigterm, sigint;
    uv_timer_t watchdog;
};

/* Prepares d on loop for argv (which must outlive the drive) and takes SIGTERM/SIGINT over from
 * the early handler (runner_install_early_signals). */
void child_drive_init(struct child_drive *d, uv_loop_t *loop, char *const *argv,
                      const struct child_drive_hooks *hooks, void *ctx);
/* Handles a signal that arrived before the loop took the signals over (runner_stop_signal) as if
 * it came now: forwarded when the child runs, else the drive ends without it. Returns whether
 * there was one. */
bool child_drive_early_signal(struct child_drive *d);
/* Spawns the child now and arms the watchdog/deadline. Returns 0, or the negative libuv error of
 * a failed spawn (logged; the drive has ended). Does nothing once the drive ended. */
int child_drive_start(struct child_drive *d);
/* Ends the drive (idempotent): on_end, then every handle closed. */
void child_drive_end(struct child_drive *d);
/* Runs the loop until the drive and its handles are done, then closes the loop. */
void child_drive_run(struct child_drive *d);
/* The child's exit status; -1 when it was killed by a signal or never started. */
int child_drive_exit(const struct child_drive *d);
/* Frees the stderr tail. */
void child_drive_free(struct child_drive *d);

#endif

/* A child process (pgbench, fio) on the libuv loop: stdout and stderr read through pipes and
 * handed to a callback as they arrive; stdin is /dev/null. Runner-specific glue. */
#ifndef PGBO_RUNNER_CHILD_H
#define PGBO_RUNNER_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

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

#endif

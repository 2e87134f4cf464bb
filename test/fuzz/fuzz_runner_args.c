/* fuzz-package: bench */
/* The runner's command line (pkg/bench/runner_args.c over pkg/util/opt.c): any argv (the input's
 * first byte picks the subcommand, the rest split at NUL bytes) parses or is refused without a
 * crash, a leak or an unterminated message; one that parses builds an argv that parses back and
 * builds the same argv again (the one table serves the operator's builder and the parser). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/argv.h"
#include "pkg/bench/runner_args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

union args {
    struct bench_runner_init init;
    struct bench_runner_run run;
    struct bench_runner_fio fio;
};

/* Builds a into a joined string (caller frees); *av keeps the vector. */
static char *build(enum bench_runner_cmd cmd, const union args *a, struct bench_argv *av)
{
    bench_runner_build(cmd, a, av);
    return bench_argv_join(av);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    enum bench_runner_cmd cmd = (enum bench_runner_cmd)(BENCH_RUNNER_PGBENCH_INIT + data[0] % 3);
    char *buf = malloc(size);
    memcpy(buf, data + 1, size - 1);
    buf[size - 1] = '\0';
    char *argv[65] = {(char *)"cmd"};
    int argc = 1;
    for (char *p = buf; p < buf + size - 1 && argc < 64; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    static union args a, b;
    char err[256];
    err[sizeof(err) - 1] = 'x';
    int rc = bench_runner_parse(cmd, argc, argv, &a, err, sizeof(err) - 1);
    if (err[sizeof(err) - 1] != 'x')
        abort(); /* the message stays within its buffer */
    if (rc == 0) {
        struct bench_argv av = BENCH_ARGV_INIT, av2 = BENCH_ARGV_INIT;
        char *first = build(cmd, &a, &av);
        size_t words = cmd == BENCH_RUNNER_FIO ? 1 : 2;
        if (bench_runner_parse(cmd, (int)(av.argc - words + 1), av.argv + words - 1, &b, err,
                               sizeof(err)) != 0)
            abort(); /* what the builder writes, the parser takes */
        char *second = build(cmd, &b, &av2);
        if (strcmp(first, second) != 0)
            abort(); /* and it means the same */
        free(first);
        free(second);
        bench_runner_cleanup(cmd, &b);
        bench_argv_free(&av);
        bench_argv_free(&av2);
    }
    if (rc >= 0)
        bench_runner_cleanup(cmd, &a);
    free(buf);
    return 0;
}

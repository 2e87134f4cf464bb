/* TLS settings against a real TLS server (openssl s_server, skipped when openssl is absent):
 * CA and client certificate from files and from in-memory blobs (the -data forms), a wrong
 * CA, insecure-skip-tls-verify, and a missing client certificate. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pkg/kube/kube.h"

#define TLS "test/fixtures/kube/tls/"

extern char **environ;

static pid_t server_pid;
static int server_port;

static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    (void)bind(s, (struct sockaddr *)&a, sizeof(a));
    getsockname(s, (struct sockaddr *)&a, &len);
    close(s);
    return ntohs(a.sin_port);
}

static int can_connect(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int ok = connect(s, (struct sockaddr *)&a, sizeof(a)) == 0;
    close(s);
    return ok;
}

static int start_server(void **state)
{
    (void)state;
    if (access("/usr/bin/openssl", X_OK) != 0)
        return 0;
    server_port = free_port();
    char accept[64];
    (void)snprintf(accept, sizeof(accept), "127.0.0.1:%d", server_port);
    static char cert[] = TLS "server.crt", key[] = TLS "server.key", ca[] = TLS "ca.crt";
    char *argv[] = {"openssl", "s_server", "-quiet",  "-www", "-accept", accept, "-cert", cert,
                    "-key",    key,        "-CAfile", ca,     "-Verify", "1",    NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawn(&server_pid, "/usr/bin/openssl", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        server_pid = 0;
        return 0;
    }
    for (int i = 0; i < 100 && !can_connect(server_port); i++)
        nanosleep(&(struct timespec){0, 50000000L}, NULL);
    return 0;
}

static int stop_server(void **state)
{
    (void)state;
    if (server_pid > 0) {
        kill(server_pid, SIGTERM);
        waitpid(server_pid, NULL, 0);
    }
    return 0;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *b = calloc(1, 16384);
    size_t n = fread(b, 1, 16383, f);
    b[n] = '\0';
    (void)fclose(f);
    return b;
}

struct res {
    int done;
    struct kube_status st;
    bool body_ok;
};

static void on_result(struct kube_result *r, void *ud)
{
    struct res *x = ud;
    x->done++;
    x->st = r->status;
    x->body_ok = r->text_len > 0 && strstr(r->text, "s_server") != NULL;
}

static struct res fetch(const struct kube_config *cfg)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    struct kube_client *c;
    assert_int_equal(kube_client_new(&loop, cfg, &c), 0);
    struct res r = {0};
    assert_int_equal(kube_request(c, "GET", "/", NULL, NULL, 5000, on_result, &r), 0);
    while (!r.done)
        uv_run(&loop, UV_RUN_ONCE);
    kube_client_free(c);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    return r;
}

static void test_tls(void **state)
{
    (void)state;
    if (server_pid <= 0 || !can_connect(server_port))
        skip();
    char server[64];
    (void)snprintf(server, sizeof(server), "https://127.0.0.1:%d", server_port);

    /* files */
    struct kube_config cfg = {.server = server,
                              .ca_file = TLS "ca.crt",
                              .cert_file = TLS "client.crt",
                              .key_file = TLS "client.key"};
    struct res r = fetch(&cfg);
    assert_int_equal(r.st.curl, 0);
    assert_int_equal(r.st.http, 200);
    assert_true(r.body_ok);

    /* blobs, as decoded from certificate-authority-data and client-*-data */
    struct kube_config blobs = {.server = server,
                                .ca_data = slurp(TLS "ca.crt"),
                                .cert_data = slurp(TLS "client.crt"),
                                .key_data = slurp(TLS "client.key")};
    r = fetch(&blobs);
    assert_int_equal(r.st.curl, 0);
    assert_int_equal(r.st.http, 200);

    /* no client certificate: the server refuses the handshake */
    struct kube_config nocert = {.server = server, .ca_data = blobs.ca_data};
    r = fetch(&nocert);
    assert_int_equal(r.st.http, 0);
    assert_true(r.st.curl != 0);

    /* a CA that did not sign the server: verification fails ... */
    struct kube_config wrong = blobs;
    wrong.ca_data = NULL;
    wrong.ca_file = "test/fixtures/kube/relative/ca.crt";
    r = fetch(&wrong);
    assert_int_equal(r.st.http, 0);
    assert_int_equal(r.st.curl, 60); /* CURLE_PEER_FAILED_VERIFICATION */
    /* ... unless insecure-skip-tls-verify */
    wrong.insecure_skip_tls_verify = true;
    r = fetch(&wrong);
    assert_int_equal(r.st.curl, 0);
    assert_int_equal(r.st.http, 200);

    free(blobs.ca_data);
    free(blobs.cert_data);
    free(blobs.key_data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_tls)};
    return cmocka_run_group_tests(tests, start_server, stop_server);
}

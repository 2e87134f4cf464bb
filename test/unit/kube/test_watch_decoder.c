/* The watch-stream line decoder: a recorded stream split at every byte offset, byte by byte,
 * and in three pieces gives the same events as the whole stream in one chunk. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kube/kube.h"

#define STREAM "test/fixtures/kube/watch-stream.jsonl"

struct rec {
    char *ev[64];
    int n;
};

static const char *type_name(enum kube_event_type t)
{
    static const char *names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};
    return names[t];
}

static void on_event(enum kube_event_type type, cJSON *obj, void *ud)
{
    struct rec *r = ud;
    assert_true(r->n < 64);
    char *js = cJSON_PrintUnformatted(obj);
    size_t n = strlen(js) + 16;
    r->ev[r->n] = malloc(n);
    (void)snprintf(r->ev[r->n], n, "%s %s", type_name(type), js);
    r->n++;
    free(js);
}

static void rec_free(struct rec *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->ev[i]);
    r->n = 0;
}

static void rec_equal(const struct rec *a, const struct rec *b, const char *what, size_t off)
{
    if (a->n != b->n)
        fail_msg("%s at %zu: %d events, want %d", what, off, b->n, a->n);
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->ev[i], b->ev[i]) != 0)
            fail_msg("%s at %zu: event %d differs", what, off, i);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    (void)fseek(f, 0, SEEK_END);
    long n = ftell(f);
    (void)fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    (void)fclose(f);
    *len = (size_t)n;
    return b;
}

static void whole(const char *data, size_t len, struct rec *out)
{
    struct kube_watch_decoder *d = kube_watch_decoder_new(1 << 20);
    assert_int_equal(kube_watch_decoder_feed(d, data, len, on_event, out), 0);
    kube_watch_decoder_free(d);
}

static void test_recorded_stream(void **state)
{
    (void)state;
    size_t len;
    char *data = slurp(STREAM, &len);
    struct rec ref = {0};
    whole(data, len, &ref);
    assert_int_equal(ref.n, 7);
    const char *want[] = {"ADDED ",    "ADDED ",   "MODIFIED ", "BOOKMARK ",
                          "MODIFIED ", "DELETED ", "ERROR "};
    for (int i = 0; i < 7; i++)
        assert_int_equal(strncmp(ref.ev[i], want[i], strlen(want[i])), 0);
    assert_non_null(strstr(ref.ev[3], "\"resourceVersion\":\"1010\""));
    assert_non_null(strstr(ref.ev[6], "\"code\":410"));
    assert_non_null(strstr(ref.ev[2], "\"resourceVersion\":\"1005\""));
    /* the escaped newline and non-ASCII text survive */
    assert_non_null(strstr(ref.ev[1], "l\xc3\xadnea"));

    /* every split point into two chunks */
    for (size_t i = 0; i <= len; i++) {
        struct rec r = {0};
        struct kube_watch_decoder *d = kube_watch_decoder_new(1 << 20);
        assert_int_equal(kube_watch_decoder_feed(d, data, i, on_event, &r), 0);
        assert_int_equal(kube_watch_decoder_feed(d, data + i, len - i, on_event, &r), 0);
        kube_watch_decoder_free(d);
        rec_equal(&ref, &r, "two chunks", i);
        rec_free(&r);
    }
    /* byte by byte */
    struct rec r = {0};
    struct kube_watch_decoder *d = kube_watch_decoder_new(1 << 20);
    for (size_t i = 0; i < len; i++)
        assert_int_equal(kube_watch_decoder_feed(d, data + i, 1, on_event, &r), 0);
    kube_watch_decoder_free(d);
    rec_equal(&ref, &r, "byte by byte", 0);
    rec_free(&r);
    /* three chunks, a sample of split pairs */
    for (size_t i = 0; i <= len; i += 13) {
        for (size_t j = i; j <= len; j += 61) {
            struct rec r3 = {0};
            d = kube_watch_decoder_new(1 << 20);
            assert_int_equal(kube_watch_decoder_feed(d, data, i, on_event, &r3), 0);
            assert_int_equal(kube_watch_decoder_feed(d, data + i, j - i, on_event, &r3), 0);
            assert_int_equal(kube_watch_decoder_feed(d, data + j, len - j, on_event, &r3), 0);
            kube_watch_decoder_free(d);
            rec_equal(&ref, &r3, "three chunks", i * 100000 + j);
            rec_free(&r3);
        }
    }
    rec_free(&ref);
    free(data);
}

static void test_partial_line_waits(void **state)
{
    (void)state;
    struct rec r = {0};
    struct kube_watch_decoder *d = kube_watch_decoder_new(4096);
    const char *s = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}";
    assert_int_equal(kube_watch_decoder_feed(d, s, strlen(s), on_event, &r), 0);
    assert_int_equal(r.n, 0); /* no newline yet */
    assert_int_equal(kube_watch_decoder_feed(d, "\n\n\r\n", 4, on_event, &r), 0);
    assert_int_equal(r.n, 1);
    kube_watch_decoder_free(d);
    rec_free(&r);
}

static void test_malformed_lines_skipped(void **state)
{
    (void)state;
    struct rec r = {0};
    struct kube_watch_decoder *d = kube_watch_decoder_new(4096);
    const char *s = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n"
                    "{not json\n"
                    "{\"type\":\"SOMETHING\",\"object\":{}}\n"
                    "{\"type\":\"ADDED\"}\n"
                    "[1,2]\n"
                    "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n";
    assert_int_equal(kube_watch_decoder_feed(d, s, strlen(s), on_event, &r), -EBADMSG);
    assert_int_equal(r.n, 2);
    assert_int_equal(strncmp(r.ev[1], "DELETED", 7), 0);
    kube_watch_decoder_free(d);
    rec_free(&r);
}

static void test_line_cap(void **state)
{
    (void)state;
    const char *line = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"abc\"}}}\n";
    size_t n = strlen(line) - 1; /* without the newline */
    struct rec r = {0};
    /* exactly at the cap: fine, in one chunk or split */
    for (size_t split = 0; split <= n + 1; split++) {
        struct kube_watch_decoder *d = kube_watch_decoder_new(n);
        assert_int_equal(kube_watch_decoder_feed(d, line, split, on_event, &r), 0);
        assert_int_equal(kube_watch_decoder_feed(d, line + split, n + 1 - split, on_event, &r), 0);
        kube_watch_decoder_free(d);
    }
    assert_int_equal(r.n, (int)n + 2);
    rec_free(&r);
    /* one byte over: -E2BIG wherever it is split */
    for (size_t split = 0; split <= n + 1; split++) {
        struct kube_watch_decoder *d = kube_watch_decoder_new(n - 1);
        int rc1 = kube_watch_decoder_feed(d, line, split, on_event, &r);
        int rc2 = rc1 ? 0 : kube_watch_decoder_feed(d, line + split, n + 1 - split, on_event, &r);
        assert_true(rc1 == -E2BIG || rc2 == -E2BIG);
        kube_watch_decoder_free(d);
    }
    assert_int_equal(r.n, 0);
}

static cJSON *kept;
static struct kube_watch_decoder *taking;

static void take_event(enum kube_event_type type, cJSON *obj, void *ud)
{
    (void)type;
    (void)ud;
    kube_watch_decoder_take(taking);
    kept = obj;
}

static void test_take_ownership(void **state)
{
    (void)state;
    taking = kube_watch_decoder_new(0);
    const char *s = "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"k\"}}}\n";
    assert_int_equal(kube_watch_decoder_feed(taking, s, strlen(s), take_event, NULL), 0);
    kube_watch_decoder_free(taking);
    assert_non_null(kept);
    cJSON *md = cJSON_GetObjectItem(kept, "metadata");
    assert_string_equal(cJSON_GetObjectItem(md, "name")->valuestring, "k");
    cJSON_Delete(kept);
}

static void test_rv_compare(void **state)
{
    (void)state;
    assert_int_equal(kube_rv_compare("9", "10"), -1);
    assert_int_equal(kube_rv_compare("10", "10"), 0);
    assert_int_equal(kube_rv_compare("100", "99"), 1);
    assert_int_equal(kube_rv_compare("abc", "10"), 2);
    assert_int_equal(kube_rv_compare(NULL, "10"), 2);
    assert_int_equal(kube_rv_compare("", "10"), 2);
    assert_int_equal(kube_rv_compare("99999999999999999999", "1"), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_stream),         cmocka_unit_test(test_partial_line_waits),
        cmocka_unit_test(test_malformed_lines_skipped), cmocka_unit_test(test_line_cap),
        cmocka_unit_test(test_take_ownership),          cmocka_unit_test(test_rv_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/util/json.h"
#include "pkg/util/mem.h"

static cJSON *parse(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    return j;
}

static void test_jget_paths(void **state)
{
    (void)state;
    cJSON *o = parse("{\"a\":{\"b\":{\"c\":7}},\"s\":\"x\",\"arr\":[1],"
                     "\"labels\":{\"pgbench.dev/run\":\"r1\"}}");
    assert_int_equal(util_jget(o, "a.b.c")->valueint, 7);
    assert_null(util_jget(o, "a.b.c.d")); /* c is a number, not an object */
    assert_null(util_jget(o, "a.x"));
    assert_null(util_jget(o, "arr.0")); /* arrays are not walked */
    assert_null(util_jget(NULL, "a"));
    assert_ptr_equal(util_jget(o, ""), o);
    char longkey[200];
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    assert_null(util_jget(o, longkey));
    assert_string_equal(util_jstr(o, "s"), "x");
    assert_null(util_jstr(o, "a.b.c")); /* a number */
    assert_true(util_jnum(o, "a.b.c", -1) == 7);
    assert_true(util_jnum(o, "s", -1) == -1);
    assert_true(util_jnum(o, "none", 2.5) == 2.5);
    /* a key with dots is one member for util_jkey, a path for util_jstr */
    const cJSON *labels = util_jget(o, "labels");
    assert_string_equal(util_jkey(labels, "pgbench.dev/run"), "r1");
    assert_null(util_jstr(labels, "pgbench.dev/run"));
    assert_null(util_jkey(labels, "missing"));
    assert_null(util_jkey(util_jget(o, "arr"), "x"));
    cJSON_Delete(o);
}

static void test_jset_adds_and_replaces(void **state)
{
    (void)state;
    cJSON *o = parse("{\"n\":1,\"s\":\"old\"}");
    util_jset_num(o, "n", 2);
    util_jset_str(o, "s", "new");
    util_jset_str(o, "t", "added");
    util_jset(o, "o", cJSON_CreateObject());
    char *text = cJSON_PrintUnformatted(o);
    assert_string_equal(text, "{\"n\":2,\"s\":\"new\",\"t\":\"added\",\"o\":{}}");
    free(text);
    cJSON_Delete(o);
}

static void assert_json(const cJSON *o, const char *want)
{
    char *text = cJSON_PrintUnformatted(o);
    assert_non_null(text);
    assert_string_equal(text, want);
    free(text);
}

static void test_jkeep_keys(void **state)
{
    (void)state;
    /* the first, the last and two members in a row go; "Spec" is not "spec"; a repeated key that
     * is named stays twice; order is kept */
    cJSON *o = parse("{\"kind\":\"K\",\"metadata\":{\"name\":\"n\",\"uid\":\"u\"},"
                     "\"Spec\":1,\"x\":2,\"status\":{},\"status\":3,\"extra\":[1]}");
    static const char *const keep[] = {"status", "metadata", "spec", NULL};
    util_jkeep_keys(o, keep);
    assert_json(o, "{\"metadata\":{\"name\":\"n\",\"uid\":\"u\"},\"status\":{},\"status\":3}");
    static const char *const name[] = {"name", NULL};
    util_jkeep_keys(cJSON_GetObjectItemCaseSensitive(o, "metadata"), name);
    assert_json(o, "{\"metadata\":{\"name\":\"n\"},\"status\":{},\"status\":3}");
    /* not an object, or absent: nothing happens */
    cJSON *a = parse("[{\"a\":1},2]");
    util_jkeep_keys(a, name);
    assert_json(a, "[{\"a\":1},2]");
    util_jkeep_keys(NULL, name);
    util_jkeep_keys(cJSON_GetObjectItemCaseSensitive(o, "missing"), name);
    /* an empty list empties the object */
    static const char *const none[] = {NULL};
    util_jkeep_keys(o, none);
    assert_json(o, "{}");
    cJSON_Delete(a);
    cJSON_Delete(o);
}

static bool starts_with(const char *key, void *ctx)
{
    return strncmp(key, ctx, strlen(ctx)) == 0;
}

static void test_jkeep_if(void **state)
{
    (void)state;
    cJSON *o = parse("{\"ab\":1,\"b\":2,\"a\":{\"x\":3},\"ba\":4,\"abc\":5}");
    util_jkeep_if(o, starts_with, "a");
    assert_json(o, "{\"ab\":1,\"a\":{\"x\":3},\"abc\":5}");
    util_jkeep_if(o, starts_with, "ab");
    assert_json(o, "{\"ab\":1,\"abc\":5}");
    cJSON_Delete(o);
}

static void test_xalloc(void **state)
{
    (void)state;
    char *s = util_xstrndup("abcdef", 3);
    assert_string_equal(s, "abc");
    char *t = util_xstrdup(s);
    assert_string_equal(t, "abc");
    int *z = util_xcalloc(4, sizeof(int));
    assert_int_equal(z[0] + z[1] + z[2] + z[3], 0);
    z = util_xrealloc(z, 64 * sizeof(int));
    z[63] = 1;
    void *zero = util_xmalloc(0); /* never NULL, even for 0 bytes */
    assert_non_null(zero);
    free(zero);
    free(z);
    free(t);
    free(s);
}

/* Numbers for people: the shortest decimal that reads back, 15 digits at most. */
static void test_fmt_double(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {1742.7, "1742.7"}, /* %.17g: 1742.7000000000000455 */
        {4.752, "4.752"},   /* %.17g: 4.7519999999999998 */
        {0.1, "0.1"},
        {1000, "1000"},
        {-0.0, "0"},
        {1e20, "1e+20"},
        {-2.5, "-2.5"},
        {1e-7, "1e-07"},
        {2.2916514682134688, "2.2916514682134688"}, /* 17 where 17 are needed */
    };
    char b[40];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        util_fmt_double(b, sizeof(b), cases[i].v);
        assert_string_equal(b, cases[i].want);
    }
    util_fmt_double(b, sizeof(b), util_round_digits(2.2916514682134688, 15));
    assert_string_equal(b, "2.29165146821347"); /* a computed mean for people: 15 digits */
    util_fmt_double(b, sizeof(b), NAN);
    assert_string_equal(b, "null");
    /* every decimal of up to 15 digits comes back as written (the inverse, by strtod) */
    uint32_t seed = 7;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1664525u + 1013904223u;
        char in[40];
        (void)snprintf(in, sizeof(in), "%u.%0*u", seed % 100000, (int)(seed % 7) + 1,
                       (seed >> 8) % 1000000u % (unsigned)pow(10, (seed % 7) + 1));
        double v = strtod(in, NULL);
        util_fmt_double(b, sizeof(b), util_round_digits(v, 15));
        assert_true(strtod(b, NULL) == v); /* rounding keeps what was a decimal */
        util_fmt_double(b, sizeof(b), v);
        assert_true(strtod(b, NULL) == v);
        assert_true(strlen(b) <= strlen(in));
    }
}

/* util_json_print: two spaces per level, no tabs, shortest numbers; cJSON reads it back equal. */
static void test_json_print(void **state)
{
    (void)state;
    cJSON *o = parse("{\"a\":[1,2.5,{\"b\":\"x\\ny\"}],\"e\":{},\"l\":[],\"n\":null,\"t\":true,"
                     "\"tps\":1742.7}");
    struct buf out = BUF_INIT(0);
    assert_int_equal(util_json_print(&out, o), 0);
    assert_string_equal(out.data, "{\n"
                                  "  \"a\": [\n"
                                  "    1,\n"
                                  "    2.5,\n"
                                  "    {\n"
                                  "      \"b\": \"x\\ny\"\n"
                                  "    }\n"
                                  "  ],\n"
                                  "  \"e\": {},\n"
                                  "  \"l\": [],\n"
                                  "  \"n\": null,\n"
                                  "  \"t\": true,\n"
                                  "  \"tps\": 1742.7\n"
                                  "}\n");
    cJSON *back = cJSON_Parse(out.data);
    assert_true(cJSON_Compare(o, back, true));
    cJSON_Delete(back);
    cJSON_Delete(o);
    buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jget_paths), cmocka_unit_test(test_jset_adds_and_replaces),
        cmocka_unit_test(test_jkeep_keys), cmocka_unit_test(test_jkeep_if),
        cmocka_unit_test(test_xalloc),     cmocka_unit_test(test_fmt_double),
        cmocka_unit_test(test_json_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

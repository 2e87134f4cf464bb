/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include <stdbool.h>
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
    util_jset(o, "o", util_must(cJSON_CreateObject()));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jget_paths), cmocka_unit_test(test_jset_adds_and_replaces),
        cmocka_unit_test(test_jkeep_keys), cmocka_unit_test(test_jkeep_if),
        cmocka_unit_test(test_xalloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

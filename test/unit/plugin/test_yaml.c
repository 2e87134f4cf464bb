/* plugin_yaml_append: the YAML text of a JSON tree (strings that would read back as another type
 * quoted), and its two real errors: the buffer's cap (-E2BIG) and a string that is not UTF-8
 * (-EINVAL), each leaving no partial document to trust. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pkg/plugin/yaml.h"

static void test_documents(void **state)
{
    (void)state;
    cJSON *o = cJSON_Parse("{\"name\":\"run\",\"flag\":\"true\",\"n\":10,\"x\":2.5,"
                           "\"list\":[1,\"10\"],\"empty\":[],\"on\":null}");
    assert_non_null(o);
    struct buf b = BUF_INIT(0);
    assert_int_equal(plugin_yaml_append(&b, o, 0), 0);
    assert_int_equal(plugin_yaml_append(&b, o, 1), 0);
    static const char doc[] = "name: run\n"
                              "flag: \"true\"\n"
                              "\"n\": 10\n" /* YAML 1.1 reads n as false */
                              "x: 2.5\n"
                              "list:\n"
                              "- 1\n"
                              "- \"10\"\n"
                              "empty: []\n"
                              "\"on\": null\n";
    char want[512];
    (void)snprintf(want, sizeof(want), "%s---\n%s", doc, doc);
    assert_string_equal(b.data, want);
    buf_free(&b);
    cJSON_Delete(o);
}

static void test_errors(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    (void)cJSON_AddStringToObject(o, "message", "0123456789abcdefghij");
    struct buf capped = BUF_INIT(16);
    assert_int_equal(plugin_yaml_append(&capped, o, 0), -E2BIG);
    buf_free(&capped);

    cJSON_Delete(o);
    o = cJSON_CreateObject();
    (void)cJSON_AddStringToObject(o, "message", "bad \xff\xfe byte");
    struct buf b = BUF_INIT(0);
    assert_int_equal(plugin_yaml_append(&b, o, 0), -EINVAL);
    buf_free(&b);
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_documents),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

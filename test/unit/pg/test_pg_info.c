/* Unit tests for pkg/pg/pg_info.c: LSN parsing and the JSON forms. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <string.h>

#include "pkg/pg/pg_info.h"

static void test_lsn_parse(void **state)
{
    (void)state;
    uint64_t v = 0;
    assert_int_equal(pg_lsn_parse("16/B374D848", &v), 0);
    assert_true(v == UINT64_C(0x16B374D848));
    assert_int_equal(pg_lsn_parse("0/0", &v), 0);
    assert_true(v == 0);
    assert_int_equal(pg_lsn_parse("FFFFFFFF/FFFFFFFF", &v), 0);
    assert_true(v == UINT64_MAX);
    assert_int_equal(pg_lsn_parse("", &v), -EINVAL);
    assert_int_equal(pg_lsn_parse(NULL, &v), -EINVAL);
    assert_int_equal(pg_lsn_parse("16", &v), -EINVAL);
    assert_int_equal(pg_lsn_parse("/16", &v), -EINVAL);
    assert_int_equal(pg_lsn_parse("1/", &v), -EINVAL);
    assert_int_equal(pg_lsn_parse("1/2x", &v), -EINVAL);
    assert_int_equal(pg_lsn_parse("100000000/0", &v), -EINVAL);
}

static void test_server_info_json(void **state)
{
    (void)state;
    struct pg_server_info si;
    memset(&si, 0, sizeof(si));
    strcpy(si.version, "15.18");
    si.version_num = 150018;
    si.shared_buffers_bytes = 128 << 20;
    si.database_bytes = 20 << 20;
    strcpy(si.database, "bench");
    si.nsettings = 2;
    strcpy(si.settings[0].name, "shared_buffers");
    strcpy(si.settings[0].value, "128MB");
    strcpy(si.settings[1].name, "fsync");
    strcpy(si.settings[1].value, "off");
    cJSON *j = pg_server_info_to_json(&si);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "version")->valuestring, "15.18");
    cJSON *set = j; /* settings sit beside version */
    assert_string_equal(cJSON_GetObjectItem(set, "shared_buffers")->valuestring, "128MB");
    assert_string_equal(cJSON_GetObjectItem(set, "fsync")->valuestring, "off");
    assert_true(cJSON_GetObjectItem(j, "sharedBuffersBytes")->valuedouble == 134217728.0);
    cJSON_Delete(j);
}

static void test_replica_json(void **state)
{
    (void)state;
    struct pg_replica_wait w;
    memset(&w, 0, sizeof(w));
    w.standby = true;
    w.caught_up = true;
    w.waited_s = 1.5;
    strcpy(w.target_lsn, "0/3000060");
    strcpy(w.message, "standby replayed up to 0/3000060 after 1.5 s");
    cJSON *j = pg_replica_wait_to_json(&w);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "role")->valuestring, "standby");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "caughtUp")));
    assert_null(cJSON_GetObjectItem(j, "standbys"));
    cJSON_Delete(j);
    w.standby = false;
    w.standbys = 2;
    j = pg_replica_wait_to_json(&w);
    assert_string_equal(cJSON_GetObjectItem(j, "role")->valuestring, "primary");
    assert_int_equal(cJSON_GetObjectItem(j, "standbys")->valueint, 2);
    cJSON_Delete(j);
}

static void test_settings_list(void **state)
{
    (void)state;
    /* the settings the issue names are all collected */
    const char *want[] = {"shared_buffers", "max_connections", "synchronous_commit",
                          "fsync",          "wal_level",       "effective_io_concurrency"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        bool found = false;
        for (int k = 0; pg_result_settings[k]; k++)
            if (strcmp(pg_result_settings[k], want[i]) == 0)
                found = true;
        if (!found)
            fail_msg("%s missing", want[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lsn_parse),
        cmocka_unit_test(test_server_info_json),
        cmocka_unit_test(test_replica_json),
        cmocka_unit_test(test_settings_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

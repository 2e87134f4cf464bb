/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/util/buf.h"
#include "pkg/util/log.h"

static void test_append_and_printf(void **state)
{
    (void)state;
    struct buf b = BUF_INIT(0);
    assert_int_equal(buf_puts(&b, "tps="), 0);
    assert_int_equal(buf_printf(&b, "%.1f", 1234.5), 0);
    assert_string_equal(b.data, "tps=1234.5");
    assert_int_equal(b.len, 10);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(buf_append(&b, "x", 1), 0);
    assert_int_equal(b.len, 1010);
    assert_int_equal(b.data[b.len], '\0');
    buf_free(&b);
}

static void test_limit_refuses_and_keeps_content(void **state)
{
    (void)state;
    struct buf b = BUF_INIT(8);
    assert_int_equal(buf_puts(&b, "12345678"), 0);
    assert_int_equal(buf_puts(&b, "9"), -E2BIG);
    assert_int_equal(buf_printf(&b, "%d", 1), -E2BIG);
    assert_string_equal(b.data, "12345678");
    buf_reset(&b);
    assert_int_equal(buf_append(&b, "123456789", 9), -E2BIG);
    assert_int_equal(b.len, 0);
    buf_free(&b);
}

/* The first failure sticks: a later append that would fit does nothing and returns it, so a
 * writer checks once at the end; buf_reset clears it. */
static void test_error_is_sticky(void **state)
{
    (void)state;
    struct buf b = BUF_INIT(8);
    assert_int_equal(buf_puts(&b, "1234"), 0);
    assert_int_equal(b.err, 0);
    assert_int_equal(buf_puts(&b, "56789"), -E2BIG);
    assert_int_equal(buf_puts(&b, "5"), -E2BIG);       /* fits, but an earlier append failed */
    assert_int_equal(buf_printf(&b, "%d", 6), -E2BIG); /* the same for every appender */
    assert_int_equal(buf_json_string(&b, ""), -E2BIG);
    assert_string_equal(b.data, "1234");
    assert_int_equal(b.err, -E2BIG);
    buf_reset(&b);
    assert_int_equal(b.err, 0);
    assert_int_equal(buf_puts(&b, "ok"), 0);
    assert_string_equal(b.data, "ok");
    buf_free(&b);
}

static void test_consume_and_steal(void **state)
{
    (void)state;
    struct buf b = BUF_INIT(0);
    buf_puts(&b, "line1\nline2\n");
    buf_consume(&b, 6);
    assert_string_equal(b.data, "line2\n");
    buf_consume(&b, 100);
    assert_int_equal(b.len, 0);
    buf_puts(&b, "kept");
    char *s = buf_steal(&b);
    assert_string_equal(s, "kept");
    assert_null(b.data);
    free(s);
    s = buf_steal(&b); /* an empty buffer still yields a string */
    assert_string_equal(s, "");
    free(s);
}

static void test_json_string_escapes(void **state)
{
    (void)state;
    struct buf b = BUF_INIT(0);
    assert_int_equal(buf_json_string(&b, "a\"b\\c\n\t\x01"), 0);
    assert_string_equal(b.data, "\"a\\\"b\\\\c\\n\\t\\u0001\"");
    buf_free(&b);

    struct buf small = BUF_INIT(6);
    buf_puts(&small, "x");
    assert_int_equal(buf_json_string(&small, "toolong"), -E2BIG);
    assert_string_equal(small.data, "x"); /* rolled back */
    buf_free(&small);
}

static void test_html(void **state)
{
    (void)state;
    struct buf b = BUF_INIT(0);
    assert_int_equal(buf_put_html(&b, "<a href=\"x?a=1&b=2\">p99 > 5 ms</a>"), 0);
    assert_string_equal(b.data, "&lt;a href=&quot;x?a=1&amp;b=2&quot;&gt;p99 &gt; 5 ms&lt;/a&gt;");
    assert_int_equal(buf_put_html(&b, NULL), 0);
    buf_free(&b);
    struct buf small = BUF_INIT(8); /* a cap refuses, as every append does */
    assert_int_not_equal(buf_put_html(&small, "<<<<<<"), 0);
    buf_free(&small);
}

static void test_log_level_parse(void **state)
{
    (void)state;
    enum log_level l;
    assert_int_equal(log_level_parse("warn", &l), 0);
    assert_int_equal(l, LOG_WARN);
    assert_int_equal(log_level_parse("verbose", &l), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_printf),
        cmocka_unit_test(test_limit_refuses_and_keeps_content),
        cmocka_unit_test(test_error_is_sticky),
        cmocka_unit_test(test_consume_and_steal),
        cmocka_unit_test(test_json_string_escapes),
        cmocka_unit_test(test_html),
        cmocka_unit_test(test_log_level_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* pkg/plugin/chart: ticks on every kind of axis, and the buffer's sticky error through a chart. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/plugin/chart.h"

/* How often needle occurs in s. */
static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* The x tick labels of a chart, in order, joined by spaces. */
static void xticks(const char *svg, char *out, size_t len)
{
    out[0] = '\0';
    for (const char *p = svg; (p = strstr(p, "<text class=\"xt\"")) != NULL; p++) {
        const char *a = strchr(p, '>') + 1, *b = strchr(a, '<');
        size_t used = strlen(out);
        (void)snprintf(out + used, len - used, "%s%.*s", used ? " " : "", (int)(b - a), a);
    }
}

/* x from 1 to 8192 on a log2 axis: 13 doublings, a tick every second one (at most 12 ticks), so
 * the last tick, 16384, lies one doubling past the data: half a step beyond hi still counts. */
static void test_log2_ticks_reach_past_the_data(void **state)
{
    (void)state;
    static const double x[] = {1, 8192}, y[] = {1, 2};
    struct plugin_series s = {.label = "s", .x = x, .y = y, .n = 2};
    struct plugin_chart c = {.id = "c", .title = "t", .xlabel = "x", .ylabel = "y", .log2x = true};
    struct buf out = BUF_INIT(1 << 20);
    assert_int_equal(plugin_line_chart(&out, &c, &s, 1), 0);
    char ticks[256];
    xticks(out.data, ticks, sizeof(ticks));
    assert_string_equal(ticks, "1 4 16 64 256 1024 4096 16384");
    buf_free(&out);
}

/* A linear axis from 0 to 10: 1/2/5 steps, both ends labelled; nines: one tick per nine. */
static void test_linear_and_nines_ticks(void **state)
{
    (void)state;
    static const double x[] = {0, 10}, y[] = {3, 7};
    struct plugin_series s = {.label = "s", .x = x, .y = y, .n = 2};
    struct plugin_chart c = {.id = "c", .title = "t", .xlabel = "x", .ylabel = "y"};
    struct buf out = BUF_INIT(1 << 20);
    char ticks[256];
    assert_int_equal(plugin_line_chart(&out, &c, &s, 1), 0);
    xticks(out.data, ticks, sizeof(ticks));
    assert_string_equal(ticks, "0 2 4 6 8 10");
    buf_reset(&out);
    static const double n[] = {0, 2.5};
    s.x = n;
    c.nines = true;
    assert_int_equal(plugin_line_chart(&out, &c, &s, 1), 0);
    xticks(out.data, ticks, sizeof(ticks));
    assert_string_equal(ticks, "0 90 99 99.9");
    buf_free(&out);
}

/* A chart into a buffer too small for it: -E2BIG, the buffer holds what fitted before the first
 * failure and nothing after it (no later, smaller piece slipped in). */
static void test_full_buffer_stops_the_chart(void **state)
{
    (void)state;
    static const double x[] = {1, 2, 3}, y[] = {1, 2, 3};
    struct plugin_series s = {.label = "s", .x = x, .y = y, .n = 3};
    struct plugin_chart c = {.id = "c", .title = "t", .xlabel = "x", .ylabel = "y"};
    struct buf whole = BUF_INIT(1 << 20);
    assert_int_equal(plugin_line_chart(&whole, &c, &s, 1), 0);
    struct buf part = BUF_INIT(whole.len / 2);
    assert_int_equal(plugin_line_chart(&part, &c, &s, 1), -E2BIG);
    assert_int_equal(part.err, -E2BIG);
    assert_true(part.len <= whole.len / 2);
    assert_memory_equal(part.data, whole.data, part.len); /* a prefix: nothing skipped */
    assert_int_equal(count(part.data, "</svg>"), 0);
    buf_free(&part);
    buf_free(&whole);
}

/* Bars: a row per label, a bar per finite value, escaped labels. */
static void test_bars(void **state)
{
    (void)state;
    static const char *const labels[] = {"a<b", "c"};
    static const double v[] = {1, NAN, 3, 4};
    static const char *const names[] = {"one", "two"};
    struct buf out = BUF_INIT(1 << 20);
    assert_int_equal(plugin_bar_chart(&out, "b", "bars", "ms", labels, v, 2, 2, names), 0);
    assert_int_equal(count(out.data, "<rect class=\"pt bar\""), 3);
    assert_non_null(strstr(out.data, ">a&lt;b</text>"));
    assert_int_equal(count(out.data, "class=\"legend\""), 2);
    buf_reset(&out);
    assert_int_equal(plugin_bar_chart(&out, "b", "bars", "ms", labels, v, 0, 2, names), 0);
    assert_string_equal(out.data, "<p class=\"none\">bars: no data in status.</p>\n");
    buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log2_ticks_reach_past_the_data),
        cmocka_unit_test(test_linear_and_nines_ticks),
        cmocka_unit_test(test_full_buffer_stops_the_chart),
        cmocka_unit_test(test_bars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

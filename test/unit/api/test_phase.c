/* Phases: the name table against the CRD's own status.phase enum (crds/benchmarkrun.yaml, an
 * independent spelling), parse and name as inverses, and the phase shown for an object that has
 * none yet. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/api/phase.h"

static void test_name_parse_inverse(void **state)
{
    (void)state;
    for (int p = 0; p < API_PHASE_COUNT; p++) {
        const char *name = api_phase_name((enum api_phase)p);
        assert_string_not_equal(name, "Unknown");
        assert_int_equal(api_phase_parse(name), p);
    }
    assert_string_equal(api_phase_name(API_PHASE_UNKNOWN), "Unknown");
    assert_string_equal(api_phase_name((enum api_phase)99), "Unknown");
    assert_int_equal(api_phase_parse(NULL), API_PHASE_PENDING);
    assert_int_equal(api_phase_parse("running"), API_PHASE_UNKNOWN); /* exact spelling */
    assert_int_equal(api_phase_parse(""), API_PHASE_UNKNOWN);
}

/* The names in "enum: [A, B, ...]" on the line after the first "phase:" of the CRD's status. */
static int crd_run_phases(char names[][32], int max)
{
    FILE *f = fopen("crds/benchmarkrun.yaml", "r");
    assert_non_null(f);
    char line[512];
    int n = 0, seen_phase = 0;
    while (fgets(line, sizeof(line), f) && n == 0) {
        if (strstr(line, " phase:"))
            seen_phase = 1;
        const char *e = seen_phase ? strstr(line, "enum: [") : NULL;
        if (!e)
            continue;
        for (char *tok = strtok((char *)e + 7, ", ]\n"); tok && n < max;
             tok = strtok(NULL, ", ]\n"))
            (void)snprintf(names[n++], 32, "%s", tok);
    }
    (void)fclose(f);
    return n;
}

static void test_crd_enum(void **state)
{
    (void)state;
    char names[16][32];
    int n = crd_run_phases(names, 16);
    assert_int_equal(n, 6); /* Pending Initializing Running Collecting Succeeded Failed */
    static const enum api_phase run[] = {API_PHASE_PENDING,   API_PHASE_INITIALIZING,
                                         API_PHASE_RUNNING,   API_PHASE_COLLECTING,
                                         API_PHASE_SUCCEEDED, API_PHASE_FAILED};
    for (int i = 0; i < n; i++)
        assert_int_equal(api_phase_parse(names[i]), run[i]);
}

static void test_shown(void **state)
{
    (void)state;
    assert_string_equal(api_phase_shown(NULL), "Pending");
    const char *odd = "Rebalancing"; /* a phase this build does not know is shown as it is */
    assert_ptr_equal(api_phase_shown(odd), odd);
    assert_string_equal(api_phase_shown("Failed"), "Failed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_parse_inverse),
        cmocka_unit_test(test_crd_enum),
        cmocka_unit_test(test_shown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

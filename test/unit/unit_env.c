/* Linked into every unit test binary: the environment a test expects, wherever it is started.
 *  - The working directory is the source tree, so fixture paths ("test/fixtures/...") resolve
 *    when a binary runs from another directory.
 *  - TEST_FILTER=pattern runs only the cmocka cases whose names match (cmocka's * and ?
 *    wildcards), e.g. TEST_FILTER=test_display build/test/controller/test_status.
 *  - cJSON allocates through mem.h (util_json_init), as in every program. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pkg/util/json.h"

#ifndef PGBO_SOURCE_DIR /* the Makefile sets it; "." for tools that compile this file alone */
#define PGBO_SOURCE_DIR "."
#endif

__attribute__((constructor)) static void unit_env(void)
{
    util_json_init();
    if (chdir(PGBO_SOURCE_DIR) != 0)
        perror("unit test: chdir to the source tree " PGBO_SOURCE_DIR);
    const char *filter = getenv("TEST_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
}

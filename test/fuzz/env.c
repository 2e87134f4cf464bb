/* Linked into every fuzz target (scripts/fuzz.sh): the environment the programs run in. cJSON
 * allocates through mem.h (util_json_init), as in every main, so a target exercises the same
 * total constructors. */
#include "pkg/util/json.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    util_json_init();
    return 0;
}

/* The names of the phases (see phase.h). */
#include "pkg/controller/phase.h"

#include <string.h>

static const char *const PHASE_NAMES[CTRL_PHASE_COUNT] = {
    [CTRL_PHASE_PENDING] = "Pending",     [CTRL_PHASE_INITIALIZING] = "Initializing",
    [CTRL_PHASE_RUNNING] = "Running",     [CTRL_PHASE_COLLECTING] = "Collecting",
    [CTRL_PHASE_SUCCEEDED] = "Succeeded", [CTRL_PHASE_STOPPED] = "Stopped",
    [CTRL_PHASE_FAILED] = "Failed",
};

const char *ctrl_phase_name(enum ctrl_phase p)
{
    return (unsigned)p < CTRL_PHASE_COUNT ? PHASE_NAMES[p] : "Unknown";
}

enum ctrl_phase ctrl_phase_parse(const char *s)
{
    if (!s)
        return CTRL_PHASE_PENDING;
    for (int i = 0; i < CTRL_PHASE_COUNT; i++)
        if (strcmp(s, PHASE_NAMES[i]) == 0)
            return (enum ctrl_phase)i;
    return CTRL_PHASE_UNKNOWN;
}

const char *ctrl_phase_shown(const char *phase)
{
    return phase ? phase : PHASE_NAMES[CTRL_PHASE_PENDING];
}

bool ctrl_phase_done(enum ctrl_phase p)
{
    return p == CTRL_PHASE_SUCCEEDED || p == CTRL_PHASE_STOPPED || p == CTRL_PHASE_FAILED;
}

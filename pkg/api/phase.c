/* The names of the phases (see phase.h). */
#include "pkg/api/phase.h"

#include <string.h>

static const char *const PHASE_NAMES[API_PHASE_COUNT] = {
    [API_PHASE_PENDING] = "Pending",     [API_PHASE_INITIALIZING] = "Initializing",
    [API_PHASE_RUNNING] = "Running",     [API_PHASE_COLLECTING] = "Collecting",
    [API_PHASE_SUCCEEDED] = "Succeeded", [API_PHASE_STOPPED] = "Stopped",
    [API_PHASE_FAILED] = "Failed",
};

const enum api_phase api_run_phases[API_RUN_NPHASES] = {API_PHASE_PENDING,   API_PHASE_INITIALIZING,
                                                        API_PHASE_RUNNING,   API_PHASE_COLLECTING,
                                                        API_PHASE_SUCCEEDED, API_PHASE_FAILED};
const enum api_phase api_sweep_phases[API_SWEEP_NPHASES] = {
    API_PHASE_PENDING, API_PHASE_RUNNING, API_PHASE_SUCCEEDED, API_PHASE_STOPPED, API_PHASE_FAILED};

const char *api_phase_name(enum api_phase p)
{
    return (unsigned)p < API_PHASE_COUNT ? PHASE_NAMES[p] : "Unknown";
}

enum api_phase api_phase_parse(const char *s)
{
    if (!s)
        return API_PHASE_PENDING;
    for (int i = 0; i < API_PHASE_COUNT; i++)
        if (strcmp(s, PHASE_NAMES[i]) == 0)
            return (enum api_phase)i;
    return API_PHASE_UNKNOWN;
}

const char *api_phase_shown(const char *phase)
{
    return phase ? phase : PHASE_NAMES[API_PHASE_PENDING];
}

bool api_phase_done(enum api_phase p)
{
    return p == API_PHASE_SUCCEEDED || p == API_PHASE_STOPPED || p == API_PHASE_FAILED;
}

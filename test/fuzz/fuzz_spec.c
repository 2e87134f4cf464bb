/* fuzz-package: controller */
/* The BenchmarkRun spec is user input: parse it, and when it is valid, build every manifest and
 * run the state machine once on it. Nothing may crash, leak or read out of bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/api/manifest.h"
#include "pkg/controller/reconcile.h"
#include "pkg/api/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *spec = cJSON_ParseWithLength((const char *)data, size);
    if (!spec)
        return 0;
    struct api_spec s;
    char err[512];
    if (api_spec_parse(spec, &s, err, sizeof(err)) == 0) {
        cJSON *br = cJSON_CreateObject();
        cJSON *md = cJSON_AddObjectToObject(br, "metadata");
        cJSON_AddStringToObject(md, "name", "fz");
        cJSON_AddStringToObject(md, "namespace", "ns");
        cJSON_AddStringToObject(md, "uid", "u");
        cJSON_AddNumberToObject(md, "generation", 1);
        cJSON_AddItemToObject(br, "spec", cJSON_Duplicate(spec, 1));
        struct api_config cfg;
        api_config_defaults(&cfg);
        cJSON_Delete(api_manifest_init_job(br, &s, &cfg));
        cJSON_Delete(api_manifest_run_job(br, &s, &cfg, 1));
        if (s.workload == API_WL_FIO)
            cJSON_Delete(api_manifest_fio_pvc(br, &s));
        if (s.hpa)
            cJSON_Delete(api_manifest_hpa(br, &s));
        struct ctrl_observed *o = calloc(1, sizeof(*o));
        if (o) {
            o->br = br;
            o->cfg = &cfg;
            o->now = 1.8e9;
            o->scale_target = CTRL_FETCH_OK;
            struct ctrl_plan p;
            if (ctrl_decide(o, &p) == 0)
                ctrl_plan_free(&p);
            free(o);
        }
        cJSON_Delete(br);
        api_spec_free(&s);
    }
    cJSON_Delete(spec);
    return 0;
}

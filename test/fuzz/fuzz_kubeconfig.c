/* fuzz-package: kube */
/* The kubeconfig parser on arbitrary YAML: no crash, no leak, and an error always comes with a
 * message that names the source. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kube/kube.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *contexts[] = {NULL, "a", "kind-kind", "default"};
    for (size_t i = 0; i < sizeof(contexts) / sizeof(contexts[0]); i++) {
        char err[512] = "";
        struct kube_config *cfg = NULL;
        int rc = kube_config_from_yaml((const char *)data, size, "fuzz.yaml", contexts[i], &cfg,
                                       err, sizeof(err));
        if (rc == 0) {
            if (!cfg || !cfg->server || !cfg->namespace || !cfg->context)
                abort();
            kube_config_free(cfg);
        } else if (cfg || strncmp(err, "fuzz.yaml: ", 11) != 0) {
            abort();
        }
    }
    return 0;
}

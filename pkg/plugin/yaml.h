/* pkg/plugin/yaml: JSON trees written as YAML documents (libyaml's emitter does the quoting). */
#ifndef PGBO_PLUGIN_YAML_H
#define PGBO_PLUGIN_YAML_H

#include <cjson/cJSON.h>

#include "pkg/util/buf.h"

/* Appends obj as one YAML document ("---" first when `start` is set). Returns 0, -E2BIG (the
 * buffer's cap) or -EINVAL (a string that is not UTF-8); allocation failure aborts (mem.h). */
int plugin_yaml_append(struct buf *out, const cJSON *obj, int start);

#endif

/* cJSON -> YAML through libyaml's event emitter. */
#include "pkg/plugin/yaml.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "pkg/util/json.h"
#include "pkg/util/mem.h"

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    return buf_append(data, buffer, size) == 0;
}

static int scalar(yaml_emitter_t *em, const char *v, bool plain_ok)
{
    yaml_event_t ev;
    /* strings that would read back as another type are quoted (plain_implicit = 0 forces it for
     * the resolver's sake: "true", "10", "1e3" stay strings) */
    /* it refuses a string that is not UTF-8 (or fails for memory): ev is then not set */
    if (!yaml_scalar_event_initialize(
            &ev, NULL, NULL, (yaml_char_t *)v, (int)strlen(v), plain_ok, !plain_ok,
            plain_ok ? YAML_ANY_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE))
        return 0;
    return yaml_emitter_emit(em, &ev);
}

static bool looks_typed(const char *s)
{
    if (!*s)
        return true;
    static const char *const words[] = {"true", "false", "yes",   "no",    "on",  "off", "null",
                                        "~",    "True",  "False", "Yes",   "No",  "On",  "Off",
                                        "Null", "NULL",  "TRUE",  "FALSE", "YES", "NO",  "ON",
                                        "OFF",  "y",     "n",     "Y",     "N"};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strcmp(s, words[i]) == 0)
            return true;
    char *end;
    (void)strtod(s, &end);
    if (*end == '\0')
        return true;
    return (s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) || s[0] == '.' || s[0] == '+';
}

static int node(yaml_emitter_t *em, const cJSON *j)
{
    yaml_event_t ev;
    if (cJSON_IsObject(j)) {
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
        if (!yaml_emitter_emit(em, &ev))
            return 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, j)
        {
            if (!scalar(em, it->string, !looks_typed(it->string)) || !node(em, it))
                return 0;
        }
        yaml_mapping_end_event_initialize(&ev);
        return yaml_emitter_emit(em, &ev);
    }
    if (cJSON_IsArray(j)) {
        yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                             cJSON_GetArraySize(j) ? YAML_BLOCK_SEQUENCE_STYLE
                                                                   : YAML_FLOW_SEQUENCE_STYLE);
        if (!yaml_emitter_emit(em, &ev))
            return 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, j)
        {
            if (!node(em, it))
                return 0;
        }
        yaml_sequence_end_event_initialize(&ev);
        return yaml_emitter_emit(em, &ev);
    }
    if (cJSON_IsString(j))
        return scalar(em, j->valuestring, !looks_typed(j->valuestring));
    char b[64];
    if (cJSON_IsNumber(j)) {
        util_fmt_double(b, sizeof(b), j->valuedouble);
    } else if (cJSON_IsBool(j)) {
        (void)snprintf(b, sizeof(b), "%s", cJSON_IsTrue(j) ? "true" : "false");
    } else {
        (void)snprintf(b, sizeof(b), "null");
    }
    return scalar(em, b, true);
}

int plugin_yaml_append(struct buf *out, const cJSON *obj, int start)
{
    yaml_emitter_t em;
    yaml_event_t ev;
    int ok = 0;
    if (!yaml_emitter_initialize(&em))
        util_oom(sizeof(em)); /* it fails only for memory */
    yaml_emitter_set_output(&em, write_handler, out);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, 4096);
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    if (!yaml_emitter_emit(&em, &ev))
        goto out;
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, !start);
    if (!yaml_emitter_emit(&em, &ev) || !node(&em, obj))
        goto out;
    yaml_document_end_event_initialize(&ev, 1);
    if (!yaml_emitter_emit(&em, &ev))
        goto out;
    yaml_stream_end_event_initialize(&ev);
    ok = yaml_emitter_emit(&em, &ev) && yaml_emitter_flush(&em);
out:
    if (!ok && em.error == YAML_MEMORY_ERROR)
        util_oom(0);
    /* the writer fails only at out's cap; else a string libyaml refused (not UTF-8) */
    int rc = ok ? 0 : em.error == YAML_WRITER_ERROR ? -E2BIG : -EINVAL;
    yaml_emitter_delete(&em); /* it clears em */
    return rc;
}

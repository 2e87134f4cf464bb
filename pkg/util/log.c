#include "pkg/util/log.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pkg/util/buf.h"
#include "pkg/util/clock.h"

static enum log_level min_level = LOG_INFO;
static enum log_format format = LOG_FORMAT_JSON;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

void log_set_level(enum log_level level)
{
    min_level = level;
}

void log_set_format(enum log_format f)
{
    format = f;
}

int log_level_parse(const char *name, enum log_level *out)
{
    for (int i = 0; i < 4; i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *out = (enum log_level)i;
            return 0;
        }
    }
    return -1;
}

static void emit(enum log_level level, const char *component, const char *key, const char *json,
                 const char *fmt, va_list ap)
{
    if (level < min_level)
        return;
    char msg[2048];
    (void)vsnprintf(msg, sizeof(msg), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)

    char when[UTIL_RFC3339_LEN];
    util_rfc3339(util_wall_s(), 3, when, sizeof(when));

    if (format == LOG_FORMAT_TEXT) {
        (void)fprintf(stderr, "%s %-5s %s: %s%s%s\n", when, level_names[level], component, msg,
                      key ? " " : "", key ? json : "");
        return;
    }
    /* a message is capped at 2 KiB above; the line itself is not capped */
    struct buf line = BUF_INIT(0);
    int rc = buf_printf(&line, "{\"ts\":\"%s\",\"level\":\"%s\",\"component\":", when,
                        level_names[level]);
    rc = rc ? rc : buf_json_string(&line, component);
    rc = rc ? rc : buf_puts(&line, ",\"msg\":");
    rc = rc ? rc : buf_json_string(&line, msg);
    if (key) {
        rc = rc ? rc : buf_puts(&line, ",");
        rc = rc ? rc : buf_json_string(&line, key);
        rc = rc ? rc : buf_printf(&line, ":%s", json);
    }
    rc = rc ? rc : buf_puts(&line, "}\n");
    if (rc == 0)
        (void)fwrite(line.data, 1, line.len, stderr);
    buf_free(&line);
}

void log_vmsg(enum log_level level, const char *component, const char *fmt, va_list ap)
{
    emit(level, component, NULL, NULL, fmt, ap);
}

void log_record(enum log_level level, const char *component, const char *key, const char *json,
                const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(level, component, key, json && *json ? json : "null", fmt, ap);
    va_end(ap);
}

void log_msg(enum log_level level, const char *component, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vmsg(level, component, fmt, ap);
    va_end(ap);
}

#include "pkg/util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/util/buf.h"
#include "pkg/util/clock.h"
#include "pkg/util/err.h"
#include "pkg/util/opt.h"

static enum log_level min_level = LOG_INFO;
static enum log_format format = LOG_FORMAT_JSON;

static const char *const level_names[] = {"debug", "info", "warn", "error", NULL};
static const char *const format_names[] = {"json", "text", NULL};

static const struct util_opt flag_rows[] = {
    {.name = "log-level",
     .type = UTIL_OPT_CHOICE,
     .off = offsetof(struct log_flags, level),
     .choices = level_names,
     .metavar = "debug|info|warn|error",
     .group = "logging",
     .help = "the least severe records written (default info)"},
    {.name = "log-format",
     .type = UTIL_OPT_CHOICE,
     .off = offsetof(struct log_flags, format),
     .choices = format_names,
     .metavar = "json|text",
     .group = "logging",
     .help = "one JSON object per line, or text (default json)"},
};

const struct util_opt *log_flag_rows(size_t *n)
{
    *n = UTIL_OPT_N(flag_rows);
    return flag_rows;
}

int log_flags_apply(const struct log_flags *f, const char *level_env, const char *format_env,
                    char *err, size_t errlen)
{
    const char *lvl = f->level ? f->level : level_env ? getenv(level_env) : NULL;
    const char *fmt = f->format ? f->format : format_env ? getenv(format_env) : NULL;
    enum log_level l = LOG_INFO;
    if (lvl && log_level_parse(lvl, &l) != 0)
        return util_errf(err, errlen, "%s \"%s\": expected one of debug, info, warn, error",
                         level_env, lvl);
    if (fmt && strcmp(fmt, "json") != 0 && strcmp(fmt, "text") != 0)
        return util_errf(err, errlen, "%s \"%s\": expected one of json, text", format_env, fmt);
    log_set_level(l);
    log_set_format(fmt && strcmp(fmt, "text") == 0 ? LOG_FORMAT_TEXT : LOG_FORMAT_JSON);
    return 0;
}

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

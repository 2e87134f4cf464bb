#include "pkg/util/log.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pkg/util/buf.h"

static enum log_level min_level = LOG_INFO;
static enum log_format format = LOG_FORMAT_JSON;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

void log_set_level(enum log_level level) { min_level = level; }

void log_set_format(enum log_format f) { format = f; }

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

void log_vmsg(enum log_level level, const char *component, const char *fmt, va_list ap)
{
    if (level < min_level)
        return;
    char msg[2048];
    vsnprintf(msg, sizeof(msg), fmt, ap);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[40];
    size_t n = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + n, sizeof(when) - n, ".%03ldZ", ts.tv_nsec / 1000000);

    if (format == LOG_FORMAT_TEXT) {
        fprintf(stderr, "%s %-5s %s: %s\n", when, level_names[level], component, msg);
        return;
    }
    struct buf line = BUF_INIT(sizeof(msg) * 2);
    buf_printf(&line, "{\"ts\":\"%s\",\"level\":\"%s\",\"component\":", when, level_names[level]);
    buf_json_string(&line, component);
    buf_puts(&line, ",\"msg\":");
    buf_json_string(&line, msg);
    buf_puts(&line, "}\n");
    fwrite(line.data, 1, line.len, stderr);
    buf_free(&line);
}

void log_msg(enum log_level level, const char *component, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vmsg(level, component, fmt, ap);
    va_end(ap);
}

/* One logger for the whole program. Packages never print; they call these.
 * Output is one JSON object per line on stderr (or plain text with log_set_format). Owns the
 * level, the format and the line; knows nothing of what is logged (callers redact secrets first,
 * redact.h). */
#ifndef PGBO_UTIL_LOG_H
#define PGBO_UTIL_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum log_level { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR };
enum log_format { LOG_FORMAT_JSON = 0, LOG_FORMAT_TEXT };

void log_set_level(enum log_level level);
void log_set_format(enum log_format format);
/* Parses "debug", "info", "warn", "error"; returns -1 on an unknown name. */
int log_level_parse(const char *name, enum log_level *out);

/* --log-level and --log-format, as every program that takes them spells them: two rows
 * (pkg/util/opt.h) over struct log_flags, NULL where a flag is not given. */
struct util_opt;
struct log_flags {
    const char *level;  /* one of debug, info, warn, error */
    const char *format; /* json or text */
};
const struct util_opt *log_flag_rows(size_t *n);
/* Sets the level and the format: each flag's value, else the environment variable's named by
 * level_env / format_env (NULL: none), else info and json. Returns 0, or -EINVAL with err naming a
 * refused value (only an environment's can be: the rows check the flags'). */
int log_flags_apply(const struct log_flags *f, const char *level_env, const char *format_env,
                    char *err, size_t errlen);

/* One event, one line: "ts", "level", "component" and the formatted "msg" (capped at 2 KiB). A
 * record another program reads carries its fields through log_record. */
void log_msg(enum log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void log_vmsg(enum log_level level, const char *component, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* log_msg with one more member in the JSON line, "key": json, where json is a JSON text the caller
 * rendered (e.g. {"t":5,"tps":812.3}): a record another program reads from the log, such as the
 * runner's live progress that the operator follows. In text format it follows the message. */
void log_record(enum log_level level, const char *component, const char *key, const char *json,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#define log_debug(comp, ...) log_msg(LOG_DEBUG, comp, __VA_ARGS__)
#define log_info(comp, ...) log_msg(LOG_INFO, comp, __VA_ARGS__)
#define log_warn(comp, ...) log_msg(LOG_WARN, comp, __VA_ARGS__)
#define log_error(comp, ...) log_msg(LOG_ERROR, comp, __VA_ARGS__)

#endif

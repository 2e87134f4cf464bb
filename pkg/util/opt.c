/* Command-line flags from one table per command: defaults, parser, errors, help and synopsis. */
#include "pkg/util/opt.h"
#include "pkg/util/buf.h"
#include "pkg/util/err.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD(base, off, type) ((type *)(void *)((char *)(base) + (off)))

/* ---------------------------------------------------------------------------------------------
 * Defaults and storing one value
 * ------------------------------------------------------------------------------------------- */

void util_opt_defaults(const struct util_opt_set *sets, size_t nsets)
{
    for (size_t s = 0; s < nsets; s++) {
        for (size_t i = 0; i < sets[s].n; i++) {
            const struct util_opt *o = &sets[s].rows[i];
            void *b = sets[s].base;
            switch (o->type) {
            case UTIL_OPT_BOOL:
                *FIELD(b, o->off, bool) = false;
                break;
            case UTIL_OPT_INT:
                *FIELD(b, o->off, int) = (int)o->def;
                break;
            case UTIL_OPT_LONG:
                *FIELD(b, o->off, long) = (long)o->def;
                break;
            case UTIL_OPT_INT64:
                *FIELD(b, o->off, int64_t) = (int64_t)o->def;
                break;
            case UTIL_OPT_DOUBLE:
                *FIELD(b, o->off, double) = o->def;
                break;
            case UTIL_OPT_STR:
                if (o->flags & UTIL_OPT_MULTI)
                    *FIELD(b, o->off_n, size_t) = 0;
                else
                    *FIELD(b, o->off, const char *) = o->def_str;
                break;
            case UTIL_OPT_CHOICE:
                *FIELD(b, o->off, const char *) = o->def_str;
                break;
            case UTIL_OPT_ENUM:
                *FIELD(b, o->off, int) = (int)o->def;
                break;
            case UTIL_OPT_CALL: /* the caller's own field: its own default */
                break;
            }
        }
    }
}

/* What a value of the row's type must be, for util_opt_bad: "an integer 1..256". */
static void expected(const struct util_opt *o, char *out, size_t len)
{
    size_t n = 0;
    if (o->expect) {
        (void)snprintf(out, len, "%s", o->expect);
        return;
    }
    switch (o->type) {
    case UTIL_OPT_INT:
    case UTIL_OPT_LONG:
    case UTIL_OPT_INT64:
        (void)snprintf(out, len, "an integer %.0f..%.0f", o->min, o->max);
        return;
    case UTIL_OPT_DOUBLE:
        (void)snprintf(out, len, "a number %g..%g", o->min, o->max);
        return;
    case UTIL_OPT_CHOICE:
    case UTIL_OPT_ENUM:
        out[0] = '\0';
        for (size_t i = 0;; i++) {
            const char *w = o->type == UTIL_OPT_CHOICE ? o->choices[i] : o->enums[i].name;
            if (!w)
                break;
            n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", i ? ", " : "one of ", w);
        }
        return;
    default:
        (void)snprintf(out, len, "%s", o->metavar ? o->metavar : "a value");
        return;
    }
}

int util_opt_bad(const struct util_opt *o, const char *flag, const char *value, char *err,
                 size_t errlen)
{
    char want[512];
    expected(o, want, sizeof(want));
    size_t fl = strlen(flag);
    bool eq = fl > 0 && flag[fl - 1] == '=';
    return util_errf(err, errlen, "%s%s\"%s\": expected %s", flag, eq ? "" : " ", value, want);
}

static int store_integer(const struct util_opt *o, void *base, const char *flag, const char *v,
                         char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end || (double)n < o->min || (double)n > o->max)
        return util_opt_bad(o, flag, v, err, errlen);
    if (o->type == UTIL_OPT_INT)
        *FIELD(base, o->off, int) = (int)n;
    else if (o->type == UTIL_OPT_LONG)
        *FIELD(base, o->off, long) = (long)n;
    else
        *FIELD(base, o->off, int64_t) = (int64_t)n;
    return 0;
}

static int store_word(const struct util_opt *o, void *base, const char *flag, const char *v,
                      char *err, size_t errlen)
{
    for (size_t i = 0; o->type == UTIL_OPT_CHOICE && o->choices[i]; i++) {
        if (strcmp(o->choices[i], v) == 0) {
            *FIELD(base, o->off, const char *) = o->choices[i];
            return 0;
        }
    }
    for (size_t i = 0; o->type == UTIL_OPT_ENUM && o->enums[i].name; i++) {
        if (strcmp(o->enums[i].name, v) == 0) {
            *FIELD(base, o->off, int) = o->enums[i].value;
            return 0;
        }
    }
    return util_opt_bad(o, flag, v, err, errlen);
}

int util_opt_store(const struct util_opt *o, void *base, const char *flag, const char *value,
                   char *err, size_t errlen)
{
    char *end;
    if (!value && o->type != UTIL_OPT_BOOL && o->type != UTIL_OPT_CALL)
        return util_errf(err, errlen, "--%s needs a value", o->name);
    switch (o->type) {
    case UTIL_OPT_BOOL:
        *FIELD(base, o->off, bool) = true;
        return 0;
    case UTIL_OPT_INT:
    case UTIL_OPT_LONG:
    case UTIL_OPT_INT64:
        return store_integer(o, base, flag, value, err, errlen);
    case UTIL_OPT_DOUBLE: {
        double d = strtod(value, &end);
        if (*end || end == value || !(d >= o->min) || !(d <= o->max))
            return util_opt_bad(o, flag, value, err, errlen);
        *FIELD(base, o->off, double) = d;
        return 0;
    }
    case UTIL_OPT_STR:
        if (o->flags & UTIL_OPT_MULTI) {
            size_t *n = FIELD(base, o->off_n, size_t);
            if ((double)*n >= o->max)
                return util_errf(err, errlen, "--%s: at most %.0f", o->name, o->max);
            FIELD(base, o->off, const char *)[(*n)++] = value;
            return 0;
        }
        *FIELD(base, o->off, const char *) = value;
        return 0;
    case UTIL_OPT_CHOICE:
    case UTIL_OPT_ENUM:
        return store_word(o, base, flag, value, err, errlen);
    case UTIL_OPT_CALL:
        return o->cb(base, o, flag, value, err, errlen);
    }
    abort();
}

/* ---------------------------------------------------------------------------------------------
 * Finding rows, suggestions
 * ------------------------------------------------------------------------------------------- */

static bool named(const char *name, const char *s, size_t len)
{
    return name && strlen(name) == len && strncmp(name, s, len) == 0;
}

const struct util_opt *util_opt_find(const struct util_opt_set *sets, size_t nsets,
                                     const char *name, size_t len, size_t *set)
{
    for (size_t s = 0; s < nsets; s++) {
        for (size_t i = 0; i < sets[s].n; i++) {
            const struct util_opt *o = &sets[s].rows[i];
            if (named(o->name, name, len) || named(o->alias, name, len)) {
                if (set)
                    *set = s;
                return o;
            }
        }
    }
    return NULL;
}

static const struct util_opt *find_short(const struct util_opt_set *sets, size_t nsets, char c,
                                         size_t *set)
{
    for (size_t s = 0; s < nsets; s++) {
        for (size_t i = 0; i < sets[s].n; i++) {
            if (c && sets[s].rows[i].shrt == c) {
                *set = s;
                return &sets[s].rows[i];
            }
        }
    }
    return NULL;
}

size_t util_opt_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64];
    if (lb >= sizeof(row) / sizeof(row[0]))
        return la + lb;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *util_opt_suggest(const char *word, const char *const *candidates)
{
    const char *best = NULL;
    size_t best_d = 3, lw = strlen(word);
    for (size_t i = 0; candidates[i]; i++) {
        size_t d = util_opt_distance(word, candidates[i]);
        if (lw && strncmp(candidates[i], word, lw) == 0 && d > 2)
            d = 2; /* a prefix of the name */
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best;
}

/* "unknown flag --wrokers (did you mean --workers?)" */
static int unknown_flag(const struct util_opt_parse *p, const char *arg, char *err, size_t errlen)
{
    char name[64];
    size_t len = strcspn(arg, "=");
    (void)snprintf(name, sizeof(name), "%.*s", (int)len, arg);
    const char *cands[256];
    size_t n = 0;
    for (size_t s = 0; s < p->nsets; s++)
        for (size_t i = 0; i < p->sets[s].n && n + 1 < sizeof(cands) / sizeof(cands[0]); i++)
            cands[n++] = p->sets[s].rows[i].name;
    cands[n] = NULL;
    const char *near = strncmp(name, "--", 2) == 0 ? util_opt_suggest(name + 2, cands) : NULL;
    if (near)
        (void)util_errf(err, errlen, "unknown flag %s (did you mean --%s?)", name, near);
    else
        (void)util_errf(err, errlen, "unknown flag %s", name);
    return -ENOENT;
}

/* ---------------------------------------------------------------------------------------------
 * Parser
 * ------------------------------------------------------------------------------------------- */

static bool takes_value(const struct util_opt *o)
{
    if (o->type == UTIL_OPT_BOOL)
        return false;
    if (o->type == UTIL_OPT_CALL)
        return (o->flags & UTIL_OPT_VALUE) != 0;
    return true;
}

struct pstate {
    struct util_opt_parse *p;
    int argc;
    char **argv;
    int i;       /* the word being read */
    bool **seen; /* per set, per row */
    char *err;
    size_t errlen;
};

/* "--x needs a value (N)" */
static int needs_value(struct pstate *st, const struct util_opt *o, const char *flag)
{
    return util_errf(st->err, st->errlen, "%s needs a value%s%s%s", flag, o->metavar ? " (" : "",
                     o->metavar ? o->metavar : "", o->metavar ? ")" : "");
}

/* The row o of set s met as flag with value v: stored. */
static int apply(struct pstate *st, size_t s, const struct util_opt *o, const char *flag,
                 const char *v)
{
    void *base = st->p->sets[s].base;
    st->seen[s][o - st->p->sets[s].rows] = true;
    if (st->p->before) {
        int rc = st->p->before(st->p->ctx, o, &base, st->err, st->errlen);
        if (rc)
            return rc;
    }
    return util_opt_store(o, base, flag, v, st->err, st->errlen);
}

static int unknown(struct pstate *st)
{
    struct util_opt_parse *p = st->p;
    if (!p->unknown)
        return unknown_flag(p, st->argv[st->i], st->err, st->errlen);
    int used = 0;
    int rc = p->unknown(p->ctx, st->argv + st->i, st->argc - st->i, &used, st->err, st->errlen);
    if (!rc)
        st->i += used > 0 ? used : 1;
    return rc;
}

/* getopt_long's abbreviations: the one row whose name (or alias) begins with name[0..len).
 * NULL when none does; -EINVAL in *rc when several do. */
static const struct util_opt *abbreviated(struct pstate *st, const char *name, size_t len,
                                          size_t *set, int *rc)
{
    const struct util_opt *found = NULL;
    for (size_t s = 0; s < st->p->nsets; s++) {
        for (size_t i = 0; i < st->p->sets[s].n; i++) {
            const struct util_opt *o = &st->p->sets[s].rows[i];
            bool match =
                strncmp(o->name, name, len) == 0 || (o->alias && strncmp(o->alias, name, len) == 0);
            if (!match || (found && strcmp(found->name, o->name) == 0))
                continue; /* a later set's row of that name is shadowed */
            if (found) {
                *rc = util_errf(st->err, st->errlen, "--%.*s is ambiguous (--%s, --%s)", (int)len,
                                name, found->name, o->name);
                return NULL;
            }
            found = o;
            *set = s;
        }
    }
    return found;
}

/* --name, --name=V, --name V at argv[i]. */
static int long_flag(struct pstate *st)
{
    const char *a = st->argv[st->i], *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name), s = 0;
    const struct util_opt *o = util_opt_find(st->p->sets, st->p->nsets, name, len, &s);
    int rc = 0;
    if (!o && st->p->abbrev && len > 0)
        o = abbreviated(st, name, len, &s, &rc);
    if (rc)
        return rc;
    if (!o)
        return unknown(st);
    if (!named(o->name, name, len) && !named(o->alias, name, len))
        name = o->name, len = strlen(o->name); /* messages name the flag in full */
    char flag[80];
    (void)snprintf(flag, sizeof(flag), "--%.*s%s", (int)(len < 70 ? len : 70), name, eq ? "=" : "");
    const char *v = NULL;
    if (!takes_value(o)) {
        if (eq)
            return util_errf(st->err, st->errlen, "--%.*s takes no value", (int)len, name);
    } else if (eq) {
        v = eq + 1;
    } else if (o->flags & UTIL_OPT_OPTIONAL) {
        v = o->implied;
    } else if (st->i + 1 < st->argc) {
        v = st->argv[++st->i];
    } else {
        return needs_value(st, o, flag);
    }
    st->i++;
    return apply(st, s, o, flag, v);
}

/* -s, -sV, -s=V, -s V at argv[i]; with bundles, -nr. */
static int short_flags(struct pstate *st)
{
    const char *a = st->argv[st->i];
    for (const char *c = a + 1; *c; c++) {
        size_t s = 0;
        const struct util_opt *o = find_short(st->p->sets, st->p->nsets, *c, &s);
        if (!o && c == a + 1)
            return unknown(st);
        if (!o) /* inside a bundle: name the flag alone */
            return util_errf(st->err, st->errlen, "-%c (in %s): write it as its own argument", *c,
                             a);
        char flag[3] = {'-', *c, '\0'};
        if (!takes_value(o)) {
            if (c[1] && !st->p->bundles)
                return unknown(st);
            int rc = apply(st, s, o, flag, NULL);
            if (rc)
                return rc;
            continue;
        }
        const char *v;
        if (c[1])
            v = c + 1 + (c[1] == '=');
        else if (st->i + 1 < st->argc)
            v = st->argv[++st->i];
        else
            return needs_value(st, o, flag);
        st->i++;
        return apply(st, s, o, flag, v);
    }
    st->i++;
    return 0;
}

static bool is_help(const struct util_opt_parse *p, const char *a)
{
    size_t s;
    if (p->no_help)
        return false;
    return strcmp(a, "--help") == 0 ||
           (strcmp(a, "-h") == 0 && !find_short(p->sets, p->nsets, 'h', &s));
}

#define STEP_END 2 /* the flags end at this word */

/* One word at argv[i]: a flag, "--", or a word. 0, STEP_END, UTIL_OPT_HELP or an error. */
static int step(struct pstate *st)
{
    struct util_opt_parse *p = st->p;
    const char *a = st->argv[st->i];
    if (strcmp(a, "--") == 0) {
        p->dashes = true;
        p->next = st->i + 1;
        return STEP_END;
    }
    if (a[0] != '-' || a[1] == '\0') {
        if (p->stop_at_word) {
            p->next = st->i;
            return STEP_END;
        }
        if (!p->word)
            return util_errf(st->err, st->errlen, "unexpected argument %s", a);
        int rc = p->word(p->ctx, a, st->err, st->errlen);
        st->i++;
        return rc > 0 ? -EINVAL : rc;
    }
    if (is_help(p, a))
        return UTIL_OPT_HELP;
    return a[1] == '-' ? long_flag(st) : short_flags(st);
}

static int check_required(struct pstate *st)
{
    for (size_t s = 0; s < st->p->nsets; s++)
        for (size_t i = 0; i < st->p->sets[s].n; i++)
            if ((st->p->sets[s].rows[i].flags & UTIL_OPT_REQUIRED) && !st->seen[s][i])
                return util_errf(st->err, st->errlen, "--%s is required",
                                 st->p->sets[s].rows[i].name);
    return 0;
}

int util_opt_parse(struct util_opt_parse *p, int argc, char **argv, char *err, size_t errlen)
{
    struct pstate st = {p, argc, argv, 1, NULL, err, errlen};
    int rc = 0;
    if (errlen)
        err[0] = '\0';
    p->next = argc;
    p->dashes = false;
    p->bad = -1;
    st.seen = util_xcalloc(p->nsets + 1, sizeof(*st.seen));
    for (size_t s = 0; s < p->nsets; s++)
        st.seen[s] = util_xcalloc(p->sets[s].n + 1, sizeof(**st.seen));
    while (st.i < argc) {
        int at = st.i;
        rc = step(&st);
        if (rc == STEP_END)
            break;
        if (rc == UTIL_OPT_HELP)
            goto out;
        if (rc) {
            p->bad = at;
            goto out;
        }
    }
    rc = check_required(&st);
out:
    for (size_t s = 0; s < p->nsets; s++)
        free(st.seen[s]);
    free(st.seen);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Help and synopsis
 * ------------------------------------------------------------------------------------------- */

#define WIDTH 100
#define LEFT_MAX 30

/* "-o, --output FORMAT" */
static void left_column(const struct util_opt *o, char *out, size_t len)
{
    const char *mv = o->metavar ? o->metavar : "V";
    char sh[8] = "";
    if (o->shrt)
        (void)snprintf(sh, sizeof(sh), "-%c, ", o->shrt);
    if (!takes_value(o))
        (void)snprintf(out, len, "%s--%s", sh, o->name);
    else if (o->flags & UTIL_OPT_OPTIONAL)
        (void)snprintf(out, len, "%s--%s[=%s]", sh, o->name, mv);
    else
        (void)snprintf(out, len, "%s--%s %s", sh, o->name, mv);
}

/* The help line's tail: "[range or words, default D]", then repeatable, required, alias. */
static void tail(const struct util_opt *o, struct buf *t)
{
    bool num = o->type == UTIL_OPT_INT || o->type == UTIL_OPT_LONG || o->type == UTIL_OPT_INT64 ||
               o->type == UTIL_OPT_DOUBLE;
    bool words = (o->type == UTIL_OPT_ENUM || o->type == UTIL_OPT_CHOICE) &&
                 !(o->metavar && strchr(o->metavar, '|'));
    size_t at = t->len;
    if (num)
        (void)buf_printf(t, " [%.15g..%.15g", o->min, o->max);
    for (size_t i = 0; words; i++) {
        const char *w = o->type == UTIL_OPT_CHOICE ? o->choices[i] : o->enums[i].name;
        if (!w)
            break;
        (void)buf_printf(t, "%s%s", i ? "|" : " [", w);
    }
    /* a default outside the range stands for "not given" (the tool's own default) */
    if (num && o->def != 0 && o->def >= o->min && o->def <= o->max)
        (void)buf_printf(t, ", default %.15g", o->def);
    else if (o->def_str && o->def_str[0])
        (void)buf_printf(t, "%sdefault %s", t->len > at ? ", " : " [", o->def_str);
    if (t->len > at)
        (void)buf_puts(t, "]");
    if (o->flags & UTIL_OPT_MULTI)
        (void)buf_puts(t, " (repeatable)");
    if (o->flags & UTIL_OPT_REQUIRED)
        (void)buf_puts(t, " (required)");
    if (o->alias)
        (void)buf_printf(t, " (also --%s)", o->alias);
}

/* text wrapped at WIDTH, the first line starting at column col, the others at indent. */
static void wrapped(struct buf *out, const char *text, size_t col, size_t indent)
{
    const char *w = text;
    bool first = true;
    while (*w) {
        while (*w == ' ')
            w++;
        size_t n = strcspn(w, " ");
        if (!n)
            break;
        if (!first && col + 1 + n > WIDTH) {
            (void)buf_printf(out, "\n%*s", (int)indent, "");
            col = indent;
        } else if (!first) {
            (void)buf_puts(out, " ");
            col++;
        }
        (void)buf_printf(out, "%.*s", (int)n, w);
        col += n;
        w += n;
        first = false;
    }
    (void)buf_puts(out, "\n");
}

static bool same_group(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

int util_opt_help(struct buf *out, const struct util_opt_set *sets, size_t nsets)
{
    size_t w = 0, before = out->len;
    char left[128];
    for (size_t s = 0; s < nsets; s++)
        for (size_t i = 0; i < sets[s].n; i++) {
            left_column(&sets[s].rows[i], left, sizeof(left));
            if (strlen(left) > w)
                w = strlen(left);
        }
    if (w > LEFT_MAX)
        w = LEFT_MAX;
    const char *group = NULL;
    for (size_t s = 0; s < nsets; s++) {
        for (size_t i = 0; i < sets[s].n; i++) {
            const struct util_opt *o = &sets[s].rows[i];
            if (util_opt_find(sets, s, o->name, strlen(o->name), NULL))
                continue; /* an earlier set's row of that name is the one the parser takes */
            if (!same_group(o->group, group) && o->group)
                (void)buf_printf(out, "%s%s:\n", out->len > before ? "\n" : "", o->group);
            group = o->group;
            left_column(o, left, sizeof(left));
            if (strlen(left) > w)
                (void)buf_printf(out, "  %s\n%*s", left, (int)w + 4, "");
            else
                (void)buf_printf(out, "  %-*s  ", (int)w, left);
            struct buf text = BUF_INIT(0);
            (void)buf_puts(&text, o->help ? o->help : "");
            tail(o, &text);
            wrapped(out, text.data, w + 4, w + 4);
            buf_free(&text);
        }
    }
    size_t s;
    (void)buf_printf(out, "  %-*s  this text\n", (int)w,
                     find_short(sets, nsets, 'h', &s) ? "--help" : "-h, --help");
    return out->limit && out->len >= out->limit ? -E2BIG : 0;
}

/* Appends a space and a token to the synopsis, or a new line indented by `indent` and the token
 * when the line would pass WIDTH. */
static void token(struct buf *b, size_t *col, size_t indent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void token(struct buf *b, size_t *col, size_t indent, const char *fmt, ...)
{
    char t[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t, sizeof(t), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    if (n < 0)
        abort();
    if ((size_t)n >= sizeof(t))
        n = (int)sizeof(t) - 1;
    if (*col + 1 + (size_t)n > WIDTH && *col > indent) {
        (void)buf_printf(b, "\n%*s", (int)indent, "");
        *col = indent;
    } else {
        (void)buf_puts(b, " ");
        (*col)++;
    }
    (void)buf_puts(b, t);
    *col += (size_t)n;
}

static void row_token(struct buf *b, size_t *col, size_t indent, const struct util_opt *o)
{
    bool bracket = !(o->flags & UTIL_OPT_REQUIRED);
    const char *rep = o->flags & UTIL_OPT_MULTI ? "..." : "";
    if (!takes_value(o))
        token(b, col, indent, bracket ? "[--%s]" : "--%s", o->name);
    else
        token(b, col, indent, bracket ? "[--%s %s]%s" : "--%s %s%s", o->name,
              o->metavar ? o->metavar : "V", rep);
}

int util_opt_synopsis(struct buf *out, const char *prefix, const struct util_opt *rows, size_t n,
                      const char *tail_text)
{
    (void)buf_puts(out, prefix);
    size_t indent = strlen(prefix) + 1, col = strlen(prefix);
    const char *brief = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct util_opt *o = &rows[i];
        if (o->flags & UTIL_OPT_BRIEF) {
            if (!brief || !same_group(brief, o->group))
                token(out, &col, indent, "[%s flags]", o->group ? o->group : "other");
            brief = o->group ? o->group : "other";
            continue;
        }
        brief = NULL;
        if (o->flags & UTIL_OPT_ONE_OF) { /* (--a X | --b Y) */
            char alt[256] = "(";
            size_t len = 1;
            for (; i < n && (rows[i].flags & UTIL_OPT_ONE_OF) && len < sizeof(alt); i++)
                len += (size_t)snprintf(alt + len, sizeof(alt) - len, "%s--%s %s",
                                        len > 1 ? " | " : "", rows[i].name,
                                        rows[i].metavar ? rows[i].metavar : "V");
            i--;
            token(out, &col, indent, "%s)", alt);
            continue;
        }
        row_token(out, &col, indent, o);
    }
    if (tail_text && tail_text[0])
        token(out, &col, indent, "%s", tail_text);
    (void)buf_puts(out, "\n");
    return out->limit && out->len >= out->limit ? -E2BIG : 0;
}

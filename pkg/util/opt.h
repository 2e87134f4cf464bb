/* Command-line flags from one table per command, after fio's `struct fio_option` (options.c,
 * parse.c): a row names a flag once (long and short name, type and range, default, the field it
 * fills by offset or the function that parses it, its help line), and everything a program does
 * with its flags comes from the rows: defaults, parsing argv, the errors (each names the flag as
 * it was written and says what it expects), the --help text (grouped, aligned) and a synopsis.
 *
 * A command's flags may come from several tables, each over its own struct (struct util_opt_set:
 * rows + base): kubectl pgbench sweep takes its own flags, run's and kubectl's. Knows nothing of
 * the programs; prints nothing (texts go into a struct buf). */
#ifndef PGBO_UTIL_OPT_H
#define PGBO_UTIL_OPT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct util_opt;

enum util_opt_type {
    UTIL_OPT_BOOL,   /* no value: the bool field becomes true */
    UTIL_OPT_INT,    /* int field: a decimal integer in [min, max] */
    UTIL_OPT_LONG,   /* long field, likewise */
    UTIL_OPT_INT64,  /* int64_t field, likewise */
    UTIL_OPT_DOUBLE, /* double field: a number in [min, max] */
    UTIL_OPT_STR,    /* const char * field, borrowed from argv; with UTIL_OPT_MULTI an array */
    UTIL_OPT_CHOICE, /* const char * field: one of `choices` (the table's own string) */
    UTIL_OPT_ENUM,   /* an enum field: the value of the `enums` entry named */
    UTIL_OPT_CALL,   /* `cb` parses the value (NULL for a flag without one) into the base */
};

enum {
    UTIL_OPT_REQUIRED = 1 << 0, /* "--x is required" when absent */
    UTIL_OPT_MULTI = 1 << 1,    /* STR, repeatable: an array at off, its size_t count at off_n,
                                   at most max entries */
    UTIL_OPT_OPTIONAL = 1 << 2, /* the value only as --x=V; a bare --x means `implied` */
    UTIL_OPT_VALUE = 1 << 3,    /* CALL: takes a value (else it is a flag and gets NULL) */
    UTIL_OPT_ONE_OF = 1 << 4,   /* synopsis: consecutive ONE_OF rows are "(--a X | --b Y)" */
    UTIL_OPT_BRIEF = 1 << 5,    /* synopsis: consecutive BRIEF rows are "[<group> flags]" */
};

/* An ENUM row's words and the values they stand for; the list ends with a NULL name. */
struct util_opt_enum {
    const char *name;
    int value;
};

/* A CALL row's parser: value (borrowed from argv) into base; flag is the flag as written ("-o",
 * "--output"). Returns 0, or -EINVAL with the message in err (util_opt_bad words the usual one). */
typedef int util_opt_cb(void *base, const struct util_opt *o, const char *flag, const char *value,
                        char *err, size_t errlen);

struct util_opt {
    const char *name;  /* long name without "--" */
    const char *alias; /* another long name for the same flag, or NULL */
    char shrt;         /* short name ('o' for -o), 0 = none */
    enum util_opt_type type;
    unsigned flags;      /* UTIL_OPT_REQUIRED ... */
    size_t off;          /* the field: an offsetof in the set's base */
    size_t off_n;        /* MULTI: the size_t count of the array at off */
    double min, max;     /* numeric range; MULTI: max = the array's capacity */
    double def;          /* numeric and ENUM default; a number outside [min, max] means "not given"
                            (written by util_opt_defaults, never shown) */
    const char *def_str; /* STR / CHOICE default, or NULL */
    const char *const *choices;        /* CHOICE: the words, NULL-terminated */
    const struct util_opt_enum *enums; /* ENUM */
    const char *implied;               /* OPTIONAL: the value of the bare flag */
    util_opt_cb *cb;                   /* CALL */
    const char *metavar;               /* the value in help texts: "N", "NAME[@W]" */
    const char *expect;                /* "--x \"v\": expected <expect>"; NULL = from the type */
    const char *group;                 /* --help: the heading the row is listed under, or NULL */
    const char *help;
    int tag;          /* the table owner's own mark (the runner's builder); the engine ignores it */
    const void *data; /* CALL: the row's own data for cb (pgbench_args: the spec field) */
};

#define UTIL_OPT_N(rows) (sizeof(rows) / sizeof((rows)[0]))

/* Rows and the struct their offsets point into. Of two rows with one name in several sets, the
 * first set's is the flag (the parser takes it, the help lists it). */
struct util_opt_set {
    const struct util_opt *rows;
    size_t n;
    void *base;
};

/* One parse of argv. The caller fills sets ... ctx; the parser fills the rest. */
struct util_opt_parse {
    const struct util_opt_set *sets;
    size_t nsets;
    bool stop_at_word; /* the first word that is no flag ends the flags (as getopt's "+") */
    bool bundles;      /* -nr is -n -r (short flags without values) */
    bool abbrev;       /* --cli is --clients when no other name begins so (getopt_long's) */
    bool no_help;      /* -h and --help are no help: rows or unknown flags like any other */
    /* A word that is no flag (not after "--"): 0 taken, or -EINVAL with err; NULL: refused,
     * "unexpected argument W". */
    int (*word)(void *ctx, const char *word, char *err, size_t errlen);
    /* A flag no row names, at argv[0] (argc words left): 0 with *used words taken, or a negative
     * errno with err; NULL: -ENOENT, "unknown flag X", with a suggestion when one is close. */
    int (*unknown)(void *ctx, char **argv, int argc, int *used, char *err, size_t errlen);
    /* Before a row is stored: may change *base (fio: the job the flag applies to) or refuse. */
    int (*before)(void *ctx, const struct util_opt *o, void **base, char *err, size_t errlen);
    void *ctx;
    /* out */
    int next;    /* the index after the flags: past "--", or the word that stopped them, or argc */
    bool dashes; /* "--" was met */
    int bad;     /* the index of the word an error is about, -1 for none */
};

#define UTIL_OPT_HELP 1 /* util_opt_parse met -h or --help */

/* Every row's field at its default (def, def_str; BOOL false, MULTI empty). */
void util_opt_defaults(const struct util_opt_set *sets, size_t nsets);

/* Parses argv[1..argc-1] (argv[0] is the program or the command) into the sets' bases, which
 * hold their defaults already (util_opt_defaults). Forms: --name V, --name=V, -s V, -sV, -s=V;
 * the last of a repeated flag wins (MULTI: appends). Returns 0; UTIL_OPT_HELP for -h/--help (the
 * words after it are not read); -EINVAL with a message naming the flag for a missing or refused
 * value, a value given to a flag, a refused word or a required flag that is absent; -ENOENT for an
 * unknown flag (p->bad is its index). */
int util_opt_parse(struct util_opt_parse *p, int argc, char **argv, char *err, size_t errlen);

/* Stores one row's value (NULL for a flag without one) into base: what the parser does for each
 * flag, for callers that meet flags their own way. flag is the flag as written. */
int util_opt_store(const struct util_opt *o, void *base, const char *flag, const char *value,
                   char *err, size_t errlen);

/* The message of a refused value: `--x "v": expected <expect>` (the row's, else from its type and
 * range), "=" instead of the space when the value came as --x=v. Returns -EINVAL. */
int util_opt_bad(const struct util_opt *o, const char *flag, const char *value, char *err,
                 size_t errlen);

/* The row named by the long name (or alias) name[0..len), or NULL. */
const struct util_opt *util_opt_find(const struct util_opt_set *sets, size_t nsets,
                                     const char *name, size_t len, size_t *set);

/* The closest long name to word ("--wrokers" -> "workers"): edit distance at most 2, or a name
 * the word begins; NULL when none is. Over candidates, a NULL-terminated list. */
const char *util_opt_suggest(const char *word, const char *const *candidates);
/* Levenshtein distance of a and b (strings of up to 63 bytes; longer: their lengths' sum). */
size_t util_opt_distance(const char *a, const char *b);

/* The --help list: for every row, "  -s, --name METAVAR" and its help, aligned, wrapped at 100
 * columns; a heading line "GROUP:" where the group changes; the range, the default, "required"
 * and the alias after the help; last "-h, --help" (the parser's). Returns 0 or -E2BIG. */
int util_opt_help(struct buf *out, const struct util_opt_set *sets, size_t nsets);

/* The synopsis: prefix, then every row as a token ("--a N" when required, "[--b]", "[--c X]..."
 * when repeatable, "(--d X | --e Y)" for ONE_OF rows, "[<group> flags]" for BRIEF rows), then
 * tail; lines wrapped at 100 columns and indented under the first token. Returns 0 or -E2BIG. */
int util_opt_synopsis(struct buf *out, const char *prefix, const struct util_opt *rows, size_t n,
                      const char *tail);

#endif

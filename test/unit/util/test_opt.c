/* The flag-table engine (pkg/util/opt.c): every type in every spelling, ranges at and past their
 * ends, unknown flags and their suggestion, words and "--", required flags, several sets, and the
 * help text's layout. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/util/buf.h"
#include "pkg/util/err.h"
#include "pkg/util/opt.h"

enum color { RED = 3, GREEN = 7 };

struct cli {
    bool verbose;
    int count;
    long delay;
    int64_t big;
    double ratio;
    const char *name;
    const char *format;
    enum color color;
    const char *labels[3];
    size_t nlabels;
    const char *dry;
    int calls;
    const char *words[4];
    int nwords;
};

static const char *const formats[] = {"json", "text", NULL};
static const struct util_opt_enum colors[] = {{"red", RED}, {"green", GREEN}, {NULL, 0}};

/* A CALL row: counts its calls and keeps an even number */
static int even(void *base, const struct util_opt *o, const char *flag, const char *v, char *err,
                size_t errlen)
{
    struct cli *c = base;
    if (atoi(v) % 2)
        return util_opt_bad(o, flag, v, err, errlen);
    c->calls++;
    return 0;
}

#define F(f) offsetof(struct cli, f)
static const struct util_opt rows[] = {
    {.name = "verbose", .shrt = 'v', .type = UTIL_OPT_BOOL, .off = F(verbose), .help = "say more"},
    {.name = "count",
     .shrt = 'c',
     .type = UTIL_OPT_INT,
     .off = F(count),
     .min = 1,
     .max = 10,
     .def = 2,
     .metavar = "N",
     .group = "numbers",
     .help = "how many"},
    {.name = "delay",
     .type = UTIL_OPT_LONG,
     .off = F(delay),
     .min = 0,
     .max = 3600,
     .metavar = "S",
     .expect = "0 to 3600 seconds",
     .group = "numbers",
     .help = "wait this long"},
    {.name = "big",
     .type = UTIL_OPT_INT64,
     .off = F(big),
     .min = 1,
     .max = 5e9,
     .def = -1,
     .metavar = "N",
     .group = "numbers",
     .help = "a large one"},
    {.name = "ratio",
     .type = UTIL_OPT_DOUBLE,
     .off = F(ratio),
     .min = 0,
     .max = 1,
     .def = 0.5,
     .metavar = "R",
     .group = "numbers",
     .help = "a share"},
    {.name = "name",
     .alias = "job-name",
     .type = UTIL_OPT_STR,
     .off = F(name),
     .metavar = "NAME",
     .group = "words",
     .help = "the name; a long help text that goes on and on so that it has to be wrapped at the "
             "hundredth column of the terminal, under its own start"},
    {.name = "format",
     .type = UTIL_OPT_CHOICE,
     .off = F(format),
     .def_str = "json",
     .choices = formats,
     .metavar = "FORMAT",
     .group = "words",
     .help = "output"},
    {.name = "color",
     .type = UTIL_OPT_ENUM,
     .off = F(color),
     .def = GREEN,
     .enums = colors,
     .metavar = "red|green",
     .group = "words",
     .help = "a color"},
    {.name = "label",
     .shrt = 'l',
     .type = UTIL_OPT_STR,
     .flags = UTIL_OPT_MULTI,
     .off = F(labels),
     .off_n = F(nlabels),
     .max = 3,
     .metavar = "K=V",
     .group = "words",
     .help = "a label"},
    {.name = "dry-run",
     .type = UTIL_OPT_CHOICE,
     .flags = UTIL_OPT_OPTIONAL,
     .off = F(dry),
     .choices = (const char *const[]){"none", "client", "server", NULL},
     .implied = "client",
     .metavar = "MODE",
     .group = "words",
     .help = "print only"},
    {.name = "even",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = even,
     .metavar = "N",
     .expect = "an even number",
     .help = "an even one"},
};

static int on_word(void *ctx, const char *w, char *err, size_t errlen)
{
    struct cli *c = ctx;
    if (c->nwords == 4)
        return util_errf(err, errlen, "too many words (%s)", w);
    c->words[c->nwords++] = w;
    return 0;
}

/* Parses the NULL-terminated words after the program name into *c. */
static int parse_with(struct util_opt_parse *p, struct cli *c, char **words, char *err,
                      size_t errlen)
{
    static struct util_opt_set set;
    set = (struct util_opt_set){rows, UTIL_OPT_N(rows), c};
    char *argv[32] = {"prog"};
    int argc = 1;
    while (words[argc - 1])
        argv[argc] = words[argc - 1], argc++;
    memset(c, 0, sizeof(*c));
    util_opt_defaults(&set, 1);
    p->sets = &set;
    p->nsets = 1;
    return util_opt_parse(p, argc, argv, err, errlen);
}

static int parse(struct cli *c, char **words, char *err, size_t errlen)
{
    struct util_opt_parse p = {0};
    return parse_with(&p, c, words, err, errlen);
}

static void test_defaults(void **state)
{
    (void)state;
    struct cli c;
    char err[256];
    assert_int_equal(parse(&c, (char *[]){NULL}, err, sizeof(err)), 0);
    assert_false(c.verbose);
    assert_int_equal(c.count, 2);
    assert_int_equal(c.delay, 0);
    assert_int_equal(c.big, -1); /* outside the range: "not given", still the field's value */
    assert_true(c.ratio == 0.5);
    assert_null(c.name);
    assert_string_equal(c.format, "json");
    assert_int_equal(c.color, GREEN);
    assert_int_equal(c.nlabels, 0);
    assert_null(c.dry);
}

static void test_every_type_and_spelling(void **state)
{
    (void)state;
    struct cli c;
    char err[256];
    char *w[] = {"-v",         "--count",  "10",        "--delay=3600", "--big",
                 "5000000000", "--ratio",  "0",         "--job-name",   "a",
                 "--format",   "text",     "--color",   "red",          "-lk=v",
                 "-l",         "x=y",      "--label=z", "--dry-run",    "--even",
                 "4",          "--even=6", NULL};
    assert_int_equal(parse(&c, w, err, sizeof(err)), 0);
    assert_true(c.verbose);
    assert_int_equal(c.count, 10);
    assert_int_equal(c.delay, 3600);
    assert_true(c.big == 5000000000LL);
    assert_true(c.ratio == 0);
    assert_string_equal(c.name, "a");
    assert_string_equal(c.format, "text");
    assert_ptr_equal(c.format, formats[1]); /* the table's own string */
    assert_int_equal(c.color, RED);
    assert_int_equal(c.nlabels, 3);
    assert_string_equal(c.labels[0], "k=v");
    assert_string_equal(c.labels[1], "x=y");
    assert_string_equal(c.labels[2], "z");
    assert_string_equal(c.dry, "client"); /* a bare optional-value flag: implied */
    assert_int_equal(c.calls, 2);
    /* short forms -c5 and -c=5, and the last of a repeated flag wins */
    assert_int_equal(parse(&c, (char *[]){"-c5", NULL}, err, sizeof(err)), 0);
    assert_int_equal(c.count, 5);
    assert_int_equal(parse(&c, (char *[]){"-c=6", "--count", "7", NULL}, err, sizeof(err)), 0);
    assert_int_equal(c.count, 7);
    assert_int_equal(parse(&c, (char *[]){"--dry-run=server", NULL}, err, sizeof(err)), 0);
    assert_string_equal(c.dry, "server");
}

static void expect_refused(char **w, int want_rc, const char *want)
{
    struct cli c;
    char err[256];
    int rc = parse(&c, w, err, sizeof(err));
    if (rc != want_rc || strcmp(err, want) != 0)
        fail_msg("%s ...: %d '%s', want %d '%s'", w[0], rc, err, want_rc, want);
}

static void test_bounds(void **state)
{
    (void)state;
    struct cli c;
    char err[256];
    /* at both ends: taken */
    assert_int_equal(parse(&c, (char *[]){"--count", "1", "--ratio", "1", NULL}, err, 256), 0);
    assert_int_equal(c.count, 1);
    /* past them, not numbers, or with trailing text: refused, naming the flag as written */
    expect_refused((char *[]){"--count", "0", NULL}, -EINVAL,
                   "--count \"0\": expected an integer 1..10");
    expect_refused((char *[]){"-c", "11", NULL}, -EINVAL, "-c \"11\": expected an integer 1..10");
    expect_refused((char *[]){"--count=5x", NULL}, -EINVAL,
                   "--count=\"5x\": expected an integer 1..10");
    expect_refused((char *[]){"--count", "99999999999999999999", NULL}, -EINVAL,
                   "--count \"99999999999999999999\": expected an integer 1..10");
    expect_refused((char *[]){"--delay", "-1", NULL}, -EINVAL,
                   "--delay \"-1\": expected 0 to 3600 seconds");
    expect_refused((char *[]){"--big", "5000000001", NULL}, -EINVAL,
                   "--big \"5000000001\": expected an integer 1..5000000000");
    expect_refused((char *[]){"--ratio", "1.0001", NULL}, -EINVAL,
                   "--ratio \"1.0001\": expected a number 0..1");
    expect_refused((char *[]){"--ratio", "nan", NULL}, -EINVAL,
                   "--ratio \"nan\": expected a number 0..1");
    expect_refused((char *[]){"--ratio", "", NULL}, -EINVAL,
                   "--ratio \"\": expected a number 0..1");
    expect_refused((char *[]){"--format", "xml", NULL}, -EINVAL,
                   "--format \"xml\": expected one of json, text");
    expect_refused((char *[]){"--color", "blue", NULL}, -EINVAL,
                   "--color \"blue\": expected one of red, green");
    expect_refused((char *[]){"--dry-run=maybe", NULL}, -EINVAL,
                   "--dry-run=\"maybe\": expected one of none, client, server");
    expect_refused((char *[]){"--even", "3", NULL}, -EINVAL,
                   "--even \"3\": expected an even number");
    expect_refused((char *[]){"-l", "a", "-l", "b", "-l", "c", "-l", "d", NULL}, -EINVAL,
                   "--label: at most 3");
}

static void test_missing_values_and_values_given_to_flags(void **state)
{
    (void)state;
    expect_refused((char *[]){"-v", "--count", NULL}, -EINVAL, "--count needs a value (N)");
    expect_refused((char *[]){"-c", NULL}, -EINVAL, "-c needs a value (N)");
    expect_refused((char *[]){"--verbose=yes", NULL}, -EINVAL, "--verbose takes no value");
    /* a value that looks like a flag is still the value, as getopt takes it */
    struct cli c;
    char err[256];
    assert_int_equal(parse(&c, (char *[]){"--name", "-v", NULL}, err, sizeof(err)), 0);
    assert_string_equal(c.name, "-v");
    assert_false(c.verbose);
}

static void test_unknown_flags_and_suggestions(void **state)
{
    (void)state;
    expect_refused((char *[]){"--cuont", "3", NULL}, -ENOENT,
                   "unknown flag --cuont (did you mean --count?)");
    expect_refused((char *[]){"--form=x", NULL}, -ENOENT,
                   "unknown flag --form (did you mean --format?)");
    expect_refused((char *[]){"--zzzzzz", NULL}, -ENOENT, "unknown flag --zzzzzz");
    expect_refused((char *[]){"-x", NULL}, -ENOENT, "unknown flag -x");
    /* without bundles, -vc is not -v -c */
    expect_refused((char *[]){"-vv", NULL}, -ENOENT, "unknown flag -vv");
    struct util_opt_parse p = {0};
    struct cli c;
    char err[256];
    assert_int_equal(parse_with(&p, &c, (char *[]){"-v", "--nope", NULL}, err, sizeof(err)),
                     -ENOENT);
    assert_int_equal(p.bad, 2); /* the word's index */
    assert_string_equal(
        util_opt_suggest("wrokers", (const char *const[]){"workers", "warmup", NULL}), "workers");
    assert_string_equal(util_opt_suggest("rep", (const char *const[]){"report", "run", NULL}),
                        "report");
    assert_null(util_opt_suggest("qqqqqq", (const char *const[]){"report", "run", NULL}));
    assert_int_equal(util_opt_distance("kitten", "sitting"), 3);
}

static void test_bundles(void **state)
{
    (void)state;
    struct util_opt_parse p = {.bundles = true};
    struct cli c;
    char err[256];
    assert_int_equal(parse_with(&p, &c, (char *[]){"-vc3", NULL}, err, sizeof(err)), 0);
    assert_true(c.verbose);
    assert_int_equal(c.count, 3);
    p = (struct util_opt_parse){.bundles = true};
    assert_int_equal(parse_with(&p, &c, (char *[]){"-vl", "k", NULL}, err, sizeof(err)), 0);
    assert_string_equal(c.labels[0], "k");
    /* an unknown flag inside a bundle is named alone */
    p = (struct util_opt_parse){.bundles = true};
    assert_int_equal(parse_with(&p, &c, (char *[]){"-vx", NULL}, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "-x (in -vx): write it as its own argument");
}

static void test_words_dashes_and_help(void **state)
{
    (void)state;
    struct cli c;
    char err[256];
    /* without a word handler a word is refused */
    expect_refused((char *[]){"-v", "stray", NULL}, -EINVAL, "unexpected argument stray");
    /* with one, words mix with flags; "--" ends the flags, the rest is the caller's */
    struct util_opt_parse p = {.word = on_word, .ctx = &c};
    char *w[] = {"a", "-v", "b", "--", "-c", "x", NULL};
    assert_int_equal(parse_with(&p, &c, w, err, sizeof(err)), 0);
    assert_int_equal(c.nwords, 2);
    assert_string_equal(c.words[1], "b");
    assert_true(p.dashes);
    assert_int_equal(p.next, 5); /* argv[5] = "-c", after "--" */
    assert_int_equal(c.count, 2);
    /* getopt's "+": the first word ends the flags */
    p = (struct util_opt_parse){.stop_at_word = true};
    assert_int_equal(parse_with(&p, &c, (char *[]){"-v", "w", "-c", "3", NULL}, err, 256), 0);
    assert_int_equal(p.next, 2);
    assert_false(p.dashes);
    assert_int_equal(c.count, 2);
    /* -h and --help, also after other flags; what follows is not read */
    assert_int_equal(parse(&c, (char *[]){"-c", "3", "--help", "--bogus", NULL}, err, 256),
                     UTIL_OPT_HELP);
    assert_int_equal(parse(&c, (char *[]){"-h", NULL}, err, 256), UTIL_OPT_HELP);
}

struct two {
    int n;
    bool on;
};

static void test_required_and_several_sets(void **state)
{
    (void)state;
    static const struct util_opt mine[] = {{.name = "n",
                                            .type = UTIL_OPT_INT,
                                            .flags = UTIL_OPT_REQUIRED,
                                            .off = offsetof(struct two, n),
                                            .min = 0,
                                            .max = 9,
                                            .metavar = "N"}};
    static const struct util_opt theirs[] = {
        {.name = "on", .type = UTIL_OPT_BOOL, .off = offsetof(struct two, on)}};
    struct two a = {0}, b = {0};
    struct util_opt_set sets[] = {{mine, 1, &a}, {theirs, 1, &b}};
    struct util_opt_parse p = {.sets = sets, .nsets = 2};
    char err[256];
    char *argv1[] = {"prog", "--on", NULL};
    assert_int_equal(util_opt_parse(&p, 2, argv1, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--n is required");
    char *argv2[] = {"prog", "--on", "--n", "0", NULL};
    assert_int_equal(util_opt_parse(&p, 4, argv2, err, sizeof(err)), 0);
    assert_true(b.on); /* each row into its own set's struct */
    assert_false(a.on);
    assert_int_equal(a.n, 0);
    assert_int_equal(b.n, 0);
}

/* getopt_long's abbreviations where asked for: a unique prefix is the flag, messages name it in
 * full, an ambiguous one names both, an exact name wins over a longer one */
static void test_abbreviations(void **state)
{
    (void)state;
    struct util_opt_parse p = {.abbrev = true};
    struct cli c;
    char err[256];
    assert_int_equal(parse_with(&p, &c, (char *[]){"--verb", "--cou=4", NULL}, err, 256), 0);
    assert_true(c.verbose);
    assert_int_equal(c.count, 4);
    p = (struct util_opt_parse){.abbrev = true};
    assert_int_equal(parse_with(&p, &c, (char *[]){"--cou", "0", NULL}, err, 256), -EINVAL);
    assert_string_equal(err, "--count \"0\": expected an integer 1..10");
    p = (struct util_opt_parse){.abbrev = true};
    assert_int_equal(parse_with(&p, &c, (char *[]){"--d", NULL}, err, 256), -EINVAL);
    assert_string_equal(err, "--d is ambiguous (--delay, --dry-run)");
    p = (struct util_opt_parse){.abbrev = true};
    assert_int_equal(parse_with(&p, &c, (char *[]){"--job", "x", NULL}, err, 256), 0);
    assert_string_equal(c.name, "x"); /* the alias job-name's prefix */
    /* without abbrev, a prefix is unknown */
    expect_refused((char *[]){"--verb", NULL}, -ENOENT,
                   "unknown flag --verb (did you mean --verbose?)");
}

/* An unknown-flag hook takes a flag and its words; a before hook picks the struct a row fills. */
struct hooked {
    struct cli other;
    const char *taken[4];
    int ntaken;
};

static int take_unknown(void *ctx, char **argv, int argc, int *used, char *err, size_t errlen)
{
    struct hooked *h = ctx;
    if (strcmp(argv[0], "--two") != 0)
        return util_errf(err, errlen, "no %s", argv[0]);
    *used = argc > 1 ? 2 : 1;
    for (int i = 0; i < *used; i++)
        h->taken[h->ntaken++] = argv[i];
    return 0;
}

static int to_other(void *ctx, const struct util_opt *o, void **base, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    if (strcmp(o->name, "count") == 0)
        *base = &((struct hooked *)ctx)->other;
    return 0;
}

static void test_hooks(void **state)
{
    (void)state;
    struct hooked h = {0};
    struct util_opt_parse p = {.unknown = take_unknown, .before = to_other, .ctx = &h};
    struct cli c;
    char err[256];
    assert_int_equal(
        parse_with(&p, &c, (char *[]){"--two", "w", "-c", "5", "-v", NULL}, err, sizeof(err)), 0);
    assert_int_equal(h.ntaken, 2);
    assert_string_equal(h.taken[1], "w");
    assert_int_equal(h.other.count, 5); /* the before hook's struct */
    assert_int_equal(c.count, 2);       /* not the set's */
    assert_true(c.verbose);
    assert_int_equal(parse_with(&p, &c, (char *[]){"--three", NULL}, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "no --three");
    /* no_help: -h and --help are flags like others (here unknown) */
    p = (struct util_opt_parse){.no_help = true};
    assert_int_equal(parse_with(&p, &c, (char *[]){"--help", NULL}, err, sizeof(err)), -ENOENT);
}

/* A row of the same name in a later set is shadowed: not parsed, not listed. */
static void test_shadowed_rows(void **state)
{
    (void)state;
    static const struct util_opt first[] = {
        {.name = "n", .type = UTIL_OPT_BOOL, .off = offsetof(struct two, on), .help = "first"}};
    static const struct util_opt later[] = {{.name = "n",
                                             .type = UTIL_OPT_INT,
                                             .off = offsetof(struct two, n),
                                             .max = 9,
                                             .metavar = "N",
                                             .help = "later"}};
    struct two a = {0}, b = {0};
    struct util_opt_set sets[] = {{first, 1, &a}, {later, 1, &b}};
    struct util_opt_parse p = {.sets = sets, .nsets = 2};
    char err[256];
    char *argv[] = {"prog", "--n", NULL};
    assert_int_equal(util_opt_parse(&p, 2, argv, err, sizeof(err)), 0);
    assert_true(a.on);
    struct buf h = BUF_INIT(0);
    assert_int_equal(util_opt_help(&h, sets, 2), 0);
    assert_non_null(strstr(h.data, "first"));
    assert_null(strstr(h.data, "later"));
    buf_free(&h);
}

static void test_help_layout(void **state)
{
    (void)state;
    struct cli c;
    struct util_opt_set set = {rows, UTIL_OPT_N(rows), &c};
    struct buf b = BUF_INIT(0);
    assert_int_equal(util_opt_help(&b, &set, 1), 0);
    /* the groups in table order, each heading once */
    const char *numbers = strstr(b.data, "\nnumbers:\n"), *words = strstr(b.data, "\nwords:\n");
    assert_non_null(numbers);
    assert_non_null(words);
    assert_true(numbers < words);
    assert_null(strstr(numbers + 1, "\nnumbers:\n"));
    /* the help column is the same on every line: 2 + the widest left column ("--color
     * red|green", 17) + 2 */
    const char *want[] = {"  -v, --verbose      say more\n",
                          "  -c, --count N      how many [1..10, default 2]\n",
                          "  --delay S          wait this long [0..3600]\n",
                          "  --big N            a large one [1..5000000000]\n",
                          "  --ratio R          a share [0..1, default 0.5]\n",
                          "  --format FORMAT    output [json|text, default json]\n",
                          "  --color red|green  a color\n",
                          "  -l, --label K=V    a label (repeatable)\n",
                          "  --dry-run[=MODE]   print only [none|client|server]\n",
                          "  --even N           an even one\n"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(b.data, want[i]))
            fail_msg("no line '%s' in:\n%s", want[i], b.data);
    /* a long help is wrapped at 100 columns under its own start; the alias comes last */
    const char *name = strstr(b.data, "  --name NAME ");
    assert_non_null(name);
    for (const char *l = b.data; *l; l = strchr(l, '\n') + 1)
        assert_true(strcspn(l, "\n") <= 100);
    const char *second = strchr(name, '\n') + 1;
    assert_true(strncmp(second, "                     ", 21) == 0 && second[21] != ' ');
    assert_non_null(strstr(second, "(also --job-name)\n"));
    buf_free(&b);
}

static void test_synopsis(void **state)
{
    (void)state;
    static const struct util_opt s[] = {
        {.name = "a", .type = UTIL_OPT_INT, .flags = UTIL_OPT_REQUIRED, .metavar = "N", .max = 1},
        {.name = "b", .type = UTIL_OPT_BOOL},
        {.name = "t", .type = UTIL_OPT_INT, .flags = UTIL_OPT_ONE_OF, .metavar = "S", .max = 1},
        {.name = "u", .type = UTIL_OPT_INT, .flags = UTIL_OPT_ONE_OF, .metavar = "N", .max = 1},
        {.name = "f", .type = UTIL_OPT_STR, .flags = UTIL_OPT_MULTI, .metavar = "FILE"},
        {.name = "host", .type = UTIL_OPT_STR, .flags = UTIL_OPT_BRIEF, .group = "connection"},
        {.name = "port", .type = UTIL_OPT_STR, .flags = UTIL_OPT_BRIEF, .group = "connection"},
    };
    struct buf b = BUF_INIT(0);
    assert_int_equal(util_opt_synopsis(&b, "  cmd", s, UTIL_OPT_N(s), "[-- args]"), 0);
    assert_string_equal(b.data,
                        "  cmd --a N [--b] (--t S | --u N) [--f FILE]... [connection flags] "
                        "[-- args]\n");
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_type_and_spelling),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_missing_values_and_values_given_to_flags),
        cmocka_unit_test(test_unknown_flags_and_suggestions),
        cmocka_unit_test(test_bundles),
        cmocka_unit_test(test_words_dashes_and_help),
        cmocka_unit_test(test_required_and_several_sets),
        cmocka_unit_test(test_abbreviations),
        cmocka_unit_test(test_hooks),
        cmocka_unit_test(test_shadowed_rows),
        cmocka_unit_test(test_help_layout),
        cmocka_unit_test(test_synopsis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

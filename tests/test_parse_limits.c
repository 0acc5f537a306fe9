// Robustness of the model-language front end: deep nesting never overflows the stack, huge
// files parse in linear time, long lines, out-of-memory at every allocation.
#include "parse_util.h"

#include <time.h>

static char *repeat(const char *head, const char *unit, int n, const char *mid, const char *unit2,
                    int n2, const char *tail)
{
    size_t len = strlen(head) + strlen(unit) * (size_t)n + strlen(mid) + strlen(unit2) * (size_t)n2 +
                 strlen(tail) + 1;
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    p += sprintf(p, "%s", head);
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s", unit);
    p += sprintf(p, "%s", mid);
    for (int i = 0; i < n2; i++)
        p += sprintf(p, "%s", unit2);
    sprintf(p, "%s", tail);
    return s;
}

#define HEAD "model m\ncoordinate x\nlagrangian "

static void test_deep_nesting(void)
{
    char expect[128];
    snprintf(expect, sizeof expect,
             "t.dirac:3:%d: error: expression nested too deeply (limit %d)",
             11 + SPEC_NESTING_MAX + 1, SPEC_NESTING_MAX);
    // 10^5 parentheses
    char *text = repeat(HEAD, "(", 100000, "x'", ")", 100000, "\n");
    ENSURE_PARSE_ERROR(text, expect);
    free(text);
    // 10^5 unary minus, 10^5 calls
    text = repeat(HEAD, "-", 100000, "x'", "", 0, "\n");
    ENSURE_PARSE_ERROR(text, expect);
    free(text);
    snprintf(expect, sizeof expect,
             "t.dirac:3:%d: error: expression nested too deeply (limit %d)",
             12 + 4 * SPEC_NESTING_MAX, SPEC_NESTING_MAX);
    text = repeat(HEAD, "sin(", 100000, "x'", ")", 100000, "\n");
    ENSURE_PARSE_ERROR(text, expect);
    free(text);
    // a^a^a... (right-associative) nests too
    text = repeat(HEAD "x'", "^x", 100000, "", "", 0, "\n");
    dirac_status st;
    spec *s = parse_text(text, &st);
    ENSURE_EQ_INT(st, DIRAC_ERR_PARSE);
    ENSURE_CONTAINS(spec_errmsg(s), "expression nested too deeply");
    spec_destroy(s);
    free(text);
    // within the limit it works
    text = repeat(HEAD, "(", SPEC_NESTING_MAX - 1, "x'", ")", SPEC_NESTING_MAX - 1, "\n");
    ENSURE_PARSES(text);
    free(text);
    // a long sum is a deep tree but no nesting: 10^5 terms, over continuation lines too
    text = repeat(HEAD "x'^2", " + x", 100000, " +\n", " - x^2", 100000, "\n");
    char *more = repeat("constraint c: x'", " + x'", 10000, "", "", 0, " = 0\n");
    char *both = text && more ? malloc(strlen(text) + strlen(more) + 1) : NULL;
    if (both)
        sprintf(both, "%s%s", text, more);
    free(text);
    free(more);
    text = both;
    s = parse_text(text ? text : "", &st);
    ENSURE_EQ_INT(st, DIRAC_OK);
    const spec_model *m = spec_root(s);
    ENSURE(m && m->lagrangian[0].value.count == 3 + 2 * 100000 + 1 + 4 * 100000);
    ENSURE(m && m->constraints[0].kind == SPEC_CONSTRAINT_NONHOLONOMIC);
    spec_destroy(s);
    free(text);
}

static double seconds(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

// a model of `lines` lines: parameters, lets chained on each other, lagrangian terms, comments
static char *big_model(int lines)
{
    size_t cap = (size_t)lines * 40 + 64;
    char *s = malloc(cap), *p = s;
    if (!s)
        return NULL;
    p += sprintf(p, "model big\ncoordinate x, y\nlet e0 = x\n");
    for (int i = 3; i < lines; i++) {
        switch (i % 4) {
        case 0: p += sprintf(p, "parameter p%d = %d.5\n", i, i); break;
        case 1: p += sprintf(p, "let e%d = e%d*x + p%d\n", i, i - 4 < 3 ? 0 : i - 4, i - 1); break;
        case 2: p += sprintf(p, "lagrangian x'*y'/2 - e%d\n", i - 1); break;
        default: p += sprintf(p, "# comment %d\n", i); break;
        }
    }
    return s;
}

static void test_huge_file(void)
{
    // 10^5 and 10^6 lines parse, with the right counts; their times are printed for the record
    // only (CPU time on a loaded CI machine varies 3x). Parse time against size is measured by
    // bench/bench_scale, which fits its exponent.
    char *small = big_model(100000), *large = big_model(1000000);
    ENSURE(small && large);
    if (!small || !large) {
        free(small);
        free(large);
        return;
    }
    double t0 = seconds();
    dirac_status st;
    spec *s = parse_text(small, &st);
    double t_small = seconds() - t0;
    ENSURE_EQ_INT(st, DIRAC_OK);
    spec_destroy(s);
    t0 = seconds();
    s = parse_text(large, &st);
    double t_large = seconds() - t0;
    ENSURE_EQ_INT(st, DIRAC_OK);
    if (st != DIRAC_OK)
        fprintf(stderr, "%.2000s", spec_errmsg(s));
    const spec_model *m = spec_root(s);
    int params = 0, terms = 0;
    for (int i = 3; i < 1000000; i++) {
        params += i % 4 == 0;
        terms += i % 4 == 2;
    }
    ENSURE(m && m->param_count == params && m->lagrangian_count == terms);
    spec_destroy(s);
    printf("1e5 lines: %.3f s, 1e6 lines: %.3f s\n", t_small, t_large);
    free(large);
    // an error at the end of a big file is found and shown
    size_t n = strlen(small);
    char *bad = malloc(n + 32);
    if (bad) {
        memcpy(bad, small, n);
        strcpy(bad + n, "lagrangian zz\n");
        s = parse_text(bad, &st);
        ENSURE_FIRST_LINE(spec_errmsg(s), "t.dirac:100001:12: error: unknown name 'zz'");
        spec_destroy(s);
        free(bad);
    }
    free(small);
}

static void test_long_lines(void)
{
    // one 10^6-character name, and a 10^6-character comment
    char *text = repeat("model m\ncoordinate ", "x", 1000000, "\nlagrangian ", "", 0, "q\n");
    ENSURE_PARSE_ERROR(text, "t.dirac:3:12: error: unknown name 'q'");
    free(text);
    text = repeat("model m\ncoordinate x # ", "c", 1000000, "\nlagrangian x'^2 + ", "", 0, "q\n");
    ENSURE_PARSE_ERROR(text, "t.dirac:3:19: error: unknown name 'q'");
    free(text);
    // a 10^6-digit number
    text = repeat("model m\ncoordinate x\nlagrangian x'^2 + 0.", "1", 1000000, "", "", 0, "\n");
    ENSURE_PARSES(text);
    free(text);
    text = repeat("model m\ncoordinate x\nlagrangian x'^2 + 1", "0", 1000, "", "", 0, "\n");
    ENSURE_PARSE_ERROR(text, "t.dirac:3:19: error: number '100000000000000000000000000000000000000"
                             "0...' is out of range");
    free(text);
}

// every allocation failing in turn: no crash, no leak (sanitizer build), a clean status
static void test_out_of_memory(void)
{
    const char *inputs[] = {
        "model pendulum\nparameter m = 1, g = 9.81, l = 1\ncoordinate x, y\nlet r = x^2 + y^2\n"
        "lagrangian m/2*(x'^2 + y'^2) - m*g*y\nconstraint rod: r = l^2\nforce x: -x'\n"
        "initial x = l, y' = 0\nsimulate method = rk4, dt = 1e-3\noutput a = atan2(x, -y)\n"
        "component c = M(a = 1) from \"m.dirac\"\ntwoform B: m * d(x) ^ d(y) - d(y) ^ d(c.z)\n"
        "entropy S, S2\nfriction x -> S: -x'\nheat S, S2: 1\nheat_input S: sin(t)\n",
        "model bad\ncoordinate x\nlagrangian q + sinn(x)\nparameter x = 1\n",
    };
    for (size_t k = 0; k < sizeof inputs / sizeof *inputs; k++) {
        // how many allocations does a successful run make?
        spec *s = NULL;
        dirac_status full = spec_parse_buffer("t.dirac", inputs[k], strlen(inputs[k]), NULL, &s);
        spec_destroy(s);
        int failures = 0;
        for (long n = 1; n < 400; n++) {
            spec_options opt = { 0, n };
            dirac_status st = spec_parse_buffer("t.dirac", inputs[k], strlen(inputs[k]), &opt, &s);
            if (st == DIRAC_ERR_NOMEM) {
                failures++;
                ENSURE(strstr(spec_errmsg(s), "out of memory") || s == NULL ||
                       strstr(spec_errmsg(s), "error:"));
            } else {
                ENSURE_EQ_INT(st, full);
            }
            spec_destroy(s);
        }
        ENSURE(failures > 0);
    }
    // and overrides
    spec *s = parse_text("model m\nparameter k = 1\ncoordinate x\nlagrangian x'^2\n", NULL);
    ENSURE_EQ_INT(spec_set_parameter_override(s, "k=2"), DIRAC_OK);
    spec_destroy(s);
}

TEST_MAIN(TEST(test_deep_nesting), TEST(test_huge_file), TEST(test_long_lines),
          TEST(test_out_of_memory))

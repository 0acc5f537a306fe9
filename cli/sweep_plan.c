// The runs of `dirac sweep` from its --vary specifications (sweep_plan.h).
#include "sweep_plan.h"
#include "sweep_random.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Reads a finite number filling text[0..len); 0 on success.
static int number(const char *text, size_t len, double *out)
{
    char buf[128];
    while (len > 0 && (*text == ' ' || *text == '\t'))
        text++, len--;
    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}

// Splits text at `sep` into at most max fields; returns the count or -1 if more.
static int split(const char *text, char sep, const char **start, size_t *len, int max)
{
    int n = 0;
    for (const char *p = text;; ) {
        const char *q = strchr(p, sep);
        if (n == max)
            return -1;
        start[n] = p;
        len[n] = q ? (size_t)(q - p) : strlen(p);
        n++;
        if (!q)
            return n;
        p = q + 1;
    }
}

// A:B:N[:log|:lin]
static int parse_range(sweep_varied *v, const char *text, char *msg, size_t size)
{
    const char *f[4];
    size_t len[4];
    int n = split(text, ':', f, len, 4);
    double a, b, count;
    int log_scale = 0;
    if (n == 4) {
        if (len[3] == 3 && !strncmp(f[3], "log", 3))
            log_scale = 1;
        else if (!(len[3] == 3 && !strncmp(f[3], "lin", 3)))
            n = -1;
    }
    if ((n != 3 && n != 4) || number(f[0], len[0], &a) || number(f[1], len[1], &b) ||
        number(f[2], len[2], &count)) {
        snprintf(msg, size, "--vary %s=%s: expected A:B:N or A:B:N:log", v->name, text);
        return -1;
    }
    if (!(count >= 1 && count <= (double)SWEEP_MAX_RUNS && count == floor(count))) {
        snprintf(msg, size, "--vary %s=%s: the number of values must be a whole number from "
                            "1 to %ld", v->name, text, SWEEP_MAX_RUNS);
        return -1;
    }
    if (count == 1 && a != b) {
        snprintf(msg, size, "--vary %s=%s: one value from %g to %g is ambiguous (give a list "
                            "or N >= 2)", v->name, text, a, b);
        return -1;
    }
    if (log_scale && !(a > 0 && b > 0)) {
        snprintf(msg, size, "--vary %s=%s: a log range needs positive ends", v->name, text);
        return -1;
    }
    v->count = (long)count;
    v->values = malloc((size_t)v->count * sizeof *v->values);
    if (!v->values) {
        snprintf(msg, size, "out of memory");
        return -1;
    }
    // x_j = A + (B − A) j/(N − 1), or exp of the same in log A, log B; the ends exactly A, B
    for (long j = 0; j < v->count; j++) {
        double s = v->count > 1 ? (double)j / (double)(v->count - 1) : 0;
        v->values[j] = log_scale ? exp(log(a) + (log(b) - log(a)) * s) : a + (b - a) * s;
    }
    v->values[0] = a;
    v->values[v->count - 1] = b;
    return 0;
}

static int parse_list(sweep_varied *v, const char *text, char *msg, size_t size)
{
    long n = 1;
    for (const char *p = text; *p; p++)
        n += *p == ',';
    v->values = malloc((size_t)n * sizeof *v->values);
    if (!v->values) {
        snprintf(msg, size, "out of memory");
        return -1;
    }
    v->count = 0;
    for (const char *p = text;; ) {
        const char *q = strchr(p, ',');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (number(p, len, &v->values[v->count])) {
            snprintf(msg, size, "--vary %s=%s: '%.*s' is not a finite number (expected a list "
                                "V1,V2,..., a range A:B:N[:log] or a distribution)", v->name,
                     text, (int)len, p);
            return -1;
        }
        v->count++;
        if (!q)
            return 0;
        p = q + 1;
    }
}

// uniform(A,B), loguniform(A,B), normal(MEAN,SD)
static int parse_distribution(sweep_varied *v, const char *text, char *msg, size_t size)
{
    static const struct { const char *name; sweep_kind kind; } kinds[] = {
        { "uniform", SWEEP_UNIFORM }, { "loguniform", SWEEP_LOGUNIFORM },
        { "normal", SWEEP_NORMAL } };
    const char *open = strchr(text, '('), *close = strrchr(text, ')');
    int found = -1;
    for (int k = 0; k < 3 && open; k++)
        if ((size_t)(open - text) == strlen(kinds[k].name) &&
            !strncmp(text, kinds[k].name, strlen(kinds[k].name)))
            found = k;
    const char *f[2];
    size_t len[2];
    char inner[256];
    if (found >= 0 && close && close[1] == '\0' && (size_t)(close - open) < sizeof inner) {
        memcpy(inner, open + 1, (size_t)(close - open - 1));
        inner[close - open - 1] = '\0';
        if (split(inner, ',', f, len, 2) != 2 || number(f[0], len[0], &v->a) ||
            number(f[1], len[1], &v->b))
            found = -1;
    } else {
        found = -1;
    }
    if (found < 0) {
        snprintf(msg, size, "--vary %s=%s: expected uniform(A,B), loguniform(A,B) or "
                            "normal(MEAN,SD)", v->name, text);
        return -1;
    }
    v->kind = kinds[found].kind;
    if (v->kind == SWEEP_NORMAL ? !(v->b > 0) : !(v->a < v->b)) {
        snprintf(msg, size, v->kind == SWEEP_NORMAL ? "--vary %s=%s: the standard deviation "
                                                      "must be positive"
                                                    : "--vary %s=%s: needs A < B", v->name,
                 text);
        return -1;
    }
    if (v->kind == SWEEP_LOGUNIFORM && !(v->a > 0)) {
        snprintf(msg, size, "--vary %s=%s: loguniform needs 0 < A < B", v->name, text);
        return -1;
    }
    return 0;
}

int sweep_plan_add(sweep_plan *plan, const char *spec, char *msg, size_t size)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        snprintf(msg, size, "--vary needs NAME=VALUES (a range A:B:N[:log], a list V1,V2,... or "
                            "a distribution), got '%s'", spec);
        return -1;
    }
    if (plan->varied_count == SWEEP_MAX_VARIED) {
        snprintf(msg, size, "too many --vary options (at most %d)", SWEEP_MAX_VARIED);
        return -1;
    }
    sweep_varied *v = &plan->varied[plan->varied_count];
    memset(v, 0, sizeof *v);
    v->name = malloc((size_t)(eq - spec) + 1);
    if (!v->name) {
        snprintf(msg, size, "out of memory");
        return -1;
    }
    memcpy(v->name, spec, (size_t)(eq - spec));
    v->name[eq - spec] = '\0';
    plan->varied_count++;
    for (int k = 0; k < plan->varied_count - 1; k++)
        if (!strcmp(plan->varied[k].name, v->name)) {
            snprintf(msg, size, "--vary %s is given twice", v->name);
            return -1;
        }
    const char *text = eq + 1;
    if (strchr(text, '('))
        return parse_distribution(v, text, msg, size);
    v->kind = SWEEP_LIST;
    if (strchr(text, ':'))
        return parse_range(v, text, msg, size);
    return parse_list(v, text, msg, size);
}

// Quantile of varied parameter v's distribution at u in (0, 1).
static double quantile(const sweep_varied *v, double u)
{
    switch (v->kind) {
    case SWEEP_UNIFORM:
        return v->a + (v->b - v->a) * u;
    case SWEEP_LOGUNIFORM:
        return exp(log(v->a) + (log(v->b) - log(v->a)) * u);
    case SWEEP_NORMAL:
        return v->a + v->b * sweep_normal_quantile(u);
    case SWEEP_LIST:
        break;
    }
    return NAN;
}

static int fill_grid(sweep_plan *plan, char *msg, size_t size)
{
    int m = plan->varied_count;
    double runs = 1;
    for (int k = 0; k < m; k++) {
        if (plan->varied[k].kind != SWEEP_LIST) {
            snprintf(msg, size, "--vary %s is a distribution: give --samples N", 
                     plan->varied[k].name);
            return -1;
        }
        runs *= (double)plan->varied[k].count;
    }
    if (runs > (double)SWEEP_MAX_RUNS) {
        snprintf(msg, size, "the grid has %.3g runs, more than %ld", runs, SWEEP_MAX_RUNS);
        return -1;
    }
    plan->runs = (long)runs;
    plan->values = malloc((size_t)plan->runs * (size_t)(m > 0 ? m : 1) * sizeof(double));
    if (!plan->values) {
        snprintf(msg, size, "out of memory");
        return -1;
    }
    // mixed radix, the last --vary fastest
    for (long i = 0; i < plan->runs; i++) {
        long rest = i;
        for (int k = m - 1; k >= 0; k--) {
            const sweep_varied *v = &plan->varied[k];
            plan->values[i * m + k] = v->values[rest % v->count];
            rest /= v->count;
        }
    }
    return 0;
}

static int fill_samples(sweep_plan *plan, long samples, uint64_t seed, char *msg, size_t size)
{
    int m = plan->varied_count;
    for (int k = 0; k < m; k++)
        if (plan->varied[k].kind == SWEEP_LIST) {
            snprintf(msg, size, "--vary %s is a grid or list; with --samples every --vary must "
                                "be a distribution (uniform, loguniform, normal)",
                     plan->varied[k].name);
            return -1;
        }
    if (samples > SWEEP_MAX_RUNS) {
        snprintf(msg, size, "--samples %ld is more than %ld", samples, SWEEP_MAX_RUNS);
        return -1;
    }
    plan->runs = samples;
    plan->values = malloc((size_t)samples * (size_t)m * sizeof(double));
    long *perm = malloc((size_t)samples * sizeof *perm);
    double *u = malloc((size_t)samples * sizeof *u);
    if (!plan->values || !perm || !u) {
        free(perm);
        free(u);
        snprintf(msg, size, "out of memory");
        return -1;
    }
    sweep_rng rng;
    sweep_rng_seed(&rng, seed);
    for (int k = 0; k < m; k++) {
        sweep_latin_hypercube(&rng, samples, perm, u);
        for (long i = 0; i < samples; i++)
            plan->values[i * m + k] = quantile(&plan->varied[k], u[i]);
    }
    free(perm);
    free(u);
    return 0;
}

int sweep_plan_finish(sweep_plan *plan, long samples, uint64_t seed, char *msg, size_t size)
{
    if (plan->varied_count == 0) {
        snprintf(msg, size, "nothing to vary: give at least one --vary NAME=VALUES");
        return -1;
    }
    return samples > 0 ? fill_samples(plan, samples, seed, msg, size)
                       : fill_grid(plan, msg, size);
}

double sweep_plan_value(const sweep_plan *plan, long i, int k)
{
    return plan->values[i * plan->varied_count + k];
}

void sweep_plan_free(sweep_plan *plan)
{
    for (int k = 0; k < plan->varied_count; k++) {
        free(plan->varied[k].name);
        free(plan->varied[k].values);
    }
    free(plan->values);
    memset(plan, 0, sizeof *plan);
}

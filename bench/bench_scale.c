// Scale benchmark (issue: O(N) cost to 10^5 coordinates): a linear spring chain of N = 10^3 …
// 10^5 masses against a hand-written Störmer–Verlet loop (run_chain); N = 10 … 10^5 cells of an LC
// transmission line (degenerate Lagrangian, one Kirchhoff constraint per node: sparse Newton
// with KLU) and N = 10 … 10^4 links of a Cartesian pendulum chain, prints parse and compile
// time, peak memory, time per step and Newton iterations per step, and the fitted exponent b
// of each against N (time ∝ N^b, least squares in log–log over N >= 200 coordinates). Target:
// b <= 1.1. Peak memory is the process's maximum so far (getrusage), so it only grows.
//   build/bench/bench_scale [MAX_N [--chain]]     (--chain: the spring chain only)
#define _POSIX_C_SOURCE 200809L
#include <dirac/dirac.h>

#include "problems.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// LC ladder (problems.h), Lc = C = 1e-3, charge 1e-3 on the first capacitor.
static char *transmission_line(int cells)
{
    double *charge = calloc((size_t)cells, sizeof *charge);
    if (!charge)
        return NULL;
    charge[0] = 1e-3;
    char *text = lc_line_model(cells, 1e-3, 1e-3, charge);
    free(charge);
    return text;
}

// Linear spring chain between walls: N unit masses, springs k between neighbours and to the
// walls (issue 15's scale benchmark), one indexed coordinate x[N].
#define CHAIN_K 100.0   // ω_max h = 2 sqrt(k/m) h = 0.2 at h = 1e-2: Störmer–Verlet stable
static char *spring_chain(int masses)
{
    char *t = malloc(512);
    if (!t)
        return NULL;
    snprintf(t, 512,
             "model springs\nparameter m = 1, k = %g\ncoordinate x[%d]\n"
             "lagrangian sum(i = 1..%d, m/2*x[i]'^2) - k/2*x[1]^2"
             " - sum(i = 2..%d, k/2*(x[i] - x[i-1])^2) - k/2*x[%d]^2\n"
             "initial x[1] = 0.01\n",
             CHAIN_K, masses, masses, masses, masses);
    return t;
}

// Hand-written velocity Störmer–Verlet for the same chain (the baseline): seconds per step.
static double verlet_step_time(int masses, double dt, int steps)
{
    double *x = calloc((size_t)masses + 2, sizeof *x), *v = calloc((size_t)masses, sizeof *v);
    double *a = calloc((size_t)masses, sizeof *a);
    if (!x || !v || !a) {
        free(x), free(v), free(a);
        return NAN;
    }
    double *q = x + 1;   // q[-1] = q[masses] = 0: the walls
    q[0] = 0.01;
    const double k = CHAIN_K, half = 0.5 * dt;
    for (int i = 0; i < masses; i++)
        a[i] = -k * (2.0 * q[i] - q[i - 1] - q[i + 1]);
    double t0 = now();
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < masses; i++) {
            v[i] += half * a[i];
            q[i] += dt * v[i];
        }
        for (int i = 0; i < masses; i++) {
            a[i] = -k * (2.0 * q[i] - q[i - 1] - q[i + 1]);
            v[i] += half * a[i];
        }
    }
    double elapsed = (now() - t0) / steps;
    volatile double sink = q[masses / 2];   // keep the loop
    (void)sink;
    free(x), free(v), free(a);
    return elapsed;
}

// Cartesian pendulum chain of point masses on rods 0.1 long, tilted by 0.3 rad (problems.h).
static char *pendulum_chain(int links)
{
    return pendulum_chain_model(links, 0.1, 0.3);
}

typedef struct row {
    int n;
    double parse, compile, step, iterations, memory_mb;
} row;

// Parses, compiles and steps `text`: r->step is the fastest of `repeats` blocks of `steps`
// steps (the minimum is the least disturbed by other jobs on a shared machine).
static int measure(const char *text, double dt, int steps, int repeats, row *r)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_sim *sim = NULL;
    dirac_error err;
    double t0 = now();
    if (dirac_spec_parse("bench.dirac", text, strlen(text), &spec) != DIRAC_OK) {
        fputs(spec ? dirac_spec_errmsg(spec) : "out of memory\n", stderr);
        return 0;
    }
    double t1 = now();
    if (dirac_model_compile(spec, &model) != DIRAC_OK) {
        fputs(dirac_spec_errmsg(spec), stderr);
        return 0;
    }
    double t2 = now();
    dirac_sim_options options = { .method = "midpoint", .dt = dt };
    if (dirac_sim_create(model, &options, &sim, &err) != DIRAC_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 0;
    }
    int ok = dirac_sim_step(sim) == DIRAC_OK;   // the first step records the sparse patterns
    long iterations = 0;
    double best = HUGE_VAL;
    for (int rep = 0; ok && rep < repeats; rep++) {
        double t3 = now();
        for (int k = 0; ok && k < steps; k++) {
            ok = dirac_sim_step(sim) == DIRAC_OK;
            iterations += dirac_sim_newton_iterations(sim);
        }
        double block = (now() - t3) / steps;
        best = block < best ? block : best;
    }
    if (!ok)
        fprintf(stderr, "%s\n", dirac_sim_errmsg(sim));
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    r->n = dirac_model_coordinate_count(model);
    r->parse = t1 - t0;
    r->compile = t2 - t1;
    r->step = best;
    r->iterations = (double)iterations / ((double)steps * repeats);
    r->memory_mb = (double)usage.ru_maxrss / 1024.0;
    dirac_sim_destroy(sim);
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    return ok;
}

// Least-squares slope of log(y) against log(x) over the rows with n >= 100.
static double exponent(const row *rows, int count, size_t offset)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int i = 0; i < count; i++) {
        if (rows[i].n < 200)
            continue;
        double x = log((double)rows[i].n), y = log(*(const double *)((const char *)&rows[i] + offset));
        sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
    }
    return k >= 2 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : (double)NAN;
}

static void run(const char *name, char *(*make)(int), int max_n, double dt)
{
    row rows[8];
    int count = 0;
    printf("\n%s (midpoint, dt = %g)\n", name, dt);
    printf("| N | coordinates | parse s | compile s | step s | Newton its/step | peak RSS MB |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    for (int n = 10; n <= max_n && count < 8; n *= 10) {
        char *text = make(n);
        int steps = n >= 100000 ? 3 : n >= 10000 ? 10 : 100;
        if (!text || !measure(text, dt, steps, 1, &rows[count])) {
            free(text);
            break;
        }
        free(text);
        const row *r = &rows[count++];
        printf("| %d | %d | %.4f | %.4f | %.3e | %.2f | %.0f |\n", n, r->n, r->parse, r->compile,
               r->step, r->iterations, r->memory_mb);
        fflush(stdout);
    }
    printf("fitted exponents (N >= 200): parse %.2f, compile %.2f, step %.2f (target <= 1.1)\n",
           exponent(rows, count, offsetof(row, parse)), exponent(rows, count, offsetof(row, compile)),
           exponent(rows, count, offsetof(row, step)));
}

// The spring chain with midpoint at dt = 1e-2 against hand-written Störmer–Verlet, N = 10^3 …
// max_n: time per coordinate per step of each (the fastest of CHAIN_REPEATS blocks) and their
// ratio (target <= 20), the step time's exponent in N over the rows with N >= 10^4 (target
// <= 1.15) and peak RSS per coordinate.
#define CHAIN_REPEATS 7
static void run_chain(int max_n)
{
    const double dt = 1e-2;
    row rows[8];
    int count = 0;
    printf("\nlinear spring chain between walls, N masses (midpoint, dt = %g) vs hand-written "
           "Störmer–Verlet\n", dt);
    printf("| N | step s | ns/coordinate/step | Verlet ns/coordinate/step | ratio | "
           "Newton its/step | peak RSS MB |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    for (int n = 1000; n <= max_n && count < 8; n *= 10) {
        char *text = spring_chain(n);
        int steps = n >= 100000 ? 5 : n >= 10000 ? 20 : 100;
        if (!text || !measure(text, dt, steps, CHAIN_REPEATS, &rows[count])) {
            free(text);
            break;
        }
        free(text);
        const row *r = &rows[count++];
        double verlet = HUGE_VAL;
        for (int rep = 0; rep < CHAIN_REPEATS; rep++) {
            double t = verlet_step_time(n, dt, n >= 100000 ? 200 : 2000);
            verlet = t < verlet ? t : verlet;
        }
        printf("| %d | %.3e | %.1f | %.2f | %.1f | %.2f | %.0f |\n", n, r->step,
               1e9 * r->step / n, 1e9 * verlet / n, r->step / verlet, r->iterations,
               r->memory_mb);
        fflush(stdout);
    }
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int i = 0; i < count; i++)
        if (rows[i].n >= 10000) {
            double x = log((double)rows[i].n), y = log(rows[i].step);
            sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
        }
    if (k >= 2)
        printf("step time exponent in N (N >= 10^4): %.2f (target <= 1.15)\n",
               (k * sxy - sx * sy) / (k * sxx - sx * sx));
}

int main(int argc, char **argv)
{
    int max_n = argc > 1 ? atoi(argv[1]) : 100000;
    if (argc > 2 && !strcmp(argv[2], "--chain")) {
        run_chain(max_n);
        return 0;
    }
    run_chain(max_n);
    run("LC transmission line, N cells", transmission_line, max_n, 1e-4);
    run("Cartesian pendulum chain, N links", pendulum_chain, max_n < 10000 ? max_n : 10000, 1e-3);
    return 0;
}

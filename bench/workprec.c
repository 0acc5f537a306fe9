// Work-precision benchmark of libdirac's integrators against GSL odeiv2 and SUNDIALS IDA
// (issue 8). bench/workprec.sh builds and runs it; docs/benchmarks.md shows its output.
//
// Problems (models in bench/models/, parameters set from `params` below):
//   pendulum          Cartesian, 1 holonomic constraint, [0, 10]; exact solution (Jacobi
//                     elliptic functions, tests/support/problems.h)
//   double pendulum   Cartesian, 2 holonomic constraints, [0, 5]; reference: GSL rk8pd on the
//                     angles at tolerance 1e-14, checked against libdirac midpoint runs at
//                     three steps, Richardson-extrapolated twice
//   RLC circuit       degenerate Lagrangian, Kirchhoff's law as a Pfaffian constraint, resistor
//                     force, [0, 0.5]; exact solution
//   slider-crank      closed loop (3 holonomic constraints), stiff damped spring, [0, 2];
//                     reference as for the double pendulum
//
// Solvers: every method of `dirac methods` at steps h = t_end / N, N = N0, 2 N0, 4 N0, ...;
// GSL rk4imp (fixed step, same N sequence) and rk8pd (adaptive, tol = 1e-2 ... 1e-12) on
// minimal coordinates; IDA on the GGL index-2 formulation (tol = 1e-2 ... 1e-12).
//
// Error: max over the Cartesian position coordinates of |q(t_end) - q_ref(t_end)|, divided by
// the problem's length scale (l, l1, Q0, r). Wall time: the whole solve (creation of the
// solver object, all steps, destruction; not the model compilation), median of 3 to 15
// repetitions (runs that fail are timed once). A sequence stops when the error is below 3e-12,
// stagnates, or the next run would take longer than the time cap (0.8 s).
//
// Equal-error comparison: each solver's (time, error) points are reduced to their Pareto front
// and interpolated linearly in log-log at the target errors; no extrapolation below the
// smallest error reached ("—"); above the largest error the cheapest run's time is an upper
// bound ("≤").
//
// Long run: the pendulum over 10^4 periods: every fixed-step solver at h = T/100 (halved while
// its first step fails), rk8pd and IDA at two tolerances; relative energy error, position error
// and |phi| at the end.
//
// Usage: workprec [--quick] [--models DIR] [--out DIR] [--figure PNG] [--periods N]
//   --quick     short timings and a 10^3-period long run (for testing the program)
//   --out DIR   where workprec.csv, longrun.csv, workprec.dat and workprec.gp are written
//   --figure    the PNG the gnuplot script writes (default DIR/workprec.png)
#define _POSIX_C_SOURCE 200809L

#include <dirac/dirac.h>

#include "problems.h"
#include "workprec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef DIRAC_SOURCE_DIR
#define DIRAC_SOURCE_DIR "."
#endif

static const wp_params params = {
    .m = 1.0, .l = 1.0, .g = 9.81, .theta0 = 0.5,
    .m1 = 1.0, .m2 = 1.0, .l1 = 1.0, .l2 = 1.0, .th1 = 1.0, .th2 = 1.5,
    .Lind = 0.1, .C = 1e-3, .R = 1.0, .Q0 = 1e-3,
    .sm1 = 2.0, .sm2 = 0.5, .sm3 = 1.0, .r = 0.1, .rl = 0.3, .k = 1e8, .c = 2e4, .w0 = 10.0,
};

static double run_cap = 0.8;        // s: no run predicted to take longer is started
static double rep_budget = 0.4;     // s: repetitions per point ~ rep_budget / run time
static int min_reps = 3, max_reps = 15;
static double long_periods = 1e4;
static const double err_floor = 3e-12;

static const double targets[] = { 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10 };
enum { TARGET_COUNT = sizeof targets / sizeof targets[0] };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void die(const char *what, const char *message)
{
    fprintf(stderr, "workprec: %s: %s\n", what, message);
    exit(1);
}

// ---------------------------------------------------------------------------------------
// Problems.

typedef struct problem {
    int id;
    const char *name, *file;
    const char *coords[WP_MAX_Q];
    int n;
    double t_end, scale;
    long n0;                      // coarsest number of steps of the fixed-step solvers
    const char *overrides[16];    // NAME=VALUE, filled from params
    char override_text[16][64];
    dirac_model *model;
    int map[WP_MAX_Q];            // dirac coordinate index of coordinate i
    double ref[WP_MAX_Q];
    char ref_how[400];
} problem;

static problem problems[WP_PROBLEM_COUNT] = {
    { .id = WP_PENDULUM, .name = "pendulum", .file = "pendulum.dirac",
      .coords = { "x", "y" }, .n = 2, .t_end = 10.0, .n0 = 12 },
    { .id = WP_DOUBLE_PENDULUM, .name = "double pendulum", .file = "double_pendulum.dirac",
      .coords = { "x1", "y1", "x2", "y2" }, .n = 4, .t_end = 5.0, .n0 = 16 },
    { .id = WP_RLC, .name = "RLC circuit", .file = "rlc.dirac",
      .coords = { "qL", "qC" }, .n = 2, .t_end = 0.5, .n0 = 16 },
    { .id = WP_SLIDER_CRANK, .name = "slider-crank (stiff)", .file = "slider_crank.dirac",
      .coords = { "x1", "y1", "x2", "y2", "x3" }, .n = 5, .t_end = 2.0, .n0 = 16 },
};

static void set_override(problem *pb, int *k, const char *name, double value)
{
    snprintf(pb->override_text[*k], sizeof pb->override_text[*k], "%s=%.17g", name, value);
    pb->overrides[*k] = pb->override_text[*k];
    (*k)++;
}

static void load_problem(problem *pb, const char *models)
{
    const wp_params *p = &params;
    int k = 0;
    switch (pb->id) {
    case WP_PENDULUM:
        set_override(pb, &k, "m", p->m);
        set_override(pb, &k, "l", p->l);
        set_override(pb, &k, "g", p->g);
        set_override(pb, &k, "theta0", p->theta0);
        pb->scale = p->l;
        break;
    case WP_DOUBLE_PENDULUM:
        set_override(pb, &k, "m1", p->m1);
        set_override(pb, &k, "m2", p->m2);
        set_override(pb, &k, "l1", p->l1);
        set_override(pb, &k, "l2", p->l2);
        set_override(pb, &k, "g", p->g);
        set_override(pb, &k, "th1", p->th1);
        set_override(pb, &k, "th2", p->th2);
        pb->scale = p->l1;
        break;
    case WP_RLC:
        set_override(pb, &k, "Lind", p->Lind);
        set_override(pb, &k, "C", p->C);
        set_override(pb, &k, "R", p->R);
        set_override(pb, &k, "Q0", p->Q0);
        pb->scale = p->Q0;
        break;
    default:
        set_override(pb, &k, "m1", p->sm1);
        set_override(pb, &k, "m2", p->sm2);
        set_override(pb, &k, "m3", p->sm3);
        set_override(pb, &k, "r", p->r);
        set_override(pb, &k, "l", p->rl);
        set_override(pb, &k, "k", p->k);
        set_override(pb, &k, "c", p->c);
        set_override(pb, &k, "w0", p->w0);
        pb->scale = p->r;
        break;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", models, pb->file);
    dirac_spec *spec = NULL;
    if (dirac_spec_load(path, &spec) != DIRAC_OK)
        die(path, spec ? dirac_spec_errmsg(spec) : "out of memory");
    for (int j = 0; j < k; j++)
        if (dirac_spec_set_parameter(spec, pb->overrides[j]) != DIRAC_OK)
            die(path, dirac_spec_errmsg(spec));
    if (dirac_model_compile(spec, &pb->model) != DIRAC_OK)
        die(path, dirac_spec_errmsg(spec));
    dirac_spec_destroy(spec);
    if (dirac_model_coordinate_count(pb->model) != pb->n)
        die(path, "unexpected number of coordinates");
    for (int i = 0; i < pb->n; i++) {
        pb->map[i] = -1;
        for (int j = 0; j < pb->n; j++)
            if (strcmp(dirac_model_coordinate_name(pb->model, j), pb->coords[i]) == 0)
                pb->map[i] = j;
        if (pb->map[i] < 0)
            die(path, "coordinate not found");
    }
}

static double error_of(const problem *pb, const double *q)
{
    double e = 0.0;
    for (int i = 0; i < pb->n; i++)
        e = fmax(e, fabs(q[i] - pb->ref[i]));
    return e / pb->scale;
}

// ---------------------------------------------------------------------------------------
// Solvers.

enum { S_DIRAC, S_RK4IMP, S_RK8PD, S_IDA };

typedef struct solver {
    char name[40];
    int kind;
    const char *method;   // dirac method name
} solver;

static solver solvers[32];
static int solver_count;

static int is_peer(const solver *s)
{
    return s->kind != S_DIRAC;
}

// Runs one solve; returns 0 if the solver refuses the problem (message in out), else 1.
static int run_dirac(const problem *pb, const char *method, long steps, double t_end,
                     wp_result *out)
{
    memset(out, 0, sizeof *out);
    dirac_sim_options options = { .method = method, .dt = t_end / (double)steps };
    dirac_sim *sim = NULL;
    dirac_error err;
    if (dirac_sim_create(pb->model, &options, &sim, &err) != DIRAC_OK) {
        snprintf(out->message, sizeof out->message, "%.190s", err.message);
        return 0;
    }
    long k = 0;
    for (; k < steps; k++)
        if (dirac_sim_step(sim) != DIRAC_OK)
            break;
    out->steps = k;
    out->t = dirac_sim_time(sim);
    if (k < steps) {
        snprintf(out->message, sizeof out->message, "step %ld of %ld failed: %.120s", k + 1,
                 steps, dirac_sim_errmsg(sim));
    } else {
        const double *q = dirac_sim_q(sim);
        int finite = 1;
        for (int i = 0; i < pb->n; i++) {
            out->q[i] = q[pb->map[i]];
            finite &= isfinite(out->q[i]) != 0;
        }
        out->energy = dirac_sim_energy(sim);
        out->constraint = dirac_sim_constraint_residual(sim);
        out->ok = finite;
        if (!finite)
            snprintf(out->message, sizeof out->message, "non-finite state at the end");
    }
    dirac_sim_destroy(sim);
    return 1;
}

static int run_solver(const problem *pb, const solver *s, double setting, double t_end,
                      wp_result *out)
{
    switch (s->kind) {
    case S_DIRAC:
        return run_dirac(pb, s->method, (long)setting, t_end, out);
    case S_RK4IMP:
        wp_gsl_run(pb->id, &params, WP_GSL_RK4IMP, setting, t_end, out);
        return 1;
    case S_RK8PD:
        wp_gsl_run(pb->id, &params, WP_GSL_RK8PD, setting, t_end, out);
        return 1;
    default:
        wp_ida_run(pb->id, &params, setting, t_end, out);
        return 1;
    }
}

// ---------------------------------------------------------------------------------------
// Measurements.

typedef struct point {
    double setting;       // steps N or tolerance
    int ok;
    double err, seconds;
    long steps, rejected;
    double constraint;
    int reps;
    char message[160];
} point;

typedef struct curve {
    const problem *pb;
    const solver *s;
    point pts[40];
    int count;
    char refused[200];
    char stop[80];
} curve;

static curve curves[WP_PROBLEM_COUNT][32];

static point measure(const problem *pb, const solver *s, double setting, int *refused,
                     char *refusal, size_t refusal_size)
{
    point pt = { .setting = setting };
    wp_result res;
    double start = now();
    int accepted = run_solver(pb, s, setting, pb->t_end, &res);
    double first = now() - start;
    if (!accepted) {
        *refused = 1;
        snprintf(refusal, refusal_size, "%s", res.message);
        return pt;
    }
    pt.steps = res.steps;
    pt.rejected = res.rejected;
    pt.seconds = first;
    pt.reps = 1;
    if (!res.ok) {
        snprintf(pt.message, sizeof pt.message, "%.150s", res.message);
        return pt;
    }
    pt.ok = 1;
    pt.err = error_of(pb, res.q);
    pt.constraint = res.constraint;
    int reps = (int)(rep_budget / fmax(first, 1e-7));
    if (reps < min_reps)
        reps = min_reps;
    if (reps > max_reps)
        reps = max_reps;
    double times[32];
    times[0] = first;
    for (int r = 1; r < reps; r++) {
        start = now();
        run_solver(pb, s, setting, pb->t_end, &res);
        times[r] = now() - start;
    }
    qsort(times, (size_t)reps, sizeof *times, compare_doubles);
    pt.seconds = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    pt.reps = reps;
    return pt;
}

static void measure_curve(curve *c)
{
    const problem *pb = c->pb;
    const solver *s = c->s;
    int fixed = s->kind == S_DIRAC || s->kind == S_RK4IMP;
    double setting = fixed ? (double)pb->n0 : 1e-2;
    double predicted = 0.0;
    int stagnant = 0;
    snprintf(c->stop, sizeof c->stop, "end of the sequence");
    for (int j = 0; j < 40; j++) {
        if (!fixed && setting < 0.99e-12)
            break;
        if (fixed && setting > 2e8)
            break;
        if (j > 0 && predicted > run_cap) {
            snprintf(c->stop, sizeof c->stop, "time cap (next run ~%.2g s)", predicted);
            break;
        }
        int refused = 0;
        point pt = measure(pb, s, setting, &refused, c->refused, sizeof c->refused);
        if (refused)
            return;
        c->pts[c->count++] = pt;
        // Fixed step: cost per step times the next number of steps (failed runs stop early).
        // Adaptive: the growth of the last two runs (at least 1.5x per decade of tolerance).
        if (fixed) {
            predicted = pt.seconds / (double)(pt.steps > 0 ? pt.steps : 1) * 2.0 * setting;
        } else {
            double growth = 1.5;
            if (c->count > 1 && c->pts[c->count - 2].seconds > 0.0)
                growth = fmax(growth, fmin(pt.seconds / c->pts[c->count - 2].seconds, 10.0));
            predicted = pt.seconds * growth;
        }
        if (pt.ok) {
            const point *prev = c->count > 1 ? &c->pts[c->count - 2] : NULL;
            if (pt.err < err_floor) {
                snprintf(c->stop, sizeof c->stop, "error below %.0e", err_floor);
                break;
            }
            if (prev && prev->ok && pt.err > 0.7 * prev->err && pt.err < 1e-6) {
                if (++stagnant >= 2) {
                    snprintf(c->stop, sizeof c->stop, "error stagnates at %.1e", pt.err);
                    break;
                }
            } else {
                stagnant = 0;
            }
        }
        setting = fixed ? 2.0 * setting : 0.1 * setting;
    }
}

// ---------------------------------------------------------------------------------------
// Equal-error interpolation.

// Time to reach `target` (NAN if never reached); *bound = 1 if the cheapest run is already more
// accurate (its time is then an upper bound).
static double time_at_error(const curve *c, double target, int *bound)
{
    point front[40];
    int m = 0;
    point sorted[40];
    int count = 0;
    for (int i = 0; i < c->count; i++)
        if (c->pts[i].ok && c->pts[i].err > 0.0)
            sorted[count++] = c->pts[i];
    // insertion sort by time
    for (int i = 1; i < count; i++) {
        point x = sorted[i];
        int j = i - 1;
        while (j >= 0 && sorted[j].seconds > x.seconds) {
            sorted[j + 1] = sorted[j];
            j--;
        }
        sorted[j + 1] = x;
    }
    double best = INFINITY;
    for (int i = 0; i < count; i++)
        if (sorted[i].err < best) {
            best = sorted[i].err;
            front[m++] = sorted[i];
        }
    *bound = 0;
    if (m == 0 || target < front[m - 1].err)
        return NAN;
    if (target >= front[0].err) {
        *bound = target > front[0].err;
        return front[0].seconds;
    }
    for (int i = 0; i + 1 < m; i++)
        if (front[i].err >= target && target >= front[i + 1].err) {
            double x0 = log(front[i].err), x1 = log(front[i + 1].err);
            double y0 = log(front[i].seconds), y1 = log(front[i + 1].seconds);
            return exp(y0 + (log(target) - x0) * (y1 - y0) / (x1 - x0));
        }
    return NAN;
}

// ---------------------------------------------------------------------------------------
// References.

static void reference(problem *pb)
{
    wp_result r;
    double v[2];
    switch (pb->id) {
    case WP_PENDULUM:
        pendulum_exact(params.g, params.l, params.theta0, pb->t_end, pb->ref, v);
        snprintf(pb->ref_how, sizeof pb->ref_how, "exact (Jacobi elliptic functions, AGM)");
        return;
    case WP_RLC: {
        const wp_params *p = &params;
        double a = p->R / (2.0 * p->Lind), wd = sqrt(1.0 / (p->Lind * p->C) - a * a);
        double t = pb->t_end;
        double qc = p->Q0 * exp(-a * t) * (cos(wd * t) + a / wd * sin(wd * t));
        pb->ref[0] = qc - p->Q0;
        pb->ref[1] = qc;
        snprintf(pb->ref_how, sizeof pb->ref_how, "exact (damped cosine)");
        return;
    }
    default:
        break;
    }
    wp_gsl_run(pb->id, &params, WP_GSL_RK8PD, 1e-14, pb->t_end, &r);
    if (!r.ok)
        die("reference", r.message);
    memcpy(pb->ref, r.q, sizeof pb->ref);
    // consistency: rk8pd at 1e-13
    wp_result r13;
    wp_gsl_run(pb->id, &params, WP_GSL_RK8PD, 1e-13, pb->t_end, &r13);
    double d13 = r13.ok ? error_of(pb, r13.q) : (double)NAN;
    // independent check: libdirac midpoint (Cartesian, a different formulation and method)
    // at N, 2N and 4N steps, Richardson-extrapolated twice (symmetric method: error expansion
    // in even powers of h, so the result is O(h^6))
    long n = 1L << 14;
    wp_result a, b, c;
    run_dirac(pb, "midpoint", n, pb->t_end, &a);
    run_dirac(pb, "midpoint", 2 * n, pb->t_end, &b);
    run_dirac(pb, "midpoint", 4 * n, pb->t_end, &c);
    double rich[WP_MAX_Q];
    for (int i = 0; i < pb->n; i++) {
        double r1 = (4.0 * b.q[i] - a.q[i]) / 3.0, r2 = (4.0 * c.q[i] - b.q[i]) / 3.0;
        rich[i] = (16.0 * r2 - r1) / 15.0;
    }
    double dr = a.ok && b.ok && c.ok ? error_of(pb, rich) : (double)NAN;
    double dm = c.ok ? error_of(pb, c.q) : (double)NAN;
    snprintf(pb->ref_how, sizeof pb->ref_how,
             "GSL rk8pd on minimal coordinates, tol 1e-14 (%ld steps); differs from tol 1e-13 by "
             "%.1e and from libdirac midpoint at h = t_end/2^{14,15,16} Richardson-extrapolated "
             "twice by %.1e (midpoint at t_end/2^16 alone: %.1e)",
             r.steps, d13, dr, dm);
}

// ---------------------------------------------------------------------------------------
// Output.

static const char *setting_text(const solver *s, double setting, char *buf, size_t size)
{
    if (s->kind == S_DIRAC || s->kind == S_RK4IMP)
        snprintf(buf, size, "N=%ld", (long)setting);
    else
        snprintf(buf, size, "tol=%.0e", setting);
    return buf;
}

static void format_time(double seconds, char *buf, size_t size)
{
    snprintf(buf, size, "%.3g ms", 1e3 * seconds);
}

static void write_csv(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/workprec.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        die(path, "cannot write");
    fprintf(f, "problem,solver,setting,steps,rejected,ok,error,seconds,repetitions,"
               "constraint_end,message\n");
    for (int p = 0; p < WP_PROBLEM_COUNT; p++)
        for (int s = 0; s < solver_count; s++) {
            const curve *c = &curves[p][s];
            if (c->refused[0])
                fprintf(f, "%s,%s,,,,0,,,,,\"refused: %s\"\n", problems[p].name, c->s->name,
                        c->refused);
            for (int i = 0; i < c->count; i++) {
                const point *pt = &c->pts[i];
                fprintf(f, "%s,%s,%.3g,%ld,%ld,%d,%.6e,%.6e,%d,%.3e,\"%s\"\n",
                        problems[p].name, c->s->name, pt->setting, pt->steps, pt->rejected,
                        pt->ok, pt->err, pt->seconds, pt->reps, pt->constraint, pt->message);
            }
        }
    fclose(f);
}

static void write_plot(const char *dir, const char *figure)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/workprec.dat", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        die(path, "cannot write");
    int block[WP_PROBLEM_COUNT][32];
    int blocks = 0;
    for (int p = 0; p < WP_PROBLEM_COUNT; p++)
        for (int s = 0; s < solver_count; s++) {
            const curve *c = &curves[p][s];
            int any = 0;
            for (int i = 0; i < c->count; i++)
                any |= c->pts[i].ok && c->pts[i].err > 0.0 && c->pts[i].err <= 1.0;
            block[p][s] = -1;
            if (!any)
                continue;
            if (blocks > 0)
                fprintf(f, "\n\n");
            fprintf(f, "# %s / %s: error seconds\n", problems[p].name, c->s->name);
            for (int i = 0; i < c->count; i++)   // runs with errors above 1 are not shown
                if (c->pts[i].ok && c->pts[i].err > 0.0 && c->pts[i].err <= 1.0)
                    fprintf(f, "%.6e %.6e\n", c->pts[i].err, c->pts[i].seconds);
            block[p][s] = blocks++;
        }
    fclose(f);

    snprintf(path, sizeof path, "%s/workprec.gp", dir);
    f = fopen(path, "w");
    if (!f)
        die(path, "cannot write");
    fprintf(f, "# generated by bench/workprec.c\n");
    fprintf(f, "set terminal pngcairo size 1800,1200 font 'DejaVu Sans,11'\n");
    fprintf(f, "set output '%s'\n", figure);
    fprintf(f, "set multiplot layout 2,2 title 'Work–precision: error at t_{end} vs wall "
               "time (libdirac solid, peers dashed; runs with error > 1 not shown)' font ',14'\n");
    fprintf(f, "set logscale xy\nset format x '10^{%%L}'\nset format y '10^{%%L}'\n");
    fprintf(f, "set xrange [1:1e-13]\nset grid xtics ytics mxtics mytics lc rgb '#dddddd'\n");
    fprintf(f, "set xlabel 'relative error at t_{end}'\nset ylabel 'wall time (s)'\n");
    fprintf(f, "set key outside right top vertical font ',9' spacing 0.9\n");
    const char *colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                             "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aa0000" };
    for (int s = 0; s < solver_count; s++) {
        int peer = is_peer(&solvers[s]);
        fprintf(f, "set style line %d lc rgb '%s' lw 2 pt %d ps 1.2 dt %d\n", s + 1,
                colors[s % 12], peer ? 6 + 2 * (s % 3) : 5 + 2 * (s % 4), peer ? 2 : 1);
    }
    for (int p = 0; p < WP_PROBLEM_COUNT; p++) {
        fprintf(f, "set title '%s, t_{end} = %g'\n", problems[p].name, problems[p].t_end);
        for (int k = 0; k < 3; k++)
            fprintf(f, "set arrow %d from %g, graph 0 to %g, graph 1 nohead dt 3 lc rgb '#999999'\n",
                    k + 1, k == 0 ? 1e-3 : k == 1 ? 1e-6 : 1e-9,
                    k == 0 ? 1e-3 : k == 1 ? 1e-6 : 1e-9);
        fprintf(f, "plot ");
        int first = 1;
        for (int s = 0; s < solver_count; s++) {
            if (block[p][s] < 0)
                continue;
            fprintf(f, "%s'%s/workprec.dat' index %d using 1:2 with linespoints ls %d title '%s'",
                    first ? "" : ", \\\n     ", dir, block[p][s], s + 1, solvers[s].name);
            first = 0;
        }
        fprintf(f, "\n");
    }
    fprintf(f, "unset multiplot\n");
    fclose(f);
}

static void print_problem_tables(int p)
{
    const problem *pb = &problems[p];
    printf("\n### %s, t_end = %g\n\n", pb->name, pb->t_end);
    printf("Reference: %s.\n\n", pb->ref_how);
    // raw range per solver
    printf("| solver | runs | settings | smallest error | its time | note |\n");
    printf("|---|---|---|---|---|---|\n");
    for (int s = 0; s < solver_count; s++) {
        const curve *c = &curves[p][s];
        if (c->refused[0]) {
            printf("| %s | 0 | — | — | — | refuses the model: %.120s |\n", c->s->name,
                   c->refused);
            continue;
        }
        double best = INFINITY, best_t = NAN;
        int fails = 0;
        char first_fail[160] = "";
        for (int i = 0; i < c->count; i++) {
            if (c->pts[i].ok && c->pts[i].err < best) {
                best = c->pts[i].err;
                best_t = c->pts[i].seconds;
            }
            if (!c->pts[i].ok && fails++ == 0) {
                char b[32];
                snprintf(first_fail, sizeof first_fail, "%s: %.90s",
                         setting_text(c->s, c->pts[i].setting, b, sizeof b),
                         c->pts[i].message);
            }
        }
        char a[32], b[32];
        printf("| %s | %d | %s … %s | %.1e | %.3g ms | stop: %s", c->s->name, c->count,
               c->count ? setting_text(c->s, c->pts[0].setting, a, sizeof a) : "—",
               c->count ? setting_text(c->s, c->pts[c->count - 1].setting, b, sizeof b) : "—",
               best, 1e3 * best_t, c->stop);
        if (fails)
            printf("; %d failed run%s (first %s)", fails, fails > 1 ? "s" : "", first_fail);
        printf(" |\n");
    }
    // equal-error table
    const int shown[] = { 1, 4, 7 };   // 1e-3, 1e-6, 1e-9
    printf("\nWall time to reach the error (interpolated; × = ratio to the fastest solver at "
           "that error):\n\n| solver |");
    for (int k = 0; k < 3; k++)
        printf(" %.0e |", targets[shown[k]]);
    printf("\n|---|");
    for (int k = 0; k < 3; k++)
        printf("---|");
    printf("\n");
    double fastest[3];
    for (int k = 0; k < 3; k++) {
        fastest[k] = INFINITY;
        for (int s = 0; s < solver_count; s++) {
            int bound;
            double t = time_at_error(&curves[p][s], targets[shown[k]], &bound);
            if (!isnan(t) && t < fastest[k])
                fastest[k] = t;
        }
    }
    for (int s = 0; s < solver_count; s++) {
        const curve *c = &curves[p][s];
        printf("| %s |", c->s->name);
        for (int k = 0; k < 3; k++) {
            int bound;
            double t = time_at_error(c, targets[shown[k]], &bound);
            if (isnan(t)) {
                printf(" — |");
            } else {
                char buf[32];
                format_time(t, buf, sizeof buf);
                printf(" %s%s (×%.3g) |", bound ? "≤ " : "", buf, t / fastest[k]);
            }
        }
        printf("\n");
    }
}

static void best_of(int p, int peers, double target, int *which, double *t, int *bound)
{
    *which = -1;
    *t = INFINITY;
    *bound = 0;
    for (int s = 0; s < solver_count; s++) {
        if (is_peer(&solvers[s]) != peers)
            continue;
        int b;
        double x = time_at_error(&curves[p][s], target, &b);
        if (!isnan(x) && x < *t) {
            *t = x;
            *which = s;
            *bound = b;
        }
    }
}

static void print_summary(void)
{
    printf("\n### Best libdirac method vs each peer at equal error\n\n");
    printf("Interpolated wall time to reach the error; ratio = best libdirac time / peer time "
           "(**bold** where < 1, i.e. libdirac is faster); ≤: the solver's cheapest run is "
           "already more accurate (upper bound); —: not reached.\n\n");
    printf("| problem | error | best libdirac |");
    for (int s = 0; s < solver_count; s++)
        if (is_peer(&solvers[s]))
            printf(" %s | ratio |", solvers[s].name);
    printf("\n|---|---|---|");
    for (int s = 0; s < solver_count; s++)
        if (is_peer(&solvers[s]))
            printf("---|---|");
    printf("\n");
    for (int p = 0; p < WP_PROBLEM_COUNT; p++)
        for (int k = 0; k < TARGET_COUNT; k++) {
            int d, bd;
            double td;
            best_of(p, 0, targets[k], &d, &td, &bd);
            char a[64] = "—";
            if (d >= 0) {
                char t[32];
                format_time(td, t, sizeof t);
                snprintf(a, sizeof a, "%s %s%s", solvers[d].name, bd ? "≤ " : "", t);
            }
            printf("| %s | %.0e | %s |", problems[p].name, targets[k], a);
            for (int s = 0; s < solver_count; s++) {
                if (!is_peer(&solvers[s]))
                    continue;
                int be;
                double te = time_at_error(&curves[p][s], targets[k], &be);
                if (isnan(te)) {
                    printf(" — | %s |", d >= 0 ? "only dirac" : "—");
                    continue;
                }
                char t[32];
                format_time(te, t, sizeof t);
                printf(" %s%s |", be ? "≤ " : "", t);
                if (d < 0) {
                    printf(" only peer |");
                } else {
                    double ratio = td / te;
                    printf(" %s%s%.3g%s |", ratio < 1.0 ? "**" : "", bd || be ? "~" : "", ratio,
                           ratio < 1.0 ? "**" : "");
                }
            }
            printf("\n");
        }
}

// ---------------------------------------------------------------------------------------
// Long run: pendulum over many periods.

static void long_run(const char *dir)
{
    problem *pb = &problems[WP_PENDULUM];
    double period = pendulum_period(params.g, params.l, params.theta0);
    double t_end = long_periods * period;
    long steps = (long)llround(long_periods * 100.0);
    double e0 = -params.m * params.g * params.l * cos(params.theta0);
    double q_exact[2], v_exact[2];
    pendulum_exact(params.g, params.l, params.theta0, t_end, q_exact, v_exact);
    printf("\n### Long run: pendulum over %.0f periods (T = %.6f s, t_end = %.1f s)\n\n",
           long_periods, period, t_end);
    printf("Fixed-step solvers at h = T/100 (%ld steps; halved while the first step fails); one "
           "run each. Energy error = "
           "|E(t_end) − E0| / |E0|; position error as above (phase error dominates); |φ| = "
           "|x² + y² − l²| at the end (0 for the angle formulation).\n\n",
           steps);
    printf("| solver | setting | steps | wall time | energy error | position error | \\|φ\\| | "
           "note |\n|---|---|---|---|---|---|---|---|\n");
    char path[4096];
    snprintf(path, sizeof path, "%s/longrun.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        die(path, "cannot write");
    fprintf(f, "solver,setting,steps,ok,seconds,energy_error,position_error,constraint,message\n");
    for (int s = 0; s < solver_count; s++) {
        const solver *sv = &solvers[s];
        double settings[2] = { (double)steps, 0.0 };
        int count = 1;
        if (sv->kind == S_RK8PD || sv->kind == S_IDA) {
            settings[0] = 1e-6;
            settings[1] = 1e-10;
            count = 2;
        }
        for (int j = 0; j < count; j++) {
            wp_result r;
            double start = now(), setting = settings[j];
            int accepted = run_solver(pb, sv, setting, t_end, &r);
            // A fixed-step solver whose very first step fails (GSL rk4imp's Newton iteration)
            // is retried with h halved, down to T/1600.
            while (accepted && !r.ok && r.steps == 0 && (sv->kind == S_DIRAC || sv->kind == S_RK4IMP) &&
                   setting < 16.0 * (double)steps) {
                setting *= 2.0;
                start = now();
                accepted = run_solver(pb, sv, setting, t_end, &r);
            }
            double seconds = now() - start;
            char set[32];
            setting_text(sv, setting, set, sizeof set);
            if (sv->kind == S_DIRAC || sv->kind == S_RK4IMP)
                snprintf(set, sizeof set, "h = T/%.0f", setting / long_periods);
            if (!accepted || !r.ok) {
                printf("| %s | %s | %ld | %.3g s | — | — | — | %s: %.100s |\n", sv->name, set,
                       r.steps, seconds, accepted ? "failed" : "refused", r.message);
                fprintf(f, "%s,%s,%ld,0,%.4e,,,,\"%s\"\n", sv->name, set, r.steps, seconds,
                        r.message);
                continue;
            }
            double de = fabs(r.energy - e0) / fabs(e0);
            double dq = fmax(fabs(r.q[0] - q_exact[0]), fabs(r.q[1] - q_exact[1])) / params.l;
            printf("| %s | %s | %ld | %.3g s | %.2e | %.2e | %.1e | |\n", sv->name, set, r.steps,
                   seconds, de, dq, r.constraint);
            fprintf(f, "%s,%s,%ld,1,%.4e,%.4e,%.4e,%.4e,\n", sv->name, set, r.steps, seconds, de,
                    dq, r.constraint);
            fflush(stdout);
        }
    }
    fclose(f);
}

// ---------------------------------------------------------------------------------------

static void print_machine(void)
{
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *colon = strchr(line, ':');
                if (colon) {
                    snprintf(model, sizeof model, "%s", colon + 2);
                    model[strcspn(model, "\n")] = 0;
                }
                break;
            }
        fclose(f);
    }
    const char *threads = getenv("OPENBLAS_NUM_THREADS");
    printf("Machine: %s; ", model);
#ifdef __VERSION__
    printf("gcc %s; ", __VERSION__);
#endif
    printf("GSL %s; SUNDIALS %s; OPENBLAS_NUM_THREADS=%s.\n", wp_gsl_version(),
           wp_ida_version(), threads ? threads : "(unset)");
    printf("Timing: whole solve, median of %d–%d repetitions; runs predicted over %.2g s are "
           "not started.\n",
           min_reps, max_reps, run_cap);
}

int main(int argc, char **argv)
{
    const char *models = DIRAC_SOURCE_DIR "/bench/models";
    const char *out = ".";
    const char *figure = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            run_cap = 0.1;
            rep_budget = 0.02;
            long_periods = 1e3;
        } else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc) {
            models = argv[++i];
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--figure") == 0 && i + 1 < argc) {
            figure = argv[++i];
        } else if (strcmp(argv[i], "--periods") == 0 && i + 1 < argc) {
            long_periods = atof(argv[++i]);
        } else {
            fprintf(stderr, "usage: workprec [--quick] [--models DIR] [--out DIR] [--figure PNG] "
                            "[--periods N]\n");
            return 2;
        }
    }
    char figure_default[4096];
    if (!figure) {
        snprintf(figure_default, sizeof figure_default, "%s/workprec.png", out);
        figure = figure_default;
    }

    for (int k = 0; k < dirac_method_count(); k++) {
        solver *s = &solvers[solver_count++];
        snprintf(s->name, sizeof s->name, "%s", dirac_method(k)->name);
        s->kind = S_DIRAC;
        s->method = dirac_method(k)->name;
    }
    solvers[solver_count++] = (solver){ .name = "GSL rk4imp", .kind = S_RK4IMP };
    solvers[solver_count++] = (solver){ .name = "GSL rk8pd", .kind = S_RK8PD };
    solvers[solver_count++] = (solver){ .name = "IDA (GGL)", .kind = S_IDA };

    double start = now();
    printf("## Work–precision benchmark (bench/workprec.sh)\n\n");
    print_machine();
    printf("libdirac methods:");
    for (int k = 0; k < dirac_method_count(); k++)
        printf(" %s (order %d)", dirac_method(k)->name, dirac_method(k)->order);
    printf("; Newton tolerance: the default (1e-10).\n");
    for (int p = 0; p < WP_PROBLEM_COUNT; p++) {
        load_problem(&problems[p], models);
        reference(&problems[p]);
        for (int s = 0; s < solver_count; s++) {
            curve *c = &curves[p][s];
            c->pb = &problems[p];
            c->s = &solvers[s];
            measure_curve(c);
            fprintf(stderr, "workprec: %s / %s: %d runs (%.0f s so far)\n", problems[p].name,
                    solvers[s].name, c->count, now() - start);
        }
        print_problem_tables(p);
        fflush(stdout);
    }
    print_summary();
    write_csv(out);
    write_plot(out, figure);
    fflush(stdout);
    long_run(out);
    printf("\nTotal benchmark time: %.0f s.\n", now() - start);
    for (int p = 0; p < WP_PROBLEM_COUNT; p++)
        dirac_model_destroy(problems[p].model);
    return 0;
}

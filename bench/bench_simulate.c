// Benchmark of the time steppers: ns per step of every method of libdirac on the Cartesian
// pendulum (examples/pendulum.dirac) and the Cartesian double pendulum (model inline below),
// against a specialised hand-written RATTLE of the same problems (bench/rattle_reference.c),
// and libdirac's lobatto4 and dgrad against hand-written codes of the same schemes
// (bench/fixedpoint_reference.c).
//
// For each problem, step h and method: ns/step = the median over R repetitions (R = 7; 3 with
// --quick) of the time of a run of S steps (S chosen so one run takes about 0.1 s; 0.03 s with
// --quick) divided by S. Creating the simulation is not timed. Newton iterations per step are
// the mean and max over all timed steps (libdirac's midpoint counts both of its Newton solves,
// positions and velocities; the hand RATTLE iterates only on the positions, its velocity stage
// is one linear solve). dirac_sim_step also updates the per-step diagnostics (energy,
// constraint residuals) that the CLI reports; the hand RATTLE computes none.
//
// Before timing, the hand RATTLE is checked against libdirac's midpoint: for potentials that
// depend on q linearly (uniform gravity) the two schemes are the same equations, so their
// difference must be at the level of the Newton tolerance, far below the O(h²) global error.
// The hand lobatto4 and dgrad are checked likewise against libdirac's methods of the same
// name (the same equations for this model class), both solved to 1e-13 for the check, against
// each scheme's global error (measured against the same hand code at h/8, resp. h/64).
//
// Last, the time of dirac_sim_create + dirac_sim_destroy per method (the whole-solve times of
// bench/workprec.c include it).
//
// Usage: bench_simulate [--quick] [--examples DIR]   (DIR: where pendulum.dirac is; default:
// the source tree's examples/)
//        bench_simulate --run STEPPER PROBLEM H STEPS [--examples DIR]
// runs STEPS steps of one stepper untimed (STEPPER: a libdirac method, hand-rattle,
// hand-lobatto4 or hand-dgrad; PROBLEM: pendulum or double): bench/step_instructions.sh counts
// its instructions per step with callgrind.
#include <dirac/dirac.h>

#include "fixedpoint_reference.h"
#include "rattle_reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef DIRAC_SOURCE_DIR
#define DIRAC_SOURCE_DIR "."
#endif

static double target_seconds = 0.1;   // per timed run
static int repetitions = 7;

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

// ---------------------------------------------------------------------------------------
// Problems.

static const char double_pendulum_text[] =
    "model double_pendulum\n"
    "parameter m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 9.81\n"
    "parameter th1 = pi/2, th2 = pi/2\n"
    "coordinate x1, y1, x2, y2\n"
    "lagrangian m1/2*(x1'^2 + y1'^2) + m2/2*(x2'^2 + y2'^2) - m1*g*y1 - m2*g*y2\n"
    "constraint rod1: x1^2 + y1^2 = l1^2\n"
    "constraint rod2: (x2 - x1)^2 + (y2 - y1)^2 = l2^2\n"
    "initial x1 = l1*sin(th1), y1 = -l1*cos(th1)\n"
    "initial x2 = l1*sin(th1) + l2*sin(th2), y2 = -l1*cos(th1) - l2*cos(th2)\n";

typedef struct problem {
    const char *name;
    dirac_model *model;
    int links;                  // for the hand RATTLE
    double m[2], l[2], g;       // the model's parameter values
    double q0[4], v0[4];
} problem;

static void fail(const char *what, const char *message)
{
    fprintf(stderr, "bench_simulate: %s: %s\n", what, message);
    exit(1);
}

static void compile(problem *pb, dirac_spec *spec, dirac_status status)
{
    if (status != DIRAC_OK)
        fail(pb->name, spec ? dirac_spec_errmsg(spec) : "out of memory");
    if (dirac_model_compile(spec, &pb->model) != DIRAC_OK)
        fail(pb->name, dirac_spec_errmsg(spec));
    dirac_spec_destroy(spec);
    dirac_model_initial_state(pb->model, pb->q0, pb->v0, NULL);
}

static void load_problems(problem *pb, const char *examples)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/pendulum.dirac", examples);
    dirac_spec *spec = NULL;
    pb[0] = (problem){ .name = "pendulum", .links = 1, .m = { 1.0 }, .l = { 1.0 }, .g = 9.81 };
    compile(&pb[0], spec, dirac_spec_load(path, &spec));
    spec = NULL;
    pb[1] = (problem){ .name = "double pendulum",
                       .links = 2,
                       .m = { 1.0, 1.0 },
                       .l = { 1.0, 1.0 },
                       .g = 9.81 };
    dirac_status status = dirac_spec_parse("double_pendulum (inline)", double_pendulum_text,
                                           sizeof double_pendulum_text - 1, &spec);
    compile(&pb[1], spec, status);
}

static dirac_sim *create_sim_rtol(const problem *pb, const char *method, double h, double rtol)
{
    dirac_sim_options options = { .method = method, .dt = h, .newton_rtol = rtol };
    dirac_sim *sim = NULL;
    dirac_error err;
    if (dirac_sim_create(pb->model, &options, &sim, &err) != DIRAC_OK)
        fail(method, err.message);
    return sim;
}

static dirac_sim *create_sim(const problem *pb, const char *method, double h)
{
    return create_sim_rtol(pb, method, h, 0.0);
}

static void create_rattle(const problem *pb, double h, rattle_chain *c)
{
    if (rattle_chain_init(c, pb->links, pb->m, pb->l, pb->g, h, 1e-10, pb->q0, pb->v0) != 0)
        fail("rattle", "bad chain");
}

// The hand codes of lobatto4 and dgrad: dgrad solves to rounding level (1e-14), as libdirac's
static const char *const hand_names[2] = { "lobatto4", "dgrad" };

static double hand_rtol(int scheme, double rtol)
{
    return scheme == 1 && rtol > 1e-14 ? 1e-14 : rtol;
}

static void create_hand(const problem *pb, int scheme, double h, double rtol, fixedpoint_chain *c)
{
    if (fixedpoint_chain_init(c, pb->links, pb->m, pb->l, pb->g, h, hand_rtol(scheme, rtol),
                              pb->q0, pb->v0) != 0)
        fail("hand code", "bad chain");
}

static int hand_step(int scheme, fixedpoint_chain *c)
{
    return scheme == 0 ? fixedpoint_lobatto4_step(c) : fixedpoint_dgrad_step(c);
}

// ---------------------------------------------------------------------------------------
// Agreement of the hand RATTLE with libdirac's midpoint.

static void check_agreement(const problem *pb)
{
    const double t_end = 1.0;
    int n = 2 * pb->links;
    printf("\n%s: midpoint (libdirac) vs hand RATTLE on [0, %g], from the model's initial "
           "state\n\n",
           pb->name, t_end);
    printf("| h | max \\|q_mid − q_rattle\\| | max \\|p_mid − p_rattle\\| | \\|E_mid − E_rattle\\| "
           "at t_end | RATTLE global error at t_end | h² |\n");
    printf("|---|---|---|---|---|---|\n");
    // reference: RATTLE with h/64 of the smallest h
    const double hs[3] = { 0.02, 0.01, 0.005 };
    double specialised = 0.0;   // the straight-line RATTLE against the general chain code
    rattle_chain ref;
    double h_ref = hs[2] / 64;
    create_rattle(pb, h_ref, &ref);
    long ref_steps = lround(t_end / h_ref);
    for (long k = 0; k < ref_steps; k++)
        if (rattle_chain_step(&ref) != 0)
            fail("rattle", "reference run failed");
    for (int j = 0; j < 3; j++) {
        double h = hs[j];
        long steps = lround(t_end / h);
        dirac_sim *sim = create_sim(pb, "midpoint", h);
        rattle_chain c, general;
        create_rattle(pb, h, &c);
        create_rattle(pb, h, &general);
        double dq = 0.0, dp = 0.0;
        for (long k = 0; k < steps; k++) {
            if (dirac_sim_step(sim) != DIRAC_OK)
                fail("midpoint", dirac_sim_errmsg(sim));
            if (rattle_chain_step(&c) != 0 || rattle_chain_step_general(&general) != 0)
                fail("rattle", "Newton did not converge");
            const double *q = dirac_sim_q(sim), *p = dirac_sim_p(sim);
            for (int i = 0; i < n; i++) {
                specialised = fmax(specialised, fabs(general.q[i] - c.q[i]));
                specialised = fmax(specialised, fabs(general.p[i] - c.p[i]));
                dq = fmax(dq, fabs(q[i] - c.q[i]));
                dp = fmax(dp, fabs(p[i] - c.p[i]));
            }
        }
        double err = 0.0;
        for (int i = 0; i < n; i++)
            err = fmax(err, fabs(c.q[i] - ref.q[i]));
        double de = fabs(dirac_sim_energy(sim) - rattle_chain_energy(&c));
        printf("| %g | %.2e | %.2e | %.2e | %.2e | %.2e |\n", h, dq, dp, de, err, h * h);
        dirac_sim_destroy(sim);
    }
    printf("\nspecialised hand RATTLE vs its general chain code: max |Δq|, |Δp| = %.2e\n",
           specialised);
}

// The hand lobatto4 (scheme 0) or dgrad (1) against libdirac's method of the same name, both
// solved to 1e-13 (dgrad: 1e-14), on [0, 1]; the global error is the hand code's against
// itself at h/8 (lobatto4, order 6: that run's own error is 8⁻⁶ of it) or h/64 (dgrad, order 2).
static void check_hand_agreement(const problem *pb, int scheme)
{
    const double t_end = 1.0, rtol = 1e-13;
    const char *name = hand_names[scheme];
    int n = 2 * pb->links, refine = scheme == 0 ? 8 : 64;
    // lobatto4 is order 6: larger steps, so that its global error stands above rounding
    const double hs[2][3] = { { 0.04, 0.02, 0.01 }, { 0.02, 0.01, 0.005 } };
    printf("\n%s: %s (libdirac) vs hand %s on [0, %g], Newton tolerance %g\n\n", pb->name,
           name, name, t_end, hand_rtol(scheme, rtol));
    printf("| h | max \\|Δq\\| | max \\|Δp\\| | \\|ΔE\\| at t_end | hand %s global error at "
           "t_end | hand its/step |\n",
           name);
    printf("|---|---|---|---|---|---|\n");
    for (int j = 0; j < 3; j++) {
        double h = hs[scheme][j];
        long steps = lround(t_end / h);
        dirac_sim *sim = create_sim_rtol(pb, name, h, rtol);
        fixedpoint_chain c, fine;
        create_hand(pb, scheme, h, rtol, &c);
        create_hand(pb, scheme, h / refine, rtol, &fine);
        double dq = 0.0, dp = 0.0;
        long iterations = 0;
        for (long k = 0; k < steps; k++) {
            if (dirac_sim_step(sim) != DIRAC_OK)
                fail(name, dirac_sim_errmsg(sim));
            if (hand_step(scheme, &c) != 0)
                fail("hand code", "the iteration did not converge");
            iterations += c.chain.iterations;
            const double *q = dirac_sim_q(sim), *p = dirac_sim_p(sim);
            for (int i = 0; i < n; i++) {
                dq = fmax(dq, fabs(q[i] - c.chain.q[i]));
                dp = fmax(dp, fabs(p[i] - c.chain.p[i]));
            }
        }
        for (long k = 0; k < steps * refine; k++)
            if (hand_step(scheme, &fine) != 0)
                fail("hand code", "the reference run did not converge");
        double err = 0.0;
        for (int i = 0; i < n; i++)
            err = fmax(err, fabs(c.chain.q[i] - fine.chain.q[i]));
        double de = fabs(dirac_sim_energy(sim) - rattle_chain_energy(&c.chain));
        printf("| %g | %.2e | %.2e | %.2e | %.2e | %.2f |\n", h, dq, dp, de, err,
               (double)iterations / (double)steps);
        dirac_sim_destroy(sim);
    }
}

// ---------------------------------------------------------------------------------------
// Timing.

typedef struct timing {
    double ns_per_step;         // median over the repetitions
    double iterations_mean;
    int iterations_max;
    int restarts;               // runs restarted after a failed step (explicit blow-ups)
} timing;

static long calibrate_steps(double seconds_per_step)
{
    double s = target_seconds / seconds_per_step;
    if (s < 1000)
        s = 1000;
    if (s > 5e6)
        s = 5e6;
    return (long)s;
}

static timing time_library(const problem *pb, const char *method, double h)
{
    timing out = { 0 };
    // calibration run
    dirac_sim *sim = create_sim(pb, method, h);
    double start = now();
    int calibration = 1000;
    for (int k = 0; k < calibration; k++)
        if (dirac_sim_step(sim) != DIRAC_OK)
            break;
    long steps = calibrate_steps((now() - start) / calibration);
    dirac_sim_destroy(sim);
    double ns[16];
    double iterations = 0.0, total_steps = 0.0;
    for (int r = 0; r < repetitions; r++) {
        sim = create_sim(pb, method, h);
        double elapsed = 0.0;
        start = now();
        for (long k = 0; k < steps; k++) {
            if (dirac_sim_step(sim) != DIRAC_OK) {
                elapsed += now() - start;
                dirac_sim_destroy(sim);
                sim = create_sim(pb, method, h);
                out.restarts++;
                start = now();
                continue;
            }
            int it = dirac_sim_newton_iterations(sim);
            iterations += it;
            if (it > out.iterations_max)
                out.iterations_max = it;
        }
        elapsed += now() - start;
        total_steps += (double)steps;
        ns[r] = 1e9 * elapsed / (double)steps;
        dirac_sim_destroy(sim);
    }
    out.ns_per_step = median(ns, repetitions);
    out.iterations_mean = iterations / total_steps;
    return out;
}

static timing time_rattle(const problem *pb, double h)
{
    timing out = { 0 };
    rattle_chain c;
    create_rattle(pb, h, &c);
    int calibration = 10000;
    double start = now();
    for (int k = 0; k < calibration; k++)
        if (rattle_chain_step(&c) != 0)
            fail("rattle", "Newton did not converge");
    long steps = calibrate_steps((now() - start) / calibration);
    double ns[16];
    double iterations = 0.0, total_steps = 0.0;
    for (int r = 0; r < repetitions; r++) {
        create_rattle(pb, h, &c);
        start = now();
        for (long k = 0; k < steps; k++) {
            if (rattle_chain_step(&c) != 0)
                fail("rattle", "Newton did not converge");
            iterations += c.iterations;
            if (c.iterations > out.iterations_max)
                out.iterations_max = c.iterations;
        }
        double elapsed = now() - start;
        total_steps += (double)steps;
        ns[r] = 1e9 * elapsed / (double)steps;
    }
    out.ns_per_step = median(ns, repetitions);
    out.iterations_mean = iterations / total_steps;
    return out;
}

static timing time_hand(const problem *pb, int scheme, double h)
{
    timing out = { 0 };
    fixedpoint_chain c;
    create_hand(pb, scheme, h, 1e-10, &c);
    int calibration = 10000;
    double start = now();
    for (int k = 0; k < calibration; k++)
        if (hand_step(scheme, &c) != 0)
            fail("hand code", "the iteration did not converge");
    long steps = calibrate_steps((now() - start) / calibration);
    double ns[16];
    double iterations = 0.0, total_steps = 0.0;
    for (int r = 0; r < repetitions; r++) {
        create_hand(pb, scheme, h, 1e-10, &c);
        start = now();
        for (long k = 0; k < steps; k++) {
            if (hand_step(scheme, &c) != 0)
                fail("hand code", "the iteration did not converge");
            iterations += c.chain.iterations;
            if (c.chain.iterations > out.iterations_max)
                out.iterations_max = c.chain.iterations;
        }
        double elapsed = now() - start;
        total_steps += (double)steps;
        ns[r] = 1e9 * elapsed / (double)steps;
    }
    out.ns_per_step = median(ns, repetitions);
    out.iterations_mean = iterations / total_steps;
    return out;
}

// The cost of dirac_sim_create + dirac_sim_destroy (the work-precision benchmark's whole-solve
// times include it): median over repetitions of the mean of a batch of creations.
static double time_creation(const problem *pb, const char *method)
{
    const int batch = 50;
    double ns[16];
    for (int r = 0; r < repetitions; r++) {
        double start = now();
        for (int k = 0; k < batch; k++)
            dirac_sim_destroy(create_sim(pb, method, 1e-3));
        ns[r] = 1e9 * (now() - start) / batch;
    }
    return median(ns, repetitions);
}

// --run: STEPS steps of one stepper, untimed (for callgrind; bench/step_instructions.sh).
static int run_steps(const problem *problems, const char *stepper, const char *which, double h,
                     long steps)
{
    const problem *pb = strcmp(which, "pendulum") == 0 ? &problems[0]
                        : strcmp(which, "double") == 0 ? &problems[1]
                                                         : NULL;
    if (!pb || !(h > 0.0) || steps < 0) {
        fprintf(stderr, "bench_simulate --run: PROBLEM is pendulum or double, H > 0\n");
        return 2;
    }
    if (strcmp(stepper, "hand-rattle") == 0) {
        rattle_chain c;
        create_rattle(pb, h, &c);
        for (long k = 0; k < steps; k++)
            if (rattle_chain_step(&c) != 0)
                fail("rattle", "Newton did not converge");
        return 0;
    }
    for (int scheme = 0; scheme < 2; scheme++) {
        char name[32];
        snprintf(name, sizeof name, "hand-%s", hand_names[scheme]);
        if (strcmp(stepper, name) == 0) {
            fixedpoint_chain c;
            create_hand(pb, scheme, h, 1e-10, &c);
            for (long k = 0; k < steps; k++)
                if (hand_step(scheme, &c) != 0)
                    fail("hand code", "the iteration did not converge");
            return 0;
        }
    }
    dirac_sim *sim = create_sim(pb, stepper, h);
    for (long k = 0; k < steps; k++)
        if (dirac_sim_step(sim) != DIRAC_OK)
            fail(stepper, dirac_sim_errmsg(sim));
    dirac_sim_destroy(sim);
    return 0;
}

int main(int argc, char **argv)
{
    const char *examples = DIRAC_SOURCE_DIR "/examples";
    const char *run[4] = { NULL };
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            target_seconds = 0.03;
            repetitions = 3;
        } else if (strcmp(argv[i], "--examples") == 0 && i + 1 < argc) {
            examples = argv[++i];
        } else if (strcmp(argv[i], "--run") == 0 && i + 4 < argc) {
            for (int k = 0; k < 4; k++)
                run[k] = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_simulate [--quick] [--examples DIR]\n"
                            "       bench_simulate --run STEPPER PROBLEM H STEPS\n");
            return 2;
        }
    }
    problem problems[2];
    load_problems(problems, examples);
    if (run[0]) {
        int status = run_steps(problems, run[0], run[1], atof(run[2]), atol(run[3]));
        for (int p = 0; p < 2; p++)
            dirac_model_destroy(problems[p].model);
        return status;
    }
    printf("time-stepper benchmark: libdirac methods vs a hand-written RATTLE "
           "(bench/rattle_reference.c) and hand-written lobatto4 and dgrad "
           "(bench/fixedpoint_reference.c)\n");
#ifdef __VERSION__
    printf("compiler: %s; ", __VERSION__);
#endif
    const char *threads = getenv("OPENBLAS_NUM_THREADS");
    printf("OPENBLAS_NUM_THREADS=%s; ns/step = median of %d runs of ~%.2f s each; Newton "
           "tolerance 1e-10 (relative update) in both\n",
           threads ? threads : "(unset)", repetitions, target_seconds);
    for (int p = 0; p < 2; p++)
        check_agreement(&problems[p]);
    for (int scheme = 0; scheme < 2; scheme++)
        for (int p = 0; p < 2; p++)
            check_hand_agreement(&problems[p], scheme);

    const double hs[2] = { 1e-3, 1e-2 };
    printf("\nns per step (ratio = time / hand RATTLE time at the same problem and h; "
           "same scheme = time / the hand code of the same scheme)\n\n");
    printf("| problem | h | method | ns/step | ratio | same scheme | Newton its/step (mean) | "
           "max | restarts |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (int p = 0; p < 2; p++)
        for (int j = 0; j < 2; j++) {
            double h = hs[j];
            timing ref = time_rattle(&problems[p], h), hand[2];
            printf("| %s | %g | hand RATTLE | %.0f | 1.0 | 1.0 | %.2f | %d | 0 |\n",
                   problems[p].name, h, ref.ns_per_step, ref.iterations_mean,
                   ref.iterations_max);
            for (int scheme = 0; scheme < 2; scheme++) {
                hand[scheme] = time_hand(&problems[p], scheme, h);
                printf("| %s | %g | hand %s | %.0f | %.1f | 1.0 | %.2f | %d | 0 |\n",
                       problems[p].name, h, hand_names[scheme], hand[scheme].ns_per_step,
                       hand[scheme].ns_per_step / ref.ns_per_step,
                       hand[scheme].iterations_mean, hand[scheme].iterations_max);
            }
            for (int k = 0; k < dirac_method_count(); k++) {
                const char *method = dirac_method(k)->name;
                timing t = time_library(&problems[p], method, h);
                double same = strcmp(method, "midpoint") == 0 ? ref.ns_per_step
                              : strcmp(method, "lobatto4") == 0 ? hand[0].ns_per_step
                              : strcmp(method, "dgrad") == 0    ? hand[1].ns_per_step
                                                                : 0.0;
                char same_text[32] = "";
                if (same > 0.0)
                    snprintf(same_text, sizeof same_text, "%.1f", t.ns_per_step / same);
                printf("| %s | %g | %s | %.0f | %.1f | %s | %.2f | %d | %d |\n",
                       problems[p].name, h, method, t.ns_per_step, t.ns_per_step / ref.ns_per_step,
                       same_text, t.iterations_mean, t.iterations_max, t.restarts);
            }
            fflush(stdout);
        }
    printf("\ncreating and destroying a simulation (dirac_sim_create + dirac_sim_destroy; "
           "median of %d batches of 50)\n\n| problem | method | µs |\n|---|---|---|\n",
           repetitions);
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < dirac_method_count(); k++) {
            const char *method = dirac_method(k)->name;
            printf("| %s | %s | %.1f |\n", problems[p].name, method,
                   1e-3 * time_creation(&problems[p], method));
        }
    for (int p = 0; p < 2; p++)
        dirac_model_destroy(problems[p].model);
    return 0;
}

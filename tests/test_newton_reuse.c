// Fewer and cheaper Newton iterations (issue 15): the predictor and simplified Newton
// (src/newton.c, src/predictor.c) against full Newton from the methods' plain guesses
// (nw.full), counted, not timed:
// - the Cartesian pendulum with midpoint at h = 1e-3: at most 3 corrections per stage solve on
//   average (issue 15; about 1.2 measured: the predictor's guess is within 1e-11 of the
//   solution, so the Newton step from it is the last), fewer Jacobian assemblies and
//   factorizations than full Newton (one per stage solve against 1.5), and the same
//   trajectory: after 2000 steps |q − q_full| <= 2000 · 1e-10 · l (each step may differ by the
//   Newton tolerance, 1e-10 relative; the differences of a stable scheme add up at most
//   linearly);
// - linear models (a spring chain between walls, an LC ladder with Kirchhoff constraints, a
//   damped oscillator): the constant Jacobian is recognised from the expressions and each
//   linear system is factorized exactly once over the run, with every implicit method;
//   the trajectory equals full Newton's to rounding (both solve the same linear equations
//   exactly: 1e-12 relative after 500 steps);
// - nonlinear models are not taken for linear.
#include "harness.h"
#include "problems.h"
#include "sim_run.h"

#include "sim.h"

#include <float.h>
#include <math.h>

static const char pendulum_text[] = PENDULUM_ONE_RADIAN_MODEL;

static const char spring_chain_text[] = "model chain\n"
                                        "parameter m = 1, k = 100\n"
                                        "coordinate x[8]\n"
                                        "lagrangian sum(i = 1..8, m/2*x[i]'^2)"
                                        " - k/2*x[1]^2 - sum(i = 2..8, k/2*(x[i] - x[i-1])^2)"
                                        " - k/2*x[8]^2\n"
                                        "initial x[1] = 0.1\n";

static const char lc_ladder_text[] = LC_LADDER_MODEL;

static const char damped_text[] = "model damped\n"
                                  "parameter m = 2, k = 50, b = 0.3\n"
                                  "coordinate x\n"
                                  "lagrangian m/2*x'^2 - k/2*x^2\n"
                                  "force x: -b*x'\n"
                                  "initial x = 1\n";

static const char *const implicit_methods[] = { "midpoint", "dirac1", "dirac2",
                                                "dgrad",    "lobatto3", "lobatto4" };
enum { EVERY_METHOD = 6, WITHOUT_LOBATTO = 4 };   // lobatto: holonomic constraints only

typedef struct counts {
    long steps, corrections, jacobians, factorizations;
} counts;

static long factorizations(const dirac_sim *sim)
{
    long total = 0;
    for (int k = 0; k < SIM_SOLVER_SLOTS; k++)
        total += linsolve_factorizations(sim->solver[k]);
    return total;
}

// Runs `steps` steps; full: full Newton from the plain guesses. Leaves the final q in q_out.
static int run_counted(const char *text, const char *method, double h, long steps, bool full,
                       counts *c, double *q_out, run *r)
{
    dirac_sim_options options = { 0 };
    options.method = method;
    options.dt = h;
    if (!run_open_with(r, text, NULL, 0, &options))
        return 0;
    r->sim->nw.full = full;
    memset(c, 0, sizeof *c);
    for (long k = 0; k < steps; k++) {
        if (dirac_sim_step(r->sim) != DIRAC_OK) {
            fprintf(stderr, "  %s: %s\n", method, dirac_sim_errmsg(r->sim));
            ENSURE(!"step failed");
            run_close(r);
            return 0;
        }
        c->corrections += dirac_sim_newton_iterations(r->sim);
    }
    c->steps = steps;
    c->jacobians = r->sim->nw.jacobians;
    c->factorizations = factorizations(r->sim);
    memcpy(q_out, dirac_sim_q(r->sim), (size_t)r->sim->n * sizeof *q_out);
    return 1;
}

static void pendulum_midpoint(void)
{
    const long steps = 2000;
    double q[2], q_full[2];
    counts c, f;
    run r, rf;
    if (!run_counted(pendulum_text, "midpoint", 1e-3, steps, false, &c, q, &r))
        return;
    if (!run_counted(pendulum_text, "midpoint", 1e-3, steps, true, &f, q_full, &rf)) {
        run_close(&r);
        return;
    }
    // two stage solves per step (positions, velocities)
    double per_solve = (double)c.corrections / (2.0 * (double)steps);
    printf("  pendulum midpoint h = 1e-3: corrections/solve %.2f (full Newton %.2f), "
           "Jacobians/step %.3f (%.3f), factorizations/step %.3f (%.3f), |q - q_full| %.1e\n",
           per_solve, (double)f.corrections / (2.0 * (double)steps),
           (double)c.jacobians / (double)steps, (double)f.jacobians / (double)steps,
           (double)c.factorizations / (double)steps, (double)f.factorizations / (double)steps,
           fmax(fabs(q[0] - q_full[0]), fabs(q[1] - q_full[1])));
    ENSURE(!r.sim->nw.constant_jacobian);
    ENSURE_LE(per_solve, 3.0);
    ENSURE(c.jacobians < f.jacobians);
    ENSURE(c.factorizations < f.factorizations);
    // both solve every stage to Newton's tolerance (1e-10 relative to |q| = l = 1): the two
    // trajectories may part by that much per step, so at most steps * 1e-10 after `steps`
    for (int i = 0; i < 2; i++)
        ENSURE_LE(fabs(q[i] - q_full[i]), (double)steps * 1e-10);
    run_close(&r);
    run_close(&rf);
}

static void linear_factorized_once(const char *name, const char *text, double h, int methods)
{
    const long steps = 500;
    for (int k = 0; k < methods; k++) {
        double q[8], q_full[8];
        counts c, f;
        run r, rf;
        if (!run_counted(text, implicit_methods[k], h, steps, false, &c, q, &r))
            continue;
        if (!run_counted(text, implicit_methods[k], h, steps, true, &f, q_full, &rf)) {
            run_close(&r);
            continue;
        }
        ENSURE(r.sim->nw.constant_jacobian);
        // each linear system the method solves is factorized once
        int systems = 0;
        for (int s = 0; s < SIM_SOLVER_SLOTS; s++) {
            systems += linsolve_factorizations(r.sim->solver[s]) > 0;
            ENSURE_LE(linsolve_factorizations(r.sim->solver[s]), 1);
        }
        double scale = 0.0, difference = 0.0;
        for (int i = 0; i < r.sim->n; i++) {
            scale = fmax(scale, fabs(q_full[i]));
            difference = fmax(difference, fabs(q[i] - q_full[i]));
        }
        printf("  %-8s %-9s factorizations %ld over %ld steps (%d systems; full Newton %ld), "
               "corrections/step %.2f (%.2f), |q - q_full| %.1e of %.1e\n",
               name, implicit_methods[k], c.factorizations, steps, systems, f.factorizations,
               (double)c.corrections / (double)steps, (double)f.corrections / (double)steps,
               difference, scale);
        ENSURE(systems >= 1);                         // it factorized something at all
        ENSURE(f.factorizations > c.factorizations);  // and full Newton refactorizes
        ENSURE_EQ_INT((int)c.factorizations, systems);
        ENSURE_LE(difference, 1e-12 * scale);
        run_close(&r);
        run_close(&rf);
    }
}

static void spring_chain(void)
{
    linear_factorized_once("chain", spring_chain_text, 1e-2, EVERY_METHOD);
}

static void lc_ladder(void)
{
    linear_factorized_once("ladder", lc_ladder_text, 1e-4, WITHOUT_LOBATTO);
}

static void damped_oscillator(void)
{
    linear_factorized_once("damped", damped_text, 1e-2, EVERY_METHOD);
}

// The pendulum (constraint x² + y² = l²) and a Duffing spring are not linear.
static void nonlinear_not_constant(void)
{
    static const char duffing[] = "model duffing\n"
                                  "coordinate x\n"
                                  "lagrangian x'^2/2 - x^2/2 - x^4/4\n"
                                  "initial x = 1\n";
    const char *const texts[] = { pendulum_text, duffing };
    for (int k = 0; k < 2; k++) {
        dirac_sim_options options = { 0 };
        options.method = "midpoint";
        options.dt = 1e-2;
        run r;
        if (!run_open_with(&r, texts[k], NULL, 0, &options))
            continue;
        ENSURE(!r.sim->nw.constant_jacobian);
        run_close(&r);
    }
}

TEST_MAIN(TEST(pendulum_midpoint), TEST(spring_chain), TEST(lc_ladder), TEST(damped_oscillator),
          TEST(nonlinear_not_constant))

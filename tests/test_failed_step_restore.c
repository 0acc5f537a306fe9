// A failed step leaves no trace (include/dirac/simulate.h, dirac_sim_step): the node, the
// multipliers, the work and what a method keeps between steps (predictor histories, earlier
// positions) are those of the last good step, whether the step failed inside the method or in
// the checks of its new node (an output that is not finite). Most methods write the new node
// into a second buffer and swap on success (src/sim.c, writes_next); the others update the
// node in place after a copy of it. The reference is the same simulation without the failed
// attempt: continuing after the failure must give its trajectory bit for bit.
#include "support/harness.h"
#include "support/sim_run.h"

#include <stdbool.h>
#include <string.h>

// The Cartesian pendulum (constraint: multipliers; nonlinear: predictors) with an output that
// is NaN while the input u is negative (u enters nothing else, so the dynamics never see it)
// and a force w·1e300 on x that no step survives while the input w is 1 (0 otherwise).
static const char *const PENDULUM_WITH_GATE =
    "model gated\n"
    "parameter m = 1, g = 9.81, l = 1\n"
    "coordinate x, y\n"
    "input u = 1, w = 0\n"
    "lagrangian m/2*(x'^2 + y'^2) - m*g*y\n"
    "constraint rod: x^2 + y^2 = l^2\n"
    "force x: w*1e300\n"
    "initial x = l*sin(0.5), y = -l*cos(0.5)\n"
    "output gate = sqrt(u)\n";

static const char *const METHODS[] = { "midpoint", "dirac1", "dirac2", "dgrad",
                                       "euler",    "rk4",    "lobatto3", "lobatto4" };

// Everything the accessors report about the node, as bytes.
typedef struct node_record {
    double t, energy, work, residual, velocity_residual;
    double q[2], v[2], p[2], mu[1], output[1];
    long steps;
} node_record;

static node_record record_node(const dirac_sim *sim)
{
    node_record r;
    memset(&r, 0, sizeof r);   // padding too: records compare with memcmp
    r.t = dirac_sim_time(sim);
    r.energy = dirac_sim_energy(sim);
    r.work = dirac_sim_work(sim);
    r.residual = dirac_sim_constraint_residual(sim);
    r.velocity_residual = dirac_sim_velocity_constraint_residual(sim);
    memcpy(r.q, dirac_sim_q(sim), sizeof r.q);
    memcpy(r.v, dirac_sim_v(sim), sizeof r.v);
    memcpy(r.p, dirac_sim_p(sim), sizeof r.p);
    memcpy(r.mu, dirac_sim_mu(sim), sizeof r.mu);
    dirac_sim_outputs(sim, r.output);
    r.steps = dirac_sim_step_count(sim);
    return r;
}

// `steps` steps that must succeed.
static void take_steps(dirac_sim *sim, int steps)
{
    for (int k = 0; k < steps; k++)
        ENSURE(dirac_sim_step(sim) == DIRAC_OK);
}

// Sets input `name` to value (the node's outputs follow it).
static void set_input(run *r, const char *name, double value)
{
    ENSURE(dirac_sim_set_input(r->sim, dirac_model_input_index(r->model, name), value) ==
           DIRAC_OK);
}

// Two attempts at a step that fails (the inputs set so) leave the node as it was (its output
// aside when `gate`: NaN at u < 0, a value of the node's inputs, not of its state).
static void failing_attempts(const char *method, run *r, bool gate)
{
    node_record before = record_node(r->sim);
    for (int attempt = 0; attempt < 2; attempt++) {
        ENSURE(dirac_sim_step(r->sim) != DIRAC_OK);
        node_record after = record_node(r->sim);
        if (gate)
            after.output[0] = before.output[0];
        if (memcmp(&after, &before, sizeof before) != 0)
            fprintf(stderr, "  %s: the failed step (%s) changed the node: %s\n", method,
                    gate ? "output" : "force", dirac_sim_errmsg(r->sim));
        ENSURE(memcmp(&after, &before, sizeof before) == 0);
    }
}

// One method at fixed steps: 40 steps, two attempts at a step that fails its output check,
// 40 more; against 80 steps without the failed attempts, bit for bit (their Newton solves
// converged like the successful one's, so Newton's kept Jacobians and scales agree too).
static void gated_run(const char *method)
{
    dirac_sim_options o = { .method = method, .dt = 1e-2 };
    run a, b;
    if (!run_open_with(&a, PENDULUM_WITH_GATE, NULL, 0, &o))
        return;
    if (!run_open_with(&b, PENDULUM_WITH_GATE, NULL, 0, &o)) {
        run_close(&a);
        return;
    }
    take_steps(a.sim, 40);
    set_input(&a, "u", -1.0);
    failing_attempts(method, &a, true);
    ENSURE_CONTAINS(dirac_sim_errmsg(a.sim), "output 'gate' became NaN");
    set_input(&a, "u", 1.0);
    take_steps(a.sim, 40);
    take_steps(b.sim, 80);
    node_record ra = record_node(a.sim), rb = record_node(b.sim);
    if (memcmp(&ra, &rb, sizeof ra) != 0)
        fprintf(stderr, "  %s: after the failed step x = %.17g, without it x = %.17g\n", method,
                ra.q[0], rb.q[0]);
    ENSURE(memcmp(&ra, &rb, sizeof ra) == 0);
    run_close(&a);
    run_close(&b);
}

static void failed_output_check_leaves_no_trace(void)
{
    for (size_t k = 0; k < sizeof METHODS / sizeof METHODS[0]; k++)
        gated_run(METHODS[k]);
}

// Steps that fail in the method (the force overflows: Newton fails, or the state or energy
// is not finite), at fixed and adaptive step sizes, and adaptive steps whose trials all fail
// the output check: the node stays the last good one. (The trials' Newton solves at other
// step sizes or from overflowing values do change Newton's kept Jacobians and scales, so the
// continuation is not compared here.)
static void failed_steps_keep_the_node(void)
{
    for (size_t k = 0; k < sizeof METHODS / sizeof METHODS[0]; k++)
        for (int adaptive = 0; adaptive < 2; adaptive++) {
            if (adaptive && !strcmp(METHODS[k], "dirac2"))
                continue;   // two-step: no adaptive step sizes
            dirac_sim_options o = { .method = METHODS[k], .dt = 1e-2,
                                    .adaptive_rtol = adaptive ? 1e-6 : 0.0 };
            run r;
            if (!run_open_with(&r, PENDULUM_WITH_GATE, NULL, 0, &o))
                continue;
            take_steps(r.sim, 20);
            set_input(&r, "w", 1.0);
            failing_attempts(METHODS[k], &r, false);
            set_input(&r, "w", 0.0);
            if (adaptive) {
                set_input(&r, "u", -1.0);
                failing_attempts(METHODS[k], &r, true);
                set_input(&r, "u", 1.0);
            }
            take_steps(r.sim, 20);
            run_close(&r);
        }
}

TEST_MAIN(TEST(failed_output_check_leaves_no_trace), TEST(failed_steps_keep_the_node))

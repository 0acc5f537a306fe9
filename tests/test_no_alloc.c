// Nothing allocates inside a time step: the program is linked with --wrap for malloc, calloc
// and realloc (tests/CMakeLists.txt), counts every call made from libdirac and the test, and
// checks the count does not move during 200 steps of each method on several models, with the
// dense (LAPACK) and the sparse (KLU, whose own allocations happen in the first step) solvers;
// with the dense ones the first step counts too (the solvers are made with the simulation).
#include "harness.h"
#include "problems.h"
#include "sim_run.h"

#include <dirac/dirac.h>

#include <stdbool.h>
#include <stdlib.h>

#include "alloc_count.h"

static const char *const models[] = {
    PENDULUM_OUTPUT_MODEL,
    KNIFE_EDGE_MODEL,
    "model driven\ncoordinate x, y\nlagrangian (x'^2 + y'^2)/2 - 9.81*y - x'*0.1*y\n"
    "force x: -0.2*x'\nconstraint pivot: (x - 0.1*sin(3*t))^2 + y^2 = 1\ninitial y = -1\n",
    "model double\ncoordinate x1, y1, x2, y2\n"
    "lagrangian (x1'^2 + y1'^2 + x2'^2 + y2'^2)/2 - 9.81*(y1 + y2)\n"
    "constraint rod1: x1^2 + y1^2 = 1\nconstraint rod2: (x2 - x1)^2 + (y2 - y1)^2 = 1\n"
    "initial x1 = 1, x2 = 2\n",
    // outputs of accelerations: one KKT solve per accepted node (dense, then sparse)
    PENDULUM_MODEL "output ax = x'', ay = y''\n",
    "model double\ncoordinate x1, y1, x2, y2\n"
    "lagrangian (x1'^2 + y1'^2 + x2'^2 + y2'^2)/2 - 9.81*(y1 + y2)\n"
    "constraint rod1: x1^2 + y1^2 = 1\nconstraint rod2: (x2 - x1)^2 + (y2 - y1)^2 = 1\n"
    "initial x1 = 1, x2 = 2\noutput a2 = x2'' + y2'', tension = mu.rod2\n",
    // a linear chain (constant Jacobian: its factorization kept, and with KLU its compressed
    // copy, made in the first step), dense, then sparse
    "model chain\ncoordinate x[6]\nlagrangian sum(i = 1..6, x[i]'^2/2) - x[1]^2/2"
    " - sum(i = 2..6, (x[i] - x[i-1])^2/2)\ninitial x[1] = 0.1\n",
    "model chain\ncoordinate x[6]\nlagrangian sum(i = 1..6, x[i]'^2/2) - x[1]^2/2"
    " - sum(i = 2..6, (x[i] - x[i-1])^2/2)\ninitial x[1] = 0.1\n",
};

static void steps_do_not_allocate(void)
{
    const char *methods[] = { "midpoint", "dirac1", "dirac2", "dgrad", "euler", "rk4",
                              "lobatto3", "lobatto4" };
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++)
        for (size_t j = 0; j < sizeof methods / sizeof methods[0]; j++) {
            if (k == 1 && !strncmp(methods[j], "lobatto", 7))
                continue;   // holonomic constraints only: refused (tests/test_lobatto.c)
            dirac_sim_options options = { .method = methods[j], .dt = 1e-3,
                                          .linear_solver = (dirac_linear_solver)(k % 2 ? DIRAC_LINEAR_SPARSE
                                                                                       : DIRAC_LINEAR_DENSE) };
            run r;
            if (run_open_with(&r, models[k], NULL, 0, &options)) {
                dirac_sim *sim = r.sim;
                double outputs[4];
                // dense solvers are created with the simulation, so even the first step (dirac2's
                // start-up step) allocates nothing; KLU allocates its analysis in the first step
                bool sparse = k % 2 == 1;
                long before = allocations;
                ENSURE(dirac_sim_step(sim) == DIRAC_OK);
                if (sparse)
                    before = allocations;
                for (int s = 0; s < 200; s++) {
                    ENSURE(dirac_sim_step(sim) == DIRAC_OK);
                    dirac_sim_outputs(sim, outputs);
                }
                // the run-quality verdict is formatted into the simulation's own buffers
                dirac_sim_quality quality;
                dirac_sim_quality_get(sim, &quality);
                ENSURE(dirac_sim_warning_count(sim) >= 0);
                if (allocations != before)
                    fprintf(stderr, "  model %zu, %s: %ld allocations in the steps\n", k,
                            methods[j], allocations - before);
                ENSURE_EQ_INT(allocations - before, 0);
            }
            run_close(&r);
        }
    ENSURE(allocations > 0);   // the wrapping works: set-up did allocate
}

// Adaptive steps (error estimate, rejections, restarts) allocate nothing either.
static void adaptive_steps_do_not_allocate(void)
{
    const char *methods[] = { "midpoint", "dirac1", "dgrad", "euler", "rk4", "lobatto3",
                              "lobatto4" };
    for (size_t k = 0; k < 5; k += k == 1 ? 3 : 1)   // models 0, 1 and 4 (accelerations)
        for (size_t j = 0; j < sizeof methods / sizeof methods[0]; j++) {
            if (k == 1 && !strncmp(methods[j], "lobatto", 7))
                continue;
            dirac_sim_options options = { .method = methods[j], .dt = 0.1,
                                          .adaptive_rtol = 1e-7 };
            run r;
            if (run_open_with(&r, models[k], NULL, 0, &options)) {
                dirac_sim *sim = r.sim;
                ENSURE(dirac_sim_step(sim) == DIRAC_OK);   // linear solvers created
                long before = allocations;
                for (int s = 0; s < 100; s++)
                    ENSURE(dirac_sim_step(sim) == DIRAC_OK);
                ENSURE(dirac_sim_rejected_steps(sim) > 0);   // the first step of 0.1 is too big
                ENSURE_EQ_INT(allocations - before, 0);
            }
            run_close(&r);
        }
}

// A circuit in branch charges whose resistor currents only the forces fix (the node solve of
// src/sim_degenerate.c): the methods that run it, with both linear solvers.
static void degenerate_circuit_steps_do_not_allocate(void)
{
    const char *text = "model rc2\ncoordinate qs, qC1, qR, qC2\n"
                       "lagrangian -qC1^2/(2*4e-6) - qC2^2/(2*2e-6)\n"
                       "force qs: sin(1500*t) - 50*qs'\nforce qR: -200*qR'\n"
                       "constraint n1: qs' = qC1' + qR'\nconstraint n2: qR' = qC2'\n";
    const char *methods[] = { "midpoint", "dirac1", "dgrad" };
    for (int sparse = 0; sparse < 2; sparse++)
        for (size_t j = 0; j < sizeof methods / sizeof methods[0]; j++) {
            dirac_sim_options options = { .method = methods[j], .dt = 1e-6,
                                          .linear_solver = sparse ? DIRAC_LINEAR_SPARSE
                                                                  : DIRAC_LINEAR_DENSE };
            run r;
            if (run_open_with(&r, text, NULL, 0, &options)) {
                dirac_sim *sim = r.sim;
                ENSURE(dirac_sim_step(sim) == DIRAC_OK);   // solvers are created at step 1
                long before = allocations;
                for (int s = 0; s < 200; s++)
                    ENSURE(dirac_sim_step(sim) == DIRAC_OK);
                if (allocations != before)
                    fprintf(stderr, "  circuit, %s: %ld allocations in 200 steps\n",
                            methods[j], allocations - before);
                ENSURE_EQ_INT(allocations - before, 0);
            }
            run_close(&r);
        }
}


// Setting inputs between steps (also refused values, whose message is formatted into the
// simulation's buffer) and saving and restoring snapshots allocate nothing.
static void inputs_and_snapshots_do_not_allocate(void)
{
    static const char text[] =
        "model turned\nparameter m = 1, g = 9.81\ninput tau = 0\ncoordinate x, y\n"
        "lagrangian m/2*(x'^2 + y'^2) - m*g*y\nconstraint rod: x^2 + y^2 = 1\n"
        "force x: -tau*y\nforce y: tau*x\ninitial y = -1\noutput power = tau*(x*y' - y*x')\n";
    run r;
    if (run_open_method(&r, text, "midpoint", 1e-3)) {
        dirac_sim *sim = r.sim;
        size_t size = dirac_sim_state_size(sim);
        unsigned char *state = malloc(size);
        double power = 0;
        ENSURE(dirac_sim_step(sim) == DIRAC_OK);
        long before = allocations;
        for (int s = 0; s < 200; s++) {
            ENSURE(dirac_sim_set_input(sim, 0, 0.001 * s) == DIRAC_OK);
            ENSURE(dirac_sim_set_input(sim, 0 * s, (double)NAN) == DIRAC_ERR_ARGUMENT);
            ENSURE(dirac_sim_set_input(sim, 1, 1.0) == DIRAC_ERR_ARGUMENT);
            ENSURE(dirac_sim_state_save(sim, state, size) == DIRAC_OK);
            ENSURE(dirac_sim_step(sim) == DIRAC_OK);
            if (s % 2)
                ENSURE(dirac_sim_state_restore(sim, state, size) == DIRAC_OK);
            dirac_sim_outputs(sim, &power);
        }
        ENSURE_EQ_INT(allocations - before, 0);
        free(state);
    }
    run_close(&r);
}

TEST_MAIN(TEST(steps_do_not_allocate), TEST(adaptive_steps_do_not_allocate),
          TEST(degenerate_circuit_steps_do_not_allocate), TEST(inputs_and_snapshots_do_not_allocate))

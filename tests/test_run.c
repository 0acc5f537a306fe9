// Runs (include/dirac/run.h): column names, rows equal to the simulation's accessors, the
// kept steps, the capacity limit, failures and dirac_run_finish, adaptive runs landing on
// t_end, statistics equal to those recomputed from every row, argument checks, and no
// allocation in dirac_run_advance and dirac_run_row (linked with --wrap, tests/CMakeLists.txt).
#include "harness.h"

#include <dirac/dirac.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"

static dirac_model *load(const char *relative_path)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", DIRAC_SOURCE_DIR, relative_path);
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_status status = dirac_spec_load(path, &spec);
    if (status == DIRAC_OK)
        status = dirac_model_compile(spec, &model);
    if (status != DIRAC_OK)
        fprintf(stderr, "  %s\n", spec ? dirac_spec_errmsg(spec) : "out of memory");
    ENSURE(status == DIRAC_OK);
    dirac_spec_destroy(spec);
    return model;
}

static dirac_sim *start(const dirac_model *model, const char *method, double dt, double rtol)
{
    dirac_sim_options options = { .method = method, .dt = dt, .adaptive_rtol = rtol,
                                  .adaptive_atol = rtol };
    dirac_sim *sim = NULL;
    dirac_error err;
    if (!model || dirac_sim_create(model, &options, &sim, &err) != DIRAC_OK) {
        fprintf(stderr, "  %s\n", model ? err.message : "no model");
        ENSURE(!"simulation created");
    }
    return sim;
}

static void column_names(void)
{
    dirac_model *m = load("pendulum.dirac");
    static const char *const expected[] = { "t", "x", "y", "x'", "y'", "p.x", "p.y",
                                            "mu.rod", "E", "angle" };
    ENSURE_EQ_INT(dirac_model_column_count(m), 10);
    char buf[64];
    for (int k = 0; k < 10; k++) {
        ENSURE_EQ_INT(dirac_model_column_name(m, k, buf, sizeof buf), strlen(expected[k]));
        ENSURE(!strcmp(buf, expected[k]));
    }
    ENSURE_EQ_INT(dirac_model_column_name(m, 10, buf, sizeof buf), -1);
    ENSURE_EQ_INT(dirac_model_column_name(m, -1, buf, sizeof buf), -1);
    // truncated to the buffer, the full length returned; no buffer: only the length
    ENSURE_EQ_INT(dirac_model_column_name(m, 7, buf, 4), 6);
    ENSURE(!strcmp(buf, "mu."));
    ENSURE_EQ_INT(dirac_model_column_name(m, 7, NULL, 0), 6);
    dirac_model_destroy(m);

    // interactions: F.NAME.COORD per coordinate the interaction acts on, then P.NAME
    m = load("interconnect/dc_motor/dc_motor.dirac");
    int count = dirac_model_column_count(m), found_f = 0, found_p = 0;
    for (int k = 0; k < count; k++) {
        ENSURE(dirac_model_column_name(m, k, buf, sizeof buf) > 0);
        found_f += !strcmp(buf, "F.motor.armature.q") || !strcmp(buf, "F.motor.rotor.theta");
        found_p += !strcmp(buf, "P.motor") || !strcmp(buf, "P.gear");
    }
    ENSURE_EQ_INT(found_f, 2);
    ENSURE_EQ_INT(found_p, 2);
    dirac_model_destroy(m);
}

// Every row equals the accessors of a twin simulation stepped by hand, at the steps kept:
// every 3rd and the last (100 steps of 1e-3 to t_end = 0.1).
static void rows_and_kept_steps(void)
{
    dirac_model *m = load("pendulum.dirac");
    dirac_sim *sim = start(m, "midpoint", 1e-3, 0), *twin = start(m, "midpoint", 1e-3, 0);
    dirac_run *run = NULL;
    ENSURE(dirac_run_create(sim, 0.1, 3, &run, NULL) == DIRAC_OK);
    if (!run || !twin) {
        dirac_sim_destroy(sim), dirac_sim_destroy(twin), dirac_model_destroy(m);
        return;
    }
    ENSURE_EQ_INT(dirac_run_statistics(run)->steps_planned, 100);
    double rows[40 * 10], row0[10];
    dirac_run_row(run, row0);
    long written = 0;
    ENSURE(dirac_run_advance(run, 1000, rows, 40, &written) == DIRAC_OK);
    ENSURE_EQ_INT(written, 34);   // steps 3, 6, ..., 99 and 100
    ENSURE(dirac_run_finished(run));
    ENSURE_EQ_INT(dirac_run_finish(run, row0), 0);   // the last step is already written
    int k = 0;
    for (long step = 1; step <= 100; step++) {
        ENSURE(dirac_sim_step(twin) == DIRAC_OK);
        if (step % 3 != 0 && step != 100)
            continue;
        const double *r = rows + 10 * k++;
        const double *q = dirac_sim_q(twin), *v = dirac_sim_v(twin), *p = dirac_sim_p(twin);
        double angle;
        dirac_sim_outputs(twin, &angle);
        double expect[10] = { dirac_sim_time(twin), q[0], q[1], v[0], v[1], p[0], p[1],
                              dirac_sim_mu(twin)[0], dirac_sim_energy(twin), angle };
        ENSURE(!memcmp(r, expect, sizeof expect));
    }
    ENSURE_EQ_INT(k, 34);
    ENSURE_EQ_INT(dirac_run_statistics(run)->rows, 34);
    dirac_run_destroy(run);
    dirac_sim_destroy(sim);
    dirac_sim_destroy(twin);
    dirac_model_destroy(m);
}

// A buffer of 2 rows: advance stops after the step that fills it, the next call continues.
static void capacity_limits_rows(void)
{
    dirac_model *m = load("pendulum.dirac");
    dirac_sim *sim = start(m, "midpoint", 1e-3, 0);
    dirac_run *run = NULL;
    ENSURE(dirac_run_create(sim, 0.01, 1, &run, NULL) == DIRAC_OK);
    double rows[2 * 10];
    long written = 0, total = 0, calls = 0;
    while (run && !dirac_run_finished(run) && calls++ < 100) {
        ENSURE(dirac_run_advance(run, 1000, rows, 2, &written) == DIRAC_OK);
        ENSURE(written == 2 || dirac_run_finished(run));
        total += written;
    }
    ENSURE_EQ_INT(total, 10);
    ENSURE_EQ_INT(calls, 5);
    ENSURE_NEAR(rows[10], 0.01, 1e-15);
    dirac_run_destroy(run);
    dirac_sim_destroy(sim);
    dirac_model_destroy(m);
}

// dt = 5 makes Newton fail in the first step: no row, the run is finished, and
// dirac_run_finish writes the last good step (the initial one) once.
static void failure_and_finish(void)
{
    dirac_model *m = load("pendulum.dirac");
    dirac_sim *sim = start(m, "midpoint", 5, 0);
    dirac_run *run = NULL;
    ENSURE(dirac_run_create(sim, 20, 1, &run, NULL) == DIRAC_OK);
    if (run) {
        double rows[10], last[10];
        long written = -1;
        ENSURE(dirac_run_advance(run, 10, rows, 1, &written) == DIRAC_ERR_NEWTON);
        ENSURE_EQ_INT(written, 0);
        ENSURE(dirac_run_finished(run));
        const dirac_run_stats *st = dirac_run_statistics(run);
        ENSURE(st->status == DIRAC_ERR_NEWTON);
        ENSURE_EQ_INT(st->newton_failures, 1);
        ENSURE_EQ_INT(st->steps, 0);
        ENSURE(isnan(st->entropy_step_min) && isnan(st->step_size_min));
        // the last good step is the initial node, which is the caller's first row
        // (dirac_run_row), so there is nothing left to write
        ENSURE_EQ_INT(dirac_run_finish(run, last), 0);
    }
    dirac_run_destroy(run);
    dirac_sim_destroy(sim);

    // rk4 with dt = 0.5 blows up at step 80; with every = 7 the last good step (79) was not
    // kept, so dirac_run_finish writes it, once
    sim = start(m, "rk4", 0.5, 0);
    run = NULL;
    ENSURE(dirac_run_create(sim, 100, 7, &run, NULL) == DIRAC_OK);
    if (run) {
        double rows[20 * 10], last[10];
        long written = 0;
        ENSURE(dirac_run_advance(run, 1000, rows, 20, &written) == DIRAC_ERR_NOT_FINITE);
        ENSURE_EQ_INT(written, 11);   // steps 7, 14, ..., 77
        ENSURE_EQ_INT(dirac_run_statistics(run)->steps, 79);
        ENSURE_EQ_INT(dirac_run_finish(run, last), 1);
        ENSURE_NEAR(last[0], 39.5, 0);
        ENSURE_EQ_INT(dirac_run_finish(run, last), 0);
        ENSURE_EQ_INT(dirac_run_statistics(run)->rows, 12);
    }
    dirac_run_destroy(run);
    dirac_sim_destroy(sim);
    dirac_model_destroy(m);
}

// Adaptive: the last step is shortened to land on t_end exactly (t0 + t_end, t0 = 0).
static void adaptive_lands_on_t_end(void)
{
    dirac_model *m = load("pendulum.dirac");
    dirac_sim *sim = start(m, "midpoint", 1e-3, 1e-6);
    dirac_run *run = NULL;
    ENSURE(dirac_run_create(sim, 1.7, 1000000, &run, NULL) == DIRAC_OK);
    if (run) {
        double rows[4 * 10];
        long written = 0;
        ENSURE(dirac_run_advance(run, 1000000, rows, 4, &written) == DIRAC_OK);
        ENSURE(dirac_run_finished(run));
        ENSURE_EQ_INT(written, 1);   // only the last step (no step number is a multiple of 1e6)
        ENSURE(rows[0] == 1.7);
        const dirac_run_stats *st = dirac_run_statistics(run);
        ENSURE(st->step_size_min < st->step_size_max);
    }
    dirac_run_destroy(run);
    dirac_sim_destroy(sim);
    dirac_model_destroy(m);
}

// The statistics equal what the kept rows give when every row is kept: max |E - E0| (the
// harmonic oscillator has no work), and the entropy's smallest step on a heat exchange.
static void statistics_from_rows(void)
{
    dirac_model *m = load("harmonic_oscillator.dirac");
    dirac_sim *sim = start(m, "midpoint", 1e-2, 0);
    dirac_run *run = NULL;
    ENSURE(dirac_run_create(sim, 5, 1, &run, NULL) == DIRAC_OK);
    int columns = dirac_model_column_count(m);
    double *rows = malloc((size_t)(502 * columns) * sizeof *rows);
    if (run && rows) {
        dirac_run_row(run, rows);
        long written = 0;
        ENSURE(dirac_run_advance(run, 1000, rows + columns, 501, &written) == DIRAC_OK);
        ENSURE_EQ_INT(written, 500);
        int e = 4;   // t, x, x', p.x, E
        double worst = 0;
        for (long r = 1; r <= written; r++)
            worst = fmax(worst, fabs(rows[r * columns + e] - rows[e]));
        const dirac_run_stats *st = dirac_run_statistics(run);
        ENSURE(st->energy_error_max == worst);
        ENSURE(st->energy_initial == rows[e]);
        ENSURE_EQ_INT(st->newton_iterations_max > 0, 1);
    }
    free(rows);
    dirac_run_destroy(run);
    dirac_sim_destroy(sim);
    dirac_model_destroy(m);

    m = load("thermo/two_bodies.dirac");
    sim = start(m, "dgrad", 1e-2, 0);
    run = NULL;
    ENSURE(dirac_run_create(sim, 2, 1, &run, NULL) == DIRAC_OK);
    columns = dirac_model_column_count(m);
    rows = malloc((size_t)(202 * columns) * sizeof *rows);
    if (run && rows) {
        dirac_run_row(run, rows);
        long written = 0;
        ENSURE(dirac_run_advance(run, 1000, rows + columns, 201, &written) == DIRAC_OK);
        ENSURE_EQ_INT(written, 200);
        // columns: t, S.S1, S.S2, T.S1, T.S2, E, U1, U2 (no coordinates)
        double smallest = INFINITY;
        for (long r = 1; r <= written; r++) {
            double ds = (rows[r * columns + 1] + rows[r * columns + 2]) -
                        (rows[(r - 1) * columns + 1] + rows[(r - 1) * columns + 2]);
            smallest = fmin(smallest, ds);
        }
        const dirac_run_stats *st = dirac_run_statistics(run);
        ENSURE(st->entropy_step_min == smallest);
        ENSURE(st->entropy_step_min > 0);   // heat flows from hot to cold: entropy grows
    }
    free(rows);
    dirac_run_destroy(run);
    dirac_sim_destroy(sim);
    dirac_model_destroy(m);
}

static void bad_arguments(void)
{
    dirac_model *m = load("pendulum.dirac");
    dirac_sim *sim = start(m, "midpoint", 1e-3, 0);
    dirac_run *run = NULL;
    dirac_error err;
    ENSURE(dirac_run_create(sim, -1, 1, &run, &err) == DIRAC_ERR_ARGUMENT && !run);
    ENSURE(dirac_run_create(sim, NAN, 1, &run, &err) == DIRAC_ERR_ARGUMENT && !run);
    ENSURE(dirac_run_create(sim, INFINITY, 1, &run, &err) == DIRAC_ERR_ARGUMENT && !run);
    ENSURE(dirac_run_create(sim, 1, 0, &run, &err) == DIRAC_ERR_ARGUMENT && !run);
    ENSURE(dirac_run_create(sim, 1e10, 1, &run, &err) == DIRAC_ERR_ARGUMENT && !run);
    ENSURE_CONTAINS(err.message, "too many");
    ENSURE(dirac_run_create(NULL, 1, 1, &run, &err) == DIRAC_ERR_ARGUMENT);
    ENSURE(dirac_run_create(sim, 1, 1, NULL, &err) == DIRAC_ERR_ARGUMENT);
    // t_end = 0: finished at once, nothing to write
    ENSURE(dirac_run_create(sim, 0, 1, &run, &err) == DIRAC_OK);
    ENSURE(run && dirac_run_finished(run));
    long written = -1;
    double row[10];
    if (run)
        ENSURE(dirac_run_advance(run, 10, row, 1, &written) == DIRAC_OK && written == 0);
    dirac_run_destroy(run);
    dirac_run_destroy(NULL);
    dirac_sim_destroy(sim);
    dirac_model_destroy(m);
}

// dirac_run_advance and dirac_run_row allocate nothing, on models with interactions and
// outputs (the DC motor), entropy (two bodies) and constraints (the pendulum).
static void runs_do_not_allocate(void)
{
    const char *files[] = { "interconnect/dc_motor/dc_motor.dirac", "thermo/two_bodies.dirac",
                            "pendulum.dirac" };
    const char *methods[] = { "midpoint", "dgrad", "midpoint" };
    for (int f = 0; f < 3; f++) {
        dirac_model *m = load(files[f]);
        dirac_sim *sim = start(m, methods[f], 1e-4, 0);
        dirac_run *run = NULL;
        ENSURE(dirac_run_create(sim, 1, 1, &run, NULL) == DIRAC_OK);
        int columns = m ? dirac_model_column_count(m) : 1;
        double *rows = malloc((size_t)(64 * columns) * sizeof *rows);
        if (run && rows) {
            long written = 0;
            ENSURE(dirac_run_advance(run, 1, rows, 64, &written) == DIRAC_OK);   // set-up
            long before = allocations;
            for (int k = 0; k < 10; k++) {
                ENSURE(dirac_run_advance(run, 20, rows, 64, &written) == DIRAC_OK);
                dirac_run_row(run, rows);
            }
            ENSURE_EQ_INT(allocations - before, 0);
        }
        free(rows);
        dirac_run_destroy(run);
        dirac_sim_destroy(sim);
        dirac_model_destroy(m);
    }
    ENSURE(allocations > 0);
}

TEST_MAIN(TEST(column_names), TEST(rows_and_kept_steps), TEST(capacity_limits_rows),
          TEST(failure_and_finish), TEST(adaptive_lands_on_t_end), TEST(statistics_from_rows),
          TEST(bad_arguments), TEST(runs_do_not_allocate))

// midpoint's generated stage kernels (src/codegen_stage.h) on the class of models they serve:
// holonomic, time-dependent and nonholonomic constraints, forces (damping, sources), a
// two-form, inputs.
//
// References and tolerances:
// - the pendulum's stage residuals against the scheme's equations written out by hand
//   (docs/methods.md) for L = |v|²/2 − g y, φ = x² + y² − 1: a few roundings of terms of
//   size ≤ 10, so 1e-13;
// - every kernel's Jacobian against central differences of its own residual (the kernel's
//   residual is checked above and, through the trajectories, against the assembly): step
//   δ_j = 1e-6 (1 + |z_j|), truncation O(δ² |r'''|) and cancellation O(ε |r| / δ) both below
//   1e-8 of the row's largest entry here, so 1e-6 of it (plus 1e-9 absolute for exact zeros);
// - whole trajectories of the generated kernels (degenerate Lagrangians included: their
//   velocity stage falls back to the assembly) against the same model on the tapes
//   (DIRAC_CODEGEN_OFF, integ_midpoint.c's block assembly): the kernels perform the
//   assembly's IEEE operations in the same order without fused multiply-adds, so q, v, p, μ
//   and the Newton iterations must agree bit for bit (as test_codegen's trajectories), with
//   adaptive steps, a step size set by the host and dirac2's first step as well; the kernels
//   must have been called on the compiled model (sim->stage_kernel_calls) and not on the tapes;
// - a kernel source that does not compile: the model keeps its generated code, without kernels;
// - where the kernels must not be emitted (entropy variables, the sparse solver's sizes), and
//   that those models still run.
#define _GNU_SOURCE   // mkdtemp, setenv
#include "harness.h"
#include "sim_run.h"

#include "codegen_stage.h"
#include "model.h"
#include "sim.h"

#include <dirac/dirac.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char cache_dir[64];

// a private cache (the generated objects of this test do not reach the user's)
static void open_cache(void)
{
    snprintf(cache_dir, sizeof cache_dir, "/tmp/dirac-test-stage-XXXXXX");
    ENSURE(mkdtemp(cache_dir) != NULL);
    setenv("DIRAC_CACHE_DIR", cache_dir, 1);
}

static void close_cache(void)
{
    DIR *d = opendir(cache_dir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(cache_dir);
}

static dirac_model *compile(const char *path, const char *text, dirac_codegen_mode mode)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_status status = text ? dirac_spec_parse("m.dirac", text, strlen(text), &spec)
                               : dirac_spec_load(path, &spec);
    if (status == DIRAC_OK && dirac_spec_set_codegen(spec, mode) == DIRAC_OK)
        dirac_model_compile(spec, &model);
    dirac_spec_destroy(spec);
    ENSURE(model != NULL);
    return model;
}

// A driven, damped pendulum with an input torque-like force (set by the host every step).
static const char input_model[] =
    "model driven\n"
    "parameter c = 0.3\n"
    "input u = 0.5\n"
    "coordinate x, y\n"
    "lagrangian (x'^2 + y'^2)/2 - 9.81*y\n"
    "constraint rod: x^2 + y^2 = 1\n"
    "force x: u*y - c*x'\n"
    "force y: -u*x - c*y'\n"
    "initial x = 0.6, y = -0.8\n";

// Degenerate Lagrangians, whose velocity stage leaves the kernel: L linear in the velocities
// (the Legendre map is singular: v_{k+1} = v̄), a charge without inductance fixed by its
// resistor's force (the momentum balance along the free velocity, sim_degenerate.c), and a
// capacitor charge tied to an inductor's by Kirchhoff's law.
static const char rotation_model[] = "model rotation\ncoordinate x, y\n"
                                     "lagrangian x*y' - (x^2 + y^2)/2\ninitial x = 1\n";
static const char rc_model[] = "model rlc\nparameter L = 0.5, C = 2e-3, R = 3\n"
                               "coordinate qL, qC\n"
                               "lagrangian L/2*qL'^2 - qL^2/(2*C) - qC^2/(2*C) + qL*qC/C\n"
                               "force qC: -R*qC'\ninitial qL = 1e-3\n";
static const char lc_model[] = "model lc\nparameter Lind = 0.5, C = 2e-3\n"
                               "coordinate qL, qC\nlagrangian Lind/2*qL'^2 - qC^2/(2*C)\n"
                               "constraint kcl: qL' = qC'\ninitial qL = 1e-3, qC = 1e-3\n";
// A holonomic and a nonholonomic constraint together, the latter with a time-dependent b:
// a particle on a sphere whose velocity along the turning direction (cos t, sin t) is driven.
static const char mixed_model[] = "model mixed\ncoordinate x, y, z\n"
                                  "lagrangian (x'^2 + y'^2 + z'^2)/2 - 9.81*z\n"
                                  "constraint sphere: x^2 + y^2 + z^2 = 1\n"
                                  "constraint steer: x'*cos(t) + y'*sin(t) = 0.1*sin(3*t)\n"
                                  "initial x = 0.6, z = -0.8\n";

typedef struct kernel_case {
    const char *file;   // under examples/, or NULL: text
    const char *text;
    int has_input;
    const char *name;   // of a text
} kernel_case;

static const kernel_case kernel_cases[] = {
    { "pendulum.dirac", NULL, 0, NULL },              // holonomic
    { "double_pendulum.dirac", NULL, 0, NULL },       // two holonomic constraints, coupled L
    { "damped_oscillator.dirac", NULL, 0, NULL },     // velocity-dependent force
    { "rlc_driven.dirac", NULL, 0, NULL },            // time-dependent and damping forces
    { "knife_edge.dirac", NULL, 0, NULL },            // nonholonomic
    { "kapitza_pendulum.dirac", NULL, 0, NULL },      // time-dependent holonomic constraint
    { "bead_on_rotating_rod.dirac", NULL, 0, NULL },  // time-dependent holonomic constraint
    { "charged_particle.dirac", NULL, 0, NULL },      // two-form (gyroscopic force)
    { NULL, input_model, 1, "inputs" },         // inputs
    { NULL, rotation_model, 0, "rotation" },    // degenerate: singular Legendre map
    { NULL, rc_model, 0, "rc" },                // degenerate: momentum balance (forces)
    { NULL, lc_model, 0, "lc" },                // degenerate with a constraint
    { NULL, mixed_model, 0, "mixed" },          // holonomic + nonholonomic with b(t)
};
enum { CASES = (int)(sizeof kernel_cases / sizeof kernel_cases[0]) };

static dirac_model *compile_case(const kernel_case *c, dirac_codegen_mode mode)
{
    char path[512];
    if (c->file)
        snprintf(path, sizeof path, "%s/examples/%s", DIRAC_SOURCE_DIR, c->file);
    return compile(c->file ? path : NULL, c->text, mode);
}

// The evaluation slots a kernel writes (x and the groups' arrays of sim_eval, by group).
typedef struct slots {
    double *x[3];
    double *out[3][CODEGEN_MAX_GROUPS];
} slots;

static int slots_open(slots *s, const dirac_model *m)
{
    memset(s, 0, sizeof *s);
    int ok = 1;
    for (int p = 0; p < 3; p++) {
        s->x[p] = calloc((size_t)m->n_inputs, sizeof(double));
        ok = ok && s->x[p];
        if (s->x[p])
            model_set_default_inputs(m, s->x[p]);
        for (int g = 0; g < MODEL_CG_COUNT; g++) {
            const model_group *group = model_codegen_group_of(m, (model_codegen_group)g);
            s->out[p][g] = calloc((size_t)group->count + 1, sizeof(double));
            ok = ok && s->out[p][g];
        }
    }
    return ok;
}

static void slots_close(slots *s)
{
    for (int p = 0; p < 3; p++) {
        free(s->x[p]);
        for (int g = 0; g < MODEL_CG_COUNT; g++)
            free(s->out[p][g]);
    }
}

// The residual r (and Jacobian J, column-major, or NULL) of `stage` at z, after the start
// kernel evaluated ω(q_k) into slot 0 (stage 1 reads it).
static void kernel_at(const dirac_model *m, slots *s, double *work, int stage,
                      const double *q, const double *v, const double *p, double t, double h,
                      const double *z, double *r, double *J, double *hidden)
{
    codegen_stage_args a = { q, p, s->out[0][MODEL_CG_CONSTRAINT_FORMS], hidden, s->x[0],
                             s->x[2], s->out[0], s->out[2], t, h };
    codegen_stage_run(m->codegen, CODEGEN_STAGE_START, &a, v, NULL, NULL, work);
    a.x_mid = s->x[1];
    a.out_mid = s->out[1];
    int size = m->n + m->m;
    if (J)
        memset(J, 0, (size_t)(size * size) * sizeof *J);
    codegen_stage_run(m->codegen, stage, &a, z, r, J, work);
}

static void pendulum_residuals_by_hand(void)
{
    open_cache();
    char path[512];
    snprintf(path, sizeof path, "%s/examples/pendulum.dirac", DIRAC_SOURCE_DIR);
    dirac_model *m = compile(path, NULL, DIRAC_CODEGEN_AUTO);
    ENSURE(m && codegen_stage(m->codegen, CODEGEN_STAGE_POSITIONS));
    slots s;
    if (m && codegen_stage(m->codegen, CODEGEN_STAGE_POSITIONS) && slots_open(&s, m)) {
        double *work = calloc((size_t)m->work_size + 1, sizeof *work);
        const double q[2] = { 0.6, -0.8 }, v[2] = { 1.2, 0.9 }, p[2] = { 1.1, 0.95 };
        const double h = 0.01, t = 0.25, g = 9.81;
        double z[3] = { 0.013, 0.0085, -4.2 }, r[3], hidden[3] = { 0 };
        kernel_at(m, &s, work, CODEGEN_STAGE_POSITIONS, q, v, p, t, h, z, r, NULL, hidden);
        // ∂L/∂v(v̄) − p_k − h/2 ∂L/∂q − h/2 ω(q_k)ᵀ λ, ω = (2x, 2y); φ(q_k + Δq)
        double x1 = q[0] + z[0], y1 = q[1] + z[1];
        ENSURE_NEAR(r[0], z[0] / h - p[0] - 0.5 * h * 2 * q[0] * z[2], 1e-13);
        ENSURE_NEAR(r[1], z[1] / h - p[1] + 0.5 * h * g - 0.5 * h * 2 * q[1] * z[2], 1e-13);
        ENSURE_NEAR(r[2], x1 * x1 + y1 * y1 - 1.0, 1e-13);
        // stage 2 at q_{k+1}: ∂L/∂v(v) − p* − h/2 ω(q_{k+1})ᵀ ν; ⟨ω(q_{k+1}), v⟩
        const double q1[2] = { x1, y1 }, pstar[2] = { 1.3, 0.7 };
        double w[3] = { 1.25, 0.93, 3.1 };
        kernel_at(m, &s, work, CODEGEN_STAGE_VELOCITIES, q1, v, pstar, t, h, w, r, NULL, hidden);
        ENSURE_NEAR(r[0], w[0] - pstar[0] - 0.5 * h * 2 * x1 * w[2], 1e-13);
        ENSURE_NEAR(r[1], w[1] - pstar[1] - 0.5 * h * 2 * y1 * w[2], 1e-13);
        ENSURE_NEAR(r[2], 2 * x1 * w[0] + 2 * y1 * w[1], 1e-13);
        free(work);
        slots_close(&s);
    }
    dirac_model_destroy(m);
    close_cache();
}

// Both stages' Jacobians against central differences of their residuals, at a point near
// each model's start (q_k, v_k from one step; perturbed unknowns).
static void jacobians_are_derivatives(void)
{
    open_cache();
    for (int c = 0; c < CASES; c++) {
        dirac_model *m = compile_case(&kernel_cases[c], DIRAC_CODEGEN_AUTO);
        const char *name = kernel_cases[c].file ? kernel_cases[c].file : kernel_cases[c].name;
        ENSURE(m && codegen_stage(m->codegen, CODEGEN_STAGE_POSITIONS));
        slots s;
        if (!m || !codegen_stage(m->codegen, CODEGEN_STAGE_POSITIONS) || !slots_open(&s, m)) {
            dirac_model_destroy(m);
            continue;
        }
        int n = m->n, size = n + m->m;
        double *work = calloc((size_t)m->work_size + 1, sizeof *work);
        double *buf = calloc((size_t)(8 * size + 3 * size * size), sizeof *buf);
        double *q = buf, *v = q + size, *p = v + size, *z = p + size, *r = z + size;
        double *rp = r + size, *rm = rp + size, *hidden = rm + size;
        double *J = hidden + size, *scratch = J + size * size;
        dirac_sim *sim = NULL;
        dirac_sim_options o = { .method = "midpoint", .dt = 1e-3, .project_initial = 1 };
        dirac_error err;
        if (work && buf && dirac_sim_create(m, &o, &sim, &err) == DIRAC_OK &&
            dirac_sim_step(sim) == DIRAC_OK) {
            memcpy(q, dirac_sim_q(sim), (size_t)n * sizeof *q);
            memcpy(v, dirac_sim_v(sim), (size_t)n * sizeof *v);
            memcpy(p, dirac_sim_p(sim), (size_t)n * sizeof *p);
            double h = 1e-2, t = dirac_sim_time(sim), worst = 0.0;
            for (int stage = CODEGEN_STAGE_POSITIONS; stage <= CODEGEN_STAGE_VELOCITIES;
                 stage++) {
                // Δq = h v (1.1) or v (0.9), and multipliers of the size of the run's
                for (int i = 0; i < n; i++)
                    z[i] = (stage == CODEGEN_STAGE_POSITIONS ? 1.1 * h : 0.9) * v[i] +
                           1e-3 * (i + 1) * h;
                for (int a = 0; a < m->m; a++)
                    z[n + a] = dirac_sim_mu(sim)[a] + 0.5;
                kernel_at(m, &s, work, stage, q, v, p, t, h, z, r, J, hidden);
                for (int j = 0; j < size; j++) {
                    double zj = z[j], delta = 1e-6 * (1.0 + fabs(zj));
                    z[j] = zj + delta;
                    kernel_at(m, &s, work, stage, q, v, p, t, h, z, rp, NULL, hidden);
                    z[j] = zj - delta;
                    kernel_at(m, &s, work, stage, q, v, p, t, h, z, rm, NULL, hidden);
                    z[j] = zj;
                    for (int i = 0; i < size; i++)
                        scratch[j * size + i] = (rp[i] - rm[i]) / (2.0 * delta);
                }
                for (int i = 0; i < size; i++) {
                    double row = 0.0;
                    for (int j = 0; j < size; j++)
                        row = fmax(row, fabs(J[j * size + i]));
                    for (int j = 0; j < size; j++) {
                        double gap = fabs(J[j * size + i] - scratch[j * size + i]);
                        worst = fmax(worst, gap / (row + 1e-300));
                        if (!(gap <= 1e-6 * row + 1e-9)) {
                            fprintf(stderr, "  %s stage %d: J[%d][%d] = %.17g, differences %.17g\n",
                                    name, stage + 1, i, j, J[j * size + i], scratch[j * size + i]);
                            ENSURE(!"the kernel's Jacobian is its residual's derivative");
                        }
                    }
                }
            }
            fprintf(stderr, "  %s: largest relative gap to central differences %.2g\n", name,
                    worst);
        } else {
            ENSURE(!"simulation created and stepped");
        }
        dirac_sim_destroy(sim);
        free(work);
        free(buf);
        slots_close(&s);
        dirac_model_destroy(m);
    }
    close_cache();
}

// How a comparison runs: the method, the linear solver, the steps, adaptive steps (rtol > 0)
// and a step size set by the host before step `resize_at` (0: none).
typedef struct run_setup {
    const char *method;
    dirac_linear_solver solver;
    int steps;
    double rtol;
    int resize_at;
    double resize_to;
} run_setup;

// One run of `steps` steps on the generated kernels and on the tapes: bit for bit (times and
// step sizes included), and the kernels are called on the compiled model only.
static void compare_runs(const kernel_case *c, run_setup r)
{
    const char *name = c->file ? c->file : c->name;
    dirac_model *compiled = compile_case(c, DIRAC_CODEGEN_AUTO);
    dirac_model *taped = compile_case(c, DIRAC_CODEGEN_OFF);
    ENSURE(compiled && codegen_stage(compiled->codegen, CODEGEN_STAGE_VELOCITIES));
    ENSURE(taped && !taped->codegen);
    dirac_sim_options o = { .method = r.method, .dt = 1e-3, .project_initial = 1,
                            .linear_solver = r.solver, .adaptive_rtol = r.rtol };
    dirac_sim *a = NULL, *b = NULL;
    dirac_error err;
    ENSURE(compiled && dirac_sim_create(compiled, &o, &a, &err) == DIRAC_OK);
    ENSURE(taped && dirac_sim_create(taped, &o, &b, &err) == DIRAC_OK);
    int n = compiled ? dirac_model_coordinate_count(compiled) : 0;
    int mc = compiled ? dirac_model_constraint_count(compiled) : 0;
    for (int step = 1; a && b && step <= r.steps; step++) {
        if (c->has_input) {   // a signal that changes every step
            ENSURE_EQ_INT(dirac_sim_set_input(a, 0, sin(0.05 * step)), DIRAC_OK);
            ENSURE_EQ_INT(dirac_sim_set_input(b, 0, sin(0.05 * step)), DIRAC_OK);
        }
        if (step == r.resize_at) {
            ENSURE_EQ_INT(dirac_sim_set_next_step_size(a, r.resize_to), DIRAC_OK);
            ENSURE_EQ_INT(dirac_sim_set_next_step_size(b, r.resize_to), DIRAC_OK);
        }
        dirac_status sa = dirac_sim_step(a), sb = dirac_sim_step(b);
        ENSURE_EQ_INT(sa, DIRAC_OK);
        ENSURE_EQ_INT(sb, DIRAC_OK);
        if (sa != DIRAC_OK || sb != DIRAC_OK)
            break;
        int differ = dirac_sim_newton_iterations(a) != dirac_sim_newton_iterations(b) ||
                     dirac_sim_time(a) != dirac_sim_time(b) ||
                     dirac_sim_last_step_size(a) != dirac_sim_last_step_size(b);
        for (int i = 0; i < n; i++)
            differ |= dirac_sim_q(a)[i] != dirac_sim_q(b)[i] ||
                      dirac_sim_v(a)[i] != dirac_sim_v(b)[i] ||
                      dirac_sim_p(a)[i] != dirac_sim_p(b)[i];
        for (int k = 0; k < mc; k++)
            differ |= dirac_sim_mu(a)[k] != dirac_sim_mu(b)[k];
        if (differ) {
            fprintf(stderr, "  %s (%s, solver %d, rtol %g): step %d differs: q0 %.17g / %.17g\n",
                    name, r.method, (int)r.solver, r.rtol, step, dirac_sim_q(a)[0],
                    dirac_sim_q(b)[0]);
            ENSURE(!"generated kernels and tapes give the same trajectory");
            break;
        }
    }
    // the comparison is one of kernels against the assembly only if the kernels ran
    ENSURE(a && a->stage_kernel_calls > 0);
    ENSURE(b && b->stage_kernel_calls == 0);
    dirac_sim_destroy(a);
    dirac_sim_destroy(b);
    dirac_model_destroy(compiled);
    dirac_model_destroy(taped);
}

static void trajectories_equal_tapes(void)
{
    open_cache();
    for (int c = 0; c < CASES; c++)
        compare_runs(&kernel_cases[c], (run_setup){ .method = "midpoint", .steps = 300 });
    // a sparse solver: the kernels give residuals only, the assembly the Jacobians
    run_setup sparse = { .method = "midpoint", .solver = DIRAC_LINEAR_SPARSE, .steps = 100 };
    compare_runs(&kernel_cases[0], sparse);
    compare_runs(&kernel_cases[4], sparse);
    close_cache();
}

// Steps of other sizes than the first: adaptive steps (the controller's step-doubling trial
// steps too), one of them of a size set by the host, and dirac2, whose first step is a
// midpoint step (integ_midpoint.h).
static void step_sizes_and_dirac2(void)
{
    open_cache();
    const int cases[] = { 0, 1, 4, 5, CASES - 1 };   // holonomic, nonholonomic, b(t), mixed
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const kernel_case *c = &kernel_cases[cases[k]];
        compare_runs(c, (run_setup){ .method = "midpoint", .steps = 150, .rtol = 1e-7 });
        compare_runs(c, (run_setup){ .method = "midpoint", .steps = 150, .rtol = 1e-7,
                                     .resize_at = 60, .resize_to = 2.5e-3 });
        compare_runs(c, (run_setup){ .method = "dirac2", .steps = 150 });
    }
    close_cache();
}

// A stage-kernel source that does not compile (an emission bug, a compiler quirk) costs the
// model only its kernels: the build is retried without them and says why.
static void broken_kernels_left_out(void)
{
    open_cache();
    dirac_model *m = compile_case(&kernel_cases[0], DIRAC_CODEGEN_AUTO);
    const expr_id *ids[MODEL_CG_COUNT];
    int counts[MODEL_CG_COUNT];
    for (int g = 0; m && g < MODEL_CG_COUNT; g++) {
        const model_group *group = model_codegen_group_of(m, (model_codegen_group)g);
        ids[g] = group->ids;
        counts[g] = group->ids ? group->count : 0;
    }
    codegen_module *module = NULL;
    codegen_report report;
    if (m)
        codegen_build(m->pool, MODEL_CG_COUNT, ids, counts, "this is not C;\n", &module,
                      &report);
    ENSURE(module && report.compiled);
    ENSURE(module && !codegen_stage(module, CODEGEN_STAGE_POSITIONS));
    ENSURE_CONTAINS(m ? report.reason : "", "stage kernels left out");
    codegen_destroy(module);
    dirac_model_destroy(m);
    close_cache();
}

// No kernel for entropy variables or for the sparse solver's sizes (a chain of 30 links: 60
// coordinates and 30 constraints); both still run.
static void kernels_left_out(void)
{
    open_cache();
    char path[512];
    snprintf(path, sizeof path, "%s/examples/thermo/spring_heating.dirac", DIRAC_SOURCE_DIR);
    dirac_model *thermo = compile(path, NULL, DIRAC_CODEGEN_AUTO);
    ENSURE(thermo && thermo->ns > 0 && thermo->codegen);
    ENSURE(thermo && !codegen_stage(thermo->codegen, CODEGEN_STAGE_POSITIONS));
    snprintf(path, sizeof path, "%s/examples/scale/chain.dirac", DIRAC_SOURCE_DIR);
    dirac_spec *spec = NULL;
    dirac_model *chain = NULL;
    if (dirac_spec_load(path, &spec) == DIRAC_OK &&
        dirac_spec_set_parameter(spec, "N=30") == DIRAC_OK)
        dirac_model_compile(spec, &chain);
    dirac_spec_destroy(spec);
    ENSURE(chain && chain->n + chain->m >= CODEGEN_STAGE_MAX_UNKNOWNS);
    ENSURE(chain && !codegen_stage(chain->codegen, CODEGEN_STAGE_POSITIONS));
    dirac_model *models[2] = { thermo, chain };
    for (int k = 0; k < 2; k++) {
        dirac_sim *sim = NULL;
        dirac_sim_options o = { .method = "midpoint", .dt = 1e-3 };
        dirac_error err;
        ENSURE(models[k] && dirac_sim_create(models[k], &o, &sim, &err) == DIRAC_OK);
        for (int step = 0; sim && step < 20; step++)
            ENSURE_EQ_INT(dirac_sim_step(sim), DIRAC_OK);
        ENSURE(sim && sim->stage_kernel_calls == 0);   // the assembly ran every stage
        dirac_sim_destroy(sim);
        dirac_model_destroy(models[k]);
    }
    close_cache();
}

TEST_MAIN(TEST(pendulum_residuals_by_hand), TEST(jacobians_are_derivatives),
          TEST(trajectories_equal_tapes), TEST(step_sizes_and_dirac2),
          TEST(broken_kernels_left_out), TEST(kernels_left_out))

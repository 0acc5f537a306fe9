// Model compilation: the symbolic pieces of the seeds' examples checked against hand-derived
// formulas at random states, the analysis `dirac check` prints (ranks, degeneracy, Frobenius
// integrability, residuals, energy), the printed equations, and compile-time errors.
//
// Tolerances: the compiled tapes evaluate the same formulas as the hand-written C expressions
// up to reassociation, so agreement is at a few ulps: 1e-12 relative.
#define _POSIX_C_SOURCE 200809L   // open_memstream
#include "harness.h"
#include "sim_run.h"

#include <dirac/dirac.h>

#include "model.h"

#include <math.h>
#include <stdlib.h>

#define TOL 1e-12

static dirac_model *compile_text(const char *text, const char *const *overrides, int count)
{
    return model_compile(NULL, text, overrides, count);
}

// The compile error message of `text` ("" if it compiled).
static char *compile_error(const char *text)
{
    static char message[2048];
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    message[0] = '\0';
    dirac_status status = dirac_spec_parse("bad.dirac", text, strlen(text), &spec);
    if (status == DIRAC_OK)
        status = dirac_model_compile(spec, &model);
    if (status != DIRAC_OK && spec)
        snprintf(message, sizeof message, "%s", dirac_spec_errmsg(spec));
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    return message;
}

// Evaluation of the model's groups at one input vector x = [q | v | S | t | mu].
typedef struct probe {
    const dirac_model *m;
    double x[64], work[4096];
    double gradient[64], hessian[256], forms[64], rates[16], values[16], forces[16];
    double force_jac[256], curvature[256], constraint_jac[256], lagrangian;
} probe;

static void probe_eval(probe *p)
{
    const dirac_model *m = p->m;
    ENSURE(m->work_size <= 4096);
    model_group_eval(&m->lagrangian_value, p->x, p->work, &p->lagrangian);
    model_group_eval(&m->gradient, p->x, p->work, p->gradient);
    model_group_eval(&m->hessian.values, p->x, p->work, p->hessian);
    model_group_eval(&m->constraint_forms.values, p->x, p->work, p->forms);
    model_group_eval(&m->constraint_rates, p->x, p->work, p->rates);
    model_group_eval(&m->constraint_values, p->x, p->work, p->values);
    model_group_eval(&m->forces, p->x, p->work, p->forces);
    model_group_eval(&m->force_jacobian.values, p->x, p->work, p->force_jac);
    model_group_eval(&m->form_curvature.values, p->x, p->work, p->curvature);
    model_group_eval(&m->constraint_jacobian.values, p->x, p->work, p->constraint_jac);
}

// Entry (r, c) of a compiled sparse matrix (0 when structurally zero).
static double sparse_at(const model_sparse *s, const double *values, int r, int c)
{
    for (int k = s->row_start[r]; k < s->row_start[r + 1]; k++)
        if (s->col[k] == c)
            return values[k];
    return 0.0;
}

static void harmonic_and_damped_oscillator(void)
{
    // L = m/2 v^2 - k/2 x^2, F = -c v: p = m v, ṗ = -k x - c v
    static const char text[] = "model oscillator\n"
                               "parameter m = 2, k = 3, c = 0.25\n"
                               "coordinate x\n"
                               "lagrangian m/2*x'^2 - k/2*x^2\n"
                               "force x: -c*x'\n"
                               "initial x = 1, x' = 0.5\n";
    dirac_model *m = compile_text(text, NULL, 0);
    if (!m)
        return;
    ENSURE_EQ_INT(m->n, 1);
    ENSURE_EQ_INT(m->m, 0);
    test_rng rng = { 21 };
    probe p = { .m = m };
    for (int trial = 0; trial < 100; trial++) {
        double x = test_rng_normal(&rng), v = test_rng_normal(&rng);
        p.x[0] = x;
        p.x[1] = v;
        probe_eval(&p);
        ENSURE_NEAR(p.lagrangian, v * v - 1.5 * x * x, TOL * (1 + fabs(p.lagrangian)));
        ENSURE_NEAR(p.gradient[0], -3 * x, TOL * (1 + fabs(x)));   // ∂L/∂x
        ENSURE_NEAR(p.gradient[1], 2 * v, TOL * (1 + fabs(v)));    // ∂L/∂v = p
        ENSURE_NEAR(p.forces[0], -0.25 * v, TOL);
    }
    ENSURE_NEAR(sparse_at(&m->hessian, p.hessian, 0, 0), -3.0, TOL);
    ENSURE_NEAR(sparse_at(&m->hessian, p.hessian, 1, 1), 2.0, TOL);
    ENSURE_NEAR(sparse_at(&m->hessian, p.hessian, 0, 1), 0.0, TOL);
    ENSURE_NEAR(sparse_at(&m->force_jacobian, p.force_jac, 0, 1), -0.25, TOL);   // ∂F/∂v
    ENSURE_NEAR(sparse_at(&m->force_jacobian, p.force_jac, 0, 0), 0.0, TOL);
    dirac_model_analysis a;
    ENSURE(dirac_model_analyze(m, &a, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(a.velocity_hessian_rank, 1);
    ENSURE_NEAR(a.energy, 0.5 * 2 * 0.25 + 0.5 * 3 * 1, TOL);   // m v²/2 + k x²/2
    dirac_model_analysis_free(&a);
    dirac_model_destroy(m);
}

static void pendulum(void)
{
    // φ = x² + y² − l²: ω = (2x, 2y), ṗ = (2μx, −mg + 2μy), g = 2x x' + 2y y'
    static const char text[] = "model pendulum\n"
                               "parameter m = 1.5, g = 9.81, l = 2, theta0 = 0.5\n"
                               "coordinate x, y\n"
                               "lagrangian m/2*(x'^2 + y'^2) - m*g*y\n"
                               "constraint rod: x^2 + y^2 = l^2\n"
                               "initial x = l*sin(theta0), y = -l*cos(theta0)\n";
    dirac_model *m = compile_text(text, NULL, 0);
    if (!m)
        return;
    ENSURE_EQ_INT(m->m, 1);
    ENSURE(m->constraints[0].kind == DIRAC_CONSTRAINT_HOLONOMIC);
    ENSURE(!m->constraints[0].time_dependent);
    test_rng rng = { 22 };
    probe p = { .m = m };
    for (int trial = 0; trial < 100; trial++) {
        double x = test_rng_normal(&rng), y = test_rng_normal(&rng);
        double vx = test_rng_normal(&rng), vy = test_rng_normal(&rng), mu = test_rng_normal(&rng);
        p.x[0] = x, p.x[1] = y, p.x[2] = vx, p.x[3] = vy, p.x[m->first_mu] = mu;
        probe_eval(&p);
        ENSURE_NEAR(p.gradient[1], -1.5 * 9.81, TOL * 15);
        ENSURE_NEAR(p.gradient[2], 1.5 * vx, TOL * (1 + fabs(vx)));
        ENSURE_NEAR(p.values[0], x * x + y * y - 4, TOL * (5 + x * x + y * y));
        ENSURE_NEAR(sparse_at(&m->constraint_forms, p.forms, 0, 0), 2 * x, TOL * (1 + fabs(x)));
        ENSURE_NEAR(sparse_at(&m->constraint_forms, p.forms, 0, 1), 2 * y, TOL * (1 + fabs(y)));
        ENSURE_NEAR(p.rates[0], 0.0, TOL);
        // velocity level g = 2x x' + 2y y': ∂g/∂x = 2x', ∂g/∂y' = 2y, no t dependence
        ENSURE_NEAR(sparse_at(&m->constraint_jacobian, p.constraint_jac, 0, 0), 2 * vx, TOL * 4);
        ENSURE_NEAR(sparse_at(&m->constraint_jacobian, p.constraint_jac, 0, 3), 2 * y, TOL * 4);
        ENSURE_NEAR(sparse_at(&m->constraint_jacobian, p.constraint_jac, 0, 4), 0.0, TOL);
        // ∂(μ ω_i)/∂q_j = 2 μ δ_ij
        ENSURE_NEAR(sparse_at(&m->form_curvature, p.curvature, 0, 0), 2 * mu, TOL * 4);
        ENSURE_NEAR(sparse_at(&m->form_curvature, p.curvature, 1, 1), 2 * mu, TOL * 4);
        ENSURE_NEAR(sparse_at(&m->form_curvature, p.curvature, 0, 1), 0.0, TOL);
    }
    ENSURE_EQ_INT(m->constraint_forms.nnz, 2);
    ENSURE_EQ_INT(m->form_curvature.nnz, 2);   // diagonal only: sparsity known at compile time
    dirac_model_analysis a;
    ENSURE(dirac_model_analyze(m, &a, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(a.constraint_rank, 1);
    ENSURE_EQ_INT(a.distribution_dim, 1);
    ENSURE_EQ_INT(a.velocity_hessian_rank, 2);
    ENSURE_LE(a.residual[0], 1e-15);
    ENSURE_NEAR(a.energy, 1.5 * 9.81 * (-2 * cos(0.5)), 1e-12);
    dirac_model_analysis_free(&a);
    // the printed equations
    char *text_out = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text_out, &size);
    ENSURE(dirac_model_write_equations(m, DIRAC_EQUATIONS_TEXT, out, NULL) == DIRAC_OK);
    fclose(out);
    ENSURE_CONTAINS(text_out, "p.x = 1.5*x'");
    ENSURE_CONTAINS(text_out, "d/dt p.x = mu.rod*2*x");
    ENSURE_CONTAINS(text_out, "d/dt p.y = -14.715 + mu.rod*2*y");
    ENSURE_CONTAINS(text_out, "rod (holonomic): ");
    free(text_out);
    out = open_memstream(&text_out, &size);
    ENSURE(dirac_model_write_equations(m, DIRAC_EQUATIONS_LATEX, out, NULL) == DIRAC_OK);
    fclose(out);
    ENSURE_CONTAINS(text_out, "\\begin{align}");
    ENSURE_CONTAINS(text_out, "\\dot{x}");
    ENSURE_CONTAINS(text_out, "\\mu_{\\mathrm{rod}}");
    free(text_out);
    dirac_model_destroy(m);
}

static void lc_circuit_degenerate(void)
{
    // two branches in series: L = Lind/2 q1'^2 − q2²/(2C), KCL q1' = q2' (linear in velocities,
    // so nonholonomic in form, but integrable); ∂²L/∂v² has rank 1: degenerate
    static const char text[] = "model lc\n"
                               "parameter Lind = 0.5, C = 2e-3\n"
                               "coordinate q1, q2\n"
                               "lagrangian Lind/2*q1'^2 - q2^2/(2*C)\n"
                               "constraint kcl: q1' = q2'\n"
                               "initial q1 = 1e-3, q2 = 1e-3\n";
    dirac_model *m = compile_text(text, NULL, 0);
    if (!m)
        return;
    ENSURE(m->constraints[0].kind == DIRAC_CONSTRAINT_NONHOLONOMIC);
    dirac_model_analysis a;
    ENSURE(dirac_model_analyze(m, &a, NULL) == DIRAC_OK);
    ENSURE_EQ_INT(a.velocity_hessian_rank, 1);
    ENSURE_EQ_INT(a.constraint_rank, 1);
    ENSURE(a.integrable[0]);
    ENSURE(a.integrability[0] == DIRAC_INTEGRABLE_CLOSED);   // ω = dq1 − dq2 = d(q1 − q2)
    ENSURE_LE(a.integrability_defect[0], 1e-15);
    ENSURE_NEAR(a.energy, 1e-6 / 4e-3, 1e-15);   // q2²/(2C)
    dirac_model_analysis_free(&a);
    probe p = { .m = m };
    p.x[1] = 0.3;
    probe_eval(&p);
    ENSURE_NEAR(p.gradient[1], -0.3 / 2e-3, TOL * 150);   // ∂L/∂q2 = −q2/C: the capacitor voltage
    dirac_model_destroy(m);
}

static void knife_edge_nonintegrable(void)
{
    // ω = sin θ dx − cos θ dy: Δ = span{(cos θ, sin θ, 0), (0, 0, 1)}, dω = cos θ dθ∧dx +
    // sin θ dθ∧dy, so |dω(X1, X2)| = cos²θ + sin²θ = 1: not integrable (Frobenius)
    static const char text[] = "model knife_edge\n"
                               "parameter m = 1, J = 0.1\n"
                               "coordinate x, y, th\n"
                               "lagrangian m/2*(x'^2 + y'^2) + J/2*th'^2\n"
                               "constraint blade: x'*sin(th) - y'*cos(th) = 0\n"
                               "initial th = 0.3, x' = 0.955336489125606, y' = 0.29552020666134\n";
    dirac_model *m = compile_text(text, NULL, 0);
    if (!m)
        return;
    dirac_model_analysis a;
    ENSURE(dirac_model_analyze(m, &a, NULL) == DIRAC_OK);
    ENSURE(!a.integrable[0]);
    ENSURE(a.integrability[0] == DIRAC_NOT_INTEGRABLE);
    ENSURE_NEAR(a.integrability_defect[0], 1.0, 1e-12);
    ENSURE_EQ_INT(a.distribution_dim, 2);
    ENSURE_LE(a.residual[0], 1e-14);   // the initial velocity is along the blade
    dirac_model_analysis_free(&a);
    dirac_model_destroy(m);
}

static void time_dependent_constraint(void)
{
    // φ = x − A sin(w t): b = ∂φ/∂t = −A w cos(w t)
    static const char text[] = "model driven\n"
                               "parameter A = 0.5, w = 3\n"
                               "coordinate x\n"
                               "lagrangian x'^2/2\n"
                               "constraint drive: x = A*sin(w*t)\n";
    dirac_model *m = compile_text(text, NULL, 0);
    if (!m)
        return;
    ENSURE(m->constraints[0].time_dependent);
    probe p = { .m = m };
    p.x[m->index_t] = 0.7;
    probe_eval(&p);
    ENSURE_NEAR(p.rates[0], -0.5 * 3 * cos(2.1), TOL);
    ENSURE_NEAR(sparse_at(&m->constraint_jacobian, p.constraint_jac, 0, m->index_t),
                0.5 * 9 * sin(2.1), TOL * 5);
    dirac_model_destroy(m);
}

static void thermodynamic_pieces(void)
{
    // L = m/2 x'² − k/2 x² − U0 exp(S/Cv): T = −∂L/∂S = U0/Cv exp(S/Cv); friction −c x' heats S
    static const char text[] = "model heated\n"
                               "parameter m = 1, k = 4, U0 = 2, Cv = 1.5, c = 0.3\n"
                               "coordinate x\n"
                               "entropy S\n"
                               "lagrangian m/2*x'^2 - k/2*x^2 - U0*exp(S/Cv)\n"
                               "friction x -> S: -c*x'\n"
                               "initial x = 0.1, S = 0.2\n";
    dirac_model *m = compile_text(text, NULL, 0);
    if (!m)
        return;
    ENSURE_EQ_INT(m->ns, 1);
    ENSURE_EQ_INT(m->friction_count, 1);
    probe p = { .m = m };
    p.x[0] = 0.1, p.x[1] = 0.7, p.x[2] = 0.2;
    probe_eval(&p);
    ENSURE_NEAR(-p.gradient[2], 2 / 1.5 * exp(0.2 / 1.5), TOL);
    ENSURE_NEAR(p.forces[0], -0.3 * 0.7, TOL);
    // d/dS entry of the force Jacobian exists as a column (2n + ns = 3 columns)
    ENSURE_EQ_INT(m->force_jacobian.cols, 3);
    dirac_model_destroy(m);
}

static void parameter_overrides(void)
{
    static const char text[] = "model oscillator\n"
                               "parameter m = 2, k = 3\n"
                               "parameter w2 = k/m\n"
                               "coordinate x\n"
                               "lagrangian x'^2/2 - w2/2*x^2\n";
    const char *overrides[] = { "k=8" };
    dirac_model *m = compile_text(text, overrides, 1);
    if (!m)
        return;
    probe p = { .m = m };
    p.x[0] = 1.0;
    probe_eval(&p);
    ENSURE_NEAR(p.gradient[0], -4.0, TOL);   // w2 = 8/2 follows the override
    dirac_model_destroy(m);
}


// A spec compiled once takes new parameter values and compiles again (as a sweep's worker
// does, cli/sweep_run.h): the second model is the model of a fresh spec with those values
// (same parameters, initial state and motion, bit for bit: the same compilation of the same
// numbers), and the first model is untouched. A spec whose families were expanded refuses.
static void spec_compiled_again_with_new_values(void)
{
    static const char text[] = "model pendulum\nparameter m = 1, g = 9.81, l = 1\n"
                               "parameter theta0 = 0.5\ncoordinate x, y\n"
                               "lagrangian m/2*(x'^2 + y'^2) - m*g*y\n"
                               "constraint rod: x^2 + y^2 = l^2\n"
                               "initial x = l*sin(theta0), y = -l*cos(theta0)\n";
    dirac_spec *spec = NULL, *fresh = NULL;
    dirac_model *first = NULL, *second = NULL, *reference = NULL;
    ENSURE_EQ_INT(dirac_spec_parse("p.dirac", text, strlen(text), &spec), DIRAC_OK);
    ENSURE_EQ_INT(dirac_spec_set_parameter(spec, "l=1.3"), DIRAC_OK);
    ENSURE_EQ_INT(dirac_model_compile(spec, &first), DIRAC_OK);
    double first_x = model_final_x(first);
    ENSURE_EQ_INT(dirac_spec_set_parameter(spec, "l=0.8"), DIRAC_OK);
    ENSURE_EQ_INT(dirac_spec_set_parameter(spec, "g=3"), DIRAC_OK);
    ENSURE_EQ_INT(dirac_model_compile(spec, &second), DIRAC_OK);
    ENSURE_EQ_INT(dirac_spec_parse("p.dirac", text, strlen(text), &fresh), DIRAC_OK);
    ENSURE_EQ_INT(dirac_spec_set_parameter(fresh, "g=3"), DIRAC_OK);
    ENSURE_EQ_INT(dirac_spec_set_parameter(fresh, "l=0.8"), DIRAC_OK);
    ENSURE_EQ_INT(dirac_model_compile(fresh, &reference), DIRAC_OK);
    if (!first || !second || !reference)
        return;
    for (int k = 0; k < dirac_model_parameter_count(reference); k++)
        ENSURE(dirac_model_parameter_value(second, k) == dirac_model_parameter_value(reference, k));
    double q2[2], qr[2];
    dirac_model_initial_state(second, q2, NULL, NULL);
    dirac_model_initial_state(reference, qr, NULL, NULL);
    ENSURE(q2[0] == qr[0] && q2[1] == qr[1]);
    ENSURE_NEAR(q2[0], 0.8 * sin(0.5), 1e-15);   // the initial value follows the new l
    ENSURE(model_final_x(second) == model_final_x(reference));
    ENSURE(model_final_x(first) == first_x);            // the first model is its own
    ENSURE(fabs(model_final_x(second) - first_x) > 1e-3);
    dirac_model_destroy(first);
    dirac_model_destroy(second);
    dirac_model_destroy(reference);
    dirac_spec_destroy(spec);
    dirac_spec_destroy(fresh);

    static const char family[] = "model chain\nparameter N = 3, k = 1\ncoordinate x[N]\n"
                                 "lagrangian sum(i = 1..N, x[i]'^2/2 - k*x[i]^2/2)\n";
    dirac_model *m = NULL;
    ENSURE_EQ_INT(dirac_spec_parse("f.dirac", family, strlen(family), &spec), DIRAC_OK);
    ENSURE_EQ_INT(dirac_model_compile(spec, &m), DIRAC_OK);
    ENSURE_EQ_INT(dirac_spec_set_parameter(spec, "k=2"), DIRAC_ERR_ARGUMENT);
    ENSURE_CONTAINS(dirac_spec_errmsg(spec), "families were expanded");
    dirac_model_destroy(m);
    dirac_spec_destroy(spec);
}

static void compile_errors(void)
{
    ENSURE_CONTAINS(compile_error("model a\nparameter z = 0\nparameter p = 1/z\ncoordinate x\n"
                                  "lagrangian x'^2\n"),
                    "bad.dirac:3:11: error: parameter 'p' evaluates to an infinite value");
    ENSURE_CONTAINS(compile_error("model a\ncoordinate x\nlagrangian x'^2\n"
                                  "simulate dt = log(-1)\n"),
                    "bad.dirac:4:10: error: simulate setting 'dt' evaluates to NaN");
}

// Values that are undefined stay undefined: the simplifier must not fold 0/0 into 1 or
// 0*(1/0) into 0 before a parameter, initial or simulate value is evaluated.
static void undefined_values_are_errors(void)
{
    static const char *const undefined[] = {
        "0/0", "a/a", "0*(1/0)", "(1/0)-(1/0)", "sqrt(-1)*0", "log(0)-log(0)", "0*log(a)",
        "a*(1/a)", "(1/a)/(1/a)",
    };
    for (size_t k = 0; k < sizeof undefined / sizeof undefined[0]; k++) {
        char text[512], where[64];
        snprintf(text, sizeof text, "model u\nparameter a = 0\nparameter p = %s\ncoordinate x\n"
                 "lagrangian x'^2\n", undefined[k]);
        ENSURE_CONTAINS(compile_error(text), "bad.dirac:3:11: error: parameter 'p' evaluates to");
        snprintf(text, sizeof text, "model u\nparameter a = 0\ncoordinate x\nlagrangian x'^2\n"
                 "initial x = %s\n", undefined[k]);
        ENSURE_CONTAINS(compile_error(text), "bad.dirac:5:9: error: the initial value of x "
                                             "evaluates to");
        snprintf(text, sizeof text, "model u\nparameter a = 0\ncoordinate x\nlagrangian x'^2\n"
                 "simulate dt = %s\n", undefined[k]);
        snprintf(where, sizeof where, "bad.dirac:5:10: error: simulate setting 'dt' evaluates");
        ENSURE_CONTAINS(compile_error(text), where);
    }
    // defined ones still fold: cos(a) - cos(a) = 0 everywhere, exp(a)/exp(a) = 1
    ENSURE_CONTAINS(compile_error("model u\nparameter a = 0\nparameter p = exp(a)/exp(a) - 1 + "
                                  "cos(a) - cos(a)\ncoordinate x\nlagrangian x'^2\n"
                                  "simulate dt = 0.1, t_end = 1 + p\n"), "");
}

// simulate settings: positive numbers, whole counts in range, dt within the interval
static void simulate_settings_are_checked(void)
{
    const char *head = "model u\ncoordinate x\nlagrangian x'^2\nsimulate ";
    struct { const char *line, *message; } cases[] = {
        { "dt = 0.1, every = 2.5", "bad.dirac:4:20: error: simulate setting 'every' must be a "
                                   "whole number from 1 to 1000000000 (got 2.5)" },
        { "dt = 0.1, every = 1e20", "setting 'every' must be a whole number" },
        { "dt = 0.1, every = 0", "setting 'every' must be a whole number" },
        { "dt = 0.1, every = -3", "setting 'every' must be a whole number" },
        { "dt = 0.1, max_iter = 0.5", "setting 'max_iter' must be a whole number" },
        { "dt = 0.1, max_iter = 1e10", "setting 'max_iter' must be a whole number" },
        { "dt = -0.1", "bad.dirac:4:10: error: simulate setting 'dt' must be positive" },
        { "dt = 0", "setting 'dt' must be positive" },
        { "dt = 0.1, t_end = -1", "setting 't_end' must be positive" },
        { "dt = 0.1, tol = -1e-9", "setting 'tol' must be positive" },
        { "dt = 1e300, t_end = 1", "bad.dirac:4:10: error: simulate setting 'dt' (1e+300) is "
                                   "longer than the interval t_end = 1" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[256];
        snprintf(text, sizeof text, "%s%s\n", head, cases[k].line);
        ENSURE_CONTAINS(compile_error(text), cases[k].message);
    }
    ENSURE_CONTAINS(compile_error("model u\ncoordinate x\nlagrangian x'^2\n"
                                  "simulate dt = 0.1, t_end = 0.1, every = 1000000000, "
                                  "max_iter = 7\n"), "");
}

// A constant constraint has no one-form (and no Jacobian entries to copy): a model error.
static void constant_constraint(void)
{
    ENSURE_CONTAINS(compile_error("model k\ncoordinate x\nlagrangian x'^2/2\nconstraint c: 5\n"),
                    "bad.dirac:4:12: error: constraint 'c' has a zero one-form");
    ENSURE_CONTAINS(compile_error("model k\ncoordinate x, y\nlagrangian x'^2/2 + y'^2/2\n"
                                  "constraint c: 0 = 1\nconstraint d: x = y\n"),
                    "constraint 'c' has a zero one-form");
}

// The integrability verdict of constraint 0 of `text` (with -p `override`, may be NULL) and its
// numerical Frobenius defect at the initial state.
static dirac_integrability integrability_of(const char *text, const char *override,
                                            double *defect)
{
    dirac_model *m = compile_text(text, override ? &override : NULL, override ? 1 : 0);
    dirac_integrability verdict = DIRAC_INTEGRABLE_HOLONOMIC;
    *defect = -1;
    if (!m)
        return verdict;
    dirac_model_analysis a;
    ENSURE(dirac_model_analyze(m, &a, NULL) == DIRAC_OK);
    verdict = a.integrability[0];
    *defect = a.integrability_defect[0];
    ENSURE_EQ_INT(a.integrable[0], verdict == DIRAC_INTEGRABLE_CLOSED ||
                                       verdict == DIRAC_INTEGRABLE_FROBENIUS);
    dirac_model_analysis_free(&a);
    dirac_model_destroy(m);
    return verdict;
}

static void frobenius_symbolic(void)
{
    double defect;
    // d/dt of the holonomic φ = x² y + z sin x: ω = dφ = (2xy + z cos x) dx + x² dy + sin x dz
    // is closed (dω = d²φ = 0); shown symbolically everywhere, not only at the initial state
    ENSURE(integrability_of("model exact\ncoordinate x, y, z\n"
                            "lagrangian (x'^2 + y'^2 + z'^2)/2\n"
                            "constraint c: (2*x*y + z*cos(x))*x' + x^2*y' + sin(x)*z' = 0\n"
                            "initial x = 0.3, y = 0.7, z = -0.2\n",
                            NULL, &defect) == DIRAC_INTEGRABLE_CLOSED);
    ENSURE_LE(defect, 1e-14);
    // ω = y dx − x dy (the level sets of x/y, with the integrating factor y²): dω = −2 dx∧dy
    // is not zero, but ω ∧ dω = 0 (a 3-form with ω_z = 0 and dω only in dx∧dy)
    ENSURE(integrability_of("model factor\ncoordinate x, y, z\n"
                            "lagrangian (x'^2 + y'^2 + z'^2)/2\n"
                            "constraint c: y*x' - x*y' = 0\n"
                            "initial x = 0.3, y = 0.7\n",
                            NULL, &defect) == DIRAC_INTEGRABLE_FROBENIUS);
    ENSURE_LE(defect, 1e-14);
    // ω = dz − x² dy: dω = −2x dx∧dy and ω ∧ dω = −2x dx∧dy∧dz, zero only where x = 0. On
    // Δ = span{∂x, (∂y + x² ∂z)/√(1 + x⁴)} (orthonormal), |dω(X, Y)| = 2|x|/√(1 + x⁴): zero at
    // x0 = 0, which shows nothing about other points; √2 at x0 = 1 (non-integrable)
    const char *heisenberg = "model heisenberg\nparameter x0 = 0\ncoordinate x, y, z\n"
                             "lagrangian (x'^2 + y'^2 + z'^2)/2\n"
                             "constraint c: z' - x^2*y' = 0\n"
                             "initial x = x0\n";
    ENSURE(integrability_of(heisenberg, NULL, &defect) == DIRAC_DEFECT_ZERO_AT_INITIAL_STATE);
    ENSURE_LE(defect, 1e-14);
    ENSURE(integrability_of(heisenberg, "x0=1", &defect) == DIRAC_NOT_INTEGRABLE);
    ENSURE_NEAR(defect, sqrt(2.0), 1e-12);
    // a time-dependent form is tested at each fixed t: ω = cos t dx + sin t dy is closed in q
    ENSURE(integrability_of("model rheonomic\ncoordinate x, y\nlagrangian (x'^2 + y'^2)/2\n"
                            "constraint c: cos(t)*x' + sin(t)*y' = 0\n",
                            NULL, &defect) == DIRAC_INTEGRABLE_CLOSED);
}

TEST_MAIN(TEST(harmonic_and_damped_oscillator), TEST(pendulum), TEST(lc_circuit_degenerate),
          TEST(knife_edge_nonintegrable), TEST(frobenius_symbolic),
          TEST(time_dependent_constraint),
          TEST(thermodynamic_pieces), TEST(parameter_overrides),
          TEST(spec_compiled_again_with_new_values), TEST(compile_errors),
          TEST(undefined_values_are_errors), TEST(simulate_settings_are_checked),
          TEST(constant_constraint))

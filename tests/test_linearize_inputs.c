// The input columns of the linearisation (B = ∂f/∂u, D = ∂y/∂u; include/dirac/analysis.h)
// against hand-derived derivatives of small models, and against central differences of the
// nonlinear descriptor equations (dirac_model_descriptor_rhs) in the inputs.
#include "harness.h"
#include "sim_run.h"

#include <dirac/dirac.h>

#include <stdlib.h>

// Dense row-major copy of a coordinate matrix.
static double *dense(const dirac_matrix *a)
{
    double *d = calloc((size_t)a->rows * (size_t)a->cols + 1, sizeof *d);
    for (int k = 0; d && k < a->nnz; k++)
        d[(size_t)a->row[k] * (size_t)a->cols + (size_t)a->col[k]] += a->value[k];
    return d;
}

// Every entry of the rows x cols matrix `got` equals `want` (both dense row-major) to within
// tol; prints the first that does not.
static void ensure_matrix(const char *what, int rows, int cols, const double *got,
                          const double *want, double tol)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double g = got[(size_t)i * (size_t)cols + (size_t)j];
            double w = want[(size_t)i * (size_t)cols + (size_t)j];
            if (!(fabs(g - w) <= tol)) {
                fprintf(stderr, "  %s[%d][%d] = %.17g, expected %.17g\n", what, i, j, g, w);
                ENSURE(fabs(g - w) <= tol);
                return;
            }
        }
}

// A mass on a spring pushed by an input force, m x'' = −k x + b u, with an output
// y = x + d u: B is b in the momentum row (ṗ = −k x + b u) and nothing else, D = d; about a
// non-default input value set with -p (u0 = 2).
static void driven_mass_spring(void)
{
    const char *text = "model driven\nparameter m = 2, k = 5, b = 3, d = 0.25\ninput u = 0\n"
                       "coordinate x\nlagrangian m/2*x'^2 - k/2*x^2\nforce x: b*u\n"
                       "initial x = 0.1, x' = -0.2\noutput y = x + d*u, z = x'\n";
    const char *p[] = { "u=2" };
    dirac_model *m = model_compile(NULL, text, p, 1);
    if (!m)
        return;
    dirac_linearization lin;
    dirac_error err;
    ENSURE(dirac_model_linearize(m, NULL, NULL, NULL, NULL, 0.0, &lin, &err) == DIRAC_OK);
    ENSURE_EQ_INT(lin.input_count, 1);
    ENSURE_EQ_INT(lin.B.rows, 3);   // x = (q, v, p)
    ENSURE_EQ_INT(lin.B.cols, 1);
    ENSURE_EQ_INT(lin.D.rows, 2);
    ENSURE_EQ_INT(lin.D.cols, 1);
    ENSURE_NEAR(lin.u0[0], 2.0, 0);
    // exact: the derivatives are constants of the model, no rounding
    double *b = dense(&lin.B), *d = dense(&lin.D);
    double want_b[3] = { 0, 3, 0 }, want_d[2] = { 0.25, 0 };
    ensure_matrix("B", 3, 1, b, want_b, 0);
    ensure_matrix("D", 2, 1, d, want_d, 0);
    // f0 holds the input's force: ṗ = −k x + b u0 = −0.5 + 6
    ENSURE_NEAR(lin.f0[1], -5 * 0.1 + 3 * 2.0, 1e-15);
    ENSURE_NEAR(lin.y0[0], 0.1 + 0.25 * 2.0, 1e-15);
    free(b), free(d);
    dirac_linearization_free(&lin);
    dirac_model_destroy(m);
}

// tests/data/driven_inputs.dirac at a state with nonzero velocities and multipliers, every
// entry of B and D derived by hand. With the two-form w F d(a) ∧ d(b) the forces are
//     F_a = F cos a − c a' − w F b',   F_b = s F + w F a',
// the constraints φ_rod = (x − s)² + y² − l² (ω_x = 2 (x − s)) and c_steer = a' − w b'
// (ω_b = −w), so with u = (s, w, F):
//     ṗ_x: ∂(μ_rod ω_x)/∂s = −2 μ_rod;   ṗ_a: (0, −F b', cos a − w b');
//     ṗ_b: (F, F a' − μ_steer, s + w a');   rod: −2 (x − s);   steer: ∂c/∂w = −b'.
static void driven_inputs_by_hand(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/driven_inputs.dirac", DIRAC_SOURCE_DIR);
    dirac_model *m = model_compile(path, NULL, NULL, 0);
    if (!m)
        return;
    double q[4] = { 0.35, -0.7, 0.2, -0.1 }, v[4] = { 0.2, 0.1, 0.3, -0.5 };
    double mu[2] = { 1.3, -0.6 };
    double s = 0.1, w = 0.4, F = 0.7;   // the defaults
    dirac_linearization lin;
    dirac_error err;
    ENSURE(dirac_model_linearize(m, q, v, NULL, mu, 0.0, &lin, &err) == DIRAC_OK);
    ENSURE_EQ_INT(lin.input_count, 3);
    ENSURE_EQ_INT(lin.B.rows, 14);
    ENSURE_EQ_INT(lin.B.cols, 3);
    double want_b[14 * 3] = { 0 };
    // rows: q̇ 0..3, ṗ 4..7 (x, y, a, b), 0 = ∂L/∂v − p 8..11, rod 12, steer 13
    want_b[4 * 3 + 0] = -2 * mu[0];
    want_b[6 * 3 + 1] = -F * v[3];
    want_b[6 * 3 + 2] = cos(q[2]) - w * v[3];
    want_b[7 * 3 + 0] = F;
    want_b[7 * 3 + 1] = F * v[2] - mu[1];
    want_b[7 * 3 + 2] = s + w * v[2];
    want_b[12 * 3 + 0] = -2 * (q[0] - s);
    want_b[13 * 3 + 1] = -v[3];
    // outputs pivot_gap = x − s, power = F a' + w² b
    double want_d[2 * 3] = { -1, 0, 0, 0, 2 * w * q[3], v[2] };
    double *b = dense(&lin.B), *d = dense(&lin.D);
    // entries of size 1 evaluated by the tape: a few roundings (1e-15)
    ensure_matrix("B", 14, 3, b, want_b, 1e-15);
    ensure_matrix("D", 2, 3, d, want_d, 1e-15);
    // only structural nonzeros are stored: 8 entries of B, 3 of D
    ENSURE_EQ_INT(lin.B.nnz, 8);
    ENSURE_EQ_INT(lin.D.nnz, 3);
    free(b), free(d);
    dirac_linearization_free(&lin);
    dirac_model_destroy(m);
}

// B and D against central differences of f(x, u) and y(x, u) in each input, at a state with
// nonzero velocities and multipliers. Step h = 1e-6 max(1, |u0|): the truncation error of
// the central difference is O(h²) ≈ 1e-12 times the third derivative and the rounding error
// ≈ 1e-16 |f| / h ≈ 1e-10 |f|, so 1e-7 relative to the row's largest entry (plus 1e-9
// absolute) leaves a margin of 1000 over both. A row that does not depend on u evaluates the
// same operations at u ± h: its difference is exactly 0.
static void check_against_differences(const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DIRAC_SOURCE_DIR, file);
    dirac_model *m = model_compile(path, NULL, NULL, 0);
    if (!m)
        return;
    int n = dirac_model_coordinate_count(m), mc = dirac_model_constraint_count(m);
    int ns = dirac_model_entropy_count(m), no = dirac_model_output_count(m);
    int nu = dirac_model_input_count(m), N = 3 * n + mc;
    double *q = calloc((size_t)n + 1, sizeof *q), *v = calloc((size_t)n + 1, sizeof *v);
    double *s = calloc((size_t)ns + 1, sizeof *s), *mu = calloc((size_t)mc + 1, sizeof *mu);
    double *u = calloc((size_t)nu + 1, sizeof *u);
    double *fp = calloc((size_t)N + 1, sizeof *fp), *fm = calloc((size_t)N + 1, sizeof *fm);
    double *yp = calloc((size_t)no + 1, sizeof *yp), *ym = calloc((size_t)no + 1, sizeof *ym);
    model_offset_point(m, q, v, s, mu);
    dirac_linearization lin;
    dirac_error err;
    ENSURE(dirac_model_linearize(m, q, v, s, mu, 0.25, &lin, &err) == DIRAC_OK);
    ENSURE_EQ_INT(lin.input_count, nu);
    ENSURE(lin.B.rows == N && lin.B.cols == nu && lin.D.rows == no && lin.D.cols == nu);
    double *b = dense(&lin.B), *d = dense(&lin.D), worst = 0;
    for (int k = 0; k < nu; k++) {
        ENSURE_NEAR(lin.u0[k], dirac_model_input_default(m, k), 0);
        u[k] = lin.u0[k];
    }
    for (int j = 0; j < nu; j++) {
        double h = 1e-6 * fmax(1.0, fabs(lin.u0[j]));
        u[j] = lin.u0[j] + h;
        ENSURE(dirac_model_descriptor_rhs(m, lin.x0, u, s, 0.25, fp, yp, &err) == DIRAC_OK);
        u[j] = lin.u0[j] - h;
        ENSURE(dirac_model_descriptor_rhs(m, lin.x0, u, s, 0.25, fm, ym, &err) == DIRAC_OK);
        u[j] = lin.u0[j];
        for (int i = 0; i < N + no; i++) {
            const double *mat = i < N ? b : d;
            int row = i < N ? i : i - N;
            double scale = 0;
            for (int k = 0; k < nu; k++)
                scale = fmax(scale, fabs(mat[(size_t)row * (size_t)nu + (size_t)k]));
            double fd = i < N ? (fp[i] - fm[i]) / (2 * h) : (yp[row] - ym[row]) / (2 * h);
            double got = mat[(size_t)row * (size_t)nu + (size_t)j];
            double diff = fabs(fd - got);
            worst = fmax(worst, diff / fmax(scale, 1e-300));
            if (!(diff <= 1e-7 * scale + 1e-9))
                fprintf(stderr, "  %s: %s[%d][%s] = %.10g, difference quotient %.10g\n", file,
                        i < N ? "B" : "D", row, dirac_model_input_name(m, j), got, fd);
            ENSURE(diff <= 1e-7 * scale + 1e-9);
        }
    }
    printf("  %s: %d inputs, worst relative difference of B, D from central differences "
           "%.2e\n", file, nu, worst);
    free(q), free(v), free(s), free(mu), free(u), free(fp), free(fm), free(yp), free(ym);
    free(b), free(d);
    dirac_linearization_free(&lin);
    dirac_model_destroy(m);
}

static void inputs_match_differences(void)
{
    const char *files[] = { "tests/data/driven_inputs.dirac", "examples/fmi/dc_motor.dirac",
                            "examples/fmi/pendulum_torque.dirac",
                            "examples/fmi/driven_mass.dirac",
                            // no inputs: B and D have no columns
                            "examples/double_pendulum.dirac" };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
        check_against_differences(files[k]);
}

// The operating point's inputs are the defaults, also for the equilibrium: the pendulum turned
// by a torque tau rests at sin θ = tau / (m g l) (examples/fmi/pendulum_torque.dirac), and
// its B column is the torque's generalized force (−y, x) / l² there.
static void equilibrium_under_input(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/fmi/pendulum_torque.dirac", DIRAC_SOURCE_DIR);
    const char *p[] = { "tau=2", "m=1", "l=1", "g=9.81" };
    dirac_model *m = model_compile(path, NULL, p, 4);
    if (!m)
        return;
    dirac_error err;
    dirac_equilibrium eq;
    double guess[2] = { 0.1, -1.0 };
    ENSURE(dirac_model_equilibrium(m, guess, NULL, 0.0, &eq, &err) == DIRAC_OK);
    double th = asin(2 / 9.81);
    // Newton to a residual of 1e-10 times the force scale (~10): 1e-10 in position
    ENSURE_NEAR(eq.q[0], sin(th), 1e-10);
    ENSURE_NEAR(eq.q[1], -cos(th), 1e-10);
    dirac_linearization lin;
    double zero[2] = { 0, 0 };
    ENSURE(dirac_model_linearize(m, eq.q, zero, eq.s, eq.mu, eq.t, &lin, &err) == DIRAC_OK);
    double *b = dense(&lin.B);
    // rows ṗ_x = 2, ṗ_y = 3 of the 7 (x = (q, v, p, μ)); f0 = 0 at the equilibrium
    double want[7] = { 0, 0, cos(th), sin(th), 0, 0, 0 };
    ensure_matrix("B", 7, 1, b, want, 1e-10);
    for (int i = 0; i < lin.state_count; i++)
        ENSURE_NEAR(lin.f0[i], 0.0, 1e-9);
    free(b);
    dirac_linearization_free(&lin);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
}

TEST_MAIN(TEST(driven_mass_spring), TEST(driven_inputs_by_hand), TEST(inputs_match_differences),
          TEST(equilibrium_under_input))

// Equilibria, linearisation and natural modes (include/dirac/analysis.h) against analytic
// results: a double pendulum's and a spring chain's frequencies, a slider-crank's equilibrium
// derived by hand, and the linearisation against central differences of the nonlinear
// descriptor equations.
#include "harness.h"
#include "sim_run.h"

#include <dirac/dirac.h>

#include <stdlib.h>

static const double PI = 3.14159265358979323846;

static dirac_model *load(const char *relative, const char *const *overrides, int count)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DIRAC_SOURCE_DIR, relative);
    return model_compile(path, NULL, overrides, count);
}

// load, then the equilibrium from the model's start values at t = 0 into *eq.
static dirac_model *load_at_equilibrium(const char *relative, const char *const *overrides,
                                        int count, dirac_equilibrium *eq)
{
    dirac_model *m = load(relative, overrides, count);
    if (!m)
        return NULL;
    dirac_error err;
    ENSURE(dirac_model_equilibrium(m, NULL, NULL, 0.0, eq, &err) == DIRAC_OK);
    return m;
}

// Double pendulum, equal masses m and lengths l: ω² = (2 ∓ √2) g/l (Goldstein, Classical
// Mechanics, §6.4), from a guess near the hanging equilibrium.
static void double_pendulum_frequencies(void)
{
    const char *p[] = { "th1=0.3", "th2=-0.2", "l1=0.7", "l2=0.7", "m1=2", "m2=2" };
    dirac_equilibrium eq;
    dirac_model *m = load_at_equilibrium("examples/double_pendulum.dirac", p, 6, &eq);
    if (!m)
        return;
    dirac_error err;
    // hanging straight down: (0, -l), (0, -2l); tensions from statics: μ = -m g (2 masses
    // below rod 1, ∇φ1 = 2(x1, y1)) and -m g/2 ... in this model's scaling φ = |r|² - l²:
    // mass 2: -m g - 2 μ2 (y2 - y1) = 0 → μ2 = -m g / (2 l); mass 1 then μ1 = -2 m g / (2 l)
    double g = 9.81, l = 0.7, mass = 2;
    ENSURE_NEAR(eq.q[0], 0.0, 1e-12);
    ENSURE_NEAR(eq.q[1], -l, 1e-12);
    ENSURE_NEAR(eq.q[2], 0.0, 1e-12);
    ENSURE_NEAR(eq.q[3], -2 * l, 1e-12);
    ENSURE_NEAR(eq.mu[0], -mass * g / l, 1e-10);
    ENSURE_NEAR(eq.mu[1], -mass * g / (2 * l), 1e-10);
    dirac_modes modes;
    ENSURE(dirac_model_modes(m, &eq, 0, 0, &modes, &err) == DIRAC_OK);
    ENSURE_EQ_INT(modes.count, 2);
    // dsygv on a 2 x 2 reduced pencil: rounding only (1e-12 relative)
    double expected[2] = { (2 - sqrt(2.0)) * g / l, (2 + sqrt(2.0)) * g / l };
    for (int k = 0; k < modes.count && k < 2; k++)
        ENSURE_NEAR(modes.omega2[k], expected[k], 1e-12 * expected[k]);
    // in the absolute angles the modes are (θ1, θ2) ∝ (1, ±√2) (slow: +); with x1 = l θ1 and
    // x2 = l (θ1 + θ2) to first order, x2/x1 = 1 + √2 (slow) and 1 − √2 (fast)
    if (modes.count == 2) {
        const double *s0 = modes.shapes, *s1 = modes.shapes + 4;
        ENSURE_NEAR(s0[2] / s0[0], 1 + sqrt(2.0), 1e-10);
        ENSURE_NEAR(s1[2] / s1[0], 1 - sqrt(2.0), 1e-10);
        ENSURE_NEAR(s0[1], 0.0, 1e-10);   // vertical motion is second order
    }
    dirac_modes_free(&modes);
    // the sparse path (bordered pencil, ARPACK shift-invert, KLU) on the same constrained
    // model: the lowest mode (count < n - m = 2)
    dirac_status sparse = dirac_model_modes(m, &eq, 1, 1, &modes, &err);
    if (sparse != DIRAC_OK)
        fprintf(stderr, "  %s\n", err.message);
    ENSURE(sparse == DIRAC_OK);
    ENSURE_EQ_INT(modes.count, 1);
    ENSURE(modes.sparse);
    if (modes.count == 1)
        ENSURE_NEAR(modes.omega2[0], expected[0], 1e-10 * expected[0]);
    dirac_modes_free(&modes);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
}

// Fixed-fixed chain of N masses: ω_j = 2 √(k/m) sin(jπ / (2(N + 1))).
static void spring_chain_frequencies(void)
{
    const char *p[] = { "N=10", "k=100", "m=1" };
    dirac_equilibrium eq;
    dirac_model *m = load_at_equilibrium("tests/data/spring_chain.dirac", p, 3, &eq);
    if (!m)
        return;
    dirac_error err;
    for (int i = 0; i < 10; i++)
        ENSURE_NEAR(eq.q[i], 0.0, 1e-12);
    dirac_modes modes;
    ENSURE(dirac_model_modes(m, &eq, 0, 0, &modes, &err) == DIRAC_OK);
    ENSURE_EQ_INT(modes.count, 10);
    for (int j = 1; j <= modes.count; j++) {
        double w = 2 * sqrt(100.0) * sin(j * PI / (2 * 11.0));
        ENSURE_NEAR(sqrt(modes.omega2[j - 1]), w, 1e-12 * w);
        // shape: x_i ∝ sin(i j π / (N + 1)) (normalised to the largest entry)
        // (the first entry within rounding of the largest |entry| is made +1)
        double largest = 0, big = 0;
        for (int i = 1; i <= 10; i++)
            largest = fmax(largest, fabs(sin(i * j * PI / 11.0)));
        for (int i = 1; i <= 10 && big == 0; i++)
            if (fabs(sin(i * j * PI / 11.0)) >= (1 - 1e-9) * largest)
                big = sin(i * j * PI / 11.0);
        for (int i = 1; i <= 10; i++)
            ENSURE_NEAR(modes.shapes[(size_t)(j - 1) * 10 + (size_t)(i - 1)],
                        sin(i * j * PI / 11.0) / big, 1e-9);
    }
    dirac_modes_free(&modes);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
}

// The 10 lowest of N = 10^4 (sparse path: beyond DIRAC_MODES_DENSE_MAX coordinates).
static void spring_chain_sparse(void)
{
    const char *p[] = { "N=10000", "k=100", "m=1" };
    dirac_equilibrium eq;
    dirac_model *m = load_at_equilibrium("tests/data/spring_chain.dirac", p, 3, &eq);
    if (!m)
        return;
    dirac_error err;
    dirac_modes modes;
    ENSURE(dirac_model_modes(m, &eq, 10, 0, &modes, &err) == DIRAC_OK);
    ENSURE(modes.sparse);
    ENSURE_EQ_INT(modes.count, 10);
    // cond(K) ≈ (2(N + 1)/π)² ≈ 4e7: eigenvalues of the inverted pencil are accurate to
    // about 1e-16 × 4e7; 1e-8 relative leaves a margin
    for (int j = 1; j <= modes.count; j++) {
        double w = 2 * sqrt(100.0) * sin(j * PI / (2 * 10001.0));
        ENSURE_NEAR(sqrt(modes.omega2[j - 1]), w, 1e-8 * w);
    }
    dirac_modes_free(&modes);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
}

// Slider-crank with a torsion spring kt on the crank and a spring k on the slider. On the
// branch x(θ) = r cos θ + √(l² − r² sin² θ) the potential is V(θ) = kt θ²/2 + k (x(θ) − xs)²/2
// and the equilibrium is dV/dθ = kt θ + k (x − xs) x'(θ) = 0 with
// x'(θ) = −r sin θ − r² sin θ cos θ / √(l² − r² sin² θ); the slider's force balance
// −k (x − xs) + μ · 2 (x − r cos θ) = 0 gives the multiplier.
static void slider_crank_equilibrium(void)
{
    dirac_equilibrium eq;
    dirac_model *m = load_at_equilibrium("tests/data/slider_crank_spring.dirac", NULL, 0, &eq);
    if (!m)
        return;
    double r = 0.1, l = 0.3, k = 1000, xs = 0.3, kt = 5;
    double th = eq.q[0], x = eq.q[1];
    double root = sqrt(l * l - r * r * sin(th) * sin(th));
    ENSURE_NEAR(x, r * cos(th) + root, 1e-12);
    double dx = -r * sin(th) - r * r * sin(th) * cos(th) / root;
    // dV/dθ in N·m; the terms are of size kt θ ≈ 5: 1e-9 absolute
    ENSURE_NEAR(kt * th + k * (x - xs) * dx, 0.0, 1e-9);
    ENSURE(th > 0.1 && th < 1.5);   // a non-trivial equilibrium: both springs loaded
    ENSURE_NEAR(eq.mu[0], k * (x - xs) / (2 * (x - r * cos(th))), 1e-8);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
}

static void dense_of(const dirac_matrix *a, double *d)
{
    memset(d, 0, (size_t)a->rows * (size_t)a->cols * sizeof *d);
    for (int k = 0; k < a->nnz; k++)
        d[(size_t)a->row[k] * (size_t)a->cols + (size_t)a->col[k]] += a->value[k];
}

// A and C against central differences of f and y (dirac_model_descriptor_rhs) at a state with
// nonzero velocities and multipliers, for models with holonomic, nonholonomic and
// time-dependent constraints, two-forms, forces and entropy.
static void check_linearization(const char *file)
{
    dirac_model *m = load(file, NULL, 0);
    if (!m)
        return;
    int n = dirac_model_coordinate_count(m), mc = dirac_model_constraint_count(m);
    int ns = dirac_model_entropy_count(m), no = dirac_model_output_count(m);
    int N = 3 * n + mc;
    double *q = calloc((size_t)n + 1, sizeof *q), *v = calloc((size_t)n + 1, sizeof *v);
    double *s = calloc((size_t)ns + 1, sizeof *s), *mu = calloc((size_t)mc + 1, sizeof *mu);
    model_offset_point(m, q, v, s, mu);
    dirac_linearization lin;
    dirac_error err;
    ENSURE(dirac_model_linearize(m, q, v, s, mu, 0.25, &lin, &err) == DIRAC_OK);
    double *a = calloc((size_t)N * (size_t)N + 1, sizeof *a);
    double *c = calloc((size_t)no * (size_t)N + 1, sizeof *c);
    double *e = calloc((size_t)N * (size_t)N + 1, sizeof *e);
    double *x = calloc((size_t)N + 1, sizeof *x);
    double *fp = calloc((size_t)N + 1, sizeof *fp), *fm = calloc((size_t)N + 1, sizeof *fm);
    double *yp = calloc((size_t)no + 1, sizeof *yp), *ym = calloc((size_t)no + 1, sizeof *ym);
    dense_of(&lin.A, a);
    dense_of(&lin.C, c);
    dense_of(&lin.E, e);
    // E = I on the q̇ rows (q columns) and the ṗ rows (p columns), zero elsewhere
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double want = (i < n && j == i) || (i >= n && i < 2 * n && j == n + i) ? 1 : 0;
            ENSURE_NEAR(e[(size_t)i * (size_t)N + (size_t)j], want, 0);
        }
    // row scales: largest |A_ij| in the row (the differences are relative to it)
    memcpy(x, lin.x0, (size_t)N * sizeof *x);
    ENSURE(dirac_model_descriptor_rhs(m, x, NULL, s, 0.25, fp, NULL, &err) == DIRAC_OK);
    for (int i = 0; i < N; i++)   // f0 is f(x0)
        ENSURE_NEAR(lin.f0[i], fp[i], 1e-14 * (1 + fabs(fp[i])));
    double worst = 0;
    for (int j = 0; j < N; j++) {
        double h = 1e-6 * fmax(1.0, fabs(lin.x0[j]));
        memcpy(x, lin.x0, (size_t)N * sizeof *x);
        x[j] = lin.x0[j] + h;
        dirac_model_descriptor_rhs(m, x, NULL, s, 0.25, fp, yp, &err);
        x[j] = lin.x0[j] - h;
        dirac_model_descriptor_rhs(m, x, NULL, s, 0.25, fm, ym, &err);
        for (int i = 0; i < N; i++) {
            double row = 0;
            for (int k = 0; k < N; k++)
                row = fmax(row, fabs(a[(size_t)i * (size_t)N + (size_t)k]));
            double fd = (fp[i] - fm[i]) / (2 * h);
            // central difference: truncation O(h²) and rounding ~1e-16/h = 1e-10 relative
            double tol = 1e-7 * fmax(row, 1e-300) + 1e-12;
            double diff = fabs(fd - a[(size_t)i * (size_t)N + (size_t)j]);
            worst = fmax(worst, diff / fmax(row, 1e-300));
            if (!(diff <= tol))
                fprintf(stderr, "  %s: A[%s row %d][%s] = %.10g, difference %.10g\n", file,
                        lin.state_names[i], i, lin.state_names[j],
                        a[(size_t)i * (size_t)N + (size_t)j], fd);
            ENSURE(diff <= tol);
        }
        for (int k = 0; k < no; k++) {
            double fd = (yp[k] - ym[k]) / (2 * h);
            ENSURE_NEAR(c[(size_t)k * (size_t)N + (size_t)j], fd, 1e-7 * (1 + fabs(fd)));
        }
    }
    printf("  %s: worst relative difference of A from central differences %.2e\n", file, worst);
    free(q), free(v), free(s), free(mu), free(a), free(c), free(e), free(x);
    free(fp), free(fm), free(yp), free(ym);
    dirac_linearization_free(&lin);
    dirac_model_destroy(m);
}

static void linearization_matches_differences(void)
{
    const char *files[] = { "examples/double_pendulum.dirac", "examples/knife_edge.dirac",
                            "examples/charged_particle.dirac", "examples/damped_oscillator.dirac",
                            "examples/bead_on_rotating_rod.dirac",
                            "examples/kapitza_pendulum.dirac",
                            "examples/thermo/spring_heating.dirac",
                            "tests/data/slider_crank_spring.dirac",
                            // outputs naming mu.rod, E and p.x: C has μ columns
                            "tests/data/pendulum_outputs.dirac",
                            "tests/data/heating_outputs.dirac" };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
        check_linearization(files[k]);
}

// Reduced matrices of the pendulum about its hanging equilibrium: one degree of freedom,
// M_r / K_r = l/g in any basis of ker G (ω² = g/l).
static void pendulum_reduced(void)
{
    const char *p[] = { "l=2", "g=9.81", "m=3" };
    dirac_equilibrium eq;
    dirac_model *m = load_at_equilibrium("examples/pendulum.dirac", p, 3, &eq);
    if (!m)
        return;
    dirac_error err;
    double zero[2] = { 0, 0 };
    dirac_linearization lin;
    ENSURE(dirac_model_linearize(m, eq.q, zero, eq.s, eq.mu, 0, &lin, &err) == DIRAC_OK);
    ENSURE(lin.has_reduced);
    ENSURE_EQ_INT(lin.reduced_dim, 1);
    if (lin.has_reduced && lin.reduced_dim == 1) {
        ENSURE_NEAR(lin.M_r[0], 3.0, 1e-12);               // m |T|² with |T| = 1
        ENSURE_NEAR(lin.K_r[0] / lin.M_r[0], 9.81 / 2, 1e-12);
    }
    for (int i = 0; i < lin.state_count; i++)   // f0 = 0 at an equilibrium
        ENSURE_NEAR(lin.f0[i], 0.0, 1e-12);
    dirac_linearization_free(&lin);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
}

// Bad requests: a clear error, no crash.
static void refusals(void)
{
    dirac_model *m = load("examples/knife_edge.dirac", NULL, 0);
    if (!m)
        return;
    dirac_error err;
    dirac_equilibrium eq = { 0 };
    dirac_status st = dirac_model_equilibrium(m, NULL, NULL, 0.0, &eq, &err);
    // the skate on a slope has no static equilibrium: gravity along x is unopposed
    ENSURE(st == DIRAC_ERR_NEWTON);
    dirac_equilibrium_free(&eq);
    dirac_equilibrium fake = { 0 };
    double q[3] = { 0 }, mu[1] = { 0 };
    fake.q = q;
    fake.mu = mu;
    dirac_modes modes;
    ENSURE(dirac_model_modes(m, &fake, 0, 0, &modes, &err) == DIRAC_ERR_UNSUPPORTED);
    ENSURE_CONTAINS(err.message, "nonholonomic");
    dirac_model_destroy(m);
    double bad_t = NAN;
    m = load("examples/pendulum.dirac", NULL, 0);
    if (!m)
        return;
    ENSURE(dirac_model_equilibrium(m, NULL, NULL, bad_t, &eq, &err) == DIRAC_ERR_NOT_FINITE);
    ENSURE(dirac_model_equilibrium(m, NULL, NULL, 0, &eq, &err) == DIRAC_OK);
    ENSURE(dirac_model_modes(m, &eq, 5, 1, &modes, &err) == DIRAC_ERR_ARGUMENT);
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
}

// A circulatory force (F = −k q + c J q, J skew) makes K non-symmetric: no undamped normal
// modes; the linearisation reports the asymmetry c / k.
static void circulatory_refused(void)
{
    const char *text = "model circ\nparameter k = 4, c = 1\ncoordinate x, y\n"
                       "lagrangian (x'^2 + y'^2)/2 - k/2*(x^2 + y^2)\n"
                       "force x: c*y\nforce y: -c*x\ninitial x = 0.1\n";
    dirac_spec *spec = NULL;
    dirac_model *m = NULL;
    ENSURE(dirac_spec_parse("circ.dirac", text, strlen(text), &spec) == DIRAC_OK);
    ENSURE(dirac_model_compile(spec, &m) == DIRAC_OK);
    dirac_spec_destroy(spec);
    if (!m)
        return;
    dirac_error err;
    dirac_equilibrium eq;
    ENSURE(dirac_model_equilibrium(m, NULL, NULL, 0, &eq, &err) == DIRAC_OK);
    dirac_linearization lin;
    double zero[2] = { 0, 0 };
    ENSURE(dirac_model_linearize(m, eq.q, zero, NULL, NULL, 0, &lin, &err) == DIRAC_OK);
    // K = [[k, −c], [c, k]]: max |K_ij − K_ji| / max |K_ij| = 2c / k
    ENSURE_NEAR(lin.stiffness_asymmetry, 0.5, 1e-15);
    dirac_linearization_free(&lin);
    dirac_modes modes;
    ENSURE(dirac_model_modes(m, &eq, 0, 0, &modes, &err) == DIRAC_ERR_UNSUPPORTED);
    ENSURE_CONTAINS(err.message, "not symmetric");
    dirac_equilibrium_free(&eq);
    dirac_model_destroy(m);
}

TEST_MAIN(TEST(circulatory_refused), TEST(double_pendulum_frequencies), TEST(spring_chain_frequencies),
          TEST(spring_chain_sparse), TEST(slider_crank_equilibrium),
          TEST(linearization_matches_differences), TEST(pendulum_reduced), TEST(refusals))

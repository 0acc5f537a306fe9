// Affine stage equations (src/sim_linear.c, src/newton.c): a linear model's step is one
// correction per stage with its exact, once-factorized Jacobian.
// - A spring chain between walls (12 masses, midpoint, h = 1e-2, 300 steps; dense and sparse
//   solvers, tapes and generated code) against a
//   separately written implicit midpoint rule on (q, p) — the midpoint variational integrator
//   of a quadratic Lagrangian is that rule — whose linear system is solved here by Gaussian
//   elimination: |q − q_ref| <= steps · 64 ε · max |q_ref| (both solve the same linear
//   equations exactly; each step's rounding is some ε of the state, and a stable linear map
//   adds such differences at most linearly), the same for v = p/m; one Newton correction per
//   stage (dirac_sim_newton_iterations == 2) from the second step on (the first factorizes).
// - Models with a constant Jacobian whose equations are not affine (a jump hidden behind a
//   zero derivative: sign, a piecewise-constant force) are not taken for affine, and their
//   steps still solve their equations: the run against an explicit check of the residual.
// - Nonlinear models are not affine.
#include "harness.h"
#include "sim_run.h"

#include "sim.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

enum { MASSES = 12, STEPS = 300 };
#define MASS 1.5
#define STIFFNESS 100.0
#define STEP 1e-2

static const char chain_text[] =
    "model chain\nparameter m = 1.5, k = 100\ncoordinate x[12]\n"
    "lagrangian sum(i = 1..12, m/2*x[i]'^2) - k/2*x[1]^2 - sum(i = 2..12, k/2*(x[i] - "
    "x[i-1])^2) - k/2*x[12]^2\n"
    "initial x[1] = 0.01, x[5] = -0.02, x[12]' = 0.3\n";

// (K q)_i of the chain between walls: k (2 q_i − q_{i−1} − q_{i+1}), q_0 = q_{n+1} = 0
static void stiffness_times(const double *q, double *out)
{
    for (int i = 0; i < MASSES; i++) {
        double left = i > 0 ? q[i - 1] : 0.0, right = i + 1 < MASSES ? q[i + 1] : 0.0;
        out[i] = STIFFNESS * (2.0 * q[i] - left - right);
    }
}

// solves A x = b (n x n, row-major, destroyed) by Gaussian elimination with partial pivoting
static void gauss_solve(double *a, double *b, int n)
{
    for (int c = 0; c < n; c++) {
        int pivot = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r * n + c]) > fabs(a[pivot * n + c]))
                pivot = r;
        for (int k = 0; k < n; k++) {
            double t = a[c * n + k];
            a[c * n + k] = a[pivot * n + k];
            a[pivot * n + k] = t;
        }
        double t = b[c];
        b[c] = b[pivot];
        b[pivot] = t;
        for (int r = c + 1; r < n; r++) {
            double f = a[r * n + c] / a[c * n + c];
            for (int k = c; k < n; k++)
                a[r * n + k] -= f * a[c * n + k];
            b[r] -= f * b[c];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double s = b[r];
        for (int k = r + 1; k < n; k++)
            s -= a[r * n + k] * b[k];
        b[r] = s / a[r * n + r];
    }
}

// One implicit midpoint step on (q, p): q1 = q + h/(2m) (p + p1), p1 = p − h/2 K (q + q1),
// i.e. (I + h²/(4m) K) p1 = p − h K q − h²/(4m) K p.
static void reference_step(double *q, double *p)
{
    double kq[MASSES], kp[MASSES], rhs[MASSES], a[MASSES * MASSES];
    const double c = STEP * STEP / (4.0 * MASS);
    stiffness_times(q, kq);
    stiffness_times(p, kp);
    for (int i = 0; i < MASSES; i++) {
        rhs[i] = p[i] - STEP * kq[i] - c * kp[i];
        for (int j = 0; j < MASSES; j++)
            a[i * MASSES + j] = (i == j ? 1.0 + 2.0 * c * STIFFNESS : 0.0) +
                                (abs(i - j) == 1 ? -c * STIFFNESS : 0.0);
    }
    gauss_solve(a, rhs, MASSES);
    for (int i = 0; i < MASSES; i++) {
        q[i] += STEP / (2.0 * MASS) * (p[i] + rhs[i]);
        p[i] = rhs[i];
    }
}

static void chain_matches_implicit_midpoint(void)
{
    for (int variant = 0; variant < 4; variant++) {
        // generated code or tapes; dense LU or the sparse solver (whose velocity stage, the
        // diagonal mass matrix, is solved by divisions: linsolve.c)
        int codegen = variant & 1, sparse = variant >> 1;
        run r;
        memset(&r, 0, sizeof r);
        dirac_status status = dirac_spec_parse("chain.dirac", chain_text, strlen(chain_text),
                                               &r.spec);
        if (status == DIRAC_OK)
            status = dirac_spec_set_codegen(r.spec, codegen ? DIRAC_CODEGEN_AUTO
                                                            : DIRAC_CODEGEN_OFF);
        dirac_sim_options options = { .method = "midpoint", .dt = STEP,
                                      .linear_solver = sparse ? DIRAC_LINEAR_SPARSE
                                                              : DIRAC_LINEAR_DENSE };
        if (!run_compile(&r, status, "chain.dirac", NULL, 0) ||
            !run_create(&r, "chain.dirac", &options))
            continue;
        bool affine = false;
        ENSURE_EQ_INT(sim_equations_affine(r.model, &affine), DIRAC_OK);
        ENSURE(affine);
        double q[MASSES] = { 0 }, p[MASSES] = { 0 };
        q[0] = 0.01;
        q[4] = -0.02;
        p[11] = MASS * 0.3;
        double worst_q = 0.0, worst_v = 0.0, scale_q = 0.0, scale_v = 0.0;
        int one_correction = 1;
        for (int step = 1; step <= STEPS; step++) {
            ENSURE_EQ_INT(dirac_sim_step(r.sim), DIRAC_OK);
            reference_step(q, p);
            if (step > 1 && dirac_sim_newton_iterations(r.sim) != 2)
                one_correction = 0;
            const double *sq = dirac_sim_q(r.sim), *sv = dirac_sim_v(r.sim);
            for (int i = 0; i < MASSES; i++) {
                worst_q = fmax(worst_q, fabs(sq[i] - q[i]));
                worst_v = fmax(worst_v, fabs(sv[i] - p[i] / MASS));
                scale_q = fmax(scale_q, fabs(q[i]));
                scale_v = fmax(scale_v, fabs(p[i] / MASS));
            }
        }
        fprintf(stderr, "  %s, %s: max |q - q_ref| = %.3g, max |v - v_ref| = %.3g\n",
                codegen ? "generated code" : "tapes", sparse ? "sparse" : "dense", worst_q,
                worst_v);
        ENSURE(worst_q <= STEPS * 64.0 * DBL_EPSILON * scale_q);
        ENSURE(worst_v <= STEPS * 64.0 * DBL_EPSILON * scale_v);
        ENSURE(one_correction);
        run_close(&r);
    }
}

// A constant Jacobian with jumps: a dry-friction-like force −c sign(v) and a piecewise
// constant force; each step still solves the stage equations (midpoint's momentum balance,
// checked here from the step's own numbers: p_{k+1} − p_k = h F̄ − h K q̄ for this model).
static void jumps_are_not_affine(void)
{
    static const char text[] =
        "model stick\nparameter m = 1, k = 4, c = 0.2\ncoordinate x, y\n"
        "lagrangian m/2*(x'^2 + y'^2) - k/2*(x^2 + y^2)\n"
        "force x: -c*sign(x')\nforce y: if(y > 0, -0.5, 0.5)\n"
        "initial x = 1, y = 0.3\n";
    run r;
    if (!run_open_method(&r, text, "midpoint", 1e-2))
        return;
    bool affine = true;
    ENSURE(sim_jacobian_constant(r.model));   // every derivative is a constant
    ENSURE_EQ_INT(sim_equations_affine(r.model, &affine), DIRAC_OK);
    ENSURE(!affine);   // yet the forces jump
    double q0[2], p0[2];
    double worst = 0.0;
    for (int step = 0; step < 200; step++) {
        memcpy(q0, dirac_sim_q(r.sim), sizeof q0);
        memcpy(p0, dirac_sim_p(r.sim), sizeof p0);
        ENSURE_EQ_INT(dirac_sim_step(r.sim), DIRAC_OK);
        const double *q1 = dirac_sim_q(r.sim), *p1 = dirac_sim_p(r.sim);
        // p1 − p0 = h (F(q̄, v̄) − k q̄), v̄ = (q1 − q0)/h, when the forces' branch is fixed
        double h = 1e-2, qx = 0.5 * (q0[0] + q1[0]), qy = 0.5 * (q0[1] + q1[1]);
        double vx = (q1[0] - q0[0]) / h;
        double fx = vx > 0 ? -0.2 : vx < 0 ? 0.2 : 0.0, fy = qy > 0 ? -0.5 : 0.5;
        double rx = p1[0] - p0[0] - h * (fx - 4.0 * qx);
        double ry = p1[1] - p0[1] - h * (fy - 4.0 * qy);
        worst = fmax(worst, fmax(fabs(rx), fabs(ry)));
    }
    // Newton's tolerance (1e-10 relative to the momenta, ~1) and rounding
    fprintf(stderr, "  jumps: worst momentum balance residual %.3g\n", worst);
    ENSURE(worst <= 1e-8);
    run_close(&r);
}

static void nonlinear_is_not_affine(void)
{
    static const char text[] =
        "model pendulum\ncoordinate x, y\nlagrangian (x'^2 + y'^2)/2 - 9.81*y\n"
        "constraint rod: x^2 + y^2 = 1\ninitial x = 0.6, y = -0.8\n";
    run r;
    if (!run_open_method(&r, text, "midpoint", 1e-3))
        return;
    bool affine = true;
    ENSURE_EQ_INT(sim_equations_affine(r.model, &affine), DIRAC_OK);
    ENSURE(!affine);
    run_close(&r);
}

TEST_MAIN(TEST(chain_matches_implicit_midpoint), TEST(jumps_are_not_affine),
          TEST(nonlinear_is_not_affine))

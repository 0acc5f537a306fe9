// The shared problem zoo (tests/support/problems.h) that other tests and the benchmarks take
// their exact solutions from: the elliptic functions against tabulated values and their
// identities, the exact pendulum against its equation of motion and its energy, and the
// generated models against their stated sizes.
#include "harness.h"
#include "problems.h"

#include <dirac/dirac.h>

#include <stdlib.h>

static void elliptic_functions(void)
{
    // K(0) = π/2; K(1/√2) = Γ(1/4)² / (4√π) = 1.854074677301372 (Abramowitz & Stegun,
    // Table 17.1); both to rounding (4 ulp)
    ENSURE_NEAR(elliptic_k(0.0), 1.5707963267948966, 4e-16);
    ENSURE_NEAR(elliptic_k(sqrt(0.5)), 1.8540746773013719, 8e-16);
    for (int j = 0; j < 3; j++) {
        double k = (double[]){ 0.0, 0.3, 0.9 }[j], K = elliptic_k(k);
        for (int i = 0; i <= 20; i++) {
            double u = -3.0 + 0.37 * i, sn, cn, dn;
            jacobi_elliptic(u, k, &sn, &cn, &dn);
            // sn² + cn² = 1 and dn² + k² sn² = 1 (A&S 16.9.1), to rounding accumulated
            // over the Landen steps (measured up to 4e-15)
            ENSURE_NEAR(sn * sn + cn * cn, 1.0, 1e-14);
            ENSURE_NEAR(dn * dn + k * k * sn * sn, 1.0, 1e-14);
            if (k == 0.0)
                ENSURE_NEAR(sn, sin(u), 1e-15);   // sn(u | 0) = sin u (A&S 16.6.1)
        }
        double sn_K, cn_K;
        jacobi_elliptic(K, k, &sn_K, &cn_K, NULL);
        ENSURE_NEAR(sn_K, 1.0, 1e-15);   // sn(K) = 1, cn(K) = 0 (A&S 16.5.1)
        ENSURE_NEAR(cn_K, 0.0, 1e-7);    // cn = √(1 − sn²) near K: √(rounding) ≈ 1e-8
    }
}

static void exact_pendulum(void)
{
    const double g = 9.81, l = 0.7, theta0 = 1.2, T = pendulum_period(g, l, theta0);
    double rate, theta = pendulum_angle(g, l, theta0, 0.0, &rate);
    ENSURE_NEAR(theta, theta0, 1e-14);
    ENSURE_NEAR(rate, 0.0, 1e-7);
    theta = pendulum_angle(g, l, theta0, T, &rate);   // one period later, back at rest at θ0
    ENSURE_NEAR(theta, theta0, 1e-12);
    theta = pendulum_angle(g, l, theta0, 0.5 * T, NULL);   // half a period: at −θ0
    ENSURE_NEAR(theta, -theta0, 1e-12);
    // small amplitude: T → 2π √(l/g) (1 + θ0²/16) (the first correction, Landau–Lifshitz §11)
    ENSURE_NEAR(pendulum_period(g, l, 1e-3) / (2 * 3.14159265358979323846 * sqrt(l / g)), 1 + 1e-6 / 16, 1e-12);
    for (int i = 0; i <= 10; i++) {
        double t = 0.13 * T * i, h = 1e-3;
        theta = pendulum_angle(g, l, theta0, t, &rate);
        // energy l θ'²/2 − g cos θ = −g cos θ0 (per unit mass and length), to rounding
        ENSURE_NEAR(0.5 * l * rate * rate - g * cos(theta), -g * cos(theta0), 1e-12);
        // θ'' = −(g/l) sin θ by central differences of θ': error h²/6 |θ''''| ≲ 2e-5
        double rate_plus, rate_minus;
        pendulum_angle(g, l, theta0, t + h, &rate_plus);
        pendulum_angle(g, l, theta0, t - h, &rate_minus);
        ENSURE_NEAR((rate_plus - rate_minus) / (2 * h), -g / l * sin(theta), 1e-4);
        double q[2], v[2];
        pendulum_exact(g, l, theta0, t, q, v);
        ENSURE_NEAR(hypot(q[0], q[1]), l, 1e-15);
        ENSURE_NEAR(q[0] * v[0] + q[1] * v[1], 0.0, 1e-14);   // velocity along the circle
        ENSURE_NEAR(hypot(v[0], v[1]), l * fabs(rate), 1e-14);
    }
}

// Parses and compiles `text`; the counts of coordinates and constraints.
static void ensure_sizes(char *text, int coordinates, int constraints)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    ENSURE(text && dirac_spec_parse("zoo.dirac", text, strlen(text), &spec) == DIRAC_OK);
    ENSURE(spec && dirac_model_compile(spec, &model) == DIRAC_OK);
    if (model) {
        ENSURE_EQ_INT(dirac_model_coordinate_count(model), coordinates);
        ENSURE_EQ_INT(dirac_model_constraint_count(model), constraints);
    }
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    free(text);
}

static void generated_models(void)
{
    double charge[5] = { 0.0, 1e-3, 0.0, 0.0, 2e-3 };
    ensure_sizes(lc_line_model(5, 1e-3, 2e-3, charge), 10, 5);
    ensure_sizes(lc_line_model(50, 1.0, 1.0, NULL), 100, 50);
    ensure_sizes(pendulum_chain_model(7, 0.5, 0.3), 14, 7);
}

TEST_MAIN(TEST(elliptic_functions), TEST(exact_pendulum), TEST(generated_models))

// Random numbers of `dirac sweep --samples` (cli/sweep_random.c): the normal quantile against
// tabulated values and as the inverse of Φ = erfc(−x/√2)/2, Latin-hypercube strata, and the
// generator's determinism and uniformity.
#include "harness.h"
#include "sweep_random.h"

#include <math.h>
#include <stdlib.h>

// Φ⁻¹ at tabulated points (Abramowitz & Stegun 26.2 tables; 0.975 → 1.959963984540054).
// Tolerance 1e-13 absolute: the quantile is refined to rounding of erfc (a few ulp).
static void normal_quantile_values(void)
{
    ENSURE_NEAR(sweep_normal_quantile(0.5), 0.0, 1e-15);
    ENSURE_NEAR(sweep_normal_quantile(0.975), 1.959963984540054, 1e-13);
    ENSURE_NEAR(sweep_normal_quantile(0.025), -1.959963984540054, 1e-13);
    ENSURE_NEAR(sweep_normal_quantile(0.001), -3.090232306167813, 1e-13);
    ENSURE_NEAR(sweep_normal_quantile(0.8413447460685429), 1.0, 1e-13);
    ENSURE_NEAR(sweep_normal_quantile(1e-10), -6.361340902404056, 1e-12);
}

// Φ(Φ⁻¹(p)) = p for p and 1 − p over 1e-300 .. 1/2, relative to the smaller tail, to the
// rounding of x (Acklam's start alone is good to 1.2e-9 relative; the two Halley steps bring
// it to rounding).
static void normal_quantile_inverts_cdf(void)
{
    double worst = 0;
    for (int k = 0; k <= 3000; k++) {
        double u = pow(10.0, -300.0 + 0.1 * k);   // 1e-300 .. 1
        if (u >= 1)
            break;
        for (int side = 0; side < 2; side++) {
            double p = side ? 1 - u : u;
            if (!(p > 0 && p < 1))
                continue;
            double x = sweep_normal_quantile(p);
            // compare the smaller tail, which keeps its relative precision
            double tail = side ? sweep_normal_cdf(-x) : sweep_normal_cdf(x);
            double ref = side ? 1 - p : p;   // exact (Sterbenz) for p >= 1/2
            // the tail's relative change for one rounding of x is |x| ulp(x) ≈ x² 1.1e-16:
            // the error allowed is 8 roundings' worth, 8.9e-16 (1 + x²)
            double err = fabs(tail - ref) / ref / (8.9e-16 * (1 + x * x));
            if (err > worst)
                worst = err;
        }
    }
    ENSURE_LE(worst, 1.0);
}

// Each of the n strata [k/n, (k+1)/n) holds exactly one u_i, and u_i is inside (0, 1).
static void latin_hypercube_strata(void)
{
    const long n = 1000;
    long *perm = malloc((size_t)n * sizeof *perm), *hits = calloc((size_t)n, sizeof *hits);
    double *u = malloc((size_t)n * sizeof *u);
    ENSURE(perm && hits && u);
    if (!perm || !hits || !u)
        goto done;
    sweep_rng rng;
    sweep_rng_seed(&rng, 42);
    sweep_latin_hypercube(&rng, n, perm, u);
    for (long i = 0; i < n; i++) {
        ENSURE(u[i] > 0 && u[i] < 1);
        long k = (long)floor(u[i] * (double)n);
        ENSURE(k >= 0 && k < n);
        if (k >= 0 && k < n)
            hits[k]++;
    }
    for (long k = 0; k < n; k++)
        ENSURE_EQ_INT(hits[k], 1);
done:
    free(perm);
    free(hits);
    free(u);
}

// The same seed gives the same stream, another seed another; open01 is in (0, 1) and uniform:
// a chi-square test over 100 bins of 1e5 draws stays below 148.2 (the 99.9 % quantile of
// chi-square with 99 degrees of freedom; the seed is fixed, so the test is deterministic).
static void generator(void)
{
    sweep_rng a, b, c;
    sweep_rng_seed(&a, 7);
    sweep_rng_seed(&b, 7);
    sweep_rng_seed(&c, 8);
    int same = 1, differ = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = sweep_rng_next(&a), y = sweep_rng_next(&b), z = sweep_rng_next(&c);
        same &= x == y;
        differ |= x != z;
    }
    ENSURE(same);
    ENSURE(differ);
    long bins[100] = { 0 };
    const long draws = 100000;
    double lo = 1, hi = 0;
    for (long i = 0; i < draws; i++) {
        double u = sweep_rng_open01(&a);
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
        bins[(int)(u * 100)]++;
    }
    ENSURE(lo > 0 && hi < 1);
    double chi2 = 0, expected = (double)draws / 100;
    for (int k = 0; k < 100; k++)
        chi2 += ((double)bins[k] - expected) * ((double)bins[k] - expected) / expected;
    ENSURE_LE(chi2, 148.2);
}

TEST_MAIN(TEST(normal_quantile_values), TEST(normal_quantile_inverts_cdf),
          TEST(latin_hypercube_strata), TEST(generator))

// Random numbers of `dirac sweep --samples` (sweep_random.h).
#include "sweep_random.h"

#include <math.h>

// splitmix64 (Steele, Lea & Flood 2014): a Weyl sequence through a mixing function.
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void sweep_rng_seed(sweep_rng *rng, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&state);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t sweep_rng_next(sweep_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double sweep_rng_open01(sweep_rng *rng)
{
    return ((double)(sweep_rng_next(rng) >> 11) + 0.5) * 0x1p-53;
}

double sweep_normal_cdf(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

// Acklam's rational approximation of Φ^{-1} (relative error below 1.2e-9), then two Halley
// steps on Φ(x) − u = 0, each of which triples the number of correct digits.
double sweep_normal_quantile(double u)
{
    static const double a[6] = { -3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[5] = { -5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01 };
    static const double c[6] = { -7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00, 2.938163982698783e+00 };
    static const double d[4] = { 7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00 };
    const double low = 0.02425;
    double x;
    if (!(u > 0 && u < 1))
        return u == 0 ? -INFINITY : u == 1 ? INFINITY : NAN;
    if (u < low || u > 1 - low) {
        double q = sqrt(-2 * log(u < low ? u : 1 - u));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        if (u > 1 - low)
            x = -x;
    } else {
        double q = u - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    for (int k = 0; k < 2; k++) {
        // e = Φ(x) − u; Halley: x −= t/(1 + x t/2) with t = e/φ(x)
        double e = u < 0.5 ? sweep_normal_cdf(x) - u : (1 - u) - sweep_normal_cdf(-x);
        double t = e * 2.5066282746310002 * exp(0.5 * x * x);   // √(2π) = 2.50662827463...
        x -= t / (1 + 0.5 * x * t);
    }
    return x;
}

void sweep_latin_hypercube(sweep_rng *rng, long n, long *perm, double *u)
{
    for (long i = 0; i < n; i++)
        perm[i] = i;
    for (long i = n - 1; i > 0; i--) {
        long j = (long)(sweep_rng_open01(rng) * (double)(i + 1));
        if (j > i)
            j = i;
        long t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (long i = 0; i < n; i++) {
        double v = ((double)perm[i] + sweep_rng_open01(rng)) / (double)n;
        // rounding may not leave the stratum [perm/n, (perm+1)/n)
        double hi = nextafter((double)(perm[i] + 1) / (double)n, 0);
        u[i] = v < hi ? v : hi;
    }
}

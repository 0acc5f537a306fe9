// Random numbers of `dirac sweep --samples`: a xoshiro256** generator seeded through
// splitmix64, uniform doubles in (0, 1), the standard normal quantile, and Latin-hypercube
// strata. Every sample of a sweep is drawn up front on one process, so the values depend only
// on the seed, never on the number of threads or MPI ranks (docs/sweeps.md).
#ifndef DIRAC_CLI_SWEEP_RANDOM_H
#define DIRAC_CLI_SWEEP_RANDOM_H

#include <stdint.h>

typedef struct sweep_rng {
    uint64_t s[4];
} sweep_rng;

/// Seeds the generator: its four words are four successive outputs of splitmix64(seed).
void sweep_rng_seed(sweep_rng *rng, uint64_t seed);

/// The next 64 random bits (xoshiro256**, Blackman & Vigna 2018).
uint64_t sweep_rng_next(sweep_rng *rng);

/// A uniform double in the open interval (0, 1): (k + 1/2) 2^-53 for the top 53 bits k.
double sweep_rng_open01(sweep_rng *rng);

/// Φ^{-1}(u), the quantile of the standard normal distribution, for 0 < u < 1.
double sweep_normal_quantile(double u);

/// Φ(x) = erfc(−x/√2)/2, the standard normal distribution function.
double sweep_normal_cdf(double x);

/// Latin hypercube in one dimension: n values u_i in (0, 1), one in each stratum
/// [k/n, (k+1)/n): u_i = (π(i) + w_i)/n with π a random permutation (Fisher–Yates, drawn
/// first) and w_i in (0, 1) (drawn next, in order of i). McKay, Beckman & Conover 1979.
void sweep_latin_hypercube(sweep_rng *rng, long n, long *scratch, double *u);

#endif

// A zero-dependency test harness (house style rule 18).
//
// Each tests/test_*.c is one program: it defines static test functions and ends with
//     TEST_MAIN(TEST(first), TEST(second), ...)
// Running the program runs every test (or those whose name contains argv[1]) and prints one
// line per test and the closing line "N passed, N failed". Checks never abort the test: a
// failed check prints FILE:LINE and the values and marks the current test failed.
#ifndef DIRAC_TEST_HARNESS_H
#define DIRAC_TEST_HARNESS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct test_case {
    const char *name;
    void (*run)(void);
} test_case;

static int test_failed_checks;

#define TEST(fn) { #fn, fn }

#define ENSURE(cond)                                                                    \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
            test_failed_checks++;                                                       \
        }                                                                               \
    } while (0)

// |a - b| <= tol (tol is absolute; NaN fails).
#define ENSURE_NEAR(a, b, tol)                                                          \
    do {                                                                                \
        double ensure_a_ = (double)(a), ensure_b_ = (double)(b), ensure_t_ = (tol);     \
        if (!(fabs(ensure_a_ - ensure_b_) <= ensure_t_)) {                              \
            fprintf(stderr, "%s:%d: check failed: |%s - %s| = |%.17g - %.17g| = %.3g > %.3g\n", \
                    __FILE__, __LINE__, #a, #b, ensure_a_, ensure_b_,                   \
                    fabs(ensure_a_ - ensure_b_), ensure_t_);                            \
            test_failed_checks++;                                                       \
        }                                                                               \
    } while (0)

// a <= b (NaN fails); the usual form of "residual below tolerance".
#define ENSURE_LE(a, b)                                                                 \
    do {                                                                                \
        double ensure_a_ = (double)(a), ensure_b_ = (double)(b);                        \
        if (!(ensure_a_ <= ensure_b_)) {                                                \
            fprintf(stderr, "%s:%d: check failed: %s <= %s (%.6g > %.6g)\n", __FILE__,  \
                    __LINE__, #a, #b, ensure_a_, ensure_b_);                            \
            test_failed_checks++;                                                       \
        }                                                                               \
    } while (0)

#define ENSURE_EQ_INT(a, b)                                                             \
    do {                                                                                \
        long ensure_a_ = (long)(a), ensure_b_ = (long)(b);                              \
        if (ensure_a_ != ensure_b_) {                                                   \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%ld != %ld)\n", __FILE__,   \
                    __LINE__, #a, #b, ensure_a_, ensure_b_);                            \
            test_failed_checks++;                                                       \
        }                                                                               \
    } while (0)

#define ENSURE_CONTAINS(haystack, needle)                                               \
    do {                                                                                \
        const char *ensure_h_ = (haystack), *ensure_n_ = (needle);                      \
        if (!ensure_h_ || !strstr(ensure_h_, ensure_n_)) {                              \
            fprintf(stderr, "%s:%d: check failed: \"%s\" does not contain \"%s\"\n",     \
                    __FILE__, __LINE__, ensure_h_ ? ensure_h_ : "(null)", ensure_n_);   \
            test_failed_checks++;                                                       \
        }                                                                               \
    } while (0)

// Seeded, reproducible random numbers (splitmix64): every run draws the same instances.
typedef struct test_rng {
    uint64_t state;
} test_rng;

static inline uint64_t test_rng_next(test_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Uniform in [lo, hi).
static inline double test_rng_uniform(test_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * (double)(test_rng_next(rng) >> 11) * 0x1.0p-53;
}

// Uniform integer in [lo, hi].
static inline int test_rng_int(test_rng *rng, int lo, int hi)
{
    return lo + (int)(test_rng_next(rng) % (uint64_t)(hi - lo + 1));
}

// Standard normal (Box-Muller).
static inline double test_rng_normal(test_rng *rng)
{
    double u1 = test_rng_uniform(rng, 0x1.0p-53, 1.0), u2 = test_rng_uniform(rng, 0.0, 1.0);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static inline int test_run_all(const test_case *cases, int count, int argc, char **argv)
{
    int passed = 0, failed = 0;
    for (int i = 0; i < count; i++) {
        if (argc > 1 && !strstr(cases[i].name, argv[1]))
            continue;
        int before = test_failed_checks;
        cases[i].run();
        int ok = test_failed_checks == before;
        printf("%-6s %s\n", ok ? "ok" : "FAILED", cases[i].name);
        fflush(stdout);
        if (ok)
            passed++;
        else
            failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#define TEST_MAIN(...)                                                                  \
    int main(int argc, char **argv)                                                     \
    {                                                                                   \
        static const test_case cases[] = { __VA_ARGS__ };                              \
        return test_run_all(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);  \
    }

#endif

// Newton's method on affine equations r(z) = A z − b with a kept factorization (src/newton.c,
// kept_affine_correction: the one correction z ← z − A⁻¹ r in three passes), with the dense and
// the sparse (KLU, solved from its compressed copy) solvers:
// - the first solve factorizes A, later ones reuse it (one Jacobian over the run) and take one
//   correction each; the solution satisfies the equations to rounding: |A z − b|_i <=
//   8 ε Σ_j |a_ij| |z_j| + |b_i| ε (one LU solve of a 3 x 3 system with condition number below
//   10: backward error a few ε, Higham, Thm 9.4);
// - those later solves take the fast path (kept_affine_correction), which leaves the rounding
//   floors alone: a sentinel written into nw.floor before the solve survives it (the general
//   path, kept_linear_newton, sets every floor to 0);
// - the blocks' scales (nw.block_floor, part of a run's snapshot) are the largest magnitudes seen
//   per block, as after any solve;
// - a residual outside the domain or not finite fails with DIRAC_ERR_NOT_FINITE naming the
//   equation (the general path repeats the solve from the untouched guess and reports it), and
//   the next solve succeeds again.
#include "harness.h"

#include "newton.h"

#include <float.h>
#include <math.h>

typedef struct affine {
    double a[3][3], b[3];
    int outside;   // the assembly reports z outside the domain
    long residuals;
} affine;

static int assemble(void *context, const double *z, double *r, linsolve *jac)
{
    affine *s = context;
    s->residuals++;
    for (int i = 0; i < 3; i++) {
        r[i] = -s->b[i];
        for (int j = 0; j < 3; j++)
            r[i] += s->a[i][j] * z[j];
    }
    if (jac)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                linsolve_add(jac, i, j, s->a[i][j]);
    return s->outside;
}

static void ensure_solves(const affine *s, const double *z)
{
    for (int i = 0; i < 3; i++) {
        double r = -s->b[i], magnitude = fabs(s->b[i]);
        for (int j = 0; j < 3; j++) {
            r += s->a[i][j] * z[j];
            magnitude += fabs(s->a[i][j] * z[j]);
        }
        ENSURE_LE(fabs(r), 8.0 * DBL_EPSILON * magnitude);
    }
}

static void kept_affine_solves(void)
{
    static const int block[3] = { 0, 0, NEWTON_MULTIPLIER_BLOCK };
    for (int sparse = 0; sparse < 2; sparse++) {
        affine s = { { { 4, 1, 0.5 }, { 1, 3, -1 }, { 0.5, -1, 5 } }, { 1, 2, 3 }, 0, 0 };
        newton nw;
        linsolve *ls = NULL;
        ENSURE(newton_init(&nw, 3, NULL) == DIRAC_OK);
        ENSURE(linsolve_create(3, sparse, &ls, NULL) == DIRAC_OK);
        if (!ls) {
            newton_free(&nw);
            return;
        }
        nw.constant_jacobian = nw.affine = nw.simplified = true;
        nw.step_size = 0.01;
        double z[3] = { 0, 0, 0 }, largest[2] = { 0, 0 };
        test_rng rng = { 7 };
        for (int solve = 0; solve < 20; solve++) {
            for (int i = 0; i < 3; i++)
                s.b[i] = test_rng_uniform(&rng, -10.0, 10.0);
            const double sentinel = -1.0;   // no floor is negative
            for (int i = 0; i < 3; i++)
                nw.floor[i] = sentinel;
            ENSURE(newton_solve(&nw, ls, 3, z, block, assemble, &s, 1e-10, 25) == DIRAC_OK);
            ENSURE_EQ_INT(nw.iterations, 1);
            if (solve > 0)   // the first solve factorizes: the general path
                for (int i = 0; i < 3; i++)
                    ENSURE(nw.floor[i] == sentinel);
            ensure_solves(&s, z);
            largest[0] = fmax(largest[0], fmax(fabs(z[0]), fabs(z[1])));
            largest[1] = fmax(largest[1], fabs(z[2]));
            ENSURE(nw.block_floor[0] == largest[0]);
            ENSURE(nw.block_floor[NEWTON_MULTIPLIER_BLOCK] == largest[1]);
        }
        ENSURE(nw.jacobians == 1 && linsolve_factorizations(ls) == 1);

        // a residual that is not finite, then one outside the domain: both fail, naming the
        // equation of the first (z is the guess then: the residual is finite only there)
        s.b[1] = HUGE_VAL;
        ENSURE(newton_solve(&nw, ls, 3, z, block, assemble, &s, 1e-10, 25) ==
               DIRAC_ERR_NOT_FINITE);
        ENSURE_EQ_INT(nw.worst, 1);
        s.b[1] = 2.0;
        s.outside = 1;
        ENSURE(newton_solve(&nw, ls, 3, z, block, assemble, &s, 1e-10, 25) ==
               DIRAC_ERR_NOT_FINITE);
        s.outside = 0;
        // and the next solve succeeds again
        ENSURE(newton_solve(&nw, ls, 3, z, block, assemble, &s, 1e-10, 25) == DIRAC_OK);
        ensure_solves(&s, z);
        linsolve_destroy(ls);
        newton_free(&nw);
    }
}

TEST_MAIN(TEST(kept_affine_solves))

// Hand-written RATTLE for planar chains on rigid rods (see rattle_reference.h for the scheme).
#include "rattle_reference.h"

#include <float.h>
#include <math.h>
#include <string.h>

int rattle_chain_init(rattle_chain *c, int links, const double *m, const double *l, double g,
                      double h, double rtol, const double *q0, const double *v0)
{
    if (links < 1 || links > RATTLE_MAX_LINKS || !(h > 0.0))
        return -1;
    memset(c, 0, sizeof *c);
    c->links = links;
    c->g = g;
    c->h = h;
    c->rtol = rtol > 0.0 ? rtol : 1e-10;
    c->max_iterations = 25;
    for (int i = 0; i < links; i++) {
        c->m[i] = m[i];
        c->l[i] = l[i];
        for (int j = 0; j < 2; j++) {
            c->q[2 * i + j] = q0[2 * i + j];
            c->p[2 * i + j] = m[i] * v0[2 * i + j];
        }
    }
    return 0;
}

// Solves the tridiagonal system (lo: sub-diagonal, lo[0] unused; up: super-diagonal) in place:
// the solution replaces rhs; di and rhs are overwritten. No pivoting (the matrices here are
// close to h²/2 G M⁻¹ Gᵀ, symmetric positive definite).
static void thomas(int n, const double *lo, double *di, const double *up, double *rhs)
{
    for (int i = 1; i < n; i++) {
        double w = lo[i] / di[i - 1];
        di[i] -= w * up[i - 1];
        rhs[i] -= w * rhs[i - 1];
    }
    rhs[n - 1] /= di[n - 1];
    for (int i = n - 2; i >= 0; i--)
        rhs[i] = (rhs[i] - up[i] * rhs[i + 1]) / di[i];
}

// d_i = q_i − q_{i−1} (q_0 = 0), as 2N numbers
static void rod_vectors(int links, const double *q, double *d)
{
    d[0] = q[0];
    d[1] = q[1];
    for (int i = 1; i < links; i++) {
        d[2 * i] = q[2 * i] - q[2 * i - 2];
        d[2 * i + 1] = q[2 * i + 1] - q[2 * i - 1];
    }
}

static inline double max_of(double a, double b) { return a > b ? a : b; }

// G(d)ᵀ λ at particle k: 2 λ_k d_k − 2 λ_{k+1} d_{k+1} (component j)
static inline double form_sum(int links, const double *d, const double *lambda, int k, int j)
{
    double f = 2.0 * lambda[k] * d[2 * k + j];
    if (k + 1 < links)
        f -= 2.0 * lambda[k + 1] * d[2 * k + 2 + j];
    return f;
}

int rattle_chain_step(rattle_chain *c)
{
    enum { MAXN = 2 * RATTLE_MAX_LINKS };
    const int links = c->links, n = 2 * links;
    const double h = c->h, half = 0.5 * h, c2 = 0.5 * h * h;
    const double tol = max_of(c->rtol, 16.0 * DBL_EPSILON);
    double d0[MAXN], d1[MAXN], pm[MAXN], qfree[MAXN], q1[MAXN], inv_m[RATTLE_MAX_LINKS];
    double lambda[RATTLE_MAX_LINKS], r[RATTLE_MAX_LINKS], lo[RATTLE_MAX_LINKS],
        di[RATTLE_MAX_LINKS], up[RATTLE_MAX_LINKS];
    // p_k + h/2 F, the unconstrained drift, rods at q_k
    rod_vectors(links, c->q, d0);
    for (int k = 0; k < links; k++) {
        inv_m[k] = 1.0 / c->m[k];
        pm[2 * k] = c->p[2 * k];
        pm[2 * k + 1] = c->p[2 * k + 1] - half * c->m[k] * c->g;
        qfree[2 * k] = c->q[2 * k] + h * inv_m[k] * pm[2 * k];
        qfree[2 * k + 1] = c->q[2 * k + 1] + h * inv_m[k] * pm[2 * k + 1];
        lambda[k] = c->mu[k];   // warm start
    }
    // Newton on λ: φ(q_{k+1}(λ)) = 0, q_{k+1}(λ) = qfree + h²/2 M⁻¹ G(q_k)ᵀ λ
    int converged = 0, it = 0;
    while (!converged && it < c->max_iterations) {
        it++;
        for (int k = 0; k < links; k++)
            for (int j = 0; j < 2; j++)
                q1[2 * k + j] = qfree[2 * k + j] + c2 * inv_m[k] * form_sum(links, d0, lambda, k, j);
        rod_vectors(links, q1, d1);
        // residual and Jacobian J_ij = h²/2 ∇φ_i(q_{k+1}) · M⁻¹ ∇φ_j(q_k) (tridiagonal)
        for (int i = 0; i < links; i++) {
            double dx = d1[2 * i], dy = d1[2 * i + 1];
            r[i] = dx * dx + dy * dy - c->l[i] * c->l[i];
            double w = inv_m[i] + (i > 0 ? inv_m[i - 1] : 0.0);
            di[i] = 4.0 * c2 * (dx * d0[2 * i] + dy * d0[2 * i + 1]) * w;
            if (i + 1 < links)
                up[i] = -4.0 * c2 * (dx * d0[2 * i + 2] + dy * d0[2 * i + 3]) * inv_m[i];
            if (i > 0)
                lo[i] = -4.0 * c2 * (dx * d0[2 * i - 2] + dy * d0[2 * i - 1]) * inv_m[i - 1];
        }
        thomas(links, lo, di, up, r);   // r ← δλ
        for (int i = 0; i < links; i++) {
            if (!isfinite(r[i]))
                return -1;
            lambda[i] -= r[i];
        }
        // converged when the position update h²/2 M⁻¹ G(q_k)ᵀ δλ is below rtol relative to
        // the positions (the multipliers themselves are only accurate to ε/h², as in libdirac)
        double dqmax = 0.0, qmax = 0.0;
        for (int k = 0; k < links; k++)
            for (int j = 0; j < 2; j++) {
                dqmax = max_of(dqmax, fabs(c2 * inv_m[k] * form_sum(links, d0, r, k, j)));
                qmax = max_of(qmax, fabs(q1[2 * k + j]));
            }
        converged = dqmax <= tol * qmax;
    }
    c->iterations = it;
    if (!converged)
        return -1;
    // q_{k+1} and p_{k+1/2} from the converged λ, then the second half kick of gravity
    for (int k = 0; k < links; k++) {
        for (int j = 0; j < 2; j++) {
            double kick = half * form_sum(links, d0, lambda, k, j);
            q1[2 * k + j] = qfree[2 * k + j] + h * inv_m[k] * kick;
            pm[2 * k + j] += kick;
        }
        pm[2 * k + 1] -= half * c->m[k] * c->g;
    }
    rod_vectors(links, q1, d1);
    // velocity stage: (G M⁻¹ Gᵀ) ν = −G M⁻¹ p̂ at q_{k+1}, p_{k+1} = p̂ + Gᵀ ν, μ = 2ν/h
    double nu[RATTLE_MAX_LINKS];
    for (int i = 0; i < links; i++) {
        double dx = d1[2 * i], dy = d1[2 * i + 1];
        double vx = inv_m[i] * pm[2 * i], vy = inv_m[i] * pm[2 * i + 1];
        if (i > 0) {
            vx -= inv_m[i - 1] * pm[2 * i - 2];
            vy -= inv_m[i - 1] * pm[2 * i - 1];
        }
        nu[i] = -2.0 * (dx * vx + dy * vy);
        di[i] = 4.0 * (dx * dx + dy * dy) * (inv_m[i] + (i > 0 ? inv_m[i - 1] : 0.0));
        if (i + 1 < links)
            up[i] = -4.0 * (dx * d1[2 * i + 2] + dy * d1[2 * i + 3]) * inv_m[i];
        if (i > 0)
            lo[i] = up[i - 1];
    }
    thomas(links, lo, di, up, nu);
    for (int k = 0; k < links; k++)
        for (int j = 0; j < 2; j++)
            pm[2 * k + j] += form_sum(links, d1, nu, k, j);
    for (int i = 0; i < n; i++)
        if (!isfinite(pm[i]) || !isfinite(q1[i]))
            return -1;
    memcpy(c->q, q1, (size_t)n * sizeof *q1);
    memcpy(c->p, pm, (size_t)n * sizeof *pm);
    for (int i = 0; i < links; i++)
        c->mu[i] = nu[i] / half;
    c->t += h;
    return 0;
}

double rattle_chain_energy(const rattle_chain *c)
{
    double e = 0.0;
    for (int k = 0; k < c->links; k++) {
        double px = c->p[2 * k], py = c->p[2 * k + 1];
        e += (px * px + py * py) / (2.0 * c->m[k]) + c->m[k] * c->g * c->q[2 * k + 1];
    }
    return e;
}

double rattle_chain_constraint_error(const rattle_chain *c)
{
    double d[2 * RATTLE_MAX_LINKS], worst = 0.0;
    rod_vectors(c->links, c->q, d);
    for (int i = 0; i < c->links; i++) {
        double phi = d[2 * i] * d[2 * i] + d[2 * i + 1] * d[2 * i + 1] - c->l[i] * c->l[i];
        worst = fmax(worst, fabs(phi) / (c->l[i] * c->l[i]));
    }
    return worst;
}

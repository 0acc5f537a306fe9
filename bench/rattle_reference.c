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

// out += scale · G(d)ᵀ λ: particle k gets 2 λ_k d_k − 2 λ_{k+1} d_{k+1}
static void add_forms_transposed(int links, const double *d, const double *lambda, double scale,
                                 double *out)
{
    for (int k = 0; k < links; k++) {
        double fx = 2.0 * lambda[k] * d[2 * k], fy = 2.0 * lambda[k] * d[2 * k + 1];
        if (k + 1 < links) {
            fx -= 2.0 * lambda[k + 1] * d[2 * k + 2];
            fy -= 2.0 * lambda[k + 1] * d[2 * k + 3];
        }
        out[2 * k] += scale * fx;
        out[2 * k + 1] += scale * fy;
    }
}

int rattle_chain_step(rattle_chain *c)
{
    enum { MAXN = 2 * RATTLE_MAX_LINKS };
    const int links = c->links, n = 2 * links;
    const double h = c->h, half = 0.5 * h;
    double d0[MAXN], d1[MAXN], pm[MAXN], qfree[MAXN], q1[MAXN], inv_m[RATTLE_MAX_LINKS];
    double lambda[RATTLE_MAX_LINKS], r[RATTLE_MAX_LINKS], lo[RATTLE_MAX_LINKS],
        di[RATTLE_MAX_LINKS], up[RATTLE_MAX_LINKS];
    for (int k = 0; k < links; k++)
        inv_m[k] = 1.0 / c->m[k];
    // p_k + h/2 F and the unconstrained drift
    rod_vectors(links, c->q, d0);
    for (int k = 0; k < links; k++) {
        pm[2 * k] = c->p[2 * k];
        pm[2 * k + 1] = c->p[2 * k + 1] - half * c->m[k] * c->g;
        qfree[2 * k] = c->q[2 * k] + h * inv_m[k] * pm[2 * k];
        qfree[2 * k + 1] = c->q[2 * k + 1] + h * inv_m[k] * pm[2 * k + 1];
    }
    // Newton on λ: φ(q_{k+1}(λ)) = 0, q_{k+1}(λ) = qfree + h²/2 M⁻¹ G(q_k)ᵀ λ
    memcpy(lambda, c->mu, (size_t)links * sizeof *lambda);
    const double c2 = 0.5 * h * h;
    int converged = 0, it = 0;
    while (!converged && it < c->max_iterations) {
        it++;
        memcpy(q1, qfree, (size_t)n * sizeof *q1);
        double scaled[MAXN];
        memset(scaled, 0, (size_t)n * sizeof *scaled);
        add_forms_transposed(links, d0, lambda, c2, scaled);
        for (int k = 0; k < links; k++) {
            q1[2 * k] += inv_m[k] * scaled[2 * k];
            q1[2 * k + 1] += inv_m[k] * scaled[2 * k + 1];
        }
        rod_vectors(links, q1, d1);
        // residual and Jacobian J_ij = h²/2 ∇φ_i(q_{k+1}) · M⁻¹ ∇φ_j(q_k)
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
        thomas(links, lo, di, up, r);
        // converged when the position update h²/2 M⁻¹ G(q_k)ᵀ δλ is below rtol relative to the
        // positions (the multipliers themselves are only accurate to ε/h², as in libdirac)
        double dq[MAXN], qmax = 0.0, dqmax = 0.0;
        memset(dq, 0, (size_t)n * sizeof *dq);
        add_forms_transposed(links, d0, r, c2, dq);
        for (int i = 0; i < links; i++) {
            if (!isfinite(r[i]))
                return -1;
            lambda[i] -= r[i];
        }
        for (int k = 0; k < links; k++)
            for (int j = 0; j < 2; j++) {
                dqmax = fmax(dqmax, fabs(inv_m[k] * dq[2 * k + j]));
                qmax = fmax(qmax, fabs(q1[2 * k + j]));
            }
        converged = dqmax <= fmax(c->rtol, 16.0 * DBL_EPSILON) * qmax;
    }
    c->iterations = it;
    if (!converged)
        return -1;
    // q_{k+1} and p_{k+1/2} from the converged λ
    memcpy(q1, qfree, (size_t)n * sizeof *q1);
    double kick[MAXN];
    memset(kick, 0, (size_t)n * sizeof *kick);
    add_forms_transposed(links, d0, lambda, half, kick);
    for (int k = 0; k < links; k++) {
        for (int j = 0; j < 2; j++) {
            q1[2 * k + j] += h * inv_m[k] * kick[2 * k + j];
            pm[2 * k + j] += kick[2 * k + j];
        }
        pm[2 * k + 1] -= half * c->m[k] * c->g;    // second half kick of gravity
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
    add_forms_transposed(links, d1, nu, 1.0, pm);
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

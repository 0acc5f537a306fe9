// Hand-written lobatto4 and dgrad steps for planar chains on rigid rods (see
// fixedpoint_reference.h for the schemes and the iterations).
#include "fixedpoint_reference.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define SQRT5 2.23606797749978969640917366873127624
#define MAXN (2 * RATTLE_MAX_LINKS)

// The 4-stage Lobatto IIIA–IIIB pair (Jay 1996; the coefficients of src/integ_lobatto.c).
static const double lob_c[4] = { 0.0, 0.5 - SQRT5 / 10.0, 0.5 + SQRT5 / 10.0, 1.0 };
static const double lob_b[4] = { 1.0 / 12.0, 5.0 / 12.0, 5.0 / 12.0, 1.0 / 12.0 };
static const double lob_a[4][4] = {
    { 0.0, 0.0, 0.0, 0.0 },
    { (11.0 + SQRT5) / 120.0, (25.0 - SQRT5) / 120.0, (25.0 - 13.0 * SQRT5) / 120.0,
      (-1.0 + SQRT5) / 120.0 },
    { (11.0 - SQRT5) / 120.0, (25.0 + 13.0 * SQRT5) / 120.0, (25.0 + SQRT5) / 120.0,
      (-1.0 - SQRT5) / 120.0 },
    { 1.0 / 12.0, 5.0 / 12.0, 5.0 / 12.0, 1.0 / 12.0 },
};
// â_ij for j = 1..3 (â_i4 = 0)
static const double lob_ahat[4][3] = {
    { 1.0 / 12.0, (-1.0 - SQRT5) / 24.0, (-1.0 + SQRT5) / 24.0 },
    { 1.0 / 12.0, (25.0 + SQRT5) / 120.0, (25.0 - 13.0 * SQRT5) / 120.0 },
    { 1.0 / 12.0, (25.0 + 13.0 * SQRT5) / 120.0, (25.0 - SQRT5) / 120.0 },
    { 1.0 / 12.0, (11.0 - SQRT5) / 24.0, (11.0 + SQRT5) / 24.0 },
};
// (AÂ)⁻¹ restricted to rows i = 2..4, columns j = 1..3 (the frozen Jacobian's stage factor),
// made once by fixedpoint_chain_init
static double lob_binv[3][3];

static inline double max_of(double a, double b) { return a > b ? a : b; }

// Straight-line code once the link count is a constant (1, 2) at the call site.
#define ALWAYS_INLINE __attribute__((always_inline))

// d_i = q_i − q_{i−1} (q_0 = 0)
static inline ALWAYS_INLINE void rods(const int links, const double *q, double *d)
{
    d[0] = q[0];
    d[1] = q[1];
    for (int i = 1; i < links; i++) {
        d[2 * i] = q[2 * i] - q[2 * i - 2];
        d[2 * i + 1] = q[2 * i + 1] - q[2 * i - 1];
    }
}

// (G(d)ᵀ λ) at particle k, component j: 2 λ_k d_k − 2 λ_{k+1} d_{k+1}
static inline ALWAYS_INLINE double forms_t(const int links, const double *d, const double *lambda,
                                           int k, int j)
{
    double f = 2.0 * lambda[k] * d[2 * k + j];
    if (k + 1 < links)
        f -= 2.0 * lambda[k + 1] * d[2 * k + 2 + j];
    return f;
}

// The tridiagonal J_ij = 4 s (e_i · d_j) w_ij, the chain's ∇φ(e) M⁻¹ ∇φ(d)ᵀ times s, factored
// in place for thomas_solve (di: pivots, lo: multipliers, up: super-diagonal).
static inline ALWAYS_INLINE void chain_matrix(const int links, const double *e, const double *d,
                                              const double *im, double s, double *lo,
                                              double *di, double *up)
{
    for (int i = 0; i < links; i++) {
        double ex = e[2 * i], ey = e[2 * i + 1];
        di[i] = 4.0 * s * (ex * d[2 * i] + ey * d[2 * i + 1]) * (im[i] + (i > 0 ? im[i - 1] : 0.0));
        if (i + 1 < links)
            up[i] = -4.0 * s * (ex * d[2 * i + 2] + ey * d[2 * i + 3]) * im[i];
        if (i > 0)
            lo[i] = -4.0 * s * (ex * d[2 * i - 2] + ey * d[2 * i - 1]) * im[i - 1];
    }
    for (int i = 1; i < links; i++) {
        lo[i] /= di[i - 1];
        di[i] -= lo[i] * up[i - 1];
    }
}

static inline ALWAYS_INLINE void thomas_solve(const int links, const double *lo, const double *di,
                                              const double *up, double *r)
{
    for (int i = 1; i < links; i++)
        r[i] -= lo[i] * r[i - 1];
    r[links - 1] /= di[links - 1];
    for (int i = links - 2; i >= 0; i--)
        r[i] = (r[i] - up[i] * r[i + 1]) / di[i];
}

static void invert3(double m[3][3], double out[3][3])
{
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                 m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            // cofactor of m[j][i]
            int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
            out[i][j] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / det;
        }
}

int fixedpoint_chain_init(fixedpoint_chain *c, int links, const double *m, const double *l,
                          double g, double h, double rtol, const double *q0, const double *v0)
{
    memset(c, 0, sizeof *c);
    if (rattle_chain_init(&c->chain, links, m, l, g, h, rtol, q0, v0) != 0)
        return -1;
    // ∂φ(Q_i)/∂Λ_j = h² Σ_k a_ik â_kj G M⁻¹ Gᵀ: the factor (AÂ)_ij, i = 2..4, j = 1..3
    double ab[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            ab[i][j] = 0.0;
            for (int k = 0; k < 4; k++)
                ab[i][j] += lob_a[i + 1][k] * lob_ahat[k][j];
        }
    invert3(ab, lob_binv);
    return 0;
}

static inline ALWAYS_INLINE int lobatto4_links(fixedpoint_chain *fc, const int links)
{
    rattle_chain *c = &fc->chain;
    if (links < 1 || links > RATTLE_MAX_LINKS)
        return -1;
    const int n = 2 * links;
    const double h = c->h, tol = max_of(c->rtol, 16.0 * DBL_EPSILON), ih2 = 1.0 / (h * h);
    double im[RATTLE_MAX_LINKS], force[MAXN], ql[MAXN];
    for (int k = 0; k < links; k++) {
        im[k] = 1.0 / c->m[k];
        force[2 * k] = 0.0;
        force[2 * k + 1] = -c->m[k] * c->g;
        ql[2 * k] = c->q[2 * k];
        ql[2 * k + 1] = c->q[2 * k + 1];
    }
    // the frozen Jacobian's chain factor G(q_k) M⁻¹ G(q_k)ᵀ, factored once
    double D[3][MAXN], lo[RATTLE_MAX_LINKS], di[RATTLE_MAX_LINKS], up[RATTLE_MAX_LINKS];
    rods(links, ql, D[0]);
    chain_matrix(links, D[0], D[0], im, 1.0, lo, di, up);
    // guesses: Q_j = q_k + c_j h v_k; Λ_j from the last step (its Λ_4 at the first one)
    double Q[4][MAXN], V[4][MAXN], f[3][MAXN], lambda[3][RATTLE_MAX_LINKS];
    for (int j = 0; j < 4; j++)
        for (int x = 0; x < n; x++)
            Q[j][x] = ql[x] + lob_c[j] * h * im[x / 2] * c->p[x];
    for (int j = 0; j < 3; j++)
        for (int a = 0; a < links; a++)
            lambda[j][a] = fc->started ? fc->stage_lambda[j][a] : c->mu[a];
    rods(links, Q[1], D[1]);
    rods(links, Q[2], D[2]);
    int it = 0, converged = 0;
    for (;;) {
        // f_j = F + G(Q_j)ᵀ Λ_j; M V_i = p_k + h Σ_j â_ij f_j; Q_i = q_k + h Σ_j a_ij V_j
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < links; k++) {
                f[j][2 * k] = force[2 * k] + forms_t(links, D[j], lambda[j], k, 0);
                f[j][2 * k + 1] = force[2 * k + 1] + forms_t(links, D[j], lambda[j], k, 1);
            }
        for (int i = 0; i < 4; i++)
            for (int x = 0; x < n; x++)
                V[i][x] = im[x / 2] * (c->p[x] + h * (lob_ahat[i][0] * f[0][x] +
                                                      lob_ahat[i][1] * f[1][x] +
                                                      lob_ahat[i][2] * f[2][x]));
        double change = 0.0, qmax = 0.0;
        for (int i = 1; i < 4; i++)
            for (int x = 0; x < n; x++) {
                double qn = ql[x] + h * (lob_a[i][0] * V[0][x] + lob_a[i][1] * V[1][x] +
                                         lob_a[i][2] * V[2][x] + lob_a[i][3] * V[3][x]);
                change = max_of(change, fabs(qn - Q[i][x]));
                qmax = max_of(qmax, fabs(qn));
                Q[i][x] = qn;
            }
        if (!(change < HUGE_VAL))
            return -1;
        if (it > 0 && change <= tol * qmax) {
            converged = 1;
            break;
        }
        if (it == c->max_iterations)
            break;
        it++;
        // r_i = φ(Q_i); δΛ = ((AÂ)⁻¹ ⊗ (G M⁻¹ Gᵀ)⁻¹) r / h²
        double r[3][RATTLE_MAX_LINKS], d3[MAXN];
        rods(links, Q[1], D[1]);
        rods(links, Q[2], D[2]);
        rods(links, Q[3], d3);
        for (int a = 0; a < links; a++) {
            double l2 = c->l[a] * c->l[a];
            r[0][a] = D[1][2 * a] * D[1][2 * a] + D[1][2 * a + 1] * D[1][2 * a + 1] - l2;
            r[1][a] = D[2][2 * a] * D[2][2 * a] + D[2][2 * a + 1] * D[2][2 * a + 1] - l2;
            r[2][a] = d3[2 * a] * d3[2 * a] + d3[2 * a + 1] * d3[2 * a + 1] - l2;
        }
        for (int i = 0; i < 3; i++)
            thomas_solve(links, lo, di, up, r[i]);
        for (int j = 0; j < 3; j++)
            for (int a = 0; a < links; a++)
                lambda[j][a] -= ih2 * (lob_binv[j][0] * r[0][a] + lob_binv[j][1] * r[1][a] +
                                       lob_binv[j][2] * r[2][a]);
    }
    c->iterations = it;
    if (!converged)
        return -1;
    // the end: p* = p_k + h Σ_j b_j f_j (f_4 = F); (G M⁻¹ Gᵀ) ν = −G M⁻¹ p* at q_{k+1};
    // p_{k+1} = p* + G(q_{k+1})ᵀ ν, Λ_4 = ν / (h b_4)
    double ps[MAXN], d1[MAXN], nu[RATTLE_MAX_LINKS];
    for (int x = 0; x < n; x++)
        ps[x] = c->p[x] + h * (lob_b[0] * f[0][x] + lob_b[1] * f[1][x] + lob_b[2] * f[2][x] +
                               lob_b[3] * force[x]);
    rods(links, Q[3], d1);
    for (int i = 0; i < links; i++) {
        double vx = im[i] * ps[2 * i], vy = im[i] * ps[2 * i + 1];
        if (i > 0) {
            vx -= im[i - 1] * ps[2 * i - 2];
            vy -= im[i - 1] * ps[2 * i - 1];
        }
        nu[i] = -2.0 * (d1[2 * i] * vx + d1[2 * i + 1] * vy);
    }
    chain_matrix(links, d1, d1, im, 1.0, lo, di, up);
    thomas_solve(links, lo, di, up, nu);
    for (int k = 0; k < links; k++) {
        ps[2 * k] += forms_t(links, d1, nu, k, 0);
        ps[2 * k + 1] += forms_t(links, d1, nu, k, 1);
    }
    for (int x = 0; x < n; x++)
        if (!isfinite(ps[x]) || !isfinite(Q[3][x]))
            return -1;
    memcpy(c->q, Q[3], (size_t)n * sizeof(double));
    memcpy(c->p, ps, (size_t)n * sizeof(double));
    for (int a = 0; a < links; a++) {
        c->mu[a] = nu[a] / (h * lob_b[3]);
        for (int j = 0; j < 3; j++)
            fc->stage_lambda[j][a] = lambda[j][a];
    }
    fc->started = 1;
    c->t += h;
    return 0;
}

int fixedpoint_lobatto4_step(fixedpoint_chain *c)
{
    if (c->chain.links == 1)
        return lobatto4_links(c, 1);
    if (c->chain.links == 2)
        return lobatto4_links(c, 2);
    return lobatto4_links(c, c->chain.links);
}

static inline ALWAYS_INLINE int dgrad_links(fixedpoint_chain *fc, const int links)
{
    rattle_chain *c = &fc->chain;
    if (links < 1 || links > RATTLE_MAX_LINKS)
        return -1;
    const int n = 2 * links;
    const double h = c->h, c2 = 0.5 * h * h, tol = max_of(c->rtol, 16.0 * DBL_EPSILON);
    double im[RATTLE_MAX_LINKS], force[MAXN], ql[MAXN], qhat[MAXN], q1[MAXN];
    double d0[MAXN], d1[MAXN], dbar[MAXN], lambda[RATTLE_MAX_LINKS], r[RATTLE_MAX_LINKS];
    double lo[RATTLE_MAX_LINKS], di[RATTLE_MAX_LINKS], up[RATTLE_MAX_LINKS];
    for (int k = 0; k < links; k++) {
        im[k] = 1.0 / c->m[k];
        force[2 * k] = 0.0;
        force[2 * k + 1] = -c->m[k] * c->g;
        lambda[k] = c->mu[k];
    }
    // q_{k+1}(λ, q̄) = q̂ + h²/2 M⁻¹ G(q̄)ᵀ λ, q̂ = q_k + h M⁻¹ (p_k + h/2 F); guess with q̄ = q_k
    for (int x = 0; x < n; x++) {
        ql[x] = c->q[x];
        qhat[x] = ql[x] + h * im[x / 2] * (c->p[x] + 0.5 * h * force[x]);
    }
    rods(links, ql, d0);
    for (int k = 0; k < links; k++)
        for (int j = 0; j < 2; j++)
            q1[2 * k + j] = qhat[2 * k + j] + c2 * im[k] * forms_t(links, d0, lambda, k, j);
    rods(links, q1, d1);
    int it = 0, converged = 0;
    while (!converged && it < c->max_iterations) {
        it++;
        // the rods at q̄ (affine in q), q_{k+1} and φ(q_{k+1})
        for (int x = 0; x < n; x++)
            dbar[x] = 0.5 * (d0[x] + d1[x]);
        for (int k = 0; k < links; k++)
            for (int j = 0; j < 2; j++)
                q1[2 * k + j] = qhat[2 * k + j] + c2 * im[k] * forms_t(links, dbar, lambda, k, j);
        rods(links, q1, d1);
        for (int a = 0; a < links; a++)
            r[a] = d1[2 * a] * d1[2 * a] + d1[2 * a + 1] * d1[2 * a + 1] - c->l[a] * c->l[a];
        // Newton: h²/2 G(q_{k+1}) M⁻¹ G(q̄)ᵀ δλ = φ; q_{k+1} follows λ (same q̄)
        chain_matrix(links, d1, dbar, im, c2, lo, di, up);
        thomas_solve(links, lo, di, up, r);
        double dqmax = 0.0, qmax = 0.0;
        for (int a = 0; a < links; a++)
            lambda[a] -= r[a];
        for (int k = 0; k < links; k++)
            for (int j = 0; j < 2; j++) {
                double dq = c2 * im[k] * forms_t(links, dbar, r, k, j);
                q1[2 * k + j] -= dq;
                dqmax = max_of(dqmax, fabs(dq));
                qmax = max_of(qmax, fabs(q1[2 * k + j]));
            }
        if (!(dqmax < HUGE_VAL))
            return -1;
        rods(links, q1, d1);
        converged = dqmax <= tol * qmax;
    }
    c->iterations = it;
    if (!converged)
        return -1;
    // the step from the converged λ: kick = h/2 (F + G(q̄)ᵀ λ), p̄ = p_k + kick = M v̄,
    // q_{k+1} = q_k + h v̄, p_{k+1} = p_k + 2 kick
    double p1[MAXN];
    for (int x = 0; x < n; x++)
        dbar[x] = 0.5 * (d0[x] + d1[x]);
    for (int k = 0; k < links; k++)
        for (int j = 0; j < 2; j++) {
            int x = 2 * k + j;
            double kick = 0.5 * h * (force[x] + forms_t(links, dbar, lambda, k, j));
            q1[x] = ql[x] + h * im[k] * (c->p[x] + kick);
            p1[x] = c->p[x] + 2.0 * kick;
        }
    for (int x = 0; x < n; x++)
        if (!isfinite(p1[x]) || !isfinite(q1[x]))
            return -1;
    memcpy(c->q, q1, (size_t)n * sizeof(double));
    memcpy(c->p, p1, (size_t)n * sizeof(double));
    memcpy(c->mu, lambda, (size_t)links * sizeof(double));
    c->t += h;
    return 0;
}

int fixedpoint_dgrad_step(fixedpoint_chain *c)
{
    if (c->chain.links == 1)
        return dgrad_links(c, 1);
    if (c->chain.links == 2)
        return dgrad_links(c, 2);
    return dgrad_links(c, c->chain.links);
}

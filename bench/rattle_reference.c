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

// The pendulum (one link): λ is a scalar. With q_{k+1}(λ) = q̂ + k λ q_k, k = h²/m (q̂ the
// unconstrained drift), Newton on r(λ) = |q_{k+1}(λ)|² − l², r' = 2k q_{k+1}·q_k, warm-started
// from the last multiplier: two iterations at practical steps. Same convergence test as the
// general chain below (position update relative to max |q_{k+1}|).
static int step_one_link(rattle_chain *c)
{
    const double h = c->h, half = 0.5 * h, m = c->m[0], im = 1.0 / m, l2 = c->l[0] * c->l[0];
    const double tol = max_of(c->rtol, 16.0 * DBL_EPSILON);
    const double x = c->q[0], y = c->q[1], px = c->p[0], py = c->p[1] - half * m * c->g;
    const double fx = x + h * im * px, fy = y + h * im * py, k = h * h * im;
    const double qscale = max_of(fabs(x), fabs(y));
    double lambda = c->mu[0], x1 = fx, y1 = fy;
    int it = 0, converged = 0;
    while (!converged && it < c->max_iterations) {
        it++;
        x1 = fx + k * lambda * x;
        y1 = fy + k * lambda * y;
        double r = x1 * x1 + y1 * y1 - l2, slope = 2.0 * k * (x1 * x + y1 * y);
        double step = r / slope;
        if (!isfinite(step))
            return -1;
        lambda -= step;
        converged = fabs(k * step) * qscale <= tol * max_of(fabs(x1), fabs(y1));
    }
    c->iterations = it;
    if (!converged)
        return -1;
    // p_{k+1/2}, q_{k+1}; velocity stage q_{k+1}·(p̂ + 2ν q_{k+1}) = 0:
    // ν = −q_{k+1}·p̂ / (2 |q_{k+1}|²)
    double kx = h * lambda * x, ky = h * lambda * y;   // h/2 Gᵀλ, G = 2 q_kᵀ
    double qx = px + kx, qy = py + ky - half * m * c->g;
    x1 = fx + h * im * kx;
    y1 = fy + h * im * ky;
    double nu = -0.5 * (x1 * qx + y1 * qy) / (x1 * x1 + y1 * y1);
    qx += 2.0 * nu * x1;
    qy += 2.0 * nu * y1;
    if (!isfinite(qx) || !isfinite(qy) || !isfinite(x1) || !isfinite(y1))
        return -1;
    c->q[0] = x1;
    c->q[1] = y1;
    c->p[0] = qx;
    c->p[1] = qy;
    c->mu[0] = nu / half;
    c->t += h;
    return 0;
}

// The double pendulum (two links): λ ∈ R², the 2x2 Newton matrix and the velocity stage's
// 2x2 system solved in closed form (Cramer), rods d_1 = q_1, d_2 = q_2 − q_1.
static int step_two_links(rattle_chain *c)
{
    const double h = c->h, half = 0.5 * h, c2 = 0.5 * h * h;
    const double tol = max_of(c->rtol, 16.0 * DBL_EPSILON);
    const double im0 = 1.0 / c->m[0], im1 = 1.0 / c->m[1];
    const double l0 = c->l[0] * c->l[0], l1 = c->l[1] * c->l[1];
    const double ax = c->q[0], ay = c->q[1], bx = c->q[2] - c->q[0], by = c->q[3] - c->q[1];
    const double p0x = c->p[0], p0y = c->p[1] - half * c->m[0] * c->g;
    const double p1x = c->p[2], p1y = c->p[3] - half * c->m[1] * c->g;
    const double f0x = c->q[0] + h * im0 * p0x, f0y = c->q[1] + h * im0 * p0y;
    const double f1x = c->q[2] + h * im1 * p1x, f1y = c->q[3] + h * im1 * p1y;
    double l_a = c->mu[0], l_b = c->mu[1];
    double x0 = f0x, y0 = f0y, x1 = f1x, y1 = f1y;
    int it = 0, converged = 0;
    while (!converged && it < c->max_iterations) {
        it++;
        // q_{k+1}(λ) = q̂ + h²/2 M⁻¹ G(q_k)ᵀ λ; G(q_k)ᵀ λ = (2λ_a a − 2λ_b b, 2λ_b b)
        double g0x = 2.0 * (l_a * ax - l_b * bx), g0y = 2.0 * (l_a * ay - l_b * by);
        double g1x = 2.0 * l_b * bx, g1y = 2.0 * l_b * by;
        x0 = f0x + c2 * im0 * g0x;
        y0 = f0y + c2 * im0 * g0y;
        x1 = f1x + c2 * im1 * g1x;
        y1 = f1y + c2 * im1 * g1y;
        double ux = x0, uy = y0, wx = x1 - x0, wy = y1 - y0;   // rods at q_{k+1}
        double r0 = ux * ux + uy * uy - l0, r1 = wx * wx + wy * wy - l1;
        double j00 = 4.0 * c2 * (ux * ax + uy * ay) * im0;
        double j01 = -4.0 * c2 * (ux * bx + uy * by) * im0;
        double j10 = -4.0 * c2 * (wx * ax + wy * ay) * im0;
        double j11 = 4.0 * c2 * (wx * bx + wy * by) * (im0 + im1);
        double det = j00 * j11 - j01 * j10;
        double da = (j11 * r0 - j01 * r1) / det, db = (j00 * r1 - j10 * r0) / det;
        if (!isfinite(da) || !isfinite(db))
            return -1;
        l_a -= da;
        l_b -= db;
        double e0 = c2 * im0 * 2.0 * max_of(fabs(da * ax - db * bx), fabs(da * ay - db * by));
        double e1 = c2 * im1 * 2.0 * max_of(fabs(db * bx), fabs(db * by));
        double qmax = max_of(max_of(fabs(x0), fabs(y0)), max_of(fabs(x1), fabs(y1)));
        converged = max_of(e0, e1) <= tol * qmax;
    }
    c->iterations = it;
    if (!converged)
        return -1;
    // p_{k+1/2} = p̂ + h/2 G(q_k)ᵀ λ, q_{k+1}, then the second half kick of gravity
    double k0x = h * (l_a * ax - l_b * bx), k0y = h * (l_a * ay - l_b * by);
    double k1x = h * l_b * bx, k1y = h * l_b * by;
    x0 = f0x + h * im0 * k0x;
    y0 = f0y + h * im0 * k0y;
    x1 = f1x + h * im1 * k1x;
    y1 = f1y + h * im1 * k1y;
    double s0x = p0x + k0x, s0y = p0y + k0y - half * c->m[0] * c->g;
    double s1x = p1x + k1x, s1y = p1y + k1y - half * c->m[1] * c->g;
    // velocity stage: (G M⁻¹ Gᵀ) ν = −G M⁻¹ p̂ at q_{k+1}, p_{k+1} = p̂ + Gᵀ ν
    double ux = x0, uy = y0, wx = x1 - x0, wy = y1 - y0;
    double v0x = im0 * s0x, v0y = im0 * s0y, v1x = im1 * s1x - v0x, v1y = im1 * s1y - v0y;
    double b0 = -2.0 * (ux * v0x + uy * v0y), b1 = -2.0 * (wx * v1x + wy * v1y);
    double a00 = 4.0 * (ux * ux + uy * uy) * im0, a11 = 4.0 * (wx * wx + wy * wy) * (im0 + im1);
    double a01 = -4.0 * (ux * wx + uy * wy) * im0;
    double det = a00 * a11 - a01 * a01;
    double n0 = (a11 * b0 - a01 * b1) / det, n1 = (a00 * b1 - a01 * b0) / det;
    s0x += 2.0 * (n0 * ux - n1 * wx);
    s0y += 2.0 * (n0 * uy - n1 * wy);
    s1x += 2.0 * n1 * wx;
    s1y += 2.0 * n1 * wy;
    if (!isfinite(s0x + s0y + s1x + s1y + x0 + y0 + x1 + y1))
        return -1;
    c->q[0] = x0, c->q[1] = y0, c->q[2] = x1, c->q[3] = y1;
    c->p[0] = s0x, c->p[1] = s0y, c->p[2] = s1x, c->p[3] = s1y;
    c->mu[0] = n0 / half;
    c->mu[1] = n1 / half;
    c->t += h;
    return 0;
}

int rattle_chain_step(rattle_chain *c)
{
    if (c->links == 1)
        return step_one_link(c);
    if (c->links == 2)
        return step_two_links(c);
    return rattle_chain_step_general(c);
}

int rattle_chain_step_general(rattle_chain *c)
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

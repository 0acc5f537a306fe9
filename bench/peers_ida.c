// Peer of the work-precision benchmark: SUNDIALS IDA (variable-order, variable-step BDF) on
// the stabilized index-2 formulation (Gear-Gupta-Leimkuhler, GGL) of the Cartesian problems
// (bench/workprec.h):
//
//   q' = v + G(q)^T eta          (n)       differential
//   M v' = f(q, v) - G(q)^T lam  (n)       differential
//   0 = g(q)                     (m)       lam, eta algebraic
//   0 = G(q) v                   (m)
//
// with M the constant diagonal mass matrix of the point masses, g the holonomic constraints
// (in the same form as the .dirac models: x^2 + y^2 - l^2, ...) and G = dg/dq. The algebraic
// variables (lam, eta) are excluded from the local error test (IDASetSuppressAlg), as usual for
// index-2 problems. Dense direct linear solver with the analytic Jacobian;
// consistent initial values are computed here (eta = 0, lam from the index-1 equations).
// rtol = tol and atol = tol * (typical magnitude of each component).
//
// The RLC circuit has no holonomic constraint: its DAE in the model's coordinates (inductor
// and capacitor charges, Kirchhoff's current law on the currents, degenerate Lagrangian) is
// index 1 and is given to IDA as it is.
#include "workprec.h"

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_config.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_C 4

typedef struct ggl_problem {
    const wp_params *par;
    int problem;
    int n, m;                  // coordinates, constraints (RLC: n = 2, m = 1, index 1)
    double mass[WP_MAX_Q];
    char message[160];         // last IDA error message
} ggl_problem;

// Applied forces f(q, v).
static void forces(const ggl_problem *pb, const double *q, const double *v, double *f)
{
    const wp_params *p = pb->par;
    for (int i = 0; i < pb->n; i++)
        f[i] = 0.0;
    switch (pb->problem) {
    case WP_PENDULUM:
        f[1] = -p->m * p->g;
        break;
    case WP_DOUBLE_PENDULUM:
        f[1] = -p->m1 * p->g;
        f[3] = -p->m2 * p->g;
        break;
    case WP_SLIDER_CRANK: {
        double spring = p->k * (q[4] - q[2]) + p->c * (v[4] - v[2]);
        f[2] = spring;
        f[4] = -spring;
        break;
    }
    default:
        break;
    }
}

// The rod of length l1 from the pivot at the origin to point 1 (q[0], q[1]): row 0 of g, G and
// the curvature term; with `two_rods`, also the rod of length l2 from point 1 to point 2
// (q[2], q[3]): row 1. φ = |x_b − x_a|² − l², G = 2 (x_b − x_a)ᵀ [−I I], (dG/dt) v = 2 |v_b − v_a|².
static void rods(int n, const double *q, const double *v, double l1, double l2, int two_rods,
                 double *g, double *G, double *curvature)
{
    if (g)
        g[0] = q[0] * q[0] + q[1] * q[1] - l1 * l1;
    if (G) {
        G[0] = 2.0 * q[0];
        G[1] = 2.0 * q[1];
    }
    if (curvature)
        curvature[0] = 2.0 * (v[0] * v[0] + v[1] * v[1]);
    if (!two_rods)
        return;
    double dx = q[2] - q[0], dy = q[3] - q[1];
    if (g)
        g[1] = dx * dx + dy * dy - l2 * l2;
    if (G) {
        G[n + 0] = -2.0 * dx;
        G[n + 1] = -2.0 * dy;
        G[n + 2] = 2.0 * dx;
        G[n + 3] = 2.0 * dy;
    }
    if (curvature) {
        double du = v[2] - v[0], dv = v[3] - v[1];
        curvature[1] = 2.0 * (du * du + dv * dv);
    }
}

// Constraints g(q), Jacobian G (m x n, row-major) and the curvature term (dG/dt) v.
static void constraints(const ggl_problem *pb, const double *q, const double *v, double *g,
                        double *G, double *curvature)
{
    const wp_params *p = pb->par;
    int n = pb->n;
    if (G)
        memset(G, 0, (size_t)(pb->m * n) * sizeof *G);
    switch (pb->problem) {
    case WP_PENDULUM:
        rods(n, q, v, p->l, 0.0, 0, g, G, curvature);
        break;
    case WP_DOUBLE_PENDULUM:
        rods(n, q, v, p->l1, p->l2, 1, g, G, curvature);
        break;
    default:   // WP_SLIDER_CRANK: crank, rod, and the guide y2 = 0 of the slider
        rods(n, q, v, p->r, p->rl, 1, g, G, curvature);
        if (g)
            g[2] = q[3];
        if (G)
            G[2 * n + 3] = 1.0;
        if (curvature)
            curvature[2] = 0.0;
        break;
    }
}

static int ggl_residual(realtype t, N_Vector yy, N_Vector yp, N_Vector rr, void *user_data)
{
    (void)t;
    const ggl_problem *pb = user_data;
    int n = pb->n, m = pb->m;
    const double *y = N_VGetArrayPointer(yy), *dy = N_VGetArrayPointer(yp);
    double *r = N_VGetArrayPointer(rr);
    const double *q = y, *v = y + n, *lam = y + 2 * n, *eta = y + 2 * n + m;
    if (pb->problem == WP_RLC) {
        // y = (qL, qC, vL, vC, mu): qL' = vL, qC' = vC, Lind vL' = -R vL + mu,
        // 0 = dL/dqC - mu = -qC/C - mu, 0 = vL - vC
        const wp_params *p = pb->par;
        r[0] = dy[0] - y[2];
        r[1] = dy[1] - y[3];
        r[2] = p->Lind * dy[2] + p->R * y[2] - y[4];
        r[3] = -y[1] / p->C - y[4];
        r[4] = y[2] - y[3];
        return 0;
    }
    double f[WP_MAX_Q], g[MAX_C] = { 0 }, G[MAX_C * WP_MAX_Q];
    forces(pb, q, v, f);
    constraints(pb, q, v, g, G, NULL);
    for (int i = 0; i < n; i++) {
        double gt_eta = 0.0, gt_lam = 0.0;
        for (int a = 0; a < m; a++) {
            gt_eta += G[a * n + i] * eta[a];
            gt_lam += G[a * n + i] * lam[a];
        }
        r[i] = dy[i] - v[i] - gt_eta;
        r[n + i] = pb->mass[i] * dy[n + i] - f[i] + gt_lam;
    }
    for (int a = 0; a < m; a++) {
        double gv = 0.0;
        for (int i = 0; i < n; i++)
            gv += G[a * n + i] * v[i];
        r[2 * n + a] = g[a];
        r[2 * n + m + a] = gv;
    }
    return 0;
}

// Second derivatives of constraint a (n x n, row-major; all constraints here are quadratic,
// so their Hessians are constant).
static void constraint_hessian(const ggl_problem *pb, int a, double *H)
{
    int n = pb->n;
    memset(H, 0, (size_t)(n * n) * sizeof *H);
    if (pb->problem == WP_SLIDER_CRANK && a == 2)
        return;   // guide: y2 = 0 is linear
    if (a == 0) {   // |q_0|^2 (pendulum, first rod, crank)
        H[0] = H[n + 1] = 2.0;
        return;
    }
    // |q_1 - q_0|^2 over coordinates 0..3 (second rod, connecting rod)
    for (int d = 0; d < 2; d++) {
        int i = d, j = 2 + d;
        H[i * n + i] = H[j * n + j] = 2.0;
        H[i * n + j] = H[j * n + i] = -2.0;
    }
}

// Jacobians of the applied forces: df/dq and df/dv (n x n, row-major).
static void force_jacobians(const ggl_problem *pb, double *dfdq, double *dfdv)
{
    int n = pb->n;
    memset(dfdq, 0, (size_t)(n * n) * sizeof *dfdq);
    memset(dfdv, 0, (size_t)(n * n) * sizeof *dfdv);
    if (pb->problem != WP_SLIDER_CRANK)
        return;   // uniform gravity
    const wp_params *p = pb->par;
    // f2 = k (q4 - q2) + c (v4 - v2), f4 = -f2
    dfdq[2 * n + 2] = -p->k, dfdq[2 * n + 4] = p->k;
    dfdq[4 * n + 2] = p->k, dfdq[4 * n + 4] = -p->k;
    dfdv[2 * n + 2] = -p->c, dfdv[2 * n + 4] = p->c;
    dfdv[4 * n + 2] = p->c, dfdv[4 * n + 4] = -p->c;
}

// Analytic iteration matrix dF/dy + cj dF/dy'.
static int ggl_jacobian(realtype t, realtype cj, N_Vector yy, N_Vector yp, N_Vector rr,
                        SUNMatrix J, void *user_data, N_Vector tmp1, N_Vector tmp2,
                        N_Vector tmp3)
{
    (void)t;
    (void)yp;
    (void)rr;
    (void)tmp1;
    (void)tmp2;
    (void)tmp3;
    const ggl_problem *pb = user_data;
    const double *y = N_VGetArrayPointer(yy);
    SUNMatZero(J);
    if (pb->problem == WP_RLC) {
        const wp_params *p = pb->par;
        SM_ELEMENT_D(J, 0, 0) = cj;
        SM_ELEMENT_D(J, 0, 2) = -1.0;
        SM_ELEMENT_D(J, 1, 1) = cj;
        SM_ELEMENT_D(J, 1, 3) = -1.0;
        SM_ELEMENT_D(J, 2, 2) = cj * p->Lind + p->R;
        SM_ELEMENT_D(J, 2, 4) = -1.0;
        SM_ELEMENT_D(J, 3, 1) = -1.0 / p->C;
        SM_ELEMENT_D(J, 3, 4) = -1.0;
        SM_ELEMENT_D(J, 4, 2) = 1.0;
        SM_ELEMENT_D(J, 4, 3) = -1.0;
        return 0;
    }
    int n = pb->n, m = pb->m;
    const double *q = y, *v = y + n, *lam = y + 2 * n, *eta = y + 2 * n + m;
    double G[MAX_C * WP_MAX_Q], H[WP_MAX_Q * WP_MAX_Q];
    double dfdq[WP_MAX_Q * WP_MAX_Q], dfdv[WP_MAX_Q * WP_MAX_Q];
    constraints(pb, q, v, NULL, G, NULL);
    force_jacobians(pb, dfdq, dfdv);
    for (int i = 0; i < n; i++) {
        SM_ELEMENT_D(J, i, i) = cj;
        SM_ELEMENT_D(J, i, n + i) = -1.0;
        for (int j = 0; j < n; j++) {
            SM_ELEMENT_D(J, n + i, j) = -dfdq[i * n + j];
            SM_ELEMENT_D(J, n + i, n + j) = -dfdv[i * n + j];
        }
        SM_ELEMENT_D(J, n + i, n + i) += cj * pb->mass[i];
        for (int a = 0; a < m; a++) {
            SM_ELEMENT_D(J, i, 2 * n + m + a) = -G[a * n + i];
            SM_ELEMENT_D(J, n + i, 2 * n + a) = G[a * n + i];
        }
    }
    for (int a = 0; a < m; a++) {
        constraint_hessian(pb, a, H);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                SM_ELEMENT_D(J, i, j) -= eta[a] * H[i * n + j];
                SM_ELEMENT_D(J, n + i, j) += lam[a] * H[i * n + j];
            }
        for (int j = 0; j < n; j++) {
            double hv = 0.0;
            for (int i = 0; i < n; i++)
                hv += H[i * n + j] * v[i];
            SM_ELEMENT_D(J, 2 * n + a, j) = G[a * n + j];
            SM_ELEMENT_D(J, 2 * n + m + a, j) = hv;
            SM_ELEMENT_D(J, 2 * n + m + a, n + j) = G[a * n + j];
        }
    }
    return 0;
}

static void quiet_errors(int error_code, const char *module, const char *function, char *msg,
                         void *user_data)
{
    (void)error_code;
    (void)module;
    ggl_problem *pb = user_data;
    snprintf(pb->message, sizeof pb->message, "%s: %s", function, msg);
}

// Solves the m x m system A x = b (m <= MAX_C) by Gaussian elimination with partial pivoting.
static void solve_small(int m, double *A, double *b)
{
    for (int k = 0; k < m; k++) {
        int piv = k;
        for (int i = k + 1; i < m; i++)
            if (fabs(A[i * m + k]) > fabs(A[piv * m + k]))
                piv = i;
        if (piv != k) {
            for (int j = 0; j < m; j++) {
                double tmp = A[k * m + j];
                A[k * m + j] = A[piv * m + j];
                A[piv * m + j] = tmp;
            }
            double tmp = b[k];
            b[k] = b[piv];
            b[piv] = tmp;
        }
        for (int i = k + 1; i < m; i++) {
            double factor = A[i * m + k] / A[k * m + k];
            for (int j = k; j < m; j++)
                A[i * m + j] -= factor * A[k * m + j];
            b[i] -= factor * b[k];
        }
    }
    for (int k = m - 1; k >= 0; k--) {
        for (int j = k + 1; j < m; j++)
            b[k] -= A[k * m + j] * b[j];
        b[k] /= A[k * m + k];
    }
}

// Initial state, derivative, absolute-tolerance scales and differential/algebraic flags.
static void initial_values(ggl_problem *pb, double *y, double *yp, double *scale, double *id)
{
    const wp_params *p = pb->par;
    int n, m;
    memset(pb->mass, 0, sizeof pb->mass);
    switch (pb->problem) {
    case WP_PENDULUM:
        n = 2, m = 1;
        pb->mass[0] = pb->mass[1] = p->m;
        y[0] = p->l * sin(p->theta0);
        y[1] = -p->l * cos(p->theta0);
        y[2] = y[3] = 0.0;
        for (int i = 0; i < 2 * n; i++)
            scale[i] = i < n ? p->l : p->l * sqrt(p->g / p->l);
        break;
    case WP_DOUBLE_PENDULUM:
        n = 4, m = 2;
        pb->mass[0] = pb->mass[1] = p->m1;
        pb->mass[2] = pb->mass[3] = p->m2;
        y[0] = p->l1 * sin(p->th1);
        y[1] = -p->l1 * cos(p->th1);
        y[2] = y[0] + p->l2 * sin(p->th2);
        y[3] = y[1] - p->l2 * cos(p->th2);
        for (int i = n; i < 2 * n; i++)
            y[i] = 0.0;
        for (int i = 0; i < 2 * n; i++)
            scale[i] = i < n ? p->l1 : p->l1 * sqrt(p->g / p->l1);
        break;
    case WP_RLC:
        pb->n = 2, pb->m = 1;
        // y = (qL, qC, vL, vC, mu)
        y[0] = 0.0;
        y[1] = p->Q0;
        y[2] = y[3] = 0.0;
        y[4] = -p->Q0 / p->C;
        memset(yp, 0, 5 * sizeof *yp);
        yp[2] = (y[4] - p->R * y[2]) / p->Lind;
        scale[0] = scale[1] = p->Q0;
        scale[2] = scale[3] = p->Q0 / sqrt(p->Lind * p->C);
        scale[4] = p->Q0 / p->C;
        id[0] = id[1] = id[2] = 1.0;
        id[3] = id[4] = 0.0;
        return;
    default:   // WP_SLIDER_CRANK
        n = 5, m = 3;
        pb->mass[0] = pb->mass[1] = p->sm1;
        pb->mass[2] = pb->mass[3] = p->sm2;
        pb->mass[4] = p->sm3;
        y[0] = p->r;
        y[1] = 0.0;
        y[2] = p->r + p->rl;
        y[3] = 0.0;
        y[4] = p->r + p->rl;
        for (int i = n; i < 2 * n; i++)
            y[i] = 0.0;
        y[n + 1] = p->r * p->w0;
        for (int i = 0; i < 2 * n; i++)
            scale[i] = i < n ? p->r : p->r * p->w0;
        break;
    }
    pb->n = n;
    pb->m = m;
    const double *q = y, *v = y + n;
    double f[WP_MAX_Q], G[MAX_C * WP_MAX_Q], curvature[MAX_C], A[MAX_C * MAX_C], b[MAX_C];
    forces(pb, q, v, f);
    constraints(pb, q, v, NULL, G, curvature);
    // (G M^-1 G^T) lam = G M^-1 f + (dG/dt) v
    for (int a = 0; a < m; a++) {
        b[a] = curvature[a];
        for (int i = 0; i < n; i++)
            b[a] += G[a * n + i] * f[i] / pb->mass[i];
        for (int c = 0; c < m; c++) {
            A[a * m + c] = 0.0;
            for (int i = 0; i < n; i++)
                A[a * m + c] += G[a * n + i] * G[c * n + i] / pb->mass[i];
        }
    }
    solve_small(m, A, b);
    for (int a = 0; a < m; a++) {
        y[2 * n + a] = b[a];
        y[2 * n + m + a] = 0.0;
    }
    for (int i = 0; i < n; i++) {
        double gt_lam = 0.0;
        for (int a = 0; a < m; a++)
            gt_lam += G[a * n + i] * b[a];
        yp[i] = v[i];
        yp[n + i] = (f[i] - gt_lam) / pb->mass[i];
    }
    for (int a = 0; a < 2 * m; a++)
        yp[2 * n + a] = 0.0;
    for (int i = 0; i < 2 * n + 2 * m; i++) {
        id[i] = i < 2 * n ? 1.0 : 0.0;
        if (i >= 2 * n)
            scale[i] = 1.0;
    }
}

void wp_ida_run(int problem, const wp_params *par, double tol, double t_end, wp_result *out)
{
    memset(out, 0, sizeof *out);
    ggl_problem pb = { .par = par, .problem = problem };
    double y0[32], yp0[32], scale[32], id0[32];
    initial_values(&pb, y0, yp0, scale, id0);
    int size = problem == WP_RLC ? 5 : 2 * pb.n + 2 * pb.m;

    SUNContext ctx = NULL;
    if (SUNContext_Create(NULL, &ctx) != 0) {
        snprintf(out->message, sizeof out->message, "SUNContext_Create failed");
        return;
    }
    N_Vector yy = N_VNew_Serial(size, ctx), yp = N_VNew_Serial(size, ctx);
    N_Vector atol = N_VNew_Serial(size, ctx), id = N_VNew_Serial(size, ctx);
    double *y = N_VGetArrayPointer(yy), *dy = N_VGetArrayPointer(yp);
    for (int i = 0; i < size; i++) {
        y[i] = y0[i];
        dy[i] = yp0[i];
        N_VGetArrayPointer(atol)[i] = tol * scale[i];
        N_VGetArrayPointer(id)[i] = id0[i];
    }
    void *mem = IDACreate(ctx);
    SUNMatrix A = SUNDenseMatrix(size, size, ctx);
    SUNLinearSolver LS = SUNLinSol_Dense(yy, A, ctx);
    int flag = IDAInit(mem, ggl_residual, 0.0, yy, yp);
    if (flag == IDA_SUCCESS)
        flag = IDASetUserData(mem, &pb);
    if (flag == IDA_SUCCESS)
        flag = IDASetErrHandlerFn(mem, quiet_errors, &pb);
    if (flag == IDA_SUCCESS)
        flag = IDASVtolerances(mem, tol, atol);
    if (flag == IDA_SUCCESS)
        flag = IDASetLinearSolver(mem, LS, A);
    if (flag == IDA_SUCCESS)
        flag = IDASetJacFn(mem, ggl_jacobian);
    if (flag == IDA_SUCCESS)
        flag = IDASetId(mem, id);
    if (flag == IDA_SUCCESS)
        flag = IDASetSuppressAlg(mem, SUNTRUE);
    if (flag == IDA_SUCCESS)
        flag = IDASetMaxNumSteps(mem, 100000000L);
    if (flag == IDA_SUCCESS)
        flag = IDASetStopTime(mem, t_end);
    // IDA's own initial step is tiny at tight tolerances, where the iteration matrix of the
    // index-2 system (condition ~ 1/h^2) makes its first Newton iterations fail; start at
    // 1e-4 t_end instead (the error test shrinks it if needed).
    if (flag == IDA_SUCCESS)
        flag = IDASetInitStep(mem, 1e-4 * t_end);
    realtype t = 0.0;
    if (flag == IDA_SUCCESS)
        flag = IDASolve(mem, t_end, &t, yy, yp, IDA_NORMAL);
    long steps = 0, test_fails = 0, conv_fails = 0;
    IDAGetNumSteps(mem, &steps);
    IDAGetNumErrTestFails(mem, &test_fails);
    IDAGetNumNonlinSolvConvFails(mem, &conv_fails);
    out->steps = steps;
    out->rejected = test_fails + conv_fails;
    out->t = t;
    if (flag < 0) {
        snprintf(out->message, sizeof out->message, "IDA flag %d at t = %g: %.120s", flag, t,
                 pb.message);
    } else {
        int finite = 1;
        for (int i = 0; i < size; i++)
            finite &= isfinite(y[i]) != 0;
        if (!finite) {
            snprintf(out->message, sizeof out->message, "non-finite state at t = %g", t);
        } else {
            out->ok = 1;
            for (int i = 0; i < pb.n; i++)
                out->q[i] = y[i];
            if (problem != WP_RLC) {
                double g[MAX_C];
                constraints(&pb, y, y + pb.n, g, NULL, NULL);
                for (int a = 0; a < pb.m; a++)
                    out->constraint = fmax(out->constraint, fabs(g[a]));
                double f[WP_MAX_Q], energy = 0.0;
                for (int i = 0; i < pb.n; i++)
                    energy += 0.5 * pb.mass[i] * y[pb.n + i] * y[pb.n + i];
                forces(&pb, y, y + pb.n, f);
                if (problem != WP_SLIDER_CRANK)   // uniform gravity: V = -f . q
                    for (int i = 0; i < pb.n; i++)
                        energy -= f[i] * y[i];
                out->energy = energy;
            }
        }
    }
    IDAFree(&mem);
    SUNLinSolFree(LS);
    SUNMatDestroy(A);
    N_VDestroy(yy);
    N_VDestroy(yp);
    N_VDestroy(atol);
    N_VDestroy(id);
    SUNContext_Free(&ctx);
}

const char *wp_ida_version(void)
{
    return SUNDIALS_VERSION;
}

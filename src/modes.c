// Undamped natural modes about an equilibrium (dirac_model_modes): K_r z = ω² M_r z on the
// constraint manifold (Géradin & Rixen, Mechanical Vibrations, ch. 2). Small models: the reduced
// dense pencil with LAPACK dsygv. Large ones: the bordered pencil
//     [K  Gᵀ] [x]       [M 0] [x]
//     [G  0 ] [λ] = ω²  [0 0] [λ]
// whose finite eigenvalues are those of the reduced one, with ARPACK's shift-invert mode about
// σ = 0 (dsaupd mode 3, B = diag(M, 0) positive semi-definite) and a KLU factorisation of the
// left matrix: the lowest `count` modes.
#include <dirac/analysis.h>

#include "error.h"
#include "linearize.h"
#include "linalg_dense.h"
#include "linsolve.h"
#include "model.h"

#include <arpack.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void dirac_modes_free(dirac_modes *modes)
{
    if (!modes)
        return;
    free(modes->omega2);
    free(modes->shapes);
    memset(modes, 0, sizeof *modes);
}

// Each shape scaled so that its largest |entry| is 1 and that entry is positive; among entries
// equal in size to rounding (symmetric modes) the first one decides, so the sign is stable.
static void normalise_shapes(int n, int count, double *shapes)
{
    for (int k = 0; k < count; k++) {
        double *x = shapes + (size_t)k * (size_t)n, largest = 0.0, pick = 0.0;
        for (int i = 0; i < n; i++)
            largest = fmax(largest, fabs(x[i]));
        for (int i = 0; i < n && pick == 0.0; i++)
            if (fabs(x[i]) >= (1 - 1e-9) * largest)
                pick = x[i];
        if (pick != 0.0)
            for (int i = 0; i < n; i++)
                x[i] /= pick;
    }
}

static dirac_status dense_modes(const dirac_linearization *lin, int count, dirac_modes *out,
                                dirac_error *err)
{
    int n = lin->n, r = lin->reduced_dim;
    if (count <= 0 || count > r)
        count = r;
    double *k = malloc(((size_t)r * (size_t)r + 1) * sizeof *k);
    double *mm = malloc(((size_t)r * (size_t)r + 1) * sizeof *mm);
    double *w = malloc(((size_t)r + 1) * sizeof *w);
    out->omega2 = calloc((size_t)count + 1, sizeof *out->omega2);
    out->shapes = calloc((size_t)n * (size_t)count + 1, sizeof *out->shapes);
    dirac_status status = DIRAC_OK;
    if (!k || !mm || !w || !out->omega2 || !out->shapes) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (r > 0) {
        memcpy(k, lin->K_r, (size_t)r * (size_t)r * sizeof *k);
        memcpy(mm, lin->M_r, (size_t)r * (size_t)r * sizeof *mm);
        dirac_error eigen;
        status = linalg_generalized_eigen(r, k, mm, w, &eigen);
        if (status == DIRAC_ERR_UNSUPPORTED)
            error_set(err, status, "modes: the mass matrix on the constraint manifold is not "
                      "positive definite (degenerate Lagrangian: a coordinate without "
                      "inertia); natural modes need M_r > 0");
        else if (status != DIRAC_OK)
            error_set(err, status, "modes: %s", eigen.message);
        if (status != DIRAC_OK)
            goto done;
        // eigenvalues within 1e-12 of the largest are zero to rounding (dsygv's backward error
        // is ~1e-16 ‖K‖ ‖M⁻¹‖): reported as 0 rather than as tiny instabilities
        double largest = fmax(fabs(w[0]), fabs(w[r - 1]));
        for (int j = 0; j < count; j++)
            out->omega2[j] = fabs(w[j]) <= 1e-12 * largest ? 0.0 : w[j];
        linalg_matmul(n, r, count, lin->T, k, out->shapes);   // δq = T z
    }
    out->count = count;
    normalise_shapes(n, count, out->shapes);
done:
    free(k), free(mm), free(w);
    return status;
}

static void add_matrix(linsolve *ls, const dirac_matrix *a, int row0, int col0, int transpose)
{
    for (int e = 0; e < a->nnz; e++) {
        int r = transpose ? a->col[e] : a->row[e], c = transpose ? a->row[e] : a->col[e];
        linsolve_add(ls, row0 + r, col0 + c, a->value[e]);
    }
}

static void assemble_bordered(linsolve *ls, const dirac_linearization *lin)
{
    add_matrix(ls, &lin->K, 0, 0, 0);
    add_matrix(ls, &lin->G, lin->n, 0, 0);
    add_matrix(ls, &lin->G, 0, lin->n, 1);
}

// y = diag(M, 0) x.
static void mass_times(const dirac_linearization *lin, int size, const double *x, double *y)
{
    memset(y, 0, (size_t)size * sizeof *y);
    for (int e = 0; e < lin->M.nnz; e++)
        y[lin->M.row[e]] += lin->M.value[e] * x[lin->M.col[e]];
}

static dirac_status sparse_modes(const dirac_linearization *lin, int count, dirac_modes *out,
                                 dirac_error *err)
{
    int n = lin->n, size = lin->n + lin->m;
    if (count <= 0 || count >= n - lin->m)
        return error_set(err, DIRAC_ERR_ARGUMENT, "modes: the sparse eigensolver computes "
                         "0 < count < %d modes (coordinates minus constraints); asked for %d",
                         n - lin->m, count);
    a_int nev = count, ncv = 2 * count + 1 > 20 ? 2 * count + 1 : 20;
    if (ncv > n - lin->m)   // the Krylov space lives in ker G: dimension n − m at most
        ncv = n - lin->m;
    a_int lworkl = ncv * (ncv + 8);
    double *resid = calloc((size_t)size, sizeof *resid);
    double *v = calloc((size_t)size * (size_t)ncv, sizeof *v);
    double *workd = calloc(3 * (size_t)size, sizeof *workd);
    double *workl = calloc((size_t)lworkl, sizeof *workl);
    double *d = calloc((size_t)nev, sizeof *d);
    double *z = calloc((size_t)size * (size_t)nev, sizeof *z);
    a_int *select = calloc((size_t)ncv, sizeof *select);
    linsolve *ls = NULL;
    dirac_status status = DIRAC_OK;
    if (!resid || !v || !workd || !workl || !d || !z || !select) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((status = linsolve_create(size, true, &ls, err)) != DIRAC_OK)
        goto done;
    linsolve_begin_pattern(ls);
    assemble_bordered(ls, lin);
    if ((status = linsolve_end_pattern(ls, err)) != DIRAC_OK)
        goto done;
    linsolve_zero(ls);
    assemble_bordered(ls, lin);
    int bad = -1;
    if (linsolve_factor(ls, &bad) != DIRAC_OK) {
        status = error_set(err, DIRAC_ERR_SINGULAR, "modes: the stiffness on the constraint "
                           "manifold is singular at the equilibrium (a zero-frequency mode: "
                           "free rigid motion, or dependent constraints); the sparse "
                           "shift-invert about 0 needs it nonsingular (the dense path up to "
                           "%d coordinates does not)", DIRAC_MODES_DENSE_MAX);
        goto done;
    }
    a_int iparam[11] = { 0 }, ipntr[14] = { 0 }, ido = 0, info = 0;
    iparam[0] = 1;       // exact shifts
    iparam[2] = 1000;    // Arnoldi restarts
    iparam[6] = 3;       // shift-invert, B = diag(M, 0)
    for (;;) {
        dsaupd_c(&ido, "G", size, "LM", nev, 0.0, resid, ncv, v, size, iparam, ipntr, workd,
                 workl, lworkl, &info);
        double *x = workd + ipntr[0] - 1, *y = workd + ipntr[1] - 1;
        if (ido == -1) {            // y = inv(A) B x
            mass_times(lin, size, x, y);
            linsolve_solve(ls, y);
        } else if (ido == 1) {      // y = inv(A) (B x), B x given
            memcpy(y, workd + ipntr[2] - 1, (size_t)size * sizeof *y);
            linsolve_solve(ls, y);
        } else if (ido == 2) {
            mass_times(lin, size, x, y);
        } else {
            break;
        }
    }
    if (info < 0 || info == 1 || info == 3) {
        status = error_set(err, DIRAC_ERR_LINALG, "modes: ARPACK dsaupd failed (info %d, "
                           "%d of %d modes converged)", (int)info, (int)iparam[4], (int)nev);
        goto done;
    }
    dseupd_c(1, "A", select, d, z, size, 0.0, "G", size, "LM", nev, 0.0, resid, ncv, v, size,
             iparam, ipntr, workd, workl, lworkl, &info);
    if (info != 0) {
        status = error_set(err, DIRAC_ERR_LINALG, "modes: ARPACK dseupd failed (info %d)",
                           (int)info);
        goto done;
    }
    int got = (int)iparam[4];
    out->omega2 = calloc((size_t)got + 1, sizeof *out->omega2);
    out->shapes = calloc((size_t)n * (size_t)got + 1, sizeof *out->shapes);
    if (!out->omega2 || !out->shapes) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        goto done;
    }
    // ascending ω² (selection sort: count is small)
    int *order = (int *)select;
    for (int k = 0; k < got; k++)
        order[k] = k;
    for (int k = 0; k < got; k++)
        for (int j = k + 1; j < got; j++)
            if (d[order[j]] < d[order[k]]) {
                int tmp = order[k];
                order[k] = order[j];
                order[j] = tmp;
            }
    for (int k = 0; k < got; k++) {
        out->omega2[k] = d[order[k]];
        memcpy(out->shapes + (size_t)k * (size_t)n, z + (size_t)order[k] * (size_t)size,
               (size_t)n * sizeof *z);
    }
    out->count = got;
    out->sparse = 1;
    normalise_shapes(n, got, out->shapes);
done:
    linsolve_destroy(ls);
    free(resid), free(v), free(workd), free(workl), free(d), free(z), free(select);
    return status;
}

dirac_status dirac_model_modes(const dirac_model *m, const dirac_equilibrium *eq, int count,
                               int force_sparse, dirac_modes *out, dirac_error *err)
{
    if (!out)
        return error_set(err, DIRAC_ERR_ARGUMENT, "modes: NULL result");
    memset(out, 0, sizeof *out);
    if (!m || !eq || !eq->q)
        return error_set(err, DIRAC_ERR_ARGUMENT, "modes: NULL model or equilibrium");
    for (int a = 0; a < m->m; a++)
        if (m->constraints[a].kind != DIRAC_CONSTRAINT_HOLONOMIC)
            return error_set(err, DIRAC_ERR_UNSUPPORTED, "modes: constraint '%s' is "
                             "nonholonomic; natural modes are defined for holonomic "
                             "constraints only", m->constraints[a].name);
    out->n = m->n;
    double *zero = calloc((size_t)m->n + 1, sizeof *zero);
    if (!zero)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    dirac_linearization lin;
    dirac_status status = model_linearize_states(m, eq->q, zero, eq->s, eq->mu, eq->t, &lin,
                                                 err);
    free(zero);
    if (status != DIRAC_OK)
        return status;
    if (lin.stiffness_asymmetry > DIRAC_SYMMETRY_RTOL) {
        status = error_set(err, DIRAC_ERR_UNSUPPORTED, "modes: the stiffness is not symmetric "
                           "(relative asymmetry %.2e): nonconservative position forces such as "
                           "follower loads have no undamped normal modes; `dirac linearize` "
                           "gives the full system (the eigenvalues of the pencil (A, E))",
                           lin.stiffness_asymmetry);
        dirac_linearization_free(&lin);
        return status;
    }
    if (force_sparse || m->n > DIRAC_MODES_DENSE_MAX)
        status = sparse_modes(&lin, count, out, err);
    else
        status = dense_modes(&lin, count, out, err);
    dirac_linearization_free(&lin);
    if (status != DIRAC_OK)
        dirac_modes_free(out);
    else
        out->n = m->n;
    return status;
}

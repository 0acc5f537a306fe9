// Constructors of linear Dirac structures (paper 000 §4; seeds-math §1.1):
// D(Ω, Δ), Δ ⊕ Δ°, graph of a Poisson bivector, induced D_ΔQ on T*Q, interaction D_int,
// kernel and image representations.
#include "structure.h"

#include "error.h"
#include "linalg_dense.h"
#include "subspace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double structure_isotropy_residual(int n, int dim, const double *basis)
{
    // ⟨⟨(v, α), (w, β)⟩⟩ = α·w + β·v
    size_t two_n = 2 * (size_t)n;
    double worst = 0.0;
    for (int i = 0; i < dim; i++)
        for (int j = i; j < dim; j++) {
            const double *x = basis + (size_t)i * two_n, *y = basis + (size_t)j * two_n;
            double pairing = 0.0;
            for (int l = 0; l < n; l++)
                pairing += x[n + l] * y[l] + y[n + l] * x[l];
            if (!(fabs(pairing) <= worst))
                worst = fabs(pairing);
        }
    return worst;
}

// One Newton step towards isotropy: with W_ij = ⟨⟨q_i, q_j⟩⟩ (symmetric) and J the matrix of
// the pairing (J^2 = I), Q' = Q - ½ J Q W has W' = O(|W|^2); then Q' is re-orthonormalised.
// Used only to remove rounding amplified by ill-conditioning (residuals <= STRUCTURE_POLISH_TOL).
static dirac_status polish_isotropy(int n, double *q, dirac_error *err)
{
    size_t two_n = 2 * (size_t)n, nn = (size_t)n;
    double *w = malloc(nn * nn * sizeof *w), *moved = malloc(two_n * nn * sizeof *moved);
    if (!w || !moved) {
        free(w);
        free(moved);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < nn; i++)
        for (size_t j = 0; j < nn; j++) {
            const double *x = q + i * two_n, *y = q + j * two_n;
            double pairing = 0.0;
            for (size_t l = 0; l < nn; l++)
                pairing += x[nn + l] * y[l] + y[nn + l] * x[l];
            w[j * nn + i] = pairing;
        }
    for (size_t c = 0; c < nn; c++)
        for (size_t l = 0; l < nn; l++) {
            // (J Q W)_col c = Σ_i W_ic J q_i, J (v, α) = (α, v)
            double dv = 0.0, dalpha = 0.0;
            for (size_t i = 0; i < nn; i++) {
                dv += w[c * nn + i] * q[i * two_n + nn + l];
                dalpha += w[c * nn + i] * q[i * two_n + l];
            }
            moved[c * two_n + l] = q[c * two_n + l] - 0.5 * dv;
            moved[c * two_n + nn + l] = q[c * two_n + nn + l] - 0.5 * dalpha;
        }
    double *range = NULL;
    int rank = 0;
    dirac_status status = linalg_range(2 * n, n, moved, &range, &rank, NULL, err);
    if (status == DIRAC_OK && rank == n)
        memcpy(q, range, two_n * nn * sizeof *q);
    free(range);
    free(w);
    free(moved);
    return status;
}

dirac_status structure_from_columns(int n, int count, const double *pairs, const char *what,
                                    dirac_structure **out, dirac_error *err)
{
    double *range = NULL;
    int rank = 0;
    *out = NULL;
    dirac_status status = linalg_range(2 * n, count, pairs, &range, &rank, NULL, err);
    if (status != DIRAC_OK)
        return status;
    double residual = structure_isotropy_residual(n, rank, range);
    if (rank == n && residual > DIRAC_ISOTROPY_TOL && residual <= STRUCTURE_POLISH_TOL) {
        status = polish_isotropy(n, range, err);
        residual = structure_isotropy_residual(n, rank, range);
    }
    if (status == DIRAC_OK && (rank != n || !(residual <= DIRAC_ISOTROPY_TOL)))
        status = error_set(err, DIRAC_ERR_NOT_DIRAC,
                           "%s is not a Dirac structure: dimension %d (need %d), isotropy "
                           "residual %.3g (tolerance %g)",
                           what, rank, n, residual, DIRAC_ISOTROPY_TOL);
    dirac_structure *d = NULL;
    if (status == DIRAC_OK) {
        d = malloc(sizeof *d + 2 * (size_t)n * (size_t)n * sizeof(double));
        if (!d)
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory for a Dirac structure on R^%d", n);
    }
    if (status == DIRAC_OK) {
        d->n = n;
        memcpy(d->basis, range, 2 * (size_t)n * (size_t)n * sizeof(double));
        *out = d;
    }
    free(range);
    return status;
}

// Validates an n x n matrix argument; `skew` additionally requires M^T = -M.
static dirac_status check_matrix(int n, const double *m, const char *name, int skew,
                                 dirac_error *err)
{
    if (!m)
        return error_set(err, DIRAC_ERR_ARGUMENT, "%s is NULL", name);
    size_t count = (size_t)n * (size_t)n;
    if (!linalg_all_finite(m, count))
        return error_set(err, DIRAC_ERR_NOT_FINITE, "%s has NaN or infinite entries", name);
    if (!skew)
        return DIRAC_OK;
    double scale = linalg_max_abs(m, count);
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++) {
            double asym = fabs(m[i * n + j] + m[j * n + i]);
            if (asym > DIRAC_SKEW_TOL * scale)
                return error_set(err, DIRAC_ERR_NOT_SKEW,
                                 "%s is not skew-symmetric: entries (%d,%d) = %.17g and "
                                 "(%d,%d) = %.17g",
                                 name, i + 1, j + 1, m[i * n + j], j + 1, i + 1, m[j * n + i]);
        }
    return DIRAC_OK;
}

static dirac_status check_dimension(int n, dirac_error *err)
{
    if (n < 1)
        return error_set(err, DIRAC_ERR_SIZE, "dimension must be at least 1 (got %d)", n);
    return DIRAC_OK;
}

dirac_status dirac_structure_from_two_form(int n, const double *omega,
                                           const dirac_subspace *delta,
                                           dirac_structure **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    dirac_status status = check_dimension(n, err);
    if (status == DIRAC_OK && omega)
        status = check_matrix(n, omega, "two-form", 1, err);
    if (status == DIRAC_OK && delta && delta->n != n)
        status = error_set(err, DIRAC_ERR_SIZE,
                           "distribution lives in R^%d but the space has dimension %d", delta->n,
                           n);
    if (status != DIRAC_OK)
        return status;

    // basis of Δ and of Δ° (identity / empty when Δ = V)
    dirac_subspace *full = NULL, *ann = NULL;
    if (!delta) {
        status = dirac_subspace_from_annihilator(n, 0, NULL, &full, err);
        delta = full;
    }
    if (status == DIRAC_OK)
        status = dirac_subspace_annihilator(delta, &ann, err);
    double *pairs = NULL;
    if (status == DIRAC_OK) {
        pairs = calloc(2 * (size_t)n * (size_t)n, sizeof *pairs);
        if (!pairs)
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    if (status == DIRAC_OK) {
        // (u, Ω♭ u) for u in Δ, with (Ω♭ u)_j = Σ_i u_i Ω_ij; then (0, w) for w in Δ°
        size_t two_n = 2 * (size_t)n;
        for (int c = 0; c < delta->dim; c++) {
            const double *u = delta->basis + (size_t)c * (size_t)n;
            double *col = pairs + (size_t)c * two_n;
            memcpy(col, u, (size_t)n * sizeof *col);
            if (omega)
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < n; i++)
                        col[n + j] += u[i] * omega[i * n + j];
        }
        for (int c = 0; c < ann->dim; c++)
            memcpy(pairs + (size_t)(delta->dim + c) * two_n + n,
                   ann->basis + (size_t)c * (size_t)n, (size_t)n * sizeof *pairs);
        status = structure_from_columns(n, n, pairs, "D(Omega, Delta)", out, err);
    }
    free(pairs);
    dirac_subspace_destroy(full);
    dirac_subspace_destroy(ann);
    return status;
}

dirac_status dirac_structure_from_distribution(const dirac_subspace *delta,
                                               dirac_structure **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!delta)
        return error_set(err, DIRAC_ERR_ARGUMENT, "distribution is NULL");
    return dirac_structure_from_two_form(delta->n, NULL, delta, out, err);
}

dirac_status dirac_structure_from_poisson(int n, const double *pi, dirac_structure **out,
                                          dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    dirac_status status = check_dimension(n, err);
    if (status == DIRAC_OK)
        status = check_matrix(n, pi, "Poisson bivector", 1, err);
    if (status != DIRAC_OK)
        return status;
    // (Π♯ e_i, e_i) with Π♯(α)_j = Σ_i α_i Π_ij: Π♯ e_i is row i of Π
    size_t two_n = 2 * (size_t)n;
    double *pairs = calloc(two_n * (size_t)n, sizeof *pairs);
    if (!pairs)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        memcpy(pairs + (size_t)i * two_n, pi + (size_t)i * (size_t)n, (size_t)n * sizeof *pairs);
        pairs[(size_t)i * two_n + (size_t)n + (size_t)i] = 1.0;
    }
    status = structure_from_columns(n, n, pairs, "graph of the Poisson bivector", out, err);
    free(pairs);
    return status;
}

// Δ × R^n ⊂ R^2n: the lift (Tπ_Q)^{-1}(Δ) of a distribution on Q to T*Q.
static dirac_status lift_to_cotangent(const dirac_subspace *delta, dirac_subspace **out,
                                      dirac_error *err)
{
    dirac_subspace *fibre = NULL;
    dirac_status status = dirac_subspace_from_annihilator(delta->n, 0, NULL, &fibre, err);
    if (status == DIRAC_OK)
        status = dirac_subspace_direct_sum(delta, fibre, out, err);
    dirac_subspace_destroy(fibre);
    return status;
}

dirac_status dirac_structure_induced(int n, const dirac_subspace *delta_q,
                                     dirac_structure **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    dirac_status status = check_dimension(n, err);
    if (status == DIRAC_OK && delta_q && delta_q->n != n)
        status = error_set(err, DIRAC_ERR_SIZE,
                           "distribution lives in R^%d but Q has dimension %d", delta_q->n, n);
    if (status != DIRAC_OK)
        return status;
    dirac_subspace *full = NULL, *lifted = NULL;
    if (!delta_q) {
        status = dirac_subspace_from_annihilator(n, 0, NULL, &full, err);
        delta_q = full;
    }
    if (status == DIRAC_OK)
        status = lift_to_cotangent(delta_q, &lifted, err);
    // canonical two-form Ω = dq ∧ dp: Ω(e_qi, e_pi) = 1, Ω(e_pi, e_qi) = -1
    int two_n = 2 * n;
    double *omega = NULL;
    if (status == DIRAC_OK) {
        omega = calloc((size_t)two_n * (size_t)two_n, sizeof *omega);
        if (!omega)
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    if (status == DIRAC_OK) {
        for (int i = 0; i < n; i++) {
            omega[i * two_n + n + i] = 1.0;
            omega[(n + i) * two_n + i] = -1.0;
        }
        status = dirac_structure_from_two_form(two_n, omega, lifted, out, err);
    }
    free(omega);
    dirac_subspace_destroy(full);
    dirac_subspace_destroy(lifted);
    return status;
}

dirac_status dirac_structure_interaction(const dirac_subspace *sigma, dirac_structure **out,
                                         dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!sigma)
        return error_set(err, DIRAC_ERR_ARGUMENT, "interaction distribution is NULL");
    dirac_subspace *lifted = NULL;
    dirac_status status = lift_to_cotangent(sigma, &lifted, err);
    if (status == DIRAC_OK)
        status = dirac_structure_from_two_form(2 * sigma->n, NULL, lifted, out, err);
    dirac_subspace_destroy(lifted);
    return status;
}

dirac_status dirac_structure_from_kernel(int n, const double *f, const double *e,
                                         dirac_structure **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    dirac_status status = check_dimension(n, err);
    if (status == DIRAC_OK)
        status = check_matrix(n, f, "kernel block F", 0, err);
    if (status == DIRAC_OK)
        status = check_matrix(n, e, "kernel block E", 0, err);
    if (status != DIRAC_OK)
        return status;
    // column-major n x 2n matrix [F E]
    size_t nn = (size_t)n * (size_t)n;
    double *fe = malloc(2 * nn * sizeof *fe);
    if (!fe)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            fe[(size_t)j * (size_t)n + (size_t)i] = f[i * n + j];
            fe[nn + (size_t)j * (size_t)n + (size_t)i] = e[i * n + j];
        }
    double *null = NULL;
    int nullity = 0;
    status = linalg_null_space(n, 2 * n, fe, &null, &nullity, err);
    if (status == DIRAC_OK && nullity != n)
        status = error_set(err, DIRAC_ERR_RANK, "rank [F E] = %d, a kernel representation needs %d",
                           2 * n - nullity, n);
    if (status == DIRAC_OK)
        status = structure_from_columns(n, n, null, "ker [F E]", out, err);
    free(fe);
    free(null);
    return status;
}

dirac_status dirac_structure_from_span(int n, int count, const double *pairs,
                                       dirac_structure **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    dirac_status status = check_dimension(n, err);
    if (status == DIRAC_OK && (count < 1 || !pairs))
        status = error_set(err, DIRAC_ERR_SIZE, "a Dirac structure on R^%d needs at least %d "
                           "spanning pairs (got %d)", n, n, pairs ? count : 0);
    if (status == DIRAC_OK && !linalg_all_finite(pairs, 2 * (size_t)n * (size_t)count))
        status = error_set(err, DIRAC_ERR_NOT_FINITE, "spanning pairs have NaN or infinite entries");
    if (status != DIRAC_OK)
        return status;
    return structure_from_columns(n, count, pairs, "the span of the given pairs", out, err);
}

dirac_status dirac_check_dirac(int n, int count, const double *pairs, int *dim,
                               double *isotropy_residual, dirac_error *err)
{
    if (!dim || !isotropy_residual)
        return error_null(err, __func__, "dim or isotropy_residual");
    *dim = 0;
    *isotropy_residual = NAN;
    dirac_status status = check_dimension(n, err);
    if (status == DIRAC_OK && (count < 0 || (count > 0 && !pairs)))
        status = error_set(err, DIRAC_ERR_SIZE, "invalid set of %d pairs", count);
    if (status == DIRAC_OK && !linalg_all_finite(pairs, 2 * (size_t)n * (size_t)count))
        status = error_set(err, DIRAC_ERR_NOT_FINITE, "pairs have NaN or infinite entries");
    if (status != DIRAC_OK)
        return status;
    double *range = NULL;
    status = linalg_range(2 * n, count, pairs, &range, dim, NULL, err);
    if (status != DIRAC_OK)
        return status;
    *isotropy_residual = structure_isotropy_residual(n, *dim, range);
    free(range);
    if (*dim != n || !(*isotropy_residual <= DIRAC_ISOTROPY_TOL))
        return error_set(err, DIRAC_ERR_NOT_DIRAC,
                         "not a Dirac structure: dimension %d (need %d), isotropy residual %.3g",
                         *dim, n, *isotropy_residual);
    return DIRAC_OK;
}

void dirac_structure_destroy(dirac_structure *d)
{
    free(d);
}

int dirac_structure_dim(const dirac_structure *d)
{
    if (!d)
        return -1;
    return d->n;
}

const double *dirac_structure_basis(const dirac_structure *d)
{
    if (!d)
        return NULL;
    return d->basis;
}

double dirac_structure_isotropy_residual(const dirac_structure *d)
{
    if (!d)
        return NAN;
    return structure_isotropy_residual(d->n, d->n, d->basis);
}

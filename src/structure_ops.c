// Operations on linear Dirac structures: D^⊥, membership, principal angles, direct sum ⊕,
// tensor product ⊠ (Jacobs & Yoshimura 2014), composition over shared ports (Cervera,
// van der Schaft & Baños 2007) and relabelling of coordinates.
#include "structure.h"

#include "error.h"
#include "linalg_dense.h"
#include "subspace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Entry (row, col) of the 2n x n basis.
static double entry(const dirac_structure *d, int row, int col)
{
    return d->basis[(size_t)col * 2 * (size_t)d->n + (size_t)row];
}

dirac_status dirac_structure_complement(const dirac_structure *d, dirac_structure **out,
                                        dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!d)
        return error_null(err, __func__, "d");
    // D^⊥ = ker M with M x = (⟨⟨b_i, x⟩⟩)_i = B_α^T x_v + B_v^T x_α  (n x 2n)
    int n = d->n;
    *out = NULL;
    double *m = malloc(2 * (size_t)n * (size_t)n * sizeof *m);
    if (!m)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++)
        for (int l = 0; l < n; l++) {
            m[(size_t)l * (size_t)n + (size_t)i] = entry(d, n + l, i);
            m[(size_t)(n + l) * (size_t)n + (size_t)i] = entry(d, l, i);
        }
    double *null = NULL;
    int nullity = 0;
    dirac_status status = linalg_null_space(n, 2 * n, m, &null, &nullity, err);
    if (status == DIRAC_OK)
        status = structure_from_columns(n, nullity, null, "the complement D^perp", out, err);
    free(m);
    free(null);
    return status;
}

double dirac_structure_membership_residual(const dirac_structure *d, const double *v,
                                           const double *alpha)
{
    if (!d || !v || !alpha)
        return NAN;
    size_t n = (size_t)d->n;
    double *x = malloc(2 * n * sizeof *x);
    if (!x)
        return NAN;
    memcpy(x, v, n * sizeof *x);
    memcpy(x + n, alpha, n * sizeof *x);
    double distance = basis_distance(2 * d->n, d->n, d->basis, x);
    free(x);
    return distance;
}

static dirac_status check_same_space(const dirac_structure *a, const dirac_structure *b,
                                     const char *operation, dirac_error *err)
{
    if (a->n != b->n)
        return error_set(err, DIRAC_ERR_SIZE, "%s needs Dirac structures on the same space "
                         "(dimensions %d and %d)", operation, a->n, b->n);
    return DIRAC_OK;
}

dirac_status dirac_structure_largest_angle(const dirac_structure *da, const dirac_structure *db,
                                           double *angle, dirac_error *err)
{
    if (!angle)
        return error_null(err, __func__, "angle");
    *angle = NAN;
    if (!da || !db)
        return error_null(err, __func__, "da or db");
    *angle = NAN;
    dirac_status status = check_same_space(da, db, "comparison", err);
    if (status != DIRAC_OK)
        return status;
    return basis_largest_angle(2 * da->n, da->n, da->basis, db->basis, angle, err);
}

dirac_status dirac_structure_direct_sum(const dirac_structure *d1, const dirac_structure *d2,
                                        dirac_structure **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!d1 || !d2)
        return error_null(err, __func__, "d1 or d2");
    // (v1, α1) ↦ (v1, 0, α1, 0), (v2, α2) ↦ (0, v2, 0, α2)
    int n1 = d1->n, n2 = d2->n, n = n1 + n2;
    size_t two_n = 2 * (size_t)n;
    *out = NULL;
    double *pairs = calloc(two_n * (size_t)n, sizeof *pairs);
    if (!pairs)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int c = 0; c < n1; c++)
        for (int l = 0; l < n1; l++) {
            pairs[(size_t)c * two_n + (size_t)l] = entry(d1, l, c);
            pairs[(size_t)c * two_n + (size_t)(n + l)] = entry(d1, n1 + l, c);
        }
    for (int c = 0; c < n2; c++)
        for (int l = 0; l < n2; l++) {
            pairs[(size_t)(n1 + c) * two_n + (size_t)(n1 + l)] = entry(d2, l, c);
            pairs[(size_t)(n1 + c) * two_n + (size_t)(n + n1 + l)] = entry(d2, n2 + l, c);
        }
    dirac_status status = structure_from_columns(n, n, pairs, "the direct sum", out, err);
    free(pairs);
    return status;
}

dirac_status dirac_structure_tensor(const dirac_structure *da, const dirac_structure *db,
                                    dirac_structure **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!da || !db)
        return error_null(err, __func__, "da or db");
    *out = NULL;
    dirac_status status = check_same_space(da, db, "the tensor product", err);
    if (status != DIRAC_OK)
        return status;
    int n = da->n;
    // fibre product: (x, y) with B_a,v x = B_b,v y, i.e. ker [B_a,v  -B_b,v]  (n x 2n)
    double *m = malloc(2 * (size_t)n * (size_t)n * sizeof *m);
    if (!m)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int c = 0; c < n; c++)
        for (int l = 0; l < n; l++) {
            m[(size_t)c * (size_t)n + (size_t)l] = entry(da, l, c);
            m[(size_t)(n + c) * (size_t)n + (size_t)l] = -entry(db, l, c);
        }
    double *null = NULL, *pairs = NULL;
    int nullity = 0;
    status = linalg_null_space(n, 2 * n, m, &null, &nullity, err);
    if (status == DIRAC_OK) {
        pairs = calloc(2 * (size_t)n * (size_t)(nullity + 1), sizeof *pairs);
        if (!pairs)
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    if (status == DIRAC_OK) {
        // image (v, αa + αb) = (B_a,v x, B_a,α x + B_b,α y)
        for (int k = 0; k < nullity; k++) {
            const double *x = null + (size_t)k * 2 * (size_t)n, *y = x + n;
            double *col = pairs + (size_t)k * 2 * (size_t)n;
            for (int c = 0; c < n; c++)
                for (int l = 0; l < n; l++) {
                    col[l] += entry(da, l, c) * x[c];
                    col[n + l] += entry(da, n + l, c) * x[c] + entry(db, n + l, c) * y[c];
                }
        }
        status = structure_from_columns(n, nullity, pairs, "the tensor product", out, err);
    }
    free(m);
    free(null);
    free(pairs);
    return status;
}

dirac_status dirac_structure_compose(const dirac_structure *da, const dirac_structure *db,
                                     int shared, dirac_structure **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!da || !db)
        return error_null(err, __func__, "da or db");
    *out = NULL;
    int na = da->n, nb = db->n, n1 = na - shared, n3 = nb - shared, n = n1 + n3;
    if (shared < 0 || n1 < 0 || n3 < 0 || n < 1)
        return error_set(err, DIRAC_ERR_SIZE, "cannot compose structures of dimensions %d and %d "
                         "over %d shared ports", na, nb, shared);
    // Da = B_a x with rows (f1, f2, e1, e2); Db = B_b y with rows (g2, f3, h2, e3).
    // Constraints f2 + g2 = 0 and e2 - h2 = 0: a 2s x (na + nb) matrix.
    int rows = 2 * shared, cols = na + nb;
    double *m = calloc((size_t)(rows > 0 ? rows : 1) * (size_t)cols, sizeof *m);
    if (!m)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int s = 0; s < shared; s++) {
        for (int c = 0; c < na; c++) {
            m[(size_t)c * (size_t)rows + (size_t)s] = entry(da, n1 + s, c);
            m[(size_t)c * (size_t)rows + (size_t)(shared + s)] = entry(da, na + n1 + s, c);
        }
        for (int c = 0; c < nb; c++) {
            m[(size_t)(na + c) * (size_t)rows + (size_t)s] = entry(db, s, c);
            m[(size_t)(na + c) * (size_t)rows + (size_t)(shared + s)] = -entry(db, nb + s, c);
        }
    }
    double *null = NULL, *pairs = NULL;
    int nullity = 0;
    dirac_status status = linalg_null_space(rows, cols, m, &null, &nullity, err);
    if (status == DIRAC_OK) {
        pairs = calloc(2 * (size_t)n * (size_t)(nullity + 1), sizeof *pairs);
        if (!pairs)
            status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    if (status == DIRAC_OK) {
        // image (f1, f3, e1, e3)
        for (int k = 0; k < nullity; k++) {
            const double *x = null + (size_t)k * (size_t)cols, *y = x + na;
            double *col = pairs + (size_t)k * 2 * (size_t)n;
            for (int c = 0; c < na; c++)
                for (int l = 0; l < n1; l++) {
                    col[l] += entry(da, l, c) * x[c];
                    col[n + l] += entry(da, na + l, c) * x[c];
                }
            for (int c = 0; c < nb; c++)
                for (int l = 0; l < n3; l++) {
                    col[n1 + l] += entry(db, shared + l, c) * y[c];
                    col[n + n1 + l] += entry(db, nb + shared + l, c) * y[c];
                }
        }
        status = structure_from_columns(n, nullity, pairs, "the composition", out, err);
    }
    free(m);
    free(null);
    free(pairs);
    return status;
}

dirac_status dirac_structure_permute(const dirac_structure *d, const int *perm,
                                     dirac_structure **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!d)
        return error_null(err, __func__, "d");
    int n = d->n;
    *out = NULL;
    if (!perm)
        return error_set(err, DIRAC_ERR_ARGUMENT, "permutation is NULL");
    char *seen = calloc((size_t)n, 1);
    double *pairs = malloc(2 * (size_t)n * (size_t)n * sizeof *pairs);
    dirac_status status = DIRAC_OK;
    if (!seen || !pairs)
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int i = 0; status == DIRAC_OK && i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
            status = error_set(err, DIRAC_ERR_ARGUMENT,
                               "not a permutation of 0..%d: entry %d is %d", n - 1, i, perm[i]);
        else
            seen[perm[i]] = 1;
    }
    if (status == DIRAC_OK) {
        for (int c = 0; c < n; c++)
            for (int i = 0; i < n; i++) {
                pairs[(size_t)c * 2 * (size_t)n + (size_t)i] = entry(d, perm[i], c);
                pairs[(size_t)c * 2 * (size_t)n + (size_t)(n + i)] = entry(d, n + perm[i], c);
            }
        status = structure_from_columns(n, n, pairs, "the permuted structure", out, err);
    }
    free(seen);
    free(pairs);
    return status;
}

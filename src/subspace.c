// Subspaces of R^n held as orthonormal bases: span/annihilator constructors, sum,
// intersection ((A° + B°)°), direct sum, distances and principal angles.
#include "subspace.h"

#include "error.h"
#include "linalg_dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

dirac_status subspace_create(int n, int dim, const double *basis, dirac_subspace **out,
                             dirac_error *err)
{
    size_t count = (size_t)n * (size_t)dim;
    dirac_subspace *s = malloc(sizeof *s + count * sizeof(double));
    *out = NULL;
    if (!s)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory for a subspace of R^%d", n);
    s->n = n;
    s->dim = dim;
    if (count)
        memcpy(s->basis, basis, count * sizeof(double));
    *out = s;
    return DIRAC_OK;
}

dirac_status subspace_span_any(int n, int count, const double *a, dirac_subspace **out,
                               dirac_error *err)
{
    double *range = NULL;
    int rank = 0;
    *out = NULL;
    dirac_status status = linalg_range(n, count, a, &range, &rank, NULL, err);
    if (status == DIRAC_OK)
        status = subspace_create(n, rank, range, out, err);
    free(range);
    return status;
}

// Shared validation of the n x count input of the two public constructors.
static dirac_status check_vectors(int n, int count, const double *a, const char *what,
                                  dirac_error *err)
{
    if (n < 1)
        return error_set(err, DIRAC_ERR_SIZE, "ambient dimension must be at least 1 (got %d)", n);
    if (count < 0 || count > n)
        return error_set(err, DIRAC_ERR_SIZE,
                         "%d %s given in R^%d: need between 0 and %d independent ones", count,
                         what, n, n);
    if (count > 0 && !a)
        return error_set(err, DIRAC_ERR_ARGUMENT, "%s array is NULL", what);
    if (!linalg_all_finite(a, (size_t)n * (size_t)count))
        return error_set(err, DIRAC_ERR_NOT_FINITE, "%s contain NaN or infinite entries", what);
    return DIRAC_OK;
}

// Orthonormal range (and complement) of the given independent columns, or DIRAC_ERR_RANK.
static dirac_status independent_range(int n, int count, const double *a, const char *what,
                                      double **range, double **complement, dirac_error *err)
{
    int rank = 0;
    dirac_status status = linalg_range(n, count, a, range, &rank, complement, err);
    if (status == DIRAC_OK && rank < count) {
        free(*range);
        free(*complement);
        *range = *complement = NULL;
        status = error_set(err, DIRAC_ERR_RANK,
                           "the %d %s are linearly dependent (rank %d; singular values below %g "
                           "relative count as zero)",
                           count, what, rank, LINALG_RANK_RTOL);
    }
    return status;
}

dirac_status dirac_subspace_from_span(int n, int count, const double *vectors,
                                      dirac_subspace **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    dirac_status status = check_vectors(n, count, vectors, "spanning vectors", err);
    if (status != DIRAC_OK)
        return status;
    if (count == 0)
        return error_set(err, DIRAC_ERR_RANK,
                         "empty spanning set: describe the zero subspace by %d annihilating forms",
                         n);
    double *range = NULL, *complement = NULL;
    status = independent_range(n, count, vectors, "spanning vectors", &range, &complement, err);
    if (status == DIRAC_OK)
        status = subspace_create(n, count, range, out, err);
    free(range);
    free(complement);
    return status;
}

dirac_status dirac_subspace_from_annihilator(int n, int count, const double *forms,
                                             dirac_subspace **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    dirac_status status = check_vectors(n, count, forms, "annihilating one-forms", err);
    if (status != DIRAC_OK)
        return status;
    double *range = NULL, *complement = NULL;
    status = independent_range(n, count, forms, "annihilating one-forms", &range, &complement,
                               err);
    if (status == DIRAC_OK)
        status = subspace_create(n, n - count, complement, out, err);
    free(range);
    free(complement);
    return status;
}

void dirac_subspace_destroy(dirac_subspace *s)
{
    free(s);
}

int dirac_subspace_ambient_dim(const dirac_subspace *s)
{
    if (!s)
        return -1;
    return s->n;
}

int dirac_subspace_dim(const dirac_subspace *s)
{
    if (!s)
        return -1;
    return s->dim;
}

const double *dirac_subspace_basis(const dirac_subspace *s)
{
    if (!s)
        return NULL;
    return s->basis;
}

dirac_status dirac_subspace_annihilator(const dirac_subspace *s, dirac_subspace **out,
                                        dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!s)
        return error_null(err, __func__, "s");
    double *range = NULL, *complement = NULL;
    int rank = 0;
    *out = NULL;
    dirac_status status = linalg_range(s->n, s->dim, s->basis, &range, &rank, &complement, err);
    if (status == DIRAC_OK)
        status = subspace_create(s->n, s->n - rank, complement, out, err);
    free(range);
    free(complement);
    return status;
}

static dirac_status check_same_ambient(const dirac_subspace *a, const dirac_subspace *b,
                                       dirac_error *err)
{
    if (a->n != b->n)
        return error_set(err, DIRAC_ERR_SIZE, "subspaces of R^%d and R^%d cannot be combined",
                         a->n, b->n);
    return DIRAC_OK;
}

dirac_status dirac_subspace_sum(const dirac_subspace *a, const dirac_subspace *b,
                                dirac_subspace **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!a || !b)
        return error_null(err, __func__, "a or b");
    *out = NULL;
    dirac_status status = check_same_ambient(a, b, err);
    if (status != DIRAC_OK)
        return status;
    size_t na = (size_t)a->n * (size_t)a->dim, nb = (size_t)b->n * (size_t)b->dim;
    double *both = malloc((na + nb + 1) * sizeof *both);
    if (!both)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    if (na)
        memcpy(both, a->basis, na * sizeof *both);
    if (nb)
        memcpy(both + na, b->basis, nb * sizeof *both);
    status = subspace_span_any(a->n, a->dim + b->dim, both, out, err);
    free(both);
    return status;
}

dirac_status dirac_subspace_intersection(const dirac_subspace *a, const dirac_subspace *b,
                                         dirac_subspace **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!a || !b)
        return error_null(err, __func__, "a or b");
    // A ∩ B = (A° + B°)°
    dirac_subspace *ann_a = NULL, *ann_b = NULL, *sum = NULL;
    *out = NULL;
    dirac_status status = check_same_ambient(a, b, err);
    if (status == DIRAC_OK)
        status = dirac_subspace_annihilator(a, &ann_a, err);
    if (status == DIRAC_OK)
        status = dirac_subspace_annihilator(b, &ann_b, err);
    if (status == DIRAC_OK)
        status = dirac_subspace_sum(ann_a, ann_b, &sum, err);
    if (status == DIRAC_OK)
        status = dirac_subspace_annihilator(sum, out, err);
    dirac_subspace_destroy(ann_a);
    dirac_subspace_destroy(ann_b);
    dirac_subspace_destroy(sum);
    return status;
}

dirac_status dirac_subspace_direct_sum(const dirac_subspace *a, const dirac_subspace *b,
                                       dirac_subspace **out, dirac_error *err)
{
    if (!out)
        return error_null(err, __func__, "out");
    *out = NULL;
    if (!a || !b)
        return error_null(err, __func__, "a or b");
    int n = a->n + b->n, dim = a->dim + b->dim;
    double *basis = calloc((size_t)n * (size_t)dim + 1, sizeof *basis);
    *out = NULL;
    if (!basis)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    for (int j = 0; j < a->dim; j++)
        memcpy(basis + (size_t)j * (size_t)n, a->basis + (size_t)j * (size_t)a->n,
               (size_t)a->n * sizeof *basis);
    for (int j = 0; j < b->dim; j++)
        memcpy(basis + (size_t)(a->dim + j) * (size_t)n + (size_t)a->n,
               b->basis + (size_t)j * (size_t)b->n, (size_t)b->n * sizeof *basis);
    dirac_status status = subspace_create(n, dim, basis, out, err);
    free(basis);
    return status;
}

double dirac_subspace_distance(const dirac_subspace *s, const double *x)
{
    if (!s || !x)
        return NAN;
    return basis_distance(s->n, s->dim, s->basis, x);
}

double basis_distance(int dim_ambient, int dim, const double *basis, const double *x)
{
    size_t n = (size_t)dim_ambient;
    if (!linalg_all_finite(x, n))
        return NAN;
    double norm_x = linalg_norm(x, n);
    if (norm_x == 0.0)
        return 0.0;
    // |x - Q Q^T x|^2 = |x|^2 - |Q^T x|^2 loses accuracy near 0: form the residual instead
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        double r = x[i];
        for (int j = 0; j < dim; j++) {
            const double *q = basis + (size_t)j * n;
            double c = 0.0;
            for (size_t l = 0; l < n; l++)
                c += q[l] * x[l];
            r -= c * q[i];
        }
        sum += (r / norm_x) * (r / norm_x);
    }
    return sqrt(sum);
}

dirac_status dirac_subspace_largest_angle(const dirac_subspace *a, const dirac_subspace *b,
                                          double *angle, dirac_error *err)
{
    if (!angle)
        return error_null(err, __func__, "angle");
    *angle = NAN;
    if (!a || !b)
        return error_null(err, __func__, "a or b");
    dirac_status status = check_same_ambient(a, b, err);
    *angle = NAN;
    if (status != DIRAC_OK)
        return status;
    if (a->dim != b->dim) {
        *angle = 2.0 * atan(1.0);
        return DIRAC_OK;
    }
    return basis_largest_angle(a->n, a->dim, a->basis, b->basis, angle, err);
}

dirac_status basis_largest_angle(int n, int k, const double *qa, const double *qb,
                                 double *angle, dirac_error *err)
{
    dirac_status status = DIRAC_OK;
    if (k == 0) {
        *angle = 0.0;
        return DIRAC_OK;
    }
    // R = Q_B - Q_A (Q_A^T Q_B); sin θ_max = |R|_2
    double *c = malloc((size_t)k * (size_t)k * sizeof *c);
    double *r = malloc((size_t)n * (size_t)k * sizeof *r);
    if (!c || !r) {
        free(c);
        free(r);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    linalg_matmul_tn(k, n, k, qa, qb, c);
    linalg_matmul(n, k, k, qa, c, r);
    for (size_t i = 0; i < (size_t)n * (size_t)k; i++)
        r[i] = qb[i] - r[i];
    double sine = 0.0;
    status = linalg_norm2(n, k, r, &sine, err);
    free(c);
    free(r);
    if (status == DIRAC_OK)
        *angle = asin(sine < 1.0 ? sine : 1.0);
    return status;
}

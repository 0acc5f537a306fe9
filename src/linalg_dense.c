// Dense linear-algebra helpers on top of LAPACKE (column-major throughout).
#include "linalg_dense.h"

#include "error.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

dirac_status linalg_svd(int m, int k, const double *a, double *s, double *u, double *vt,
                        dirac_error *err)
{
    int mk = min_int(m, k);
    if (mk == 0)
        return DIRAC_OK;
    double *copy = malloc((size_t)m * (size_t)k * sizeof *copy);
    double *superb = malloc((size_t)mk * sizeof *superb);
    if (!copy || !superb) {
        free(copy);
        free(superb);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory in a %d x %d SVD", m, k);
    }
    memcpy(copy, a, (size_t)m * (size_t)k * sizeof *copy);
    double dummy = 0.0;
    lapack_int info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, u ? 'A' : 'N', vt ? 'A' : 'N', m, k,
                                     copy, m, s, u ? u : &dummy, u ? m : 1, vt ? vt : &dummy,
                                     vt ? k : 1, superb);
    free(copy);
    free(superb);
    if (info != 0)
        return error_set(err, DIRAC_ERR_LINALG, "LAPACK dgesvd failed on a %d x %d matrix (info %d)",
                         m, k, (int)info);
    return DIRAC_OK;
}

int linalg_rank_of_singular_values(const double *s, int min_mk)
{
    if (min_mk == 0 || s[0] == 0.0)
        return 0;
    int rank = 0;
    while (rank < min_mk && s[rank] > LINALG_RANK_RTOL * s[0])
        rank++;
    return rank;
}

dirac_status linalg_rank_qr(int m, int k, const double *a, int *rank, int *dependent,
                            int *independent, double *y, dirac_error *err)
{
    *rank = 0;
    *dependent = k > 0 ? 0 : -1;
    if (k == 0 || m == 0)
        return DIRAC_OK;
    double *r = malloc((size_t)m * (size_t)k * sizeof *r);
    double *tau = malloc((size_t)min_int(m, k) * sizeof *tau);
    lapack_int *pivot = calloc((size_t)k, sizeof *pivot);   // 0: every column free to move
    dirac_status status = r && tau && pivot ? DIRAC_OK
                                            : error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    lapack_int info = 0;
    if (status == DIRAC_OK) {
        memcpy(r, a, (size_t)m * (size_t)k * sizeof *r);
        info = LAPACKE_dgeqp3(LAPACK_COL_MAJOR, m, k, r, m, pivot, tau);
        if (info != 0)
            status = error_set(err, DIRAC_ERR_LINALG, "LAPACK dgeqp3 failed on a %d x %d "
                               "matrix (info %d)", m, k, (int)info);
    }
    if (status == DIRAC_OK) {
        int limit = min_int(m, k);
        double r11 = fabs(r[0]);
        while (*rank < limit &&
               fabs(r[(size_t)*rank * (size_t)m + (size_t)*rank]) > LINALG_RANK_RTOL * r11)
            (*rank)++;
        int n = *rank;
        *dependent = n < k ? (int)pivot[n] - 1 : -1;
        // back substitution R11 y = R12[:, 0] for the first left-out column
        for (int i = n - 1; n < k && i >= 0; i--) {
            double sum = r[(size_t)n * (size_t)m + (size_t)i];
            for (int j = i + 1; j < n; j++)
                sum -= r[(size_t)j * (size_t)m + (size_t)i] * y[j];
            y[i] = sum / r[(size_t)i * (size_t)m + (size_t)i];
        }
        for (int i = 0; i < n; i++)
            independent[i] = (int)pivot[i] - 1;
    }
    free(r);
    free(tau);
    free(pivot);
    return status;
}

dirac_status linalg_least_squares(int n, double *a, double *b, const char *what,
                                  dirac_error *err)
{
    if (n == 0)
        return DIRAC_OK;
    double *sv = malloc((size_t)n * sizeof *sv);
    if (!sv)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    lapack_int rank = 0;
    lapack_int info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, n, n, 1, a, n, b, n, sv, LINALG_RANK_RTOL,
                                     &rank);
    free(sv);
    if (info != 0)
        return error_set(err, DIRAC_ERR_LINALG, "%s failed (LAPACK dgelsd info %d)", what,
                         (int)info);
    return DIRAC_OK;
}

dirac_status linalg_solve(int n, double *a, double *b, const char *what, dirac_error *err)
{
    if (n == 0)
        return DIRAC_OK;
    lapack_int *pivots = malloc((size_t)n * sizeof *pivots);
    if (!pivots)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    lapack_int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, a, n, pivots, b, n);
    free(pivots);
    if (info > 0)
        return error_set(err, DIRAC_ERR_SINGULAR, "%s", what);
    if (info != 0)
        return error_set(err, DIRAC_ERR_LINALG, "%s: LAPACK dgesv failed (info %d)", what,
                         (int)info);
    return DIRAC_OK;
}

int linalg_lu_dependent_column(int n, double *a)
{
    if (n == 0)
        return -1;
    double scale = linalg_max_abs(a, (size_t)n * (size_t)n);
    if (!(scale > 0.0))
        return 0;
    lapack_int *pivots = malloc((size_t)n * sizeof *pivots);
    if (!pivots)
        return -2;
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, pivots);
    free(pivots);
    int dependent = info > 0 ? (int)info - 1 : -1;
    for (int j = 0; dependent < 0 && j < n; j++)
        if (!(fabs(a[(size_t)j * (size_t)n + (size_t)j]) > LINALG_RANK_RTOL * scale))
            dependent = j;
    return dependent;
}

int linalg_svd_right_work_size(int m, int k)
{
    double query = 0.0, dummy = 0.0;
    lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', m, k, &dummy,
                                          m > 0 ? m : 1, &dummy, NULL, 1, &dummy, k > 0 ? k : 1,
                                          &query, -1);
    return info == 0 ? (int)query + 1 : -1;
}

dirac_status linalg_svd_right(int m, int k, double *a, double *s, double *vt, double *work,
                              int work_size)
{
    lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'A', m, k, a, m, s, NULL, 1, vt,
                                          k, work, work_size);
    return info == 0 ? DIRAC_OK : DIRAC_ERR_LINALG;
}

dirac_status linalg_generalized_eigen(int n, double *k, double *m, double *lambda,
                                      dirac_error *err)
{
    if (n == 0)
        return DIRAC_OK;
    lapack_int info = LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'V', 'U', n, k, n, m, n, lambda);
    if (info > n)
        return error_set(err, DIRAC_ERR_UNSUPPORTED, "the matrix M is not positive definite");
    if (info != 0)
        return error_set(err, DIRAC_ERR_LINALG, "LAPACK dsygv failed (info %d)", (int)info);
    return DIRAC_OK;
}

// Copies `cols` columns of length m starting at column `first` of the m-row matrix `src`
// into a new allocation; NULL (and OK) when cols == 0.
static dirac_status copy_columns(int m, const double *src, int first, int cols, double **out,
                                 dirac_error *err)
{
    *out = NULL;
    if (cols == 0)
        return DIRAC_OK;
    *out = malloc((size_t)m * (size_t)cols * sizeof **out);
    if (!*out)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    memcpy(*out, src + (size_t)m * (size_t)first, (size_t)m * (size_t)cols * sizeof **out);
    return DIRAC_OK;
}

dirac_status linalg_range(int m, int k, const double *a, double **range, int *rank,
                          double **complement, dirac_error *err)
{
    *range = NULL;
    *rank = 0;
    if (complement)
        *complement = NULL;
    int mk = min_int(m, k);
    double *s = malloc((size_t)(mk > 0 ? mk : 1) * sizeof *s);
    double *u = malloc((size_t)m * (size_t)m * sizeof *u);
    if (!s || !u) {
        free(s);
        free(u);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    dirac_status status = DIRAC_OK;
    if (mk == 0) {
        // no columns: the range is {0} and its complement everything
        for (int i = 0; i < m * m; i++)
            u[i] = 0.0;
        for (int i = 0; i < m; i++)
            u[i * m + i] = 1.0;
    } else {
        status = linalg_svd(m, k, a, s, u, NULL, err);
    }
    if (status == DIRAC_OK) {
        int r = mk == 0 ? 0 : linalg_rank_of_singular_values(s, mk);
        status = copy_columns(m, u, 0, r, range, err);
        if (status == DIRAC_OK && complement)
            status = copy_columns(m, u, r, m - r, complement, err);
        *rank = r;
    }
    free(s);
    free(u);
    return status;
}

dirac_status linalg_null_space(int m, int k, const double *a, double **null, int *nullity,
                               dirac_error *err)
{
    *null = NULL;
    *nullity = 0;
    if (k == 0)
        return DIRAC_OK;
    int mk = min_int(m, k);
    double *s = malloc((size_t)(mk > 0 ? mk : 1) * sizeof *s);
    double *vt = malloc((size_t)k * (size_t)k * sizeof *vt);
    double *v = malloc((size_t)k * (size_t)k * sizeof *v);
    if (!s || !vt || !v) {
        free(s);
        free(vt);
        free(v);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    dirac_status status = DIRAC_OK;
    int r = 0;
    if (mk > 0) {
        status = linalg_svd(m, k, a, s, NULL, vt, err);
        r = linalg_rank_of_singular_values(s, mk);
    } else {
        for (int i = 0; i < k * k; i++)
            vt[i] = 0.0;
        for (int i = 0; i < k; i++)
            vt[i * k + i] = 1.0;
    }
    if (status == DIRAC_OK) {
        // columns r..k-1 of V = rows r..k-1 of V^T
        for (int j = 0; j < k; j++)
            for (int i = 0; i < k; i++)
                v[(size_t)j * (size_t)k + (size_t)i] = vt[(size_t)i * (size_t)k + (size_t)j];
        status = copy_columns(k, v, r, k - r, null, err);
        *nullity = k - r;
    }
    free(s);
    free(vt);
    free(v);
    return status;
}

dirac_status linalg_norm2(int m, int k, const double *a, double *norm, dirac_error *err)
{
    *norm = 0.0;
    int mk = min_int(m, k);
    if (mk == 0)
        return DIRAC_OK;
    double *s = malloc((size_t)mk * sizeof *s);
    if (!s)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    dirac_status status = linalg_svd(m, k, a, s, NULL, NULL, err);
    if (status == DIRAC_OK)
        *norm = s[0];
    free(s);
    return status;
}

void linalg_matmul(int m, int p, int n, const double *a, const double *b, double *c)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double sum = 0.0;
            for (int l = 0; l < p; l++)
                sum += a[(size_t)l * (size_t)m + (size_t)i] * b[(size_t)j * (size_t)p + (size_t)l];
            c[(size_t)j * (size_t)m + (size_t)i] = sum;
        }
}

void linalg_matmul_tn(int m, int p, int n, const double *a, const double *b, double *c)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double sum = 0.0;
            for (int l = 0; l < p; l++)
                sum += a[(size_t)i * (size_t)p + (size_t)l] * b[(size_t)j * (size_t)p + (size_t)l];
            c[(size_t)j * (size_t)m + (size_t)i] = sum;
        }
}

bool linalg_all_finite(const double *x, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!isfinite(x[i]))
            return false;
    return true;
}

double linalg_max_abs(const double *x, size_t count)
{
    double m = 0.0;
    for (size_t i = 0; i < count; i++)
        if (fabs(x[i]) > m)
            m = fabs(x[i]);
    return m;
}

double linalg_norm(const double *x, size_t count)
{
    // scaled sum of squares: no overflow for large entries
    double scale = linalg_max_abs(x, count), sum = 0.0;
    if (scale == 0.0)
        return 0.0;
    for (size_t i = 0; i < count; i++) {
        double r = x[i] / scale;
        sum += r * r;
    }
    return scale * sqrt(sum);
}

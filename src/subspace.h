// Internal: the representation of dirac_subspace, shared with the Dirac-structure code.
#ifndef DIRAC_SRC_SUBSPACE_H
#define DIRAC_SRC_SUBSPACE_H

#include <dirac/subspace.h>

struct dirac_subspace {
    int n;            // ambient dimension
    int dim;          // dim of the subspace
    double basis[];   // n x dim, column-major, orthonormal columns
};

/// New subspace of R^n with the dim orthonormal columns `basis` (copied; may be NULL if dim = 0).
dirac_status subspace_create(int n, int dim, const double *basis, dirac_subspace **out,
                             dirac_error *err);

/// Subspace spanned by the columns of the n x count matrix `a` whatever its rank (internal
/// results, where dependence is expected and not an input error).
dirac_status subspace_span_any(int n, int count, const double *a, dirac_subspace **out,
                               dirac_error *err);

/// Relative distance |x - Q Q^T x| / |x| of x from the span of the dim orthonormal columns
/// `basis` (n x dim); 0 for x = 0, NaN for non-finite x.
double basis_distance(int n, int dim, const double *basis, const double *x);

/// Largest principal angle between the spans of two n x k orthonormal bases.
dirac_status basis_largest_angle(int n, int k, const double *qa, const double *qb,
                                 double *angle, dirac_error *err);

#endif

// Internal: the representation of dirac_structure and the one validating constructor that
// every public constructor and operation goes through.
#ifndef DIRAC_SRC_STRUCTURE_H
#define DIRAC_SRC_STRUCTURE_H

#include <dirac/structure.h>

struct dirac_structure {
    int n;            // dim V
    double basis[];   // 2n x n, column-major, orthonormal columns (v in rows 0..n-1, α below)
};

/// Computed subspaces whose isotropy residual lies between DIRAC_ISOTROPY_TOL and this are
/// taken as Dirac structures spoilt by rounding (ill-conditioned intersections amplify it) and
/// polished by one Newton step; beyond it they are reported as not Dirac.
#define STRUCTURE_POLISH_TOL 1e-8

/// The Dirac structure spanned by the `count` columns (length 2n) of `pairs`, which may be
/// dependent. Orthonormalises, polishes rounding-level isotropy defects, then verifies
/// dimension n and isotropy (DIRAC_ERR_NOT_DIRAC otherwise, the message naming `what`).
dirac_status structure_from_columns(int n, int count, const double *pairs, const char *what,
                                    dirac_structure **out, dirac_error *err);

/// max_ij |⟨⟨b_i, b_j⟩⟩| for the `dim` columns (length 2n) of `basis`.
double structure_isotropy_residual(int n, int dim, const double *basis);

#endif

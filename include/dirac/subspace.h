/// @file subspace.h
/// Linear subspaces of R^n (distributions at a point, their annihilators, interaction
/// distributions Σ), held as an orthonormal basis.
///
/// Conventions: a vector of R^n and a one-form of (R^n)* are both arrays of n doubles; the
/// pairing is ⟨α, v⟩ = Σ_i α_i v_i, so the annihilator Δ° = {α | ⟨α, v⟩ = 0 ∀ v ∈ Δ} has the
/// same coordinates as the Euclidean orthogonal complement of Δ. Sets of vectors (or forms) are
/// passed as arrays of `count` vectors of length n stored one after another.
///
/// Ownership: every function that returns a subspace through an out-pointer gives the caller
/// a new object, to be released with dirac_subspace_destroy(). On failure the out-pointer is set
/// to NULL and the status and message are written to `err` (which may be NULL).
#ifndef DIRAC_SUBSPACE_H
#define DIRAC_SUBSPACE_H

#include <dirac/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A subspace of R^n with an orthonormal basis; immutable once built.
typedef struct dirac_subspace dirac_subspace;

/// Δ = span of `count` linearly independent vectors of length n (n >= 1, count >= 1).
/// Fails with DIRAC_ERR_RANK if the vectors are dependent (singular values below 1e-10
/// relative), DIRAC_ERR_NOT_FINITE on NaN/Inf entries, DIRAC_ERR_SIZE on bad sizes. The zero
/// subspace is described by n annihilating forms instead (dirac_subspace_from_annihilator).
dirac_status dirac_subspace_from_span(int n, int count, const double *vectors,
                                      dirac_subspace **out, dirac_error *err);

/// Δ = {v | ⟨α_a, v⟩ = 0, a = 1..count} for `count` linearly independent one-forms of length n
/// (count = 0 gives Δ = R^n, count = n gives {0}). Same failures as dirac_subspace_from_span.
dirac_status dirac_subspace_from_annihilator(int n, int count, const double *forms,
                                             dirac_subspace **out, dirac_error *err);

/// Releases `s`; NULL is a harmless no-op.
void dirac_subspace_destroy(dirac_subspace *s);

/// n, the dimension of the ambient space R^n.
int dirac_subspace_ambient_dim(const dirac_subspace *s);

/// dim Δ.
int dirac_subspace_dim(const dirac_subspace *s);

/// The orthonormal basis: dim Δ vectors of length n one after another; valid while `s` lives.
const double *dirac_subspace_basis(const dirac_subspace *s);

/// Δ° ⊂ (R^n)*, as a subspace of R^n (one-forms in the coordinates described above).
dirac_status dirac_subspace_annihilator(const dirac_subspace *s, dirac_subspace **out,
                                        dirac_error *err);

/// A + B (same ambient dimension).
dirac_status dirac_subspace_sum(const dirac_subspace *a, const dirac_subspace *b,
                                dirac_subspace **out, dirac_error *err);

/// A ∩ B (same ambient dimension), computed as (A° + B°)°.
dirac_status dirac_subspace_intersection(const dirac_subspace *a, const dirac_subspace *b,
                                         dirac_subspace **out, dirac_error *err);

/// A ⊕ B ⊂ R^(na + nb): the pairs (a, b); coordinates of A first.
dirac_status dirac_subspace_direct_sum(const dirac_subspace *a, const dirac_subspace *b,
                                       dirac_subspace **out, dirac_error *err);

/// Relative distance of x (length n) from Δ: |x - P x| / |x| with P the orthogonal projector
/// (0 for x = 0). Returns NaN for non-finite x.
double dirac_subspace_distance(const dirac_subspace *s, const double *x);

/// Largest principal angle between A and B (radians, in [0, π/2]); π/2 when the dimensions
/// differ. Computed as asin of the largest singular value of (I - P_A) Q_B, accurate for
/// small angles.
dirac_status dirac_subspace_largest_angle(const dirac_subspace *a, const dirac_subspace *b,
                                          double *angle, dirac_error *err);

#ifdef __cplusplus
}
#endif

#endif

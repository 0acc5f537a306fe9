/// @file structure.h
/// Linear Dirac structures D ⊂ V ⊕ V*, V = R^n (paper 000 §4–6; docs/dirac-structures.md).
///
/// A Dirac structure is stored as an orthonormal basis of D: n vectors of length 2n, each the
/// pair (v, α) with v (first n entries) in V and α (last n entries) in V*. The pairing on
/// V ⊕ V* is ⟨⟨(v, α), (w, β)⟩⟩ = ⟨α, w⟩ + ⟨β, v⟩, and D is Dirac when D = D^⊥ (isotropic and
/// of dimension n).
///
/// Matrices (two-forms Ω, bivectors Π, kernel blocks F, E) are n x n, row-major:
/// `omega[i*n + j]` = Ω(e_i, e_j). The flat map is Ω♭(v) = Ω(v, ·), i.e. (Ω♭ v)_j = Σ_i v_i Ω_ij;
/// for B = K dq ∧ dθ this gives B♭(I, ω) = (−K ω, K I).
///
/// Ownership as in subspace.h: out-pointers receive new objects (dirac_structure_destroy), set
/// to NULL on failure with the reason in `err` (may be NULL).
#ifndef DIRAC_STRUCTURE_H
#define DIRAC_STRUCTURE_H

#include <dirac/status.h>
#include <dirac/subspace.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A linear Dirac structure; immutable once built.
typedef struct dirac_structure dirac_structure;

/// Relative tolerance used to decide that a computed subspace of V ⊕ V* is isotropic
/// (max |⟨⟨b_i, b_j⟩⟩| over an orthonormal basis).
#define DIRAC_ISOTROPY_TOL 1e-12

/// Relative tolerance below which a matrix counts as skew: max|Ω + Ω^T| <= tol * max|Ω|.
#define DIRAC_SKEW_TOL 1e-12

// ---- constructors -------------------------------------------------------------------------

/// D(Ω, Δ) = {(v, α) | v ∈ Δ, α − Ω♭(v) ∈ Δ°}. `omega` is a skew n x n matrix or NULL
/// (Ω = 0); `delta` is a subspace of R^n or NULL (Δ = V). With Δ = V this is graph(Ω♭), with
/// Ω = 0 it is Δ ⊕ Δ°. Fails with DIRAC_ERR_NOT_SKEW, DIRAC_ERR_NOT_FINITE or DIRAC_ERR_SIZE.
dirac_status dirac_structure_from_two_form(int n, const double *omega,
                                           const dirac_subspace *delta,
                                           dirac_structure **out, dirac_error *err);

/// Δ ⊕ Δ° = {(v, α) | v ∈ Δ, α ∈ Δ°} (constraint structure, no two-form).
dirac_status dirac_structure_from_distribution(const dirac_subspace *delta,
                                               dirac_structure **out, dirac_error *err);

/// graph(Π♯) = {(Π♯(α), α) | α ∈ V*} of a skew bivector Π (row-major, Π♯(α) = Π(α, ·)).
dirac_status dirac_structure_from_poisson(int n, const double *pi, dirac_structure **out,
                                          dirac_error *err);

/// The Dirac structure D_ΔQ induced on T*Q (V = R^2n with coordinates (q, p)) by a
/// distribution Δ_Q ⊂ R^n (NULL: Δ_Q = TQ, unconstrained):
/// D_ΔQ = {((δq, δp), (α, u)) | δq ∈ Δ_Q, u = δq, α + δp ∈ Δ_Q°}
/// = D(Ω_can, Δ_Q × R^n) with Ω_can = dq ∧ dp. `n` is dim Q.
dirac_status dirac_structure_induced(int n, const dirac_subspace *delta_q,
                                     dirac_structure **out, dirac_error *err);

/// The interaction Dirac structure D_int = π_Q^*(Σ ⊕ Σ°) on T*Q (V = R^2n, coordinates
/// (q, p)) of an interaction distribution Σ ⊂ R^n: velocities in Σ, forces in Σ°, no momentum
/// components: D(0, Σ × R^n).
dirac_status dirac_structure_interaction(const dirac_subspace *sigma, dirac_structure **out,
                                         dirac_error *err);

/// Kernel representation D = {(f, e) | F f + E e = 0} with F, E n x n row-major (one equation
/// per row). Fails with DIRAC_ERR_RANK if rank [F E] < n and DIRAC_ERR_NOT_DIRAC if the
/// kernel is not isotropic (F E^T + E F^T ≠ 0).
dirac_status dirac_structure_from_kernel(int n, const double *f, const double *e,
                                         dirac_structure **out, dirac_error *err);

/// D = span of `count` vectors of length 2n (pairs (v, α) one after another), which may be
/// dependent. Fails with DIRAC_ERR_NOT_DIRAC (message gives the dimension and isotropy
/// residual) if the span is not a Dirac structure.
dirac_status dirac_structure_from_span(int n, int count, const double *pairs,
                                       dirac_structure **out, dirac_error *err);

/// Releases `d`; NULL is a harmless no-op.
void dirac_structure_destroy(dirac_structure *d);

// ---- queries ------------------------------------------------------------------------------

/// n = dim V.
int dirac_structure_dim(const dirac_structure *d);

/// Orthonormal basis of D: n pairs (v, α) of length 2n one after another; valid while `d` lives.
const double *dirac_structure_basis(const dirac_structure *d);

/// Isotropy residual max_ij |⟨⟨b_i, b_j⟩⟩| of the orthonormal basis (relative by construction:
/// 0 for an exact Dirac structure).
double dirac_structure_isotropy_residual(const dirac_structure *d);

/// Relative distance of the pair (v, α) from D: |x − P_D x| / |x| with x = (v, α) (0 for
/// x = 0, NaN for non-finite input). A pair belongs to D when this is at rounding level.
double dirac_structure_membership_residual(const dirac_structure *d, const double *v,
                                           const double *alpha);

/// Largest principal angle between Da and Db (radians); D's are equal when it is at rounding
/// level. Fails with DIRAC_ERR_SIZE if the dimensions differ.
dirac_status dirac_structure_largest_angle(const dirac_structure *da, const dirac_structure *db,
                                           double *angle, dirac_error *err);

/// Checks that `count` vectors of length 2n span a Dirac structure: writes the dimension of
/// their span and the isotropy residual of its orthonormal basis; returns DIRAC_OK if Dirac
/// (dimension n, residual <= DIRAC_ISOTROPY_TOL) and DIRAC_ERR_NOT_DIRAC otherwise.
dirac_status dirac_check_dirac(int n, int count, const double *pairs, int *dim,
                               double *isotropy_residual, dirac_error *err);

// ---- operations ---------------------------------------------------------------------------

/// D^⊥ = {x ∈ V ⊕ V* | ⟨⟨x, y⟩⟩ = 0 ∀ y ∈ D}, computed as a null space independently of how
/// D was built (so that D = D^⊥ can be verified).
dirac_status dirac_structure_complement(const dirac_structure *d, dirac_structure **out,
                                        dirac_error *err);

/// D1 ⊕ D2 on V1 × V2 (coordinates of V1 first): non-interacting subsystems.
dirac_status dirac_structure_direct_sum(const dirac_structure *d1, const dirac_structure *d2,
                                        dirac_structure **out, dirac_error *err);

/// Tensor product Da ⊠ Db = {(v, αa + αb) | (v, αa) ∈ Da, (v, αb) ∈ Db} (same V): shared
/// velocities, added forces (Jacobs & Yoshimura 2014, Def. of ⊠).
dirac_status dirac_structure_tensor(const dirac_structure *da, const dirac_structure *db,
                                    dirac_structure **out, dirac_error *err);

/// Composition over `shared` ports (Cervera, van der Schaft & Baños 2007): Da lives on
/// V1 × V2, Db on V2 × V3 with dim V2 = `shared` (the last coordinates of Da, the first of
/// Db). Result on V1 × V3:
/// Da ∘ Db = {(f1, f3, e1, e3) | ∃ (f2, e2): (f1, f2, e1, e2) ∈ Da, (−f2, f3, e2, e3) ∈ Db}.
dirac_status dirac_structure_compose(const dirac_structure *da, const dirac_structure *db,
                                     int shared, dirac_structure **out, dirac_error *err);

/// Relabels coordinates: the result's coordinate i is the input's coordinate perm[i], for the
/// vector and the covector part alike. `perm` must be a permutation of 0..n-1.
dirac_status dirac_structure_permute(const dirac_structure *d, const int *perm,
                                     dirac_structure **out, dirac_error *err);

#ifdef __cplusplus
}
#endif

#endif

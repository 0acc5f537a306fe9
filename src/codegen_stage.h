// Internal: generated stage kernels of the `midpoint` method (issue 15) for small models.
//
// Each of midpoint's two Newton stages (src/integ_midpoint.c) assembles its residual and dense
// Jacobian from the model's groups at one or two points. For a model small enough for the
// dense linear solver, the generated code (src/codegen.h) also holds one function per stage
// that does all of it in one call: it writes the points' inputs (q, v, t) into the slots' x,
// evaluates the groups there with the module's own function (a constant subset, so the
// compiler drops the rest and shares every common subexpression), and adds the residual and
// the column-major Jacobian with every sparse index fixed at emission. The sums are formed in
// the order of integ_midpoint.c's block-by-block assembly, with the same operations and no
// contraction into fused multiply-adds, so the kernel gives the tape path's numbers bit for bit.
//
//   stage 1, z = [Δq | λ]:  r = ∂L/∂v(q̄, v̄) − p_k − h/2 [∂L/∂q + F](q̄, v̄, t̄) − h/2 ω(q_k)ᵀ λ,
//                           φ(q_k + Δq, t + h) (holonomic), ⟨ω(q̄), v̄⟩ + b (nonholonomic)
//   stage 2, z = [v | ν]:   r = ∂L/∂v(q_{k+1}, v) − p* − h/2 ω(q_{k+1})ᵀ ν, ⟨ω, v⟩ + b
//
// Not emitted (the assembly of integ_midpoint.c serves these): models with entropy variables,
// models of CODEGEN_STAGE_MAX_UNKNOWNS unknowns or more (the sparse solver's), kernels of more
// than CODEGEN_STAGE_MAX_LINES lines, and sources
// whose groups are partly left to the tapes. Degenerate Lagrangians' stage 2 (the momentum
// balance along the free velocities) and sparse solvers stay on the assembly at run time.
#ifndef DIRAC_SRC_CODEGEN_STAGE_H
#define DIRAC_SRC_CODEGEN_STAGE_H

#include "codegen.h"

struct dirac_model;

/// Kernels are emitted for models of fewer unknowns n + m than this (the dense solver's range,
/// sim_eval.c's SIM_SPARSE_THRESHOLD).
#define CODEGEN_STAGE_MAX_UNKNOWNS 64

/// Kernels longer than this many lines are left out (the compiler's time stays within a
/// fraction of a second; docs/benchmarks.md): a dense Jacobian of many unknowns.
#define CODEGEN_STAGE_MAX_LINES 1000

/// The step's data a kernel reads (its layout is repeated in the generated source, which
/// is compiled by the same C compiler: plain pointers and doubles, no padding).
typedef struct codegen_stage_args {
    const double *q;             // stage 1: q_k; stage 2: q_{k+1} (n)
    const double *p;             // stage 1: p_k; stage 2: p* (n)
    const double *start_forms;   // stage 1: ω(q_k)'s values (model->constraint_forms)
    double *hidden;              // stage 1: Newton's hidden magnitudes (newton.h), += |ω q_{k+1}|
    double *x_mid, *x_end;       // the points' inputs: stage 1 both, stage 2 x_end
    double *const *out_mid;      // the points' groups (sim_eval.out)
    double *const *out_end;
    double t, h;                 // t_k and the step
} codegen_stage_args;

/// A kernel: residual r (n + m) at z, and when J is non-NULL the Jacobian added into the
/// column-major (n + m)² matrix J (zeroed by the caller), as newton_assemble_fn asks.
typedef void (*codegen_stage_fn)(const codegen_stage_args *a, const double *z, double *r,
                                 double *J, const double *k, double *w, const int *ix);

/// The kernels: the two stages, and two evaluations midpoint_step makes once per step (r and J
/// unused): the constraints at the start node (q = q_k, z = v_k, into x_mid and out_mid) and
/// the groups of p* at the converged midpoint (q = q_k, z = Δq).
enum {
    CODEGEN_STAGE_POSITIONS,
    CODEGEN_STAGE_VELOCITIES,
    CODEGEN_STAGE_START,
    CODEGEN_STAGE_MIDPOINT,
    CODEGEN_STAGE_COUNT
};

/// The C source of the model's four kernels (to be appended to its generated source), or
/// NULL when the model gets none (see above) or out of memory.
char *codegen_stage_source(const struct dirac_model *m);

/// The module's kernel of `stage`, or NULL (no kernel emitted, or no module).
codegen_stage_fn codegen_stage(const codegen_module *module, int stage);

/// Runs the module's kernel of `stage` (codegen_stage() non-NULL) with its constants.
void codegen_stage_run(const codegen_module *module, int stage, const codegen_stage_args *a,
                       const double *z, double *r, double *J, double *work);

#endif

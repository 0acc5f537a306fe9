// Internal: the midpoint method's state, shared with dirac2, which starts with one midpoint step.
#ifndef DIRAC_SRC_INTEG_MIDPOINT_H
#define DIRAC_SRC_INTEG_MIDPOINT_H

#include "predictor.h"
#include "sim.h"

/// Workspace of one midpoint step (src/integ_midpoint.c), named once by midpoint_layout.
typedef struct midpoint_state {
    double *z;                    // Newton unknowns: stage 1 [Δq | S_{k+1} | λ], stage 2 [v | ν]
    int *block;                   // their blocks
    double *qbar, *vbar, *q1;     // q̄, v̄ = Δq/h (in the midpoint slot's x), q_{k+1} (n each)
    double *pstar;                // p* (n)
    // q1 and pstar: the simulation's next node for the method (sim.h, writes_next), these
    // arrays of the workspace for dirac2's first step, which updates the node in place
    double *q1_own, *pstar_own;
    double record_t, record_h;    // the step the predictors record once it is accepted
    double *lambda;               // λ of stage 1 (m)
    double *sbar, *temperature;   // S̄ (in the midpoint slot's x) and T̄ (ns each)
    double *s_old;                // S_k (ns)
    double *dq;                   // Δq = q_{k+1} − q_k of the last step (n)
    double *residual;             // stage 1's residual at the converged solution
    // Newton's starting values (history: part of the snapshot): stage 1 as [v̄ | S | λ] at the
    // step midpoints, stage 2 as [v | ν] at the nodes
    predictor positions, velocities;
    // stage 1's dense ∂R1/∂Δq from ∂²L and ∂F (assemble_positions): per entry added, its
    // source (k < hessian nnz: hessian[k], else force_jac[k − nnz]), its place in the
    // column-major matrix and its coefficient (0: ½, 1: 1/h, 2: −h/4, 3: −½), in the order of
    // the block-by-block assembly (so the sums are the same); made at the first dense assembly
    int *dense_source, *dense_place, *dense_coefficient;
    int dense_count;
    bool dense_ready;
    bool kernels;                 // the model's generated stage kernels (codegen_stage.h) exist
                                  // (set by each step: dirac2 shares the state, not the init)
} midpoint_state;

void midpoint_layout(const dirac_sim *sim, void *state, sim_layout *l);
dirac_status midpoint_init(dirac_sim *sim, void *state);
/// One midpoint step that updates the node in place and records it in the predictors
/// (dirac2's first step; the method itself writes the simulation's next node).
dirac_status midpoint_step(dirac_sim *sim, void *state);

#endif

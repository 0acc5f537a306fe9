// Internal: every compiled function of a model evaluated at one point (q, v, S, t, μ), for the
// set-up analyses (equilibrium, linearisation, modes). Allocates; never used inside a step.
#ifndef DIRAC_SRC_ANALYSIS_POINT_H
#define DIRAC_SRC_ANALYSIS_POINT_H

#include "model.h"

typedef struct analysis_point {
    const dirac_model *m;
    double *x;              // [q | v | S | t | μ | u] (m->n_inputs; u: the defaults)
    double *work;           // tape scratch
    double *gradient;       // [∂L/∂q | ∂L/∂v | ∂L/∂S | ∂L/∂t]
    double *hessian;        // values of m->hessian
    double *forces;         // F (n)
    double *force_jac;      // values of m->force_jacobian
    double *values;         // c_a
    double *forms;          // values of m->constraint_forms (ω)
    double *constraint_jac; // values of m->constraint_jacobian
    double *curvature;      // values of m->form_curvature
    double *outputs;        // output_count
    double *output_jac;     // values of m->output_jacobian
} analysis_point;

dirac_status analysis_point_init(analysis_point *pt, const dirac_model *m, dirac_error *err);
void analysis_point_free(analysis_point *pt);

/// Sets the point (any of q, v, s NULL: zeros; mu NULL: zeros) and evaluates every group.
void analysis_point_eval(analysis_point *pt, const double *q, const double *v, const double *s,
                         double t, const double *mu);

/// Calls add(ctx, row, col, value) for every stored entry of sparse `sp` with values `values`,
/// restricted to rows [0, rows) and columns [first_col, first_col + cols), columns shifted to 0.
void analysis_sparse_each(const model_sparse *sp, const double *values, int first_col, int cols,
                          void (*add)(void *ctx, int row, int col, double value), void *ctx);

#endif

// Evaluation helpers shared by the integrators: the compiled groups at one point into an
// evaluation slot, Jacobian blocks, constraint forms, the entropy balance, the linear solvers.
#include "sim.h"

#include <math.h>
#include <string.h>

bool sim_forces_vanish(const dirac_model *m)
{
    for (int i = 0; i < m->forces.count; i++)
        if (!expr_is_const(m->pool, m->forces.ids[i], 0.0) ||
            signbit(expr_const_value(m->pool, m->forces.ids[i])))   // +0, as the arrays hold
            return false;
    return m->force_jacobian.nnz == 0;
}

void sim_evaluate(dirac_sim *sim, sim_eval *e, const double *q, const double *v, const double *s,
                  double t, const double *mu, int what)
{
    const dirac_model *m = sim->model;
    what &= sim->evaluated_groups;   // F ≡ 0: not n zeros at every evaluation
    int n = sim->n;
    double *x = e->x, *xv = x + m->first_v, *xs = x + m->first_s, *xmu = x + m->first_mu;
    // loops: small models pay memcpy's call more than the copy; a caller that keeps its
    // point in x already (q == x: the node, midpoint's q̄ and v̄) copies nothing
    if (q != x)
        for (int i = 0; i < n; i++)
            x[i] = q[i];
    if (v != xv)
        for (int i = 0; i < n; i++)
            xv[i] = v[i];
    if (s != xs)
        for (int j = 0; j < sim->ns; j++)
            xs[j] = s[j];
    x[m->index_t] = t;
    if (mu) {
        if (mu != xmu)
            for (int a = 0; a < sim->mc; a++)
                xmu[a] = mu[a];
        e->mu_zero = false;
    } else if (!e->mu_zero) {   // μ = 0 is written once, not at every point without μ
        for (int a = 0; a < sim->mc; a++)
            xmu[a] = 0.0;
        e->mu_zero = true;
    }
    if (m->codegen) {   // the groups of this point in one call, sharing subexpressions
        // (the EVAL_ flags are the group bits: sim.h)
        unsigned groups = (unsigned)what, taped = m->codegen_report.tape_groups;
        // groups the generated code leaves to their tapes (a long sum: codegen_families.h)
        for (int g = 0; (groups & taped) && g < MODEL_CG_COUNT; g++)
            if (groups & taped & (1u << g))
                model_group_eval(model_codegen_group_of(m, (model_codegen_group)g), e->x,
                                 sim->tape_work, e->out[g]);
        codegen_eval(m->codegen, groups & ~taped, e->x, e->out, sim->tape_work);
        return;
    }
    if (what & EVAL_LAGRANGIAN)
        model_group_eval(&m->lagrangian_value, e->x, sim->tape_work, &e->lagrangian);
    if (what & EVAL_GRADIENT)
        model_group_eval(&m->gradient, e->x, sim->tape_work, e->gradient);
    if (what & EVAL_HESSIAN)
        model_group_eval(&m->hessian.values, e->x, sim->tape_work, e->hessian);
    if (what & EVAL_CONSTRAINTS) {
        model_group_eval(&m->constraint_values, e->x, sim->tape_work, e->values);
        model_group_eval(&m->constraint_forms.values, e->x, sim->tape_work, e->forms);
        model_group_eval(&m->constraint_rates, e->x, sim->tape_work, e->rates);
    }
    if (what & EVAL_CONSTRAINT_JAC)
        model_group_eval(&m->constraint_jacobian.values, e->x, sim->tape_work, e->constraint_jac);
    if (what & EVAL_CURVATURE)
        model_group_eval(&m->form_curvature.values, e->x, sim->tape_work, e->curvature);
    if (what & EVAL_FORCES) {
        model_group_eval(&m->forces, e->x, sim->tape_work, e->forces);
        model_group_eval(&m->force_jacobian.values, e->x, sim->tape_work, e->force_jac);
    }
}

void sim_add_sparse_block(const model_sparse *sp, const double *values, int row_first, int rows,
                          int col_first, int cols, double scale, linsolve *jac, int r0, int c0)
{
    if (rows <= 0 || cols <= 0 || sp->nnz == 0)   // e.g. no entropy columns, no forces
        return;
    for (int r = 0; r < rows; r++)
        for (int k = sp->row_start[row_first + r]; k < sp->row_start[row_first + r + 1]; k++) {
            int c = sp->col[k] - col_first;
            if (c >= 0 && c < cols)
                linsolve_add(jac, r0 + r, c0 + c, scale * values[k]);
        }
}

void sim_add_hessian_block(const dirac_sim *sim, const sim_eval *e, int row_first, int rows,
                           int col_first, int cols, double scale, linsolve *jac, int r0, int c0)
{
    sim_add_sparse_block(&sim->model->hessian, e->hessian, row_first, rows, col_first, cols,
                         scale, jac, r0, c0);
}

// Sparse LU pays off from about this many unknowns (bench/: dense LAPACK wins below).
#define SIM_SPARSE_THRESHOLD 64

// The solver of `slot`, replaced when its size or kind differs (first use: allocates).
static linsolve *slot_solver(dirac_sim *sim, int slot, int size, bool sparse)
{
    linsolve **ls = &sim->solver[slot];
    if (*ls && linsolve_size(*ls) == size && linsolve_is_sparse(*ls) == sparse)
        return *ls;
    linsolve_destroy(*ls);
    *ls = NULL;
    linsolve_create(size, sparse, ls, NULL);
    return *ls;
}

linsolve *sim_solver(dirac_sim *sim, int slot, int size)
{
    bool sparse = sim->linear_solver == DIRAC_LINEAR_SPARSE ||
                  (sim->linear_solver == DIRAC_LINEAR_AUTO && size >= SIM_SPARSE_THRESHOLD);
    return slot_solver(sim, slot, size, sparse);
}

linsolve *sim_dense_solver(dirac_sim *sim, int slot, int size)
{
    return slot_solver(sim, slot, size, false);
}

void sim_velocity_constraint(const dirac_sim *sim, const sim_eval *e, const double *v, double *g)
{
    const model_sparse *f = &sim->model->constraint_forms;
    for (int a = 0; a < sim->mc; a++) {
        double sum = e->rates[a];
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            sum += e->forms[k] * v[f->col[k]];
        g[a] = sum;
    }
}

void sim_add_forms_transposed(const dirac_sim *sim, const sim_eval *e, const double *mu,
                              double scale, double *r)
{
    const model_sparse *f = &sim->model->constraint_forms;
    for (int a = 0; a < sim->mc; a++)
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            r[f->col[k]] += scale * mu[a] * e->forms[k];
}

void sim_add_position_magnitude(const dirac_sim *sim, const sim_eval *e, const double *q,
                                double scale, double *out)
{
    const model_sparse *f = &sim->model->constraint_forms;
    for (int a = 0; a < sim->mc; a++)
        if (sim->model->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
                out[a] += fabs(scale * e->forms[k] * q[f->col[k]]);
}

bool sim_has_holonomic(const dirac_sim *sim)
{
    for (int a = 0; a < sim->mc; a++)
        if (sim->model->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            return true;
    return false;
}

void sim_entropy_residual(const dirac_sim *sim, const double *temperature,
                          const double *thermal, const double *vbar, const double *s1,
                          double h, double *r)
{
    const dirac_model *m = sim->model;
    const double *conductance = thermal + m->friction_count, *heat_in = conductance + m->heat_count;
    for (int j = 0; j < sim->ns; j++)
        r[j] = temperature[j] * (s1[j] - sim->s[j]) - h * heat_in[j];
    for (int k = 0; k < m->friction_count; k++)
        r[m->friction_entropy[k]] += h * thermal[k] * vbar[m->friction_coord[k]];
    for (int k = 0; k < m->heat_count; k++) {
        int a = m->heat_pair[2 * k], b = m->heat_pair[2 * k + 1];
        r[a] -= h * conductance[k] * (temperature[b] - temperature[a]);
        r[b] -= h * conductance[k] * (temperature[a] - temperature[b]);
    }
}

double sim_thermal_work(const dirac_sim *sim, const double *thermal, const double *dq, double h)
{
    const dirac_model *m = sim->model;
    double work = 0.0;
    for (int k = 0; k < m->friction_count; k++)
        work -= thermal[k] * dq[m->friction_coord[k]];
    for (int j = 0; j < sim->ns; j++)
        work += h * thermal[m->friction_count + m->heat_count + j];
    return work;
}

// The independence check of the constraints at the initial state: dependent constraints make
// every implicit step singular, so compilation refuses them and names the combination.
#include "model_compile.h"

#include "linalg_dense.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// Dense checks at the initial state are skipped for models larger than this (entries of the
// constraint matrix): Newton's method still reports a singular system, naming the equation.
#define DENSE_CHECK_LIMIT 250000.0

// The one-forms at the initial state as the dense n x m matrix [ω_1 … ω_m] (column a = ω_a)
// into `a`; `x` (n_inputs), `work` (work_size) and `values` (nnz of ω) are scratch.
static void forms_at_initial_state(const dirac_model *m, double *x, double *work,
                                   double *values, double *a)
{
    model_set_default_inputs(m, x);
    memcpy(x, m->q0, (size_t)m->n * sizeof *x);
    memcpy(x + m->first_v, m->v0, (size_t)m->n * sizeof *x);
    memcpy(x + m->first_s, m->s0, (size_t)m->ns * sizeof *x);
    model_group_eval(&m->constraint_forms.values, x, work, values);
    const model_sparse *f = &m->constraint_forms;
    for (int k = 0; k < m->m; k++)
        for (int j = f->row_start[k]; j < f->row_start[k + 1]; j++)
            a[(size_t)k * (size_t)m->n + (size_t)f->col[j]] = values[j];
}

// The error for constraint `dependent`: a combination y of the constraints `independent`
// (rank of them), or a zero one-form when no coefficient is significant.
static int report_dependent(compile_state *c, int dependent, int rank, const int *independent,
                            const double *y)
{
    const dirac_model *m = c->m;
    char names[512] = "";
    double largest = linalg_max_abs(y, (size_t)rank);
    for (int i = 0; i < rank; i++)
        if (fabs(y[i]) > 1e-8 * largest && strlen(names) < sizeof names - 64)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s'%s'",
                     names[0] ? ", " : "", m->constraints[independent[i]].name);
    spec_loc loc = c->constraint_spec[dependent]->loc;
    if (names[0])
        spec_error(c->spec, DIRAC_ERR_PARSE, loc,
                   "constraint '%s' is linearly dependent on %s at the initial state "
                   "(rank %d of %d): remove it or one of them",
                   m->constraints[dependent].name, names, rank, m->m);
    else
        spec_error(c->spec, DIRAC_ERR_PARSE, loc,
                   "constraint '%s' has a zero one-form at the initial state (it does not "
                   "constrain anything there)", m->constraints[dependent].name);
    return 0;
}

// The one-forms must be independent at the initial state: the rank of [ω_1 … ω_m] under the
// rank rule of linalg_dense.h, and for a dependent one-form its combination of the others.
int compile_check_constraint_rank(compile_state *c)
{
    dirac_model *m = c->m;
    int n = m->n, mc = m->m;
    if (mc == 0 || (double)n * (double)mc > DENSE_CHECK_LIMIT)
        return 1;
    mem_plan plan = { 0 };
    double *x = NULL, *work = NULL, *values = NULL, *a = NULL, *y = NULL;
    int *independent = NULL;
    for (int pass = 0; pass < 2; pass++) {   // one block: sizing pass, then placing pass
        x = mem_plan_take(&plan, (size_t)m->n_inputs, sizeof *x);
        work = mem_plan_take(&plan, (size_t)m->work_size, sizeof *work);
        values = mem_plan_take(&plan, (size_t)m->constraint_forms.nnz, sizeof *values);
        a = mem_plan_take(&plan, (size_t)n * (size_t)mc, sizeof *a);
        y = mem_plan_take(&plan, (size_t)mc, sizeof *y);
        independent = mem_plan_take(&plan, (size_t)mc, sizeof *independent);
        if (pass == 0 && !mem_plan_alloc(&plan, &m->mem))
            return compile_fail_nomem(c);
    }
    forms_at_initial_state(m, x, work, values, a);
    int rank = 0, dependent = -1, ok = 1;
    dirac_error err;
    dirac_status status = linalg_rank_qr(n, mc, a, &rank, &dependent, independent, y, &err);
    if (status == DIRAC_ERR_NOMEM)
        ok = compile_fail_nomem(c);
    else if (status == DIRAC_OK && dependent >= 0)
        ok = report_dependent(c, dependent, rank, independent, y);
    // (a LAPACK failure leaves the check to Newton's method)
    mem_free(&m->mem, plan.block);
    return ok;
}

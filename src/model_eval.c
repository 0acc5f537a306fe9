// Evaluation of a compiled model at run time: its groups at a point, the inputs' defaults,
// and whether the model is defined (finite) at a point.
#include "model.h"

#include "error.h"

#include <math.h>
#include <stdlib.h>

void model_group_eval(const model_group *g, const double *x, double *work, double *values)
{
    if (g->module) {   // generated code (codegen_model.c), this group's bit only
        double *out[CODEGEN_MAX_GROUPS];
        out[g->bit] = values;
        codegen_eval(g->module, 1u << g->bit, x, out, work);
    } else if (g->tape) {
        expr_tape_eval(g->tape, x, work, values);
    }
}

void model_set_default_inputs(const dirac_model *m, double *x)
{
    for (int k = 0; k < m->nu; k++)
        x[m->first_u + k] = m->input_defaults[k];
}

// ---- definedness at a point -------------------------------------------------------------

static const char *nonfinite_word(double value)
{
    return isnan(value) ? "NaN" : "infinite";
}

// the point itself: q, v, S, t, ... finite
static dirac_status check_point(const dirac_model *m, const double *x, dirac_error *err)
{
    int n = m->n, ns = m->ns;
    for (int i = 0; i < m->n_inputs; i++)
        if (!isfinite(x[i])) {
            const char *kind = i < n ? "" : i < 2 * n ? "'" : "";
            const char *name = i < n            ? m->coord_names[i]
                               : i < 2 * n      ? m->coord_names[i - n]
                               : i < 2 * n + ns ? m->entropy_names[i - 2 * n]
                               : i == 2 * n + ns ? "t"
                                                 : "a multiplier";
            return error_set(err, DIRAC_ERR_NOT_FINITE, "the initial value of %s%s is %s", name,
                             kind, nonfinite_word(x[i]));
        }
    return DIRAC_OK;
}

// the values there: L, its gradient, the constraints and their one-forms finite
static dirac_status check_values(const dirac_model *m, double lagrangian, const double *gradient,
                                 const double *constraint, const double *forms,
                                 dirac_error *err)
{
    int n = m->n, ns = m->ns, mc = m->m;
    if (!isfinite(lagrangian))
        return error_set(err, DIRAC_ERR_NOT_FINITE, "the Lagrangian is %s there",
                         nonfinite_word(lagrangian));
    for (int i = 0; i < 2 * n + ns; i++)
        if (!isfinite(gradient[i]))
            return error_set(err, DIRAC_ERR_NOT_FINITE, "%s%s%s is %s there",
                             i < n ? "dL/d" : i < 2 * n ? "the momentum dL/d" : "dL/d",
                             i < n            ? m->coord_names[i]
                             : i < 2 * n      ? m->coord_names[i - n]
                                              : m->entropy_names[i - 2 * n],
                             i >= n && i < 2 * n ? "'" : "", nonfinite_word(gradient[i]));
    for (int a = 0; a < mc; a++) {
        int bad = !isfinite(constraint[a]);
        for (int k = m->constraint_forms.row_start[a];
             !bad && k < m->constraint_forms.row_start[a + 1]; k++)
            bad = !isfinite(forms[k]);
        if (bad)
            return error_set(err, DIRAC_ERR_NOT_FINITE, "constraint '%s' or its one-form is not "
                             "finite there", m->constraints[a].name);
    }
    return DIRAC_OK;
}

dirac_status model_check_defined_values(const dirac_model *m, const double *x,
                                        double lagrangian, const double *gradient,
                                        const double *constraint, const double *forms,
                                        dirac_error *err)
{
    dirac_status status = check_point(m, x, err);
    return status != DIRAC_OK ? status
                              : check_values(m, lagrangian, gradient, constraint, forms, err);
}

dirac_status model_check_defined(const dirac_model *m, const double *x, dirac_error *err)
{
    dirac_status status = check_point(m, x, err);
    if (status != DIRAC_OK)
        return status;
    int n = m->n, ns = m->ns, mc = m->m;
    size_t count = (size_t)(2 * n + ns + 1) + (size_t)mc + (size_t)m->constraint_forms.nnz + 1;
    double *work = calloc((size_t)m->work_size + 1, sizeof *work);
    double *values = calloc(count, sizeof *values);
    if (!work || !values) {
        free(work);
        free(values);
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    }
    double *gradient = values, *constraint = gradient + 2 * n + ns + 1, *forms = constraint + mc;
    double lagrangian = 0.0;
    model_group_eval(&m->lagrangian_value, x, work, &lagrangian);
    model_group_eval(&m->gradient, x, work, gradient);
    model_group_eval(&m->constraint_values, x, work, constraint);
    model_group_eval(&m->constraint_forms.values, x, work, forms);
    status = check_values(m, lagrangian, gradient, constraint, forms, err);
    free(work);
    free(values);
    return status;
}

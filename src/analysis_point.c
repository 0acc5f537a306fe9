// Every compiled function of a model evaluated at one point (see analysis_point.h).
#include "analysis_point.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

dirac_status analysis_point_init(analysis_point *pt, const dirac_model *m, dirac_error *err)
{
    memset(pt, 0, sizeof *pt);
    pt->m = m;
    size_t sizes[] = { (size_t)m->n_inputs,       (size_t)m->work_size,
                       (size_t)m->gradient.count, (size_t)m->hessian.nnz,
                       (size_t)m->n,              (size_t)m->force_jacobian.nnz,
                       (size_t)m->m,              (size_t)m->constraint_forms.nnz,
                       (size_t)m->constraint_jacobian.nnz, (size_t)m->form_curvature.nnz,
                       (size_t)m->output_count,   (size_t)m->output_jacobian.nnz };
    double **fields[] = { &pt->x,         &pt->work,      &pt->gradient,       &pt->hessian,
                          &pt->forces,    &pt->force_jac, &pt->values,         &pt->forms,
                          &pt->constraint_jac, &pt->curvature, &pt->outputs, &pt->output_jac };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        if (!(*fields[k] = calloc(sizes[k] + 1, sizeof(double)))) {
            analysis_point_free(pt);
            return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        }
    model_set_default_inputs(m, pt->x);   // the inputs stay at their defaults unless set
    return DIRAC_OK;
}

void analysis_point_free(analysis_point *pt)
{
    double *arrays[] = { pt->x,      pt->work,      pt->gradient,       pt->hessian,
                         pt->forces, pt->force_jac, pt->values,         pt->forms,
                         pt->constraint_jac, pt->curvature, pt->outputs, pt->output_jac };
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    memset(pt, 0, sizeof *pt);
}

static void put(double *dst, const double *src, int count)
{
    if (src)
        memcpy(dst, src, (size_t)count * sizeof *dst);
    else
        memset(dst, 0, (size_t)count * sizeof *dst);
}

void analysis_point_eval(analysis_point *pt, const double *q, const double *v, const double *s,
                         double t, const double *mu)
{
    const dirac_model *m = pt->m;
    put(pt->x, q, m->n);
    put(pt->x + m->first_v, v, m->n);
    put(pt->x + m->first_s, s, m->ns);
    pt->x[m->index_t] = t;
    put(pt->x + m->first_mu, mu, m->m);
    model_group_eval(&m->gradient, pt->x, pt->work, pt->gradient);
    model_group_eval(&m->hessian.values, pt->x, pt->work, pt->hessian);
    model_group_eval(&m->forces, pt->x, pt->work, pt->forces);
    model_group_eval(&m->force_jacobian.values, pt->x, pt->work, pt->force_jac);
    model_group_eval(&m->constraint_values, pt->x, pt->work, pt->values);
    model_group_eval(&m->constraint_forms.values, pt->x, pt->work, pt->forms);
    model_group_eval(&m->constraint_jacobian.values, pt->x, pt->work, pt->constraint_jac);
    model_group_eval(&m->form_curvature.values, pt->x, pt->work, pt->curvature);
    model_group_eval(&m->outputs, pt->x, pt->work, pt->outputs);
    model_group_eval(&m->output_jacobian.values, pt->x, pt->work, pt->output_jac);
}

void analysis_sparse_each(const model_sparse *sp, const double *values, int first_col, int cols,
                          void (*add)(void *ctx, int row, int col, double value), void *ctx)
{
    for (int r = 0; r < sp->rows; r++)
        for (int k = sp->row_start[r]; k < sp->row_start[r + 1]; k++) {
            int c = sp->col[k] - first_col;
            if (c >= 0 && c < cols)
                add(ctx, r, c, values[k]);
        }
}

// Accessors of a compiled model: sizes, names, parameters, interactions, initial state and
// simulate defaults.
#include "model.h"

#include <math.h>
#include <string.h>

// Queries of a NULL model or a bad index return NULL (names), -1 (counts, flags) or nothing.
const char *dirac_model_name(const dirac_model *m) { return m ? m->name : NULL; }
int dirac_model_coordinate_count(const dirac_model *m) { return m ? m->n : -1; }
int dirac_model_entropy_count(const dirac_model *m) { return m ? m->ns : -1; }
int dirac_model_constraint_count(const dirac_model *m) { return m ? m->m : -1; }
int dirac_model_component_count(const dirac_model *m) { return m ? m->component_count : -1; }
int dirac_model_output_count(const dirac_model *m) { return m ? m->output_count : -1; }

int dirac_model_parameter_count(const dirac_model *m) { return m ? m->param_count : -1; }

const char *dirac_model_parameter_name(const dirac_model *m, int k)
{
    return m && k >= 0 && k < m->param_count ? m->param_names[k] : NULL;
}

double dirac_model_parameter_value(const dirac_model *m, int k)
{
    return m && k >= 0 && k < m->param_count ? m->param_values[k] : (double)NAN;
}

const char *dirac_model_coordinate_name(const dirac_model *m, int i)
{
    return m && i >= 0 && i < m->n ? m->coord_names[i] : NULL;
}

const char *dirac_model_entropy_name(const dirac_model *m, int i)
{
    return m && i >= 0 && i < m->ns ? m->entropy_names[i] : NULL;
}

const char *dirac_model_constraint_name(const dirac_model *m, int a)
{
    return m && a >= 0 && a < m->m ? m->constraints[a].name : NULL;
}

const char *dirac_model_output_name(const dirac_model *m, int k)
{
    return m && k >= 0 && k < m->output_count ? m->output_names[k] : NULL;
}

dirac_constraint_kind dirac_model_constraint_kind(const dirac_model *m, int a)
{
    return m && a >= 0 && a < m->m ? m->constraints[a].kind : DIRAC_CONSTRAINT_INVALID;
}

int dirac_model_constraint_is_time_dependent(const dirac_model *m, int a)
{
    return m && a >= 0 && a < m->m ? m->constraints[a].time_dependent : -1;
}

int dirac_model_interaction_count(const dirac_model *m) { return m ? m->interaction_count : -1; }

const char *dirac_model_interaction_name(const dirac_model *m, int k)
{
    if (!m || k < 0 || k >= m->interaction_count)
        return NULL;
    int index = m->interaction_index[k];
    return m->interaction_kind[k] == 0 ? m->constraints[index].name : m->twoform_names[index];
}

const int *dirac_model_interaction_coordinates(const dirac_model *m, int k, int *count)
{
    int found = m && k >= 0 && k < m->interaction_count ? m->interaction_coord_count[k] : 0;
    if (count)
        *count = found;
    return found ? m->interaction_coords[k] : NULL;
}

void dirac_model_simulate_defaults(const dirac_model *m, dirac_simulate_defaults *out)
{
    if (!out)
        return;
    if (!m) {   // nothing set
        memset(out, 0, sizeof *out);
        return;
    }
    out->method = m->has_method ? m->method : NULL;
    out->dt = m->dt;
    out->t_end = m->t_end;
    out->every = m->every;
    out->has_method = m->has_method;
    out->has_dt = m->has_dt;
    out->has_t_end = m->has_t_end;
    out->has_every = m->has_every;
    out->tol = m->tol;
    out->max_iter = m->max_iter;
    out->has_tol = m->has_tol;
    out->has_max_iter = m->has_max_iter;
}

void dirac_model_initial_state(const dirac_model *m, double *q, double *v, double *s)
{
    if (!m)
        return;
    if (q)
        memcpy(q, m->q0, (size_t)m->n * sizeof *q);
    if (v)
        memcpy(v, m->v0, (size_t)m->n * sizeof *v);
    if (s)
        memcpy(s, m->s0, (size_t)m->ns * sizeof *s);
}

int dirac_model_initial_is_fixed(const dirac_model *m, int i, int velocity)
{
    if (!m || i < 0 || i >= m->n)
        return -1;
    return velocity ? m->v0_fixed[i] : m->q0_fixed[i];
}

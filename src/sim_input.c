// Inputs (`input NAME = DEFAULT`): signals a host sets between steps. Each is the variable
// x[first_u + k] of every tape; its value lives in the x of each of the simulation's
// evaluation points and is never written by sim_evaluate, so a step sees it constant.
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int dirac_model_input_count(const dirac_model *model)
{
    return model ? model->nu : -1;
}

const char *dirac_model_input_name(const dirac_model *model, int k)
{
    return model && k >= 0 && k < model->nu ? model->input_names[k] : NULL;
}

double dirac_model_input_default(const dirac_model *model, int k)
{
    return model && k >= 0 && k < model->nu ? model->input_defaults[k] : (double)NAN;
}

int dirac_model_input_index(const dirac_model *model, const char *name)
{
    for (int k = 0; model && name && k < model->nu; k++)
        if (strcmp(model->input_names[k], name) == 0)
            return k;
    return -1;
}

dirac_status dirac_sim_set_input(dirac_sim *sim, int k, double value)
{
    if (!sim)
        return DIRAC_ERR_ARGUMENT;
    const dirac_model *m = sim->model;
    if (k < 0 || k >= m->nu) {
        snprintf(sim->errmsg, sizeof sim->errmsg, "input index %d is out of range (the model "
                 "has %d input%s)", k, m->nu, m->nu == 1 ? "" : "s");
        return DIRAC_ERR_ARGUMENT;
    }
    if (!isfinite(value)) {
        snprintf(sim->errmsg, sizeof sim->errmsg, "input '%s' cannot be set to %g (not finite)",
                 m->input_names[k], value);
        return DIRAC_ERR_ARGUMENT;
    }
    for (int e = 0; e < SIM_EVAL_SLOTS; e++)
        sim->eval[e].x[m->first_u + k] = value;
    sim_node_refresh(sim);   // the node's outputs see the new value
    return DIRAC_OK;
}

double dirac_sim_input(const dirac_sim *sim, int k)
{
    if (!sim)
        return (double)NAN;
    const dirac_model *m = sim->model;
    return k >= 0 && k < m->nu ? sim->eval[SIM_EVAL_NODE].x[m->first_u + k] : (double)NAN;
}

// Messages of failed steps: when (step and time), which method and stage, why, and which
// equation or unknown.
#include "sim.h"

#include <stdio.h>

void sim_name_coordinate_rows(const dirac_sim *sim, int index, char *buf, size_t size)
{
    const dirac_model *m = sim->model;
    if (index < sim->n)
        snprintf(buf, size, "the momentum balance of %s", m->coord_names[index]);
    else if (index - sim->n < sim->mc)
        snprintf(buf, size, "constraint %s", m->constraints[index - sim->n].name);
    else
        snprintf(buf, size, "equation %d", index + 1);
}

dirac_status sim_fail_newton(dirac_sim *sim, dirac_status status, const char *stage,
                             sim_name_fn name)
{
    char what[160] = "an unknown equation";
    if (sim->nw.worst >= 0)   // -1 when the failure happened before an unknown was singled out
        name(sim, sim->nw.worst, what, sizeof what);
    double t_next = sim->t + sim->h;
    switch (status) {
    case DIRAC_ERR_NEWTON:
        snprintf(sim->errmsg, sizeof sim->errmsg,
                 "step %ld from t = %.17g to %.17g (%s, %s): Newton's method did not converge in "
                 "%d iteration%s (%d corrections in all); the largest remaining update is in %s "
                 "(update %.3e, residual %.3e); try a smaller step (options.dt)",
                 sim->steps + 1, sim->t, t_next, sim->method->info.name, stage,
                 sim->nw.max_iterations, sim->nw.max_iterations == 1 ? "" : "s",
                 sim->nw.iterations,
                 what, sim->nw.worst >= 0 ? sim->nw.delta[sim->nw.worst] : 0.0,
                 sim->nw.worst_value);
        break;
    case DIRAC_ERR_SINGULAR:
        snprintf(sim->errmsg, sizeof sim->errmsg,
                 "step %ld from t = %.17g to %.17g (%s, %s): singular Jacobian (no pivot for the "
                 "unknown of %s): the equations do not determine the state (degenerate "
                 "Lagrangian or dependent constraints?)",
                 sim->steps + 1, sim->t, t_next, sim->method->info.name, stage, what);
        break;
    case DIRAC_ERR_NOT_FINITE:
        snprintf(sim->errmsg, sizeof sim->errmsg,
                 "step %ld from t = %.17g to %.17g (%s, %s): non-finite value in %s",
                 sim->steps + 1, sim->t, t_next, sim->method->info.name, stage, what);
        break;
    default:   // out of memory (the sparse solver's first factorization), LAPACK failures
        snprintf(sim->errmsg, sizeof sim->errmsg, "step %ld from t = %.17g to %.17g (%s, %s): %s",
                 sim->steps + 1, sim->t, t_next, sim->method->info.name, stage,
                 dirac_status_string(status));
        break;
    }
    return status;
}

dirac_status sim_fail_balance(dirac_sim *sim, const char *stage, sim_name_fn name, int solves,
                              int row)
{
    char what[160];
    name(sim, row, what, sizeof what);
    snprintf(sim->errmsg, sizeof sim->errmsg,
             "step %ld from t = %.17g to %.17g (%s, %s): Newton's method converged %d times, but "
             "the residual of %s (%.3e) still moves the energy balance by more than rounding; "
             "try a smaller step (options.dt)",
             sim->steps + 1, sim->t, sim->t + sim->h, sim->method->info.name, stage, solves,
             what, sim->nw.residual[row]);
    return DIRAC_ERR_NEWTON;
}

dirac_status sim_fail_temperature(dirac_sim *sim, int j, double temperature)
{
    snprintf(sim->errmsg, sizeof sim->errmsg,
             "step %ld from t = %.17g to %.17g (%s): the temperature of %s became non-positive "
             "(%.3e): -dL/dS must stay positive",
             sim->steps + 1, sim->t, sim->t + sim->h, sim->method->info.name,
             sim->model->entropy_names[j], temperature);
    return DIRAC_ERR_DOMAIN;
}

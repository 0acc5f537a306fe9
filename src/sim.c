// Simulations: creation (options, method, workspace, initial node), destruction, the step
// (fixed size, or through the adaptive controller of sim_adapt.c) and the accessors.
#include "sim.h"

#include "error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The method `auto` runs (docs/methods.md, "Choosing a method"): dgrad for thermodynamic models
// (exact discrete first law, entropy production >= 0 at every step) and for degenerate
// Lagrangians (circuits in branch charges, L linear in velocities: it needs no Legendre map at
// the nodes); midpoint for everything else (regular L, with holonomic or nonholonomic
// constraints: both levels kept, symplectic, no parasitic modes). *reason says why.
static const sim_method *auto_method(dirac_sim *sim, const char **reason, dirac_error *err,
                                     dirac_status *status)
{
    *status = DIRAC_OK;
    if (sim->ns > 0) {
        *reason = "entropy variables";
        return &sim_method_dgrad;
    }
    int degenerate = sim_degenerate_coordinate(sim);
    if (degenerate == -2) {
        *status = error_set(err, DIRAC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (degenerate >= 0) {
        *reason = "degenerate Lagrangian";
        return &sim_method_dgrad;
    }
    int nonholonomic = 0, holonomic = 0;
    for (int a = 0; a < sim->mc; a++) {
        if (sim->model->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            holonomic = 1;
        else
            nonholonomic = 1;
    }
    *reason = nonholonomic ? "regular Lagrangian, nonholonomic constraints"
              : holonomic  ? "regular Lagrangian, holonomic constraints"
                           : "regular Lagrangian";
    return &sim_method_midpoint;
}

// ---- creation ----------------------------------------------------------------------------

// The arrays of one evaluation slot; of the spare node slot only its point (it holds the next
// node and is never evaluated: sim.h).
static void eval_layout(mem_plan *p, sim_eval *e, const dirac_model *m, bool point_only)
{
    size_t sizes[] = { (size_t)m->n_inputs, (size_t)m->gradient.count,
                       (size_t)m->hessian.nnz, (size_t)m->m,
                       (size_t)m->constraint_forms.nnz, (size_t)m->m,
                       (size_t)m->constraint_jacobian.nnz, (size_t)m->form_curvature.nnz,
                       (size_t)m->n, (size_t)m->force_jacobian.nnz };
    if (point_only)
        for (size_t k = 1; k < sizeof sizes / sizeof sizes[0]; k++)
            sizes[k] = 0;
    double **fields[] = { &e->x, &e->gradient, &e->hessian, &e->values, &e->forms, &e->rates,
                          &e->constraint_jac, &e->curvature, &e->forces, &e->force_jac };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        *fields[k] = mem_plan_take(p, sizes[k], sizeof(double));
    e->out[MODEL_CG_LAGRANGIAN] = &e->lagrangian;
    e->out[MODEL_CG_GRADIENT] = e->gradient;
    e->out[MODEL_CG_HESSIAN] = e->hessian;
    e->out[MODEL_CG_CONSTRAINT_VALUES] = e->values;
    e->out[MODEL_CG_CONSTRAINT_FORMS] = e->forms;
    e->out[MODEL_CG_CONSTRAINT_RATES] = e->rates;
    e->out[MODEL_CG_CONSTRAINT_JACOBIAN] = e->constraint_jac;
    e->out[MODEL_CG_CURVATURE] = e->curvature;
    e->out[MODEL_CG_FORCES] = e->forces;
    e->out[MODEL_CG_FORCE_JACOBIAN] = e->force_jac;
}

// The node, evaluation slots and workspaces every method shares (the method's own block is
// laid out once the method is settled, sim_method_start).
static void common_layout(mem_plan *p, dirac_sim *sim)
{
    const dirac_model *m = sim->model;
    size_t n = (size_t)sim->n, mc = (size_t)sim->mc, ns = (size_t)sim->ns;
    struct { double **array; size_t count; } arrays[] = {
        { &sim->p, n }, { &sim->next.p, n }, { &sim->temperature, ns },
        { &sim->node_velocity_constraint, mc },
        { &sim->outputs, (size_t)m->output_count },
        { &sim->wedge_values, (size_t)m->wedge_count },
        { &sim->tape_work, (size_t)m->work_size },
        { &sim->thermal_values, (size_t)m->thermal.count }, { &sim->kkt.rhs, n + mc },
        { &sim->kkt.acceleration, n }, { &sim->kkt.node_multiplier, mc },
        { &sim->adapt.trial, 3 * n + ns }, { &sim->adapt.trial_start, 3 * n + ns },
    };
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        *arrays[k].array = mem_plan_take(p, arrays[k].count, sizeof(double));
    sim->constrained = mem_plan_take(p, n, 1);
    for (int k = 0; k < SIM_EVAL_SLOTS; k++)
        eval_layout(p, &sim->eval[k], m, k == SIM_EVAL_NODE_NEXT);
}

// The node's q, v, S and μ are blocks of the node slot's point, the next node's of the spare
// node slot's (sim.h).
static void node_in_slots(dirac_sim *sim)
{
    const dirac_model *m = sim->model;
    double *x = sim->eval[SIM_EVAL_NODE].x, *y = sim->eval[SIM_EVAL_NODE_NEXT].x;
    sim->q = x;
    sim->v = x + m->first_v;
    sim->s = x + m->first_s;
    sim->mu = x + m->first_mu;
    sim->next.q = y;
    sim->next.v = y + m->first_v;
    sim->next.s = y + m->first_s;
    sim->next.mu = y + m->first_mu;
}

// One block for the common arrays (mem.h, mem_plan: a sizing pass, then a placing pass).
static dirac_status alloc_common(dirac_sim *sim, dirac_error *err)
{
    mem_plan plan = { 0 };
    common_layout(&plan, sim);
    if (!mem_plan_alloc(&plan, &sim->mem))
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    sim->block = plan.block;
    common_layout(&plan, sim);
    for (int k = 0; k < SIM_EVAL_SLOTS; k++)   // inputs live in every x (sim_input.c)
        model_set_default_inputs(sim->model, sim->eval[k].x);
    node_in_slots(sim);
    return DIRAC_OK;
}

void dirac_sim_destroy(dirac_sim *sim)
{
    if (!sim)
        return;
    for (int k = 0; k < SIM_SOLVER_SLOTS; k++)
        linsolve_destroy(sim->solver[k]);
    newton_free(&sim->nw);
    sim_degenerate_free(sim);
    run_quality_free(&sim->quality);
    sim_method_free(sim);
    mem_free(&sim->mem, sim->block);
    mem_counter mem = sim->mem;
    mem_free(&mem, sim);
}

// DIRAC_ERR_NOT_FINITE when the model is not defined at the current state (a NaN momentum
// from sqrt(x) at x < 0, a NaN constraint): refused before the first step.
static dirac_status check_defined(dirac_sim *sim, const char *which, dirac_error *err)
{
    const dirac_model *m = sim->model;
    double *x = sim->eval[SIM_EVAL_STEP_A].x;
    memset(x, 0, (size_t)m->n_inputs * sizeof *x);
    // the inputs keep their values (the node's slot holds them: sim_input.c); a zero here
    // would stay in this slot for the run, which the implicit methods evaluate
    memcpy(x + m->first_u, sim->eval[SIM_EVAL_NODE].x + m->first_u, (size_t)m->nu * sizeof *x);
    memcpy(x, sim->q, (size_t)sim->n * sizeof *x);
    memcpy(x + m->first_v, sim->v, (size_t)sim->n * sizeof *x);
    memcpy(x + m->first_s, sim->s, (size_t)sim->ns * sizeof *x);
    x[m->index_t] = sim->t;
    dirac_error undefined;
    dirac_status status = model_check_defined(m, x, &undefined);
    if (status != DIRAC_OK)
        return error_set(err, status, "the model is not defined at its %s (t = %g): %s", which,
                         sim->t, undefined.message);
    return DIRAC_OK;
}

// Every option is checked before use: non-finite or negative values are refused, not replaced.
static dirac_status check_options(const dirac_sim_options *o, dirac_error *err)
{
    if (!o)
        return error_set(err, DIRAC_ERR_ARGUMENT, "the simulation options are NULL");
    if (!(o->dt >= 0.0) || !isfinite(o->dt))
        return error_set(err, DIRAC_ERR_ARGUMENT, "the step options.dt must be a positive number, "
                         "or 0 for the model's 'simulate dt' (got %g)", o->dt);
    if (!isfinite(o->t0))
        return error_set(err, DIRAC_ERR_ARGUMENT, "the initial time t0 must be finite (got %g)",
                         o->t0);
    if (!(o->newton_rtol >= 0.0) || !isfinite(o->newton_rtol))
        return error_set(err, DIRAC_ERR_ARGUMENT, "the Newton tolerance must be a positive "
                         "number or 0 for the default (got %g)", o->newton_rtol);
    if (o->newton_max_iterations < 0)
        return error_set(err, DIRAC_ERR_ARGUMENT, "the Newton iteration limit must be positive "
                         "or 0 for the default (got %d)", o->newton_max_iterations);
    if (o->linear_solver != DIRAC_LINEAR_AUTO && o->linear_solver != DIRAC_LINEAR_DENSE &&
        o->linear_solver != DIRAC_LINEAR_SPARSE)
        return error_set(err, DIRAC_ERR_ARGUMENT, "unknown linear solver %d",
                         (int)o->linear_solver);
    if (!(o->adaptive_rtol >= 0.0) || !isfinite(o->adaptive_rtol) || !(o->adaptive_atol >= 0.0) ||
        !isfinite(o->adaptive_atol))
        return error_set(err, DIRAC_ERR_ARGUMENT, "the adaptive tolerances must be non-negative "
                         "numbers (got rtol %g, atol %g)", o->adaptive_rtol, o->adaptive_atol);
    return DIRAC_OK;
}

// The method requested (NULL and "auto": midpoint until sim_create settles it).
static dirac_status find_method(const dirac_sim_options *options, const sim_method **method,
                                bool *automatic, dirac_error *err)
{
    const char *name = options->method ? options->method : "auto";
    *automatic = !strcmp(name, "auto");
    *method = *automatic ? &sim_method_midpoint : sim_method_find(name);
    if (*method)
        return DIRAC_OK;
    char list[256];
    sim_method_list(list, sizeof list);
    return error_set(err, DIRAC_ERR_ARGUMENT, "unknown method '%s' (methods: auto, %s)", name,
                     list);
}

// The step size: options.dt, or for 0 the model's `simulate dt`.
static dirac_status step_size(const dirac_model *model, const dirac_sim_options *options,
                              double *h, dirac_error *err)
{
    *h = options->dt;
    if (*h > 0.0)
        return DIRAC_OK;
    dirac_simulate_defaults defaults;
    dirac_model_simulate_defaults(model, &defaults);
    if (!defaults.has_dt)
        return error_set(err, DIRAC_ERR_ARGUMENT, "no step size: options.dt is 0 and model '%s' "
                         "has no 'simulate dt = H'", model->name);
    *h = defaults.dt;
    if (!(*h > 0.0) || !isfinite(*h))
        return error_set(err, DIRAC_ERR_ARGUMENT, "the step size of model '%s' ('simulate dt') "
                         "must be a positive number (got %g)", model->name, *h);
    return DIRAC_OK;
}

// The settings of the options (checked) in the simulation, with the step size h.
static void apply_options(dirac_sim *sim, const dirac_sim_options *options, double h)
{
    sim->h = h;
    sim->t0 = sim->t = options->t0;
    sim->rtol = options->newton_rtol > 0.0 ? options->newton_rtol : 1e-10;
    sim->max_iterations = options->newton_max_iterations > 0 ? options->newton_max_iterations : 25;
    sim->linear_solver = options->linear_solver;
    sim_adaptive *ad = &sim->adapt;
    ad->on = options->adaptive_rtol > 0.0 || options->adaptive_atol > 0.0;
    ad->rtol = options->adaptive_rtol > 0.0 ? options->adaptive_rtol : 0.0;
    ad->atol = options->adaptive_atol > 0.0 ? options->adaptive_atol : 0.0;
    ad->h_next = ad->h_last = sim->h;
    // the error estimates must not see Newton's stopping error: unless a Newton tolerance was
    // given, solve three digits below the step tolerance (at most 1e-10, at least 1e-14)
    if (ad->on && !(options->newton_rtol > 0.0) && ad->rtol > 0.0)
        sim->rtol = fmax(1e-14, fmin(sim->rtol, 1e-3 * ad->rtol));
}

// The initial node: the model's initial state, checked (and projected) against the
// constraints, p0 = ∂L/∂v(q0, v0), μ0 from the index-reduced equations where they exist.
static dirac_status initial_node(dirac_sim *sim, int project, dirac_error *err)
{
    const dirac_model *model = sim->model;
    dirac_model_initial_state(model, sim->q, sim->v, sim->s);
    dirac_status status = check_defined(sim, "initial state", err);
    if (status == DIRAC_OK)
        status = sim_initial_consistency(sim, project, err);
    if (status == DIRAC_OK && project)
        status = check_defined(sim, "projected initial state", err);
    if (status != DIRAC_OK)
        return status;
    sim_eval *e = &sim->eval[SIM_EVAL_STEP_A];
    sim_evaluate(sim, e, sim->q, sim->v, sim->s, sim->t, NULL, EVAL_GRADIENT);
    memcpy(sim->p, e->gradient + model->first_v, (size_t)sim->n * sizeof *sim->p);
    if (sim->mc > 0) {
        double power;
        dirac_status solved = sim_acceleration(sim, sim->q, sim->v, sim->t,
                                               sim->kkt.acceleration, sim->mu, &power);
        if (solved == DIRAC_ERR_NOMEM)
            return error_set(err, DIRAC_ERR_NOMEM, "out of memory creating the simulation");
        if (solved != DIRAC_OK)   // a singular system only leaves μ0 = 0
            memset(sim->mu, 0, (size_t)sim->mc * sizeof *sim->mu);
    }
    const model_sparse *forms = &model->constraint_forms;
    for (int k = 0; k < forms->nnz; k++)
        sim->constrained[forms->col[k]] = 1;
    sim_adaptive_observe(sim);
    return DIRAC_OK;
}

// The checks of the settled method and node: temperatures, outputs, the method's own check.
static dirac_status check_start(dirac_sim *sim, dirac_error *err)
{
    for (int j = 0; j < sim->ns; j++)
        if (!(sim->temperature[j] > 0.0))
            return error_set(err, DIRAC_ERR_ARGUMENT,
                             "the initial temperature of entropy variable '%s' is %g: "
                             "temperatures -dL/dS must be positive",
                             sim->model->entropy_names[j], sim->temperature[j]);
    dirac_status status = run_quality_start(sim, err);
    if (status != DIRAC_OK || !sim->method->check)
        return status;
    dirac_status checked = sim->method->check(sim, sim->method_state);
    if (checked == DIRAC_OK)
        return DIRAC_OK;
    return error_set(err, checked == DIRAC_ERR_NOMEM ? checked : DIRAC_ERR_UNSUPPORTED, "%s",
                     checked == DIRAC_ERR_NOMEM && !sim->errmsg[0]
                         ? "out of memory creating the simulation"
                         : sim->errmsg);
}

// The first entropy variable that row `row` of `a` depends on, or -1.
static int entropy_column(const dirac_model *m, const model_sparse *a, int row)
{
    for (int k = a->row_start[row]; k < a->row_start[row + 1]; k++)
        if (a->col[k] >= m->first_s && a->col[k] < m->first_s + m->ns)
            return a->col[k] - m->first_s;
    return -1;
}

// Outputs x'' (sim_node.c) come from the KKT solve of sim_kkt.c, whose right-hand side has
// the terms of q' and t only. When the entropy changes (friction heating, heat exchange) and
// the momentum ∂L/∂v or a constraint depends on S, q'' also has a term in S', which that solve
// does not have: refuse such outputs rather than write them wrong.
static dirac_status check_acceleration_outputs(const dirac_model *m, dirac_error *err)
{
    if (m->na == 0 || !m->thermodynamic)
        return DIRAC_OK;
    const char *remedy = "the acceleration has a term in that entropy's rate, which dirac does "
                         "not compute; remove the output";
    for (int i = 0; i < m->n; i++) {
        int s = entropy_column(m, &m->hessian, m->first_v + i);   // row ∂(∂L/∂v_i)/∂·
        if (s >= 0)
            return error_set(err, DIRAC_ERR_UNSUPPORTED, "an output uses an acceleration (x''), "
                             "but the momentum of '%s' depends on the entropy '%s', which "
                             "changes: %s", m->coord_names[i], m->entropy_names[s], remedy);
    }
    for (int c = 0; c < m->m; c++) {
        int s = entropy_column(m, &m->constraint_jacobian, c);
        if (s >= 0)
            return error_set(err, DIRAC_ERR_UNSUPPORTED, "an output uses an acceleration (x''), "
                             "but constraint '%s' depends on the entropy '%s', which changes: %s",
                             m->constraints[c].name, m->entropy_names[s], remedy);
    }
    return DIRAC_OK;
}

dirac_status sim_create(const dirac_model *model, const dirac_sim_options *options,
                        dirac_sim **out, dirac_error *err)
{
    if (!out)
        return error_set(err, DIRAC_ERR_ARGUMENT, "dirac_sim_create: out is NULL");
    *out = NULL;
    if (!model)
        return error_set(err, DIRAC_ERR_ARGUMENT, "dirac_sim_create: the model is NULL");
    const sim_method *method = NULL;
    bool automatic = false;
    double h = 0.0;
    dirac_status status = check_options(options, err);
    if (status == DIRAC_OK)
        status = step_size(model, options, &h, err);
    if (status == DIRAC_OK)
        status = find_method(options, &method, &automatic, err);
    if (status != DIRAC_OK)
        return status;
    if (options->adaptive_rtol > 0.0 && options->adaptive_rtol < 1e-13)
        return error_set(err, DIRAC_ERR_ARGUMENT,
                         "rtol = %g is below what double precision resolves in an error "
                         "estimate (at least 1e-13)", options->adaptive_rtol);
    if (automatic && model->ns > 0)
        method = &sim_method_dgrad;   // thermodynamic: settled before the checks
    bool adaptive = options->adaptive_rtol > 0.0 || options->adaptive_atol > 0.0;
    if (adaptive && method->two_step)
        return error_set(err, DIRAC_ERR_UNSUPPORTED,
                         "method '%s' is a two-step method: adaptive step sizes need a "
                         "one-step method (midpoint, dgrad, dirac1, lobatto3, lobatto4, rk4, "
                         "euler)", method->info.name);
    // every block of the simulation continues the failure injection of the model's counter
    mem_counter mem = mem_counter_inherit(&model->mem);
    dirac_sim *sim = mem_calloc(&mem, 1, sizeof *sim);
    if (!sim)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    sim->mem = mem;
    sim->model = model;
    sim->method = method;
    sim->method_requested = automatic ? "auto" : method->info.name;
    sim->n = model->n;
    sim->ns = model->ns;
    sim->mc = model->m;
    apply_options(sim, options, h);
    sim->evaluated_groups = sim_forces_vanish(model) ? ~(int)EVAL_FORCES : ~0;
    status = alloc_common(sim, err);
    if (status == DIRAC_OK && model->thermodynamic && !method->thermodynamic)
        status = error_set(err, DIRAC_ERR_UNSUPPORTED,
                           "model '%s' has friction heating or heat exchange: method '%s' does not "
                           "integrate entropy; use dgrad", model->name, method->info.name);
    if (status == DIRAC_OK)
        status = check_acceleration_outputs(model, err);
    if (status == DIRAC_OK)
        status = initial_node(sim, options->project_initial, err);
    if (status == DIRAC_OK && automatic) {
        const sim_method *chosen = auto_method(sim, &sim->auto_reason, err, &status);
        if (chosen)
            sim->method = chosen;
    }
    if (status == DIRAC_OK)
        status = sim_method_start(sim, err);
    if (status == DIRAC_OK) {
        sim_update_diagnostics(sim);
        sim->energy0 = sim->energy;
        status = check_start(sim, err);
    }
    if (status != DIRAC_OK) {
        dirac_sim_destroy(sim);
        return status;
    }
    *out = sim;
    return DIRAC_OK;
}

// ---- steps -------------------------------------------------------------------------------

void sim_save_state(dirac_sim *sim)
{
    double *b = sim->backup;
    const double *arrays[] = { sim->q, sim->v, sim->p, sim->mu, sim->s };
    const int counts[] = { sim->n, sim->n, sim->n, sim->mc, sim->ns };
    for (int k = 0; k < 5; k++) {
        memcpy(b, arrays[k], (size_t)counts[k] * sizeof *b);
        b += counts[k];
    }
    sim_history history;
    sim_method_history(sim, &history);
    for (int k = 0; k < history.count; k++) {
        memcpy(b, history.data[k], history.size[k] * sizeof *b);
        b += history.size[k];
    }
    sim->backup_work = sim->work;
}

void sim_restore_node(dirac_sim *sim)
{
    const double *b = sim->backup;
    double *arrays[] = { sim->q, sim->v, sim->p, sim->mu, sim->s };
    const int counts[] = { sim->n, sim->n, sim->n, sim->mc, sim->ns };
    for (int k = 0; k < 5; k++) {
        memcpy(arrays[k], b, (size_t)counts[k] * sizeof *b);
        b += counts[k];
    }
    sim_history history;
    sim_method_history(sim, &history);
    for (int k = 0; k < history.count; k++) {
        memcpy(history.data[k], b, history.size[k] * sizeof *b);
        b += history.size[k];
    }
    sim->work = sim->backup_work;
}

void sim_restore_state(dirac_sim *sim)
{
    sim_restore_node(sim);
    sim_update_diagnostics(sim);
}

// The new node a method wrote into sim->next becomes the current one, and the node the step
// started from the spare: the two node slots' points and p trade places (pointers only; the
// node slot's values are those of the node once sim_update_diagnostics has run).
static void swap_nodes(dirac_sim *sim)
{
    sim_eval *node = &sim->eval[SIM_EVAL_NODE], *next = &sim->eval[SIM_EVAL_NODE_NEXT];
    double *x = node->x;
    node->x = next->x;
    next->x = x;
    bool mu_zero = node->mu_zero;   // what the flag says belongs to the buffer, which moves
    node->mu_zero = next->mu_zero;
    next->mu_zero = mu_zero;
    double *p = sim->p;
    sim->p = sim->next.p;
    sim->next.p = p;
    node_in_slots(sim);
}

dirac_status sim_raw_step(dirac_sim *sim, double t_after)
{
    const sim_method *method = sim->method;
    double t_before = sim->t;
    sim->nw.step_size = sim->h;   // kept factorizations are for one step size (newton.h)
    sim->t_next = t_after;
    dirac_status status = method->step(sim, sim->method_state);
    if (status == DIRAC_OK) {
        if (method->writes_next)
            swap_nodes(sim);
        sim->t = t_after;
        sim_update_diagnostics(sim);
        status = sim_check_finite(sim, t_before, t_after);
        if (status == DIRAC_OK)
            status = run_quality_check_outputs(sim);
        if (status != DIRAC_OK) {
            sim->t = t_before;
            if (method->writes_next)
                swap_nodes(sim);   // back to the node the step started from
        } else if (method->accept) {
            method->accept(sim, sim->method_state);
        }
    }
    return status;
}

dirac_status dirac_sim_step(dirac_sim *sim)
{
    if (!sim)
        return DIRAC_ERR_ARGUMENT;
    sim->errmsg[0] = '\0';
    // a fixed-size step of a method that writes next leaves the node it starts from in place
    // (sim_raw_step): only the work is kept; the adaptive controller restores the start of
    // its trials from the copy
    bool copied = sim->adapt.on || !sim->method->writes_next;
    if (copied)
        sim_save_state(sim);
    else
        sim->backup_work = sim->work;
    dirac_status status;
    if (sim->adapt.on) {
        status = sim_adaptive_step(sim);
    } else {
        status = sim_raw_step(sim, sim->t0 + (double)(sim->steps + 1) * sim->h);
    }
    if (status != DIRAC_OK) {
        if (copied) {
            sim_restore_state(sim);
        } else {
            sim->work = sim->backup_work;
            sim_update_diagnostics(sim);
        }
        return status;
    }
    sim->steps++;
    run_quality_observe(sim);
    return DIRAC_OK;
}

// ---- accessors ---------------------------------------------------------------------------

// Queries of a NULL simulation return NaN (values), -1 (counts), NULL (arrays), and a message.
double dirac_sim_next_step_size(const dirac_sim *sim)
{
    return !sim ? (double)NAN : sim->adapt.on ? sim->adapt.h_next : sim->h;
}
double dirac_sim_last_step_size(const dirac_sim *sim)
{
    return sim ? sim->adapt.h_last : (double)NAN;
}
long dirac_sim_rejected_steps(const dirac_sim *sim) { return sim ? sim->adapt.rejected : -1; }

dirac_status dirac_sim_set_next_step_size(dirac_sim *sim, double h)
{
    if (!sim || !sim->adapt.on || !(h > 0.0) || !isfinite(h))
        return DIRAC_ERR_ARGUMENT;
    sim->adapt.h_next = h;
    return DIRAC_OK;
}

const char *dirac_sim_errmsg(const dirac_sim *sim)
{
    return sim ? sim->errmsg : "invalid argument: the simulation is NULL";
}
double dirac_sim_time(const dirac_sim *sim) { return sim ? sim->t : (double)NAN; }
long dirac_sim_step_count(const dirac_sim *sim) { return sim ? sim->steps : -1; }
const double *dirac_sim_q(const dirac_sim *sim) { return sim ? sim->q : NULL; }
const double *dirac_sim_v(const dirac_sim *sim) { return sim ? sim->v : NULL; }
const double *dirac_sim_p(const dirac_sim *sim) { return sim ? sim->p : NULL; }
const double *dirac_sim_mu(const dirac_sim *sim) { return sim ? sim->mu : NULL; }
const double *dirac_sim_s(const dirac_sim *sim) { return sim ? sim->s : NULL; }
const double *dirac_sim_temperature(const dirac_sim *sim) { return sim ? sim->temperature : NULL; }
double dirac_sim_energy(const dirac_sim *sim) { return sim ? sim->energy : (double)NAN; }
double dirac_sim_work(const dirac_sim *sim) { return sim ? sim->work : (double)NAN; }
double dirac_sim_constraint_residual(const dirac_sim *sim)
{
    return sim ? sim->constraint_residual : (double)NAN;
}
double dirac_sim_velocity_constraint_residual(const dirac_sim *sim)
{
    return sim ? sim->velocity_residual : (double)NAN;
}
int dirac_sim_newton_iterations(const dirac_sim *sim) { return sim ? sim->newton_iterations : -1; }
double dirac_sim_projection_distance(const dirac_sim *sim)
{
    return sim ? sim->projection_distance : (double)NAN;
}
const char *dirac_sim_method(const dirac_sim *sim) { return sim ? sim->method->info.name : NULL; }
const char *dirac_sim_method_requested(const dirac_sim *sim)
{
    return sim ? sim->method_requested : NULL;
}
const char *dirac_sim_method_reason(const dirac_sim *sim) { return sim ? sim->auto_reason : NULL; }


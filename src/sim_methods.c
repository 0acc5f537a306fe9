// The method table (`dirac methods`) and the one block of each method's state and workspace,
// laid out by the method's own layout function (sim.h, sim_layout).
#include "sim.h"

#include "error.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sim_method *const methods[] = {
    &sim_method_midpoint, &sim_method_dirac1, &sim_method_dirac2, &sim_method_dgrad,
    &sim_method_euler, &sim_method_rk4, &sim_method_lobatto3, &sim_method_lobatto4,
};
#define METHOD_COUNT ((int)(sizeof methods / sizeof methods[0]))

int dirac_method_count(void)
{
    return METHOD_COUNT;
}

const dirac_method_info *dirac_method(int i)
{
    return i >= 0 && i < METHOD_COUNT ? &methods[i]->info : NULL;
}

const sim_method *sim_method_find(const char *name)
{
    for (int i = 0; name && i < METHOD_COUNT; i++)
        if (!strcmp(methods[i]->info.name, name))
            return methods[i];
    return NULL;
}

void sim_method_list(char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < METHOD_COUNT; i++)
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i ? ", " : "",
                 methods[i]->info.name);
}

// ---- layouts -----------------------------------------------------------------------------

double *sim_layout_doubles(sim_layout *l, size_t count)
{
    return mem_plan_take(&l->plan, count, sizeof(double));
}

int *sim_layout_ints(sim_layout *l, size_t count)
{
    return mem_plan_take(&l->plan, count, sizeof(int));
}

void sim_layout_newton(sim_layout *l, int size)
{
    if (size > l->unknowns)
        l->unknowns = size;
}

void sim_layout_solver(sim_layout *l, int slot, int size)
{
    l->solver_size[slot] = size;
}

// ---- the method's block ------------------------------------------------------------------

// The backup of the last good node: [q | v | p | μ | S | the method's history].
static size_t backup_size(const dirac_sim *sim)
{
    sim_history history;
    sim_method_history(sim, &history);
    size_t size = 3 * (size_t)sim->n + (size_t)(sim->mc + sim->ns);
    for (int k = 0; k < history.count; k++)
        size += history.size[k];
    return size;
}

// The state struct, its workspace and the backup, laid out on l.
static void method_layout(dirac_sim *sim, void *state, sim_layout *l)
{
    void *placed = mem_plan_take(&l->plan, 1, sim->method->state_size);
    sim->method->layout(sim, placed ? placed : state, l);
    sim->method_state = placed ? placed : state;   // history pointers of the sizing pass: probe
    sim->backup_size = backup_size(sim);
    sim->backup = mem_plan_take(&l->plan, sim->backup_size, sizeof(double));
}

dirac_status sim_method_start(dirac_sim *sim, dirac_error *err)
{
    const sim_method *method = sim->method;
    // the sizing pass writes its NULL pointers into a probe of the state struct
    union {
        max_align_t align;
        unsigned char bytes[1024];
    } probe;
    memset(&probe, 0, sizeof probe);
    if (method->state_size > sizeof probe.bytes)
        return error_set(err, DIRAC_ERR_ARGUMENT, "internal: the state of method '%s' is larger "
                         "than its probe", method->info.name);
    sim_layout l = { { 0 }, 0, { 0 } };
    // affine stage equations need no predictor history (the backup's size depends on it)
    bool affine;
    if (sim_equations_affine(sim->model, &affine) != DIRAC_OK)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    sim->nw.affine = affine;
    method_layout(sim, probe.bytes, &l);
    sim->method_state = NULL;
    sim->backup = NULL;
    if (!mem_plan_alloc(&l.plan, &sim->mem))
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    l.unknowns = 0;
    method_layout(sim, NULL, &l);
    if (newton_init(&sim->nw, l.unknowns + 1, err) != DIRAC_OK)
        return DIRAC_ERR_NOMEM;
    sim->nw.constant_jacobian = sim_jacobian_constant(sim->model);
    sim->nw.affine = affine;
    for (int slot = 0; slot < SIM_SOLVER_SLOTS; slot++)
        if (l.solver_size[slot] > 0 && !sim_solver(sim, slot, l.solver_size[slot]))
            return error_set(err, DIRAC_ERR_NOMEM, "out of memory for a %d x %d Jacobian",
                             l.solver_size[slot], l.solver_size[slot]);
    if (method->init && method->init(sim, sim->method_state) != DIRAC_OK)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    return DIRAC_OK;
}

void sim_method_free(dirac_sim *sim)
{
    mem_free(&sim->mem, sim->method_state);   // the block starts with the state
    sim->method_state = NULL;
    sim->backup = NULL;
}

void sim_method_history(const dirac_sim *sim, sim_history *out)
{
    out->count = 0;
    if (sim->method_state && sim->method->history)
        sim->method->history(sim, sim->method_state, out);
}

// The method table (`dirac methods`) and the one block of each method's state and workspace,
// laid out by the method's own layout function (sim.h, sim_layout).
#include "sim.h"

#include "error.h"

#include <stdalign.h>
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

// Every piece starts at a multiple of the strictest alignment any piece needs.
#define LAYOUT_ALIGN (alignof(double) > alignof(int) ? alignof(double) : alignof(int))

static void *layout_take(sim_layout *l, size_t bytes)
{
    l->used = (l->used + LAYOUT_ALIGN - 1) / LAYOUT_ALIGN * LAYOUT_ALIGN;
    void *piece = l->base ? l->base + l->used : NULL;
    l->used += bytes;
    return piece;
}

double *sim_layout_doubles(sim_layout *l, size_t count)
{
    return layout_take(l, count * sizeof(double));
}

int *sim_layout_ints(sim_layout *l, size_t count)
{
    return layout_take(l, count * sizeof(int));
}

void sim_layout_newton(sim_layout *l, int size)
{
    if (size > l->unknowns)
        l->unknowns = size;
}

// ---- the method's block ------------------------------------------------------------------

// The state struct, then the workspace, in one zeroed block.
dirac_status sim_method_start(dirac_sim *sim, dirac_error *err)
{
    const sim_method *method = sim->method;
    size_t head = (method->state_size + LAYOUT_ALIGN - 1) / LAYOUT_ALIGN * LAYOUT_ALIGN;
    // the counting pass writes its NULL pointers into a probe of the state struct
    void *probe = calloc(1, method->state_size);
    if (!probe)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    sim_layout counting = { NULL, 0, 0 };
    method->layout(sim, probe, &counting);
    free(probe);
    unsigned char *block = calloc(head + counting.used + 1, 1);
    if (!block)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    sim->method_state = block;
    sim_layout filling = { block + head, 0, 0 };
    method->layout(sim, block, &filling);
    if (newton_init(&sim->nw, filling.unknowns + 1, err) != DIRAC_OK)
        return DIRAC_ERR_NOMEM;
    if (method->init && method->init(sim, block) != DIRAC_OK)
        return error_set(err, DIRAC_ERR_NOMEM, "out of memory");
    if (method->reset)
        method->reset(sim, block);
    return DIRAC_OK;
}

void sim_method_free(dirac_sim *sim)
{
    free(sim->method_state);
    sim->method_state = NULL;
}

void sim_method_history(const dirac_sim *sim, sim_history *out)
{
    out->count = 0;
    if (sim->method_state && sim->method->history)
        sim->method->history(sim, sim->method_state, out);
}

// Snapshots of a simulation (dirac_sim_state_size/save/restore): a header that identifies the
// simulation's shape, then every scalar and array the next steps read. The bytes are the
// machine's doubles and longs (not portable between architectures).
#include "sim.h"

#include <string.h>

// "dir" and the layout's version (2: the degenerate-node flag and Newton's block scales;
// 3: the predictors' histories in a ring)
enum { STATE_MAGIC = 0x64697203 };

typedef struct state_header {
    long magic, n, ns, mc, nu, history_size, method;
} state_header;

// The scalars, in one struct so they copy in one piece.
typedef struct state_scalars {
    double h, t0, t, energy, energy0, work, constraint_residual, velocity_residual;
    double projection_distance, backup_work, h_next, h_last;
    double block_scale[4];
    long steps, rejected;
    int newton_iterations, degenerate_active;
} state_scalars;

// One array of the snapshot: where it lives in the simulation and its length.
typedef struct state_array {
    double *data;
    size_t count;
} state_array;

// The node, the method's history (sim_history), the backup of the last good node (current only
// for the methods and adaptive steps that copy it; a restored copy is overwritten before it is
// read), the adaptive controller's arrays and the inputs.
static int arrays_of(const dirac_sim *sim, state_array *a)
{
    size_t n = (size_t)sim->n, ns = (size_t)sim->ns, mc = (size_t)sim->mc;
    const dirac_model *m = sim->model;
    int k = 0;
    a[k++] = (state_array){ sim->q, n };
    a[k++] = (state_array){ sim->v, n };
    a[k++] = (state_array){ sim->p, n };
    a[k++] = (state_array){ sim->mu, mc };
    a[k++] = (state_array){ sim->s, ns };
    a[k++] = (state_array){ sim->temperature, ns };
    sim_history history;
    sim_method_history(sim, &history);
    for (int h = 0; h < history.count; h++)
        a[k++] = (state_array){ history.data[h], history.size[h] };
    a[k++] = (state_array){ sim->backup, sim->backup_size };
    a[k++] = (state_array){ sim->adapt.trial, 3 * n + ns };
    a[k++] = (state_array){ sim->adapt.trial_start, 3 * n + ns };
    a[k++] = (state_array){ sim->eval[SIM_EVAL_NODE].x + m->first_u, (size_t)m->nu };   // inputs
    // Newton's per-block scales: the largest magnitudes its unknowns reached so far
    a[k++] = (state_array){ (double *)sim->nw.block_floor, NEWTON_MAX_BLOCKS };
    return k;
}
enum { STATE_ARRAYS = 11 + SIM_HISTORY_MAX };

static state_header header_of(const dirac_sim *sim)
{
    long method = 0;
    while (method < dirac_method_count() && dirac_method((int)method) != &sim->method->info)
        method++;
    sim_history history;
    sim_method_history(sim, &history);
    long history_size = 0;
    for (int h = 0; h < history.count; h++)
        history_size += (long)history.size[h];
    return (state_header){ STATE_MAGIC, sim->n, sim->ns, sim->mc, sim->model->nu, history_size,
                           method };
}

size_t dirac_sim_state_size(const dirac_sim *sim)
{
    if (!sim)
        return 0;
    state_array a[STATE_ARRAYS];
    size_t size = sizeof(state_header) + sizeof(state_scalars);
    for (int k = arrays_of(sim, a) - 1; k >= 0; k--)
        size += a[k].count * sizeof(double);
    return size;
}

dirac_status dirac_sim_state_save(const dirac_sim *sim, void *buffer, size_t size)
{
    if (!sim)
        return DIRAC_ERR_ARGUMENT;
    if (!buffer || size < dirac_sim_state_size(sim))
        return DIRAC_ERR_SIZE;
    unsigned char *out = buffer;
    state_header header = header_of(sim);
    state_scalars sc;
    memset(&sc, 0, sizeof sc);   // padding too: equal states give equal bytes
    sc = (state_scalars){ sim->h, sim->t0, sim->t, sim->energy, sim->energy0, sim->work,
                          sim->constraint_residual, sim->velocity_residual,
                          sim->projection_distance, sim->backup_work, sim->adapt.h_next,
                          sim->adapt.h_last,
                          { sim->adapt.block_scale[0], sim->adapt.block_scale[1],
                            sim->adapt.block_scale[2], sim->adapt.block_scale[3] },
                          sim->steps, sim->adapt.rejected, sim->newton_iterations,
                          sim->degenerate.active };
    memcpy(out, &header, sizeof header);
    out += sizeof header;
    memcpy(out, &sc, sizeof sc);
    out += sizeof sc;
    state_array a[STATE_ARRAYS];
    int count = arrays_of(sim, a);
    for (int k = 0; k < count; k++) {
        if (a[k].count)
            memcpy(out, a[k].data, a[k].count * sizeof(double));
        out += a[k].count * sizeof(double);
    }
    return DIRAC_OK;
}

dirac_status dirac_sim_state_restore(dirac_sim *sim, const void *buffer, size_t size)
{
    if (!sim)
        return DIRAC_ERR_ARGUMENT;
    state_header expected = header_of(sim), header;
    if (!buffer || size != dirac_sim_state_size(sim))
        return DIRAC_ERR_ARGUMENT;
    const unsigned char *in = buffer;
    memcpy(&header, in, sizeof header);
    if (memcmp(&header, &expected, sizeof header) != 0)
        return DIRAC_ERR_ARGUMENT;
    in += sizeof header;
    state_scalars sc;
    memcpy(&sc, in, sizeof sc);
    in += sizeof sc;
    sim->h = sc.h, sim->t0 = sc.t0, sim->t = sc.t, sim->energy = sc.energy;
    sim->energy0 = sc.energy0, sim->work = sc.work;
    sim->constraint_residual = sc.constraint_residual;
    sim->velocity_residual = sc.velocity_residual;
    sim->projection_distance = sc.projection_distance, sim->backup_work = sc.backup_work;
    sim->adapt.h_next = sc.h_next, sim->adapt.h_last = sc.h_last;
    memcpy(sim->adapt.block_scale, sc.block_scale, sizeof sim->adapt.block_scale);
    sim->steps = sc.steps, sim->adapt.rejected = sc.rejected;
    sim->newton_iterations = sc.newton_iterations;
    sim->degenerate.active = sc.degenerate_active != 0;
    state_array a[STATE_ARRAYS];
    int count = arrays_of(sim, a);
    for (int k = 0; k < count; k++) {
        if (a[k].count)
            memcpy(a[k].data, in, a[k].count * sizeof(double));
        in += a[k].count * sizeof(double);
    }
    // the inputs live in every evaluation point (sim_input.c); the node's derived quantities
    // follow the restored node and inputs
    const dirac_model *m = sim->model;
    for (int e = 0; e < SIM_EVAL_SLOTS; e++)
        if (e != SIM_EVAL_NODE)
            memcpy(sim->eval[e].x + m->first_u, sim->eval[SIM_EVAL_NODE].x + m->first_u,
                   (size_t)m->nu * sizeof(double));
    sim_node_refresh(sim);
    return DIRAC_OK;
}

// Internal: the quality of a run measured against the model's own scales (energy balance,
// constraint residuals at position and velocity level, entropy production) and the check that
// the model's outputs stay finite. Maxima are accumulated after every accepted step without
// allocating; the warnings are formatted only when asked for (dirac_sim_warning_count).
#ifndef DIRAC_SRC_RUN_QUALITY_H
#define DIRAC_SRC_RUN_QUALITY_H

#include <dirac/simulate.h>

#define RUN_QUALITY_MAX_WARNINGS 4

typedef struct run_quality {
    double energy0, work0, work_previous, work_variation, pv_max;
    double energy_error_max, energy_error_time;
    // per constraint (allocated at creation): the largest first-order distance to the
    // constraint set and when, and the length scale ℓ_a; the same at velocity level
    double *distance, *distance_time, *length;
    double *velocity_distance, *velocity_distance_time, *speed;
    double length_model, speed_model;     // largest |q_i|, |v_i| of all coordinates
    // entropy: produced entropy Π (ΔS − heat/T accumulated), its running maximum and the
    // largest drop below it; the range of each entropy variable (min, max)
    double entropy_produced, entropy_produced_max, entropy_drop, entropy_drop_time;
    double *entropy_min, *entropy_max;
    double entropy_previous, t_previous;  // total S and t at the last node
    double *previous, *midpoint;          // heat input: (q, v, S) at the last node; scratch
    int has_heat_input;
    char messages[RUN_QUALITY_MAX_WARNINGS][512];
    int message_count;
} run_quality;

struct dirac_sim;

/// Allocates the per-constraint arrays (DIRAC_ERR_NOMEM) and records the initial node; fails
/// with DIRAC_ERR_NOT_FINITE (message in err) if an output is not finite there.
dirac_status run_quality_start(struct dirac_sim *sim, dirac_error *err);

/// Frees the arrays.
void run_quality_free(run_quality *rq);

/// After a step (the node's diagnostics up to date): DIRAC_ERR_NOT_FINITE with the message in
/// sim->errmsg if an output is not finite at the new node.
dirac_status run_quality_check_outputs(struct dirac_sim *sim);

/// After an accepted step: updates the maxima (no allocation).
void run_quality_observe(struct dirac_sim *sim);

#endif

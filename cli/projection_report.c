// The report of `dirac simulate --project-initial` (projection_report.h).
#include "projection_report.h"

#include <math.h>
#include <stdlib.h>

void projection_report(FILE *out, const dirac_model *model, const dirac_sim *sim)
{
    int n = dirac_model_coordinate_count(model);
    double *q0 = malloc(((size_t)n + 1) * sizeof *q0), *v0 = malloc(((size_t)n + 1) * sizeof *v0);
    if (!q0 || !v0) {
        free(q0), free(v0);
        return;
    }
    dirac_model_initial_state(model, q0, v0, NULL);
    const double *q = dirac_sim_q(sim), *v = dirac_sim_v(sim);
    for (int pass = 0; pass < 2; pass++) {
        const double *before = pass ? v0 : q0, *after = pass ? v : q;
        for (int i = 0; i < n; i++) {
            const char *name = dirac_model_coordinate_name(model, i);
            const char *prime = pass ? "'" : "";
            if (after[i] != before[i])
                fprintf(out, "dirac simulate: note:   moved %s%s: %.10g -> %.10g (by %.3g)\n",
                        name, prime, before[i], after[i], after[i] - before[i]);
            else if (dirac_model_initial_is_fixed(model, i, pass))
                fprintf(out, "dirac simulate: note:   kept %s%s = %.10g (fixed)\n", name, prime,
                        before[i]);
        }
    }
    free(q0), free(v0);
}

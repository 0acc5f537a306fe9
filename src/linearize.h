// Internal entry points of the linearisation (linearize.c) for the other analyses.
#ifndef DIRAC_SRC_LINEARIZE_H
#define DIRAC_SRC_LINEARIZE_H

#include <dirac/analysis.h>

/// dirac_model_linearize without the outputs (no C, D rows, no y0): for analyses that need
/// only the state matrices, such as the modes, so outputs that no state matrix can express
/// (accelerations x'') do not stop them.
dirac_status model_linearize_states(const dirac_model *m, const double *q, const double *v,
                                    const double *s, const double *mu, double t,
                                    dirac_linearization *out, dirac_error *err);

#endif

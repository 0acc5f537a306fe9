// The report of `dirac simulate --project-initial`: which start values the projection moved
// onto the constraints, and by how much.
#ifndef DIRAC_CLI_PROJECTION_REPORT_H
#define DIRAC_CLI_PROJECTION_REPORT_H

#include <dirac/dirac.h>

#include <stdio.h>

/// One line per coordinate or velocity whose value the projection changed
/// ("  moved x: 0.35 -> 0.38112 (by 0.0311)"), and the values that were kept as `fixed`.
void projection_report(FILE *out, const dirac_model *model, const dirac_sim *sim);

#endif

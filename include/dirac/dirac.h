/// @file dirac.h
/// The one header users include: libdirac, Lagrange–Dirac systems and their structure-
/// preserving integrators. Anything not declared under include/dirac/ is not API.
#ifndef DIRAC_DIRAC_H
#define DIRAC_DIRAC_H

#include <dirac/status.h>
#include <dirac/structure.h>
#include <dirac/subspace.h>
#include <dirac/model.h>
#include <dirac/analysis.h>
#include <dirac/simulate.h>
#include <dirac/run.h>
#include <dirac/version.h>

#endif

// Internal: the public dirac_spec is a thin handle around the parser's spec.
#ifndef DIRAC_SRC_SPEC_API_H
#define DIRAC_SRC_SPEC_API_H

#include <dirac/model.h>

#include "spec.h"

struct dirac_spec {
    spec *parsed;
    dirac_codegen_mode codegen;   // dirac_spec_set_codegen
};

/// The parser's spec behind a public handle.
static inline spec *spec_of(dirac_spec *ds)
{
    return ds->parsed;
}

#endif

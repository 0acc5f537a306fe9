// What `dirac export fmu` generates for one FMU (the model's files and settings), read by the
// runtime fmu_instance.c.
#ifndef DIRAC_FMU_MODEL_H
#define DIRAC_FMU_MODEL_H

#include "fmu_layout.h"

#include <stddef.h>

extern const int dirac_fmu_file_count;               // the model file, then its components
extern const char *const dirac_fmu_file_name[];      // paths relative to the model's directory
extern const char *const dirac_fmu_file_text[];
extern const size_t dirac_fmu_file_size[];
extern const int dirac_fmu_override_count;           // the export's -p NAME=VALUE
extern const char *const dirac_fmu_override[];
extern const char dirac_fmu_guid[];
extern const char dirac_fmu_method[];                // "": the model's own (or auto)
extern const double dirac_fmu_dt;                    // 0: the model's own
extern const fmu_layout dirac_fmu_layout;            // the variables at export
extern const unsigned char dirac_fmu_tunable[];      // per parameter: 1 if tunable

#endif

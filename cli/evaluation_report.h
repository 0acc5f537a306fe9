// How the model's functions are evaluated (generated code or tapes), for `dirac check` and the
// run summary, and the --codegen option that chooses it.
#ifndef DIRAC_CLI_EVALUATION_REPORT_H
#define DIRAC_CLI_EVALUATION_REPORT_H

#include <dirac/model.h>

#include "json_output.h"

#include <stdio.h>

/// Parses "auto" or "off"; returns 0, or -1 for anything else.
int cli_parse_codegen(const char *text, dirac_codegen_mode *mode);

/// One line: "evaluation: compiled C (...)" or "evaluation: tapes (REASON)".
void cli_print_evaluation(FILE *f, const dirac_model *model);

/// The summary's "evaluation" object: path ("compiled" or "tape"), cached, compile_seconds,
/// statements, reason (null when compiled).
void cli_json_evaluation(json_writer *w, const dirac_model *model);

#endif

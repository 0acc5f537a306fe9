// How the model's functions are evaluated, in the reports of check and simulate.
#include "evaluation_report.h"

#include <string.h>

int cli_parse_codegen(const char *text, dirac_codegen_mode *mode)
{
    if (text && !strcmp(text, "auto")) {
        *mode = DIRAC_CODEGEN_AUTO;
        return 0;
    }
    if (text && !strcmp(text, "off")) {
        *mode = DIRAC_CODEGEN_OFF;
        return 0;
    }
    return -1;
}

void cli_print_evaluation(FILE *f, const dirac_model *model)
{
    dirac_model_evaluation e;
    dirac_model_evaluation_info(model, &e);
    if (e.compiled)
        fprintf(f, "evaluation: compiled C (%ld statements in %d functions, %s in %.3f s)%s%s\n",
                e.statements, e.functions, e.cached ? "loaded from the cache" : "compiled",
                e.compile_seconds, e.reason && e.reason[0] ? "; " : "",
                e.reason ? e.reason : "");
    else
        fprintf(f, "evaluation: tapes (%s)\n", e.reason);
}

void cli_json_evaluation(json_writer *w, const dirac_model *model)
{
    dirac_model_evaluation e;
    dirac_model_evaluation_info(model, &e);
    json_object(w, "evaluation");
    json_string(w, "path", e.compiled ? "compiled" : "tape");
    json_bool(w, "cached", e.cached);
    json_number(w, "compile_seconds", e.compile_seconds);
    json_integer(w, "statements", e.statements);
    json_string(w, "reason", e.compiled && !(e.reason && e.reason[0]) ? NULL : e.reason);
    json_end(w);
}

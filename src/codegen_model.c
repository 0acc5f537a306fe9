// Generated code for a compiled model: every group of model.h in one module (src/codegen.h),
// bit MODEL_CG_* each, so that sim_evaluate computes the groups of one point in one call.
#include "codegen_stage.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

static model_group *group_of(dirac_model *m, model_codegen_group g)
{
    switch (g) {
    case MODEL_CG_LAGRANGIAN: return &m->lagrangian_value;
    case MODEL_CG_GRADIENT: return &m->gradient;
    case MODEL_CG_HESSIAN: return &m->hessian.values;
    case MODEL_CG_CONSTRAINT_VALUES: return &m->constraint_values;
    case MODEL_CG_CONSTRAINT_FORMS: return &m->constraint_forms.values;
    case MODEL_CG_CONSTRAINT_RATES: return &m->constraint_rates;
    case MODEL_CG_CONSTRAINT_JACOBIAN: return &m->constraint_jacobian.values;
    case MODEL_CG_CURVATURE: return &m->form_curvature.values;
    case MODEL_CG_FORCES: return &m->forces;
    case MODEL_CG_FORCE_JACOBIAN: return &m->force_jacobian.values;
    case MODEL_CG_OUTPUTS: return &m->outputs;
    case MODEL_CG_OUTPUT_JACOBIAN: return &m->output_jacobian.values;
    case MODEL_CG_THERMAL: return &m->thermal;
    case MODEL_CG_WEDGES: return &m->wedge_coefficients;
    default: return NULL;
    }
}

const model_group *model_codegen_group_of(const dirac_model *m, model_codegen_group g)
{
    return group_of((dirac_model *)m, g);   // group_of only takes addresses
}

void model_codegen_attach(dirac_model *m, int enabled)
{
    memset(&m->codegen_report, 0, sizeof m->codegen_report);
    if (!enabled || !codegen_enabled_by_environment()) {
        strcpy(m->codegen_report.reason, enabled ? "DIRAC_CODEGEN=off" : "turned off");
        return;
    }
    const expr_id *ids[MODEL_CG_COUNT];
    int counts[MODEL_CG_COUNT];
    for (int g = 0; g < MODEL_CG_COUNT; g++) {
        const model_group *group = group_of(m, (model_codegen_group)g);
        ids[g] = group->ids;
        counts[g] = group->ids ? group->count : 0;
    }
    // midpoint's stage kernels of a small model (codegen_stage.h) join the model's source
    char *kernels = codegen_stage_source(m);
    codegen_build(m->pool, MODEL_CG_COUNT, ids, counts, kernels, &m->codegen,
                  &m->codegen_report);
    free(kernels);
    if (!m->codegen)
        return;
    for (int g = 0; g < MODEL_CG_COUNT; g++) {
        model_group *group = group_of(m, (model_codegen_group)g);
        if (group->count > 0 && !(m->codegen_report.tape_groups & (1u << g))) {
            group->module = m->codegen;
            group->bit = g;
        }
    }
    if (codegen_work_size(m->codegen) > m->work_size)
        m->work_size = codegen_work_size(m->codegen);
}

void model_codegen_release(dirac_model *m)
{
    codegen_destroy(m->codegen);
    m->codegen = NULL;
}

void dirac_model_evaluation_info(const dirac_model *m, dirac_model_evaluation *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!m) {
        out->reason = "no model";
        return;
    }
    const codegen_report *r = &m->codegen_report;
    out->compiled = m->codegen != NULL;
    out->cached = r->cached;
    out->compile_seconds = r->seconds;
    out->statements = r->statements;
    out->functions = r->functions;
    out->files = r->files;
    out->reason = r->reason;
}

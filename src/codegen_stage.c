// Generated stage kernels of `midpoint` (src/codegen_stage.h): the C text, emitted from the
// model's sparsity patterns, and their entry points in a loaded module.
#include "codegen_stage.h"

#include "model.h"
#include "text.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_text(text_buffer *b, const char *s)
{
    text_buffer_append(b, s, strlen(s));
}

// appends printf-style text (a line of the kernels)
__attribute__((format(printf, 2, 3))) static void put(text_buffer *b, const char *format, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, format);
    int length = vsnprintf(line, sizeof line, format, ap);
    va_end(ap);
    if (length < 0 || (size_t)length >= sizeof line) {
        // a truncated line would be wrong code: fail the emission (no kernels) instead
        if (b->status == DIRAC_OK)
            b->status = DIRAC_ERR_SIZE;
        return;
    }
    text_buffer_append(b, line, (size_t)length);
}

static unsigned bit(model_codegen_group g)
{
    return 1u << g;
}

// the groups of a constraint evaluation (sim_eval.c: EVAL_CONSTRAINTS)
static unsigned constraint_groups(void)
{
    return bit(MODEL_CG_CONSTRAINT_VALUES) | bit(MODEL_CG_CONSTRAINT_FORMS) |
           bit(MODEL_CG_CONSTRAINT_RATES);
}

// the positions and velocities of a point
typedef enum point_kind {
    POINT_MIDPOINT,   // q̄ = q_k + ½ Δq, v̄ = Δq / h (integ_midpoint.c, midpoint_of)
    POINT_END,        // q_{k+1} = q_k + Δq, v̄
    POINT_NODE,       // q, v = z
} point_kind;

// x of a point: q, v, t, and the multipliers at 0 (as sim_evaluate)
static void put_point(text_buffer *b, const dirac_model *m, const char *x, point_kind kind,
                      const char *t)
{
    put(b, "    for (int i = 0; i < %d; i++) {\n", m->n);
    if (kind == POINT_MIDPOINT)
        put(b, "        %s[i] = q[i] + 0.5 * z[i];\n", x);
    else if (kind == POINT_END)
        put(b, "        %s[i] = q[i] + z[i];\n", x);
    else
        put(b, "        %s[i] = q[i];\n", x);
    put(b, "        %s[%d + i] = z[i]%s;\n    }\n", x, m->first_v,
        kind == POINT_NODE ? "" : " / h");
    put(b, "    %s[%d] = %s;\n", x, m->index_t, t);
    if (m->m > 0)
        put(b, "    for (int i = 0; i < %d; i++)\n        %s[%d + i] = 0.0;\n", m->m, x,
            m->first_mu);
}

// J[col][row] += coefficient * values[k] for the entries of rows row_first.. (n of them) and
// columns col_first.. (n) of `sp`, at rows r0.. and columns c0.. of the (size)² matrix, in
// the order of sim_add_sparse_block
static void put_block(text_buffer *b, const model_sparse *sp, const char *values,
                      int row_first, int col_first, int rows, int cols, const char *coefficient,
                      int r0, int c0, int size)
{
    if (sp->nnz == 0)
        return;
    for (int r = 0; r < rows; r++)
        for (int k = sp->row_start[row_first + r]; k < sp->row_start[row_first + r + 1]; k++) {
            int c = sp->col[k] - col_first;
            if (c >= 0 && c < cols)
                put(b, "        J[%d] += %s * %s[%d];\n", (c0 + c) * size + r0 + r, coefficient,
                    values, k);
        }
}

// (−h/2 μ) ω: r[i] += (−h/2) μ_a ω_ai, in sim_add_forms_transposed's order
static void put_forms_transposed(text_buffer *b, const dirac_model *m, const char *forms,
                                 int first_multiplier)
{
    const model_sparse *f = &m->constraint_forms;
    for (int a = 0; a < m->m; a++)
        for (int k = f->row_start[a]; k < f->row_start[a + 1]; k++)
            put(b, "    r[%d] += -0.5 * h * z[%d] * %s[%d];\n", f->col[k], first_multiplier + a,
                forms, k);
}

static int has_holonomic(const dirac_model *m)
{
    for (int a = 0; a < m->m; a++)
        if (m->constraints[a].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            return 1;
    return 0;
}

static const char prelude[] =
    "/* midpoint's stage kernels (src/codegen_stage.c) */\n"
    "typedef struct dg_stage_args {\n"
    "    const double *q;\n"
    "    const double *p;\n"
    "    const double *start_forms;\n"
    "    double *hidden;\n"
    "    double *x_mid;\n"
    "    double *x_end;\n"
    "    double *const *out_mid;\n"
    "    double *const *out_end;\n"
    "    double t, h;\n"
    "} dg_stage_args;\n"
    "#define DG_STAGE_ARGS const dg_stage_args *restrict a, const double *restrict z, "
    "double *restrict r, double *restrict J, const double *restrict k, double *restrict w, "
    "const int *restrict ix\n";

// the prelude's dg_stage_args repeats codegen_stage_args field by field: eight pointers, then
// two doubles, without padding
#define STAGE_POINTER sizeof(double *)
_Static_assert(offsetof(codegen_stage_args, q) == 0, "prelude layout");
_Static_assert(offsetof(codegen_stage_args, p) == 1 * STAGE_POINTER, "prelude layout");
_Static_assert(offsetof(codegen_stage_args, start_forms) == 2 * STAGE_POINTER, "prelude layout");
_Static_assert(offsetof(codegen_stage_args, hidden) == 3 * STAGE_POINTER, "prelude layout");
_Static_assert(offsetof(codegen_stage_args, x_mid) == 4 * STAGE_POINTER, "prelude layout");
_Static_assert(offsetof(codegen_stage_args, x_end) == 5 * STAGE_POINTER, "prelude layout");
_Static_assert(offsetof(codegen_stage_args, out_mid) == 6 * STAGE_POINTER, "prelude layout");
_Static_assert(offsetof(codegen_stage_args, out_end) == 7 * STAGE_POINTER, "prelude layout");
_Static_assert(offsetof(codegen_stage_args, t) == 8 * STAGE_POINTER, "prelude layout");
_Static_assert(offsetof(codegen_stage_args, h) == 8 * STAGE_POINTER + sizeof(double),
               "prelude layout");
_Static_assert(sizeof(codegen_stage_args) == 8 * STAGE_POINTER + 2 * sizeof(double),
               "prelude layout");

// stage 1 (integ_midpoint.c, assemble_positions without entropies)
static void put_positions(text_buffer *b, const dirac_model *m)
{
    int n = m->n, mc = m->m, size = n + mc, zl = n, holonomic = has_holonomic(m);
    unsigned mid = bit(MODEL_CG_GRADIENT) | bit(MODEL_CG_FORCES) | bit(MODEL_CG_FORCE_JACOBIAN) |
                   constraint_groups();
    unsigned mid_jacobian = mid | bit(MODEL_CG_HESSIAN) | bit(MODEL_CG_CONSTRAINT_JACOBIAN);
    put(b, "__attribute__((visibility(\"default\"))) void dirac_stage_positions(DG_STAGE_ARGS)\n"
           "{\n"
           "    const double *q = a->q, *p = a->p;\n"
           "    double h = a->h, *xm = a->x_mid, *xe = a->x_end;\n"
           "    double *const *om = a->out_mid, *const *oe = a->out_end;\n"
           "    (void)xe, (void)oe;\n");
    put_point(b, m, "xm", POINT_MIDPOINT, "a->t + 0.5 * h");
    put(b, "    if (J)\n        dg_eval(xm, k, 0x%xu, om, w, ix);\n    else\n"
           "        dg_eval(xm, k, 0x%xu, om, w, ix);\n", mid_jacobian, mid);
    if (holonomic) {
        put_point(b, m, "xe", POINT_END, "a->t + h");
        put(b, "    dg_eval(xe, k, 0x%xu, oe, w, ix);\n", constraint_groups());
    }
    put(b, "    const double *G = om[%d], *F = om[%d];\n", MODEL_CG_GRADIENT, MODEL_CG_FORCES);
    put(b, "    for (int i = 0; i < %d; i++)\n"
           "        r[i] = G[%d + i] - p[i] - 0.5 * h * (G[i] + F[i]);\n", n, n);
    put_forms_transposed(b, m, "a->start_forms", zl);
    for (int c = 0; c < mc; c++)
        put(b, "    r[%d] = %s[%d][%d];\n", zl + c,
            m->constraints[c].kind == DIRAC_CONSTRAINT_HOLONOMIC ? "oe" : "om",
            MODEL_CG_CONSTRAINT_VALUES, c);
    put(b, "    if (!J)\n        return;\n    {\n");
    put(b, "        const double c1 = 1.0 / h, c2 = -0.25 * h;\n"
           "        const double *H = om[%d], *FJ = om[%d], *FM = om[%d], *CJ = om[%d];\n"
           "        const double *FE = oe[%d], *FS = a->start_forms;\n"
           "        (void)c1, (void)c2, (void)H, (void)FJ, (void)FM, (void)CJ, (void)FE;\n"
           "        (void)FS;\n",
        MODEL_CG_HESSIAN, MODEL_CG_FORCE_JACOBIAN, MODEL_CG_CONSTRAINT_FORMS,
        MODEL_CG_CONSTRAINT_JACOBIAN, MODEL_CG_CONSTRAINT_FORMS);
    // ∂R1/∂Δq = ½ H_vq + H_vv / h − h/2 (½ H_qq + H_qv / h + ½ F_q + F_v / h), in
    // add_position_jacobian's order
    put_block(b, &m->hessian, "H", n, 0, n, n, "0.5", 0, 0, size);
    put_block(b, &m->hessian, "H", n, n, n, n, "c1", 0, 0, size);
    put_block(b, &m->hessian, "H", 0, 0, n, n, "c2", 0, 0, size);
    put_block(b, &m->hessian, "H", 0, n, n, n, "-0.5", 0, 0, size);
    put_block(b, &m->force_jacobian, "FJ", 0, 0, n, n, "c2", 0, 0, size);
    put_block(b, &m->force_jacobian, "FJ", 0, n, n, n, "-0.5", 0, 0, size);
    // ∂R1/∂λ = −h/2 ω(q_k)ᵀ
    const model_sparse *f = &m->constraint_forms;
    for (int c = 0; c < mc; c++)
        for (int k = f->row_start[c]; k < f->row_start[c + 1]; k++)
            put(b, "        J[%d] += -0.5 * h * FS[%d];\n", (zl + c) * size + f->col[k], k);
    // the holonomic rows' rounding at the scale of q_{k+1} (sim_add_position_magnitude)
    for (int c = 0; c < mc; c++)
        if (m->constraints[c].kind == DIRAC_CONSTRAINT_HOLONOMIC)
            for (int k = f->row_start[c]; k < f->row_start[c + 1]; k++)
                put(b, "        a->hidden[%d] += fabs(1.0 * FE[%d] * xe[%d]);\n", zl + c, k,
                    f->col[k]);
    // ∂R2/∂q_{k+1}: ω(q_{k+1}) for holonomic rows; ½ ∂c/∂q + ω / h at the midpoint otherwise
    for (int c = 0; c < mc; c++) {
        if (m->constraints[c].kind == DIRAC_CONSTRAINT_HOLONOMIC) {
            put_block(b, f, "FE", c, 0, 1, n, "1.0", zl + c, 0, size);
        } else {
            put_block(b, &m->constraint_jacobian, "CJ", c, 0, 1, n, "0.5", zl + c, 0, size);
            put_block(b, f, "FM", c, 0, 1, n, "c1", zl + c, 0, size);
        }
    }
    put(b, "    }\n}\n");
}

// stage 2 (integ_midpoint.c, assemble_velocities of a regular Lagrangian)
static void put_velocities(text_buffer *b, const dirac_model *m)
{
    int n = m->n, mc = m->m, size = n + mc;
    unsigned groups = bit(MODEL_CG_GRADIENT) | constraint_groups();
    put(b, "__attribute__((visibility(\"default\"))) void dirac_stage_velocities(DG_STAGE_ARGS)\n"
           "{\n"
           "    const double *q = a->q, *p = a->p;\n"
           "    double h = a->h, *xe = a->x_end;\n"
           "    double *const *oe = a->out_end;\n"
           "    (void)h;\n");
    put_point(b, m, "xe", POINT_NODE, "a->t + h");
    put(b, "    if (J)\n        dg_eval(xe, k, 0x%xu, oe, w, ix);\n    else\n"
           "        dg_eval(xe, k, 0x%xu, oe, w, ix);\n", groups | bit(MODEL_CG_HESSIAN), groups);
    put(b, "    const double *G = oe[%d], *FO = oe[%d], *B = oe[%d];\n    (void)FO, (void)B;\n",
        MODEL_CG_GRADIENT, MODEL_CG_CONSTRAINT_FORMS, MODEL_CG_CONSTRAINT_RATES);
    put(b, "    for (int i = 0; i < %d; i++)\n        r[i] = G[%d + i] - p[i];\n", n, n);
    put_forms_transposed(b, m, "FO", n);
    // ⟨ω_a, v⟩ + b_a, summed from b_a (sim_velocity_constraint)
    const model_sparse *f = &m->constraint_forms;
    for (int c = 0; c < mc; c++) {
        put(b, "    r[%d] = B[%d]", n + c, c);
        for (int k = f->row_start[c]; k < f->row_start[c + 1]; k++)
            put(b, " + FO[%d] * z[%d]", k, f->col[k]);
        put(b, ";\n");
    }
    put(b, "    if (!J)\n        return;\n    {\n        const double *H = oe[%d];\n"
           "        (void)H;\n",
        MODEL_CG_HESSIAN);
    put_block(b, &m->hessian, "H", n, n, n, n, "1.0", 0, 0, size);
    for (int c = 0; c < mc; c++)
        for (int k = f->row_start[c]; k < f->row_start[c + 1]; k++) {
            put(b, "        J[%d] += -0.5 * h * FO[%d];\n", (n + c) * size + f->col[k], k);
            put(b, "        J[%d] += FO[%d];\n", f->col[k] * size + n + c, k);
        }
    put(b, "    }\n}\n");
}

// the points midpoint_step evaluates once per step: the constraints at the start node
// (q_k, v_k = z, t_k) into x_mid/out_mid (the caller passes the start slot there), and the
// converged midpoint (z = Δq) with the groups of p* and the step's work
static void put_points(text_buffer *b, const dirac_model *m)
{
    put(b, "__attribute__((visibility(\"default\"))) void dirac_stage_start(DG_STAGE_ARGS)\n"
           "{\n"
           "    const double *q = a->q;\n"
           "    double *xm = a->x_mid;\n"
           "    (void)r, (void)J;\n");
    put_point(b, m, "xm", POINT_NODE, "a->t");
    put(b, "    dg_eval(xm, k, 0x%xu, a->out_mid, w, ix);\n}\n", constraint_groups());
    put(b, "__attribute__((visibility(\"default\"))) void dirac_stage_midpoint(DG_STAGE_ARGS)\n"
           "{\n"
           "    const double *q = a->q;\n"
           "    double h = a->h, *xm = a->x_mid;\n"
           "    (void)r, (void)J;\n");
    put_point(b, m, "xm", POINT_MIDPOINT, "a->t + 0.5 * h");
    put(b, "    dg_eval(xm, k, 0x%xu, a->out_mid, w, ix);\n}\n",
        bit(MODEL_CG_GRADIENT) | bit(MODEL_CG_FORCES) | bit(MODEL_CG_FORCE_JACOBIAN) |
            constraint_groups());
}

char *codegen_stage_source(const dirac_model *m)
{
    if (m->ns > 0 || m->n + m->m >= CODEGEN_STAGE_MAX_UNKNOWNS || m->forces.count != m->n)
        return NULL;
    text_buffer b = { 0 };
    put_text(&b, prelude);
    put_positions(&b, m);
    put_velocities(&b, m);
    put_points(&b, m);
    long lines = 0;
    for (size_t i = 0; i < b.length; i++)
        lines += b.data[i] == '\n';
    if (b.status != DIRAC_OK || lines > CODEGEN_STAGE_MAX_LINES) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

// Internal: turning spec expressions into expression-DAG nodes (model compilation).
#ifndef DIRAC_SRC_MODEL_LOWER_H
#define DIRAC_SRC_MODEL_LOWER_H

#include "expr.h"
#include "spec.h"

/// The DAG kind of a built-in function (EXPR_KIND_COUNT for a piecewise function, which
/// lowering builds from comparisons and selections) and of an operator (*swapped: the
/// operands trade places, a > b is b < a). Defined in builtin_functions.c with the table.
expr_kind spec_func_kind(spec_func func);
expr_kind spec_op_kind(spec_op op, bool *swapped);

typedef struct lower_scope lower_scope;

/// Lowers a qualified name (`comp.x`, `comp.x'`) seen from the scope's instance.
typedef expr_id (*lower_qualified_fn)(const lower_scope *scope, const spec_expr_node *node);

/// What the names of one model instance mean in the DAG.
struct lower_scope {
    spec *spec;                  // for error messages
    expr_pool *pool;
    const double *param_values;  // value of each parameter (folded to a constant)
    const int *input_index;      // per parameter: its input number (variable first_u + it), or
                                 // -1 for a parameter proper (NULL: no inputs)
    int first_u;
    const expr_id *let_ids;      // DAG node of each let lowered so far
    int first_q, first_v, first_s, index_t;   // input indices of this instance's variables
    const void *owner;           // the instance (model_instance.h)
    const char *prefix;          // its names' prefix: "" (the outer model), "a.", "a.b." ..
    lower_qualified_fn qualified; // NULL: qualified names are errors
    // derived quantities for `output` expressions (set by compile_outputs; NULL/EXPR_NONE
    // elsewhere): input index of this instance's first multiplier; ∂L/∂v and −∂L/∂S by input
    // index of the coordinate / entropy variable (first_q + i, first_s + j); the energy
    int first_mu;
    int first_a;                 // input index of the instance's first acceleration (0: none)
    const expr_id *momentum, *temperature;
    expr_id energy;
    // the interactions' CSV columns F.NAME.COORD and P.NAME by name, and their expressions
    // (the outer model's outputs only; count 0 elsewhere)
    char **interaction_names;
    const expr_id *interaction_columns;
    int interaction_column_count;
};

/// The DAG node of expression `e`; EXPR_NONE after an error was reported in the spec.
expr_id lower_expr(const lower_scope *scope, const spec_expr *e);

/// Lowers `e`, which must fold to a finite constant ("`what` must be a constant" otherwise,
/// reported at `loc`); returns 1 and writes *out on success.
int lower_constant(const lower_scope *scope, const spec_expr *e, spec_loc loc, const char *what,
                   double *out);

#endif

// Internal: the expression engine. Expressions are nodes of a DAG held in a pool; identical
// nodes are stored once (hash-consing), constructors fold constants and simplify, derivatives
// are taken on the DAG with memoisation, and sets of expressions compile to a flat tape that
// evaluates without recursion or allocation.
//
// Invariants the whole module relies on:
// - a node's children always have smaller ids than the node, so increasing id order is a
//   topological order and no routine ever recurses on expression depth;
// - nodes are immutable once created; ids stay valid for the life of the pool;
// - variables are indices into the caller's input vector (the caller gives them meaning:
//   q_i, v_i, S_i, t, or parameters it does not want folded).
//
// Threads: a pool is not thread-safe (constructors and derivatives modify it); a compiled
// tape is immutable and may be evaluated by several threads, each with its own `work`.
//
// Errors: constructors return EXPR_NONE on failure and record a sticky status and message in
// the pool (expr_pool_error); every constructor given EXPR_NONE returns EXPR_NONE, so a whole
// expression can be built and checked once at the end. Functions that return dirac_status
// fill a caller's dirac_error as well.
#ifndef DIRAC_SRC_EXPR_H
#define DIRAC_SRC_EXPR_H

#include "builtin_functions.h"

#include <dirac/status.h>

#include <stddef.h>
#include <stdint.h>

/// Node id: index into the pool, 0 .. expr_pool_size() - 1.
typedef int32_t expr_id;

/// The id returned by a failed constructor or derivative.
#define EXPR_NONE ((expr_id)-1)

/// Node kinds: the operators (X-macro: enum name, printed name, arity), then one kind
/// EXPR_<ID> per function of BUILTIN_MATH_LIST (builtin_functions.h) in its order.
/// Comparisons LT, LE, EQ, NE are 1 or 0 (NaN if an operand is NaN); WHEN(c, a) is a if c is
/// not 0 and 0 if it is (whatever a is: a NaN or infinite a in the branch not taken does not
/// leak), NaN if c is NaN. if(c, a, b) is WHEN(c, a) + WHEN(c == 0, b). Derivatives: a
/// comparison is piecewise constant (derivative 0); d WHEN(c, a) = WHEN(c, da), the
/// derivative of the branch taken.
#define EXPR_OPERATOR_LIST(X) \
    X(EXPR_CONST, "const", 0) \
    X(EXPR_VAR, "var", 0)     \
    X(EXPR_ADD, "+", 2)       \
    X(EXPR_SUB, "-", 2)       \
    X(EXPR_MUL, "*", 2)       \
    X(EXPR_DIV, "/", 2)       \
    X(EXPR_POW, "^", 2)       \
    X(EXPR_LT, "<", 2)        \
    X(EXPR_LE, "<=", 2)       \
    X(EXPR_EQ, "==", 2)       \
    X(EXPR_NE, "!=", 2)       \
    X(EXPR_WHEN, "when", 2)   \
    X(EXPR_NEG, "neg", 1)

typedef enum expr_kind {
#define EXPR_OPERATOR_ENUM(kind, name, arity) kind,
    EXPR_OPERATOR_LIST(EXPR_OPERATOR_ENUM)
#undef EXPR_OPERATOR_ENUM
#define EXPR_FUNCTION_ENUM(id, ...) EXPR_##id,
    BUILTIN_MATH_LIST(EXPR_FUNCTION_ENUM)
#undef EXPR_FUNCTION_ENUM
        EXPR_KIND_COUNT
} expr_kind;

/// The first function kind: kinds EXPR_FIRST_FUNCTION .. EXPR_KIND_COUNT - 1 are the rows of
/// BUILTIN_MATH_LIST.
#define EXPR_FIRST_FUNCTION (EXPR_NEG + 1)

/// Printed name of a kind ("sin", "+", "atan2"); "?" for an invalid kind.
const char *expr_kind_name(expr_kind kind);

/// Number of children of a kind (0, 1 or 2); -1 for an invalid kind.
int expr_kind_arity(expr_kind kind);

/// The function named `name` (first `length` bytes; "sin", "atan2", "sign", ...): writes its
/// kind and returns its arity (1 or 2), or returns 0 if no function has that name.
int expr_function_lookup(const char *name, size_t length, expr_kind *kind);

/// Value of `kind` applied to a (and b for binary kinds), exactly as the tape computes it
/// except that integer powers use pow(). sign(x) is -1, 0 or 1 (NaN for NaN).
double expr_apply(expr_kind kind, double a, double b);

// ---------------------------------------------------------------------------------------
// Pool: nodes, hash-consing, constructors.

typedef struct expr_pool expr_pool;

/// New empty pool (owned by the caller, freed with expr_pool_destroy).
dirac_status expr_pool_create(expr_pool **out, dirac_error *err);

/// Frees the pool, its nodes and derivative memo; NULL is a no-op.
void expr_pool_destroy(expr_pool *pool);

/// Number of nodes (the next id to be created).
int32_t expr_pool_size(const expr_pool *pool);

/// Sticky status of the pool: DIRAC_OK until a constructor fails.
dirac_status expr_pool_status(const expr_pool *pool);

/// Copies the pool's sticky status and message into `err` (if the status is not DIRAC_OK)
/// and returns the status.
dirac_status expr_pool_error(const expr_pool *pool, dirac_error *err);

/// Clears the sticky status (the nodes already built stay valid).
void expr_pool_clear_error(expr_pool *pool);

/// Constant node (folded and shared by bit pattern; -0.0 is stored as 0.0).
expr_id expr_const(expr_pool *pool, double value);

/// Variable node for input index `index` >= 0.
expr_id expr_var(expr_pool *pool, int32_t index);

/// Node of `kind` with children a (and b for binary kinds; ignored for unary kinds), after
/// constant folding and simplification. Commutative kinds order their children canonically,
/// so a+b and b+a are the same node.
expr_id expr_make(expr_pool *pool, expr_kind kind, expr_id a, expr_id b);

/// Shorthands for expr_make.
expr_id expr_add(expr_pool *pool, expr_id a, expr_id b);
expr_id expr_sub(expr_pool *pool, expr_id a, expr_id b);
expr_id expr_mul(expr_pool *pool, expr_id a, expr_id b);
expr_id expr_div(expr_pool *pool, expr_id a, expr_id b);
expr_id expr_pow(expr_pool *pool, expr_id a, expr_id b);
expr_id expr_neg(expr_pool *pool, expr_id a);
/// a^n for a constant exponent n.
expr_id expr_powc(expr_pool *pool, expr_id a, double n);
/// Unary function `kind` (a kind of BUILTIN_MATH_LIST of arity 1, or EXPR_NEG) of a.
expr_id expr_fn(expr_pool *pool, expr_kind kind, expr_id a);

/// Accessors (id must be valid).
expr_kind expr_kind_of(const expr_pool *pool, expr_id id);
/// Child 0 or 1 of a unary or binary node; EXPR_NONE if there is no such child.
expr_id expr_child(const expr_pool *pool, expr_id id, int which);
/// Value of a constant node (NaN for other kinds).
double expr_const_value(const expr_pool *pool, expr_id id);
/// Input index of a variable node (-1 for other kinds).
int32_t expr_var_index(const expr_pool *pool, expr_id id);
/// 1 if id is a constant node equal to `value`, else 0.
int expr_is_const(const expr_pool *pool, expr_id id, double value);
/// Range [*lo, *hi] of the variable indices the node may depend on (lo > hi: constant).
/// A cheap, conservative summary: indices inside the range need not all occur.
void expr_var_range(const expr_pool *pool, expr_id id, int32_t *lo, int32_t *hi);

/// Number of distinct nodes reachable from the `count` ids (each counted once).
dirac_status expr_count_reachable(const expr_pool *pool, int count, const expr_id *ids,
                                  int64_t *nodes, dirac_error *err);

/// Sorted list of the variable indices occurring in the `count` ids: `*vars` (malloc'ed,
/// NULL when none; the caller frees it) and `*n_vars`.
dirac_status expr_variables(const expr_pool *pool, int count, const expr_id *ids,
                            int32_t **vars, int *n_vars, dirac_error *err);

/// Replaces each variable vars[k] by the expression with[k] in e, re-simplifying on the way
/// (so substituting constants folds them): writes the new id to *out.
dirac_status expr_substitute(expr_pool *pool, expr_id e, int count, const int32_t *vars,
                             const expr_id *with, expr_id *out, dirac_error *err);

/// Copies the expressions roots[0..count-1] of `from` into the pool `to` (variables keep their
/// indices); map[id] receives each copied node's id in `to` (map has expr_pool_size(from)
/// entries, EXPR_NONE where not copied). For work in a private pool (src/expr_copy.c).
dirac_status expr_copy(const expr_pool *from, int count, const expr_id *roots, expr_pool *to,
                       expr_id *map, dirac_error *err);

/// Slow reference evaluation of `count` expressions at `inputs` into values[count], node by
/// node in id order (allocates; for tests and one-off uses such as parameter values).
dirac_status expr_eval_reference(const expr_pool *pool, int count, const expr_id *ids,
                                 const double *inputs, double *values, dirac_error *err);

// ---------------------------------------------------------------------------------------
// Differentiation.

/// d e / d(variable `var`). Memoised per (node, variable) in the pool, so derivatives of a
/// chain model share their parts and grow linearly; EXPR_NONE on failure (see the pool error).
expr_id expr_diff(expr_pool *pool, expr_id e, int32_t var);

/// Sparse matrix of expression ids in compressed-row form: row r has the entries
/// k = row_start[r] .. row_start[r+1]-1, in increasing column col[k], of value id value[k].
typedef struct expr_sparse {
    int n_rows, n_cols;
    int nnz;
    int *row_start;   // n_rows + 1
    int *col;         // nnz, column index into the `vars` list the matrix was built for
    expr_id *value;   // nnz
} expr_sparse;

/// Frees the arrays of a sparse matrix and zeroes it; NULL is a no-op.
void expr_sparse_free(expr_sparse *m);

/// Jacobian J[r][c] = d outputs[r] / d(variable vars[c]) with only the structurally nonzero
/// entries (variable occurs in the output and the derivative does not simplify to 0).
/// Reverse mode on the DAG: one adjoint sweep per output over the nodes it depends on, so
/// the cost and the new nodes grow with the size of the outputs, not with n_vars times it.
/// `vars` must be distinct non-negative indices. On success *jac owns new arrays.
/// Each call allocates scratch proportional to the largest output id: pass all the outputs
/// of a model in one call rather than one call per output.
dirac_status expr_jacobian(expr_pool *pool, int n_outputs, const expr_id *outputs, int n_vars,
                           const int32_t *vars, expr_sparse *jac, dirac_error *err);

/// Gradient (as a 1 x n_vars expr_jacobian) and Hessian H[i][j] = d²e / d vars[i] d vars[j]
/// (n_vars x n_vars, structurally nonzero entries only); either output may be NULL.
dirac_status expr_hessian(expr_pool *pool, expr_id e, int n_vars, const int32_t *vars,
                          expr_sparse *gradient, expr_sparse *hessian, dirac_error *err);

// ---------------------------------------------------------------------------------------
// Tape: a flat program evaluating a set of expressions.

typedef struct expr_tape expr_tape;

/// Compiles the `n_outputs` expressions into a tape (owned by the caller; expr_tape_destroy).
/// The tape does not refer to the pool afterwards.
dirac_status expr_tape_compile(const expr_pool *pool, int n_outputs, const expr_id *outputs,
                               expr_tape **out, dirac_error *err);

/// Frees the tape; NULL is a no-op.
void expr_tape_destroy(expr_tape *tape);

/// Evaluates the tape: reads inputs[0 .. expr_tape_input_count()-1], uses work (at least
/// expr_tape_work_size() doubles, caller-owned scratch) and writes outputs[n_outputs].
/// Neither allocates nor recurses.
void expr_tape_eval(const expr_tape *tape, const double *inputs, double *work,
                    double *outputs);

/// Number of instructions (input loads not counted).
int expr_tape_length(const expr_tape *tape);
/// Number of inputs loaded into work slots before the instructions run.
int expr_tape_load_count(const expr_tape *tape);
/// Number of doubles of `work` expr_tape_eval needs (register slots after reuse).
int expr_tape_work_size(const expr_tape *tape);
/// Number of distinct DAG nodes the tape computes (one slot each before register reuse).
int expr_tape_node_count(const expr_tape *tape);
/// 1 + the largest input index read (0 if none).
int expr_tape_input_count(const expr_tape *tape);
/// Number of outputs.
int expr_tape_output_count(const expr_tape *tape);

// ---------------------------------------------------------------------------------------
// Printing.

typedef enum expr_print_style {
    EXPR_PRINT_INFIX,   ///< readable infix: m/2*(x'^2 + y'^2) - m*g*y
    EXPR_PRINT_LATEX,   ///< LaTeX: \frac{m}{2} ..., x^{2}, \sin\left(x\right)
} expr_print_style;

/// Name of variable `index` in the chosen style (NULL: printed as x<index>, x_{index}).
typedef const char *(*expr_name_fn)(int32_t index, void *user);

/// Longest text expr_print produces before failing with DIRAC_ERR_SIZE (shared subexpressions
/// are printed in full each time, which can be exponentially long).
#define EXPR_PRINT_MAX_LENGTH (16u << 20)

/// Prints e (iteratively, any depth) into a malloc'ed string *text the caller frees.
dirac_status expr_print(const expr_pool *pool, expr_id e, expr_print_style style,
                        expr_name_fn name, void *user, char **text, dirac_error *err);

/// Prints e as a term of a sum (in equations built from pieces): the text is e's magnitude
/// and *negative says whether e is to be subtracted — the leading sign of a negative constant,
/// a negation, or a product or quotient whose first factor carries one, is taken out
/// (−2*x prints "2*x" with *negative = 1; -(a - b) prints "a - b"). *is_sum is 1 when the
/// text is a sum or difference (it needs parentheses as a factor or after a minus).
dirac_status expr_print_term(const expr_pool *pool, expr_id e, expr_print_style style,
                             expr_name_fn name, void *user, char **text, int *negative,
                             int *is_sum, dirac_error *err);

#endif

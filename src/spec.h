// Internal: the syntax tree ("spec") of `.dirac` model files, as produced by the parser
// (parse_*.c), checked by the resolve pass (spec_resolve.c) and read by the compile step.
// The language is documented in docs/model-language.md.
//
// Ownership: one `spec` owns everything reachable from it (models, statements, expression
// nodes, strings, the source texts); spec_destroy frees it all. Nothing here is global: error
// messages live in the spec (spec_errmsg).
//
// Expressions: every expression is stored as an array of nodes in postorder (children before
// parents; the root is the last node; every subtree is a contiguous block ending at its root).
// Trees can be very deep (a sum of n terms is a left-deep chain of depth n), so walk
// `expr->nodes[0 .. count)` in order, or use an explicit stack, never recursion on the tree.
#ifndef DIRAC_SRC_SPEC_H
#define DIRAC_SRC_SPEC_H

#include "builtin_functions.h"

#include <dirac/status.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Deepest nesting of parentheses, function calls, pending unary operators and chains of `^`
/// accepted in one expression ("expression nested too deeply (limit N)" beyond).
#define SPEC_NESTING_MAX 256
/// Deepest chain of components (a model including a model including ...).
#define SPEC_COMPONENT_DEPTH_MAX 16
/// Most indices of one indexed name (`x[i, j]`, `cell[i].x[j]`) and of one statement's index
/// list (docs/model-language.md, "Indexed families").
#define SPEC_INDEX_MAX 8
/// Most indices in scope at one place: a statement's own ranges plus the enclosing sums.
#define SPEC_BINDERS_MAX 64
/// Largest magnitude of an index or range bound.
#define SPEC_INDEX_ABS_MAX 1000000000
/// Memory estimates of a model before it is built (measured with the examples/scale models and
/// nested component families: about 2.3 kB per instance of a one-coordinate component, 4.7 kB
/// per expanded instance of a model with a family of 10 components, and
/// 4-6 GB for 10^8 elements plus expression nodes of spec_expand). Bytes per element or
/// expression node, per expanded model instance (its tables), and per component instance
/// (instance tree and compiled model).
#define SPEC_BYTES_PER_UNIT 48.0
#define SPEC_EXPAND_MODEL_UNITS 128
#define SPEC_BYTES_PER_INSTANCE 2560.0
/// Default limit on the estimated memory of a model (dirac_spec_set_memory_limit): 2 GiB.
#define SPEC_MODEL_MEMORY_DEFAULT 2147483648.0
/// Default limit of spec_expand on the size of the expanded models: elements created plus
/// expression nodes written ("the expanded model is too large" beyond), the default memory
/// limit in units.
#define SPEC_EXPAND_DEFAULT_LIMIT ((long)(SPEC_MODEL_MEMORY_DEFAULT / SPEC_BYTES_PER_UNIT))

/// Where something is in a source file. `file` is the file name as shown in messages (owned by
/// the spec); line and column are 1-based, the column counting characters (a tab counts 1).
typedef struct spec_loc {
    const char *file;
    int line;
    int col;
} spec_loc;

// --- expressions ---------------------------------------------------------------------------

typedef enum spec_expr_kind {
    SPEC_EXPR_NUMBER,   ///< a literal: `number`
    SPEC_EXPR_NAME,     ///< a name, maybe qualified (`rotor.theta`): `name`, `ref`
    SPEC_EXPR_PRIME,    ///< the velocity of a coordinate (`x'`): `name` (without the '), `ref`;
                        ///< op 2 for its acceleration (`x''`, outputs only), else 0
    SPEC_EXPR_UNARY,    ///< `-arg[0]` (op SPEC_OP_NEG; unary plus is dropped by the parser)
    SPEC_EXPR_BINARY,   ///< `arg[0] op arg[1]`
    SPEC_EXPR_CALL,     ///< `func(arg[0])` or `func(arg[0], arg[1])` (argc arguments)
} spec_expr_kind;

/// More kinds, of indexed families (docs/model-language.md): spec_expand replaces them all, so
/// the compile step (which switches over spec_expr_kind) never sees them.
enum spec_expr_index_kind {
    SPEC_EXPR_INDEX = SPEC_EXPR_CALL + 1,   ///< an index (`i` of `sum(i = ...)` or of `x[i = 1..N]`): `sym.name`;
                          ///< `sym.ref` has kind SPEC_SYM_INDEX and `index` the index's slot
    SPEC_EXPR_SUBSCRIPT,  ///< an element of a family, `x[i-1]`, `x[i]'`, `cell[i].q`: `sub.name`
                          ///< is the pattern with empty brackets ("x[]", "a[,]", "cell[].q"),
                          ///< `sub.args` its argc index expressions in order; op holds the
                          ///< primes (0, 1, 2) and, once resolved, the element's kind
                          ///< (SPEC_SUBSCRIPT_OP)
    SPEC_EXPR_RANGE,      ///< `LO..HI` of a sum: `range.binder` (the index's name), `range.lo`
                          ///< and `range.hi` the positions of the bounds' roots in the node array
    SPEC_EXPR_SUM,        ///< `sum(i = LO..HI, BODY)`: arg[0] the RANGE, arg[1] the body; op the
                          ///< index's slot
};

/// A subscript node's op: the number of primes (`x[i]'`: 1, `x[i]''`: 2) and the kind of the
/// element it names (spec_sym_kind, set by the resolve pass).
#define SPEC_SUBSCRIPT_OP(primes, kind) ((uint8_t)((primes) | ((kind) << 2)))
#define SPEC_SUBSCRIPT_PRIMES(op) ((op) & 3)
#define SPEC_SUBSCRIPT_KIND(op) ((op) >> 2)

typedef enum spec_op {
    SPEC_OP_ADD,   // +
    SPEC_OP_SUB,   // -
    SPEC_OP_MUL,   // *
    SPEC_OP_DIV,   // /
    SPEC_OP_POW,   // ^ (right-associative)
    SPEC_OP_NEG,   // unary -
    SPEC_OP_LT,    // <   comparisons: 1 if true, 0 if false (NaN if an operand is NaN)
    SPEC_OP_LE,    // <=
    SPEC_OP_GT,    // >
    SPEC_OP_GE,    // >=
    SPEC_OP_EQ,    // ==
    SPEC_OP_NE,    // !=
} spec_op;

/// The built-in functions (builtin_functions.h lists them with their argument counts).
typedef enum spec_func {
#define SPEC_FUNC_ENUM(id, ...) SPEC_FUNC_##id,
    BUILTIN_MATH_LIST(SPEC_FUNC_ENUM) BUILTIN_PIECEWISE_LIST(SPEC_FUNC_ENUM)
#undef SPEC_FUNC_ENUM
        SPEC_FUNC_COUNT
} spec_func;

/// What a name refers to (filled by the resolve pass; SPEC_SYM_NONE before).
typedef enum spec_sym_kind {
    SPEC_SYM_NONE,
    SPEC_SYM_PARAMETER,
    SPEC_SYM_COORDINATE,
    SPEC_SYM_LET,
    SPEC_SYM_ENTROPY,
    SPEC_SYM_COMPONENT,
    SPEC_SYM_CONSTRAINT,
    SPEC_SYM_TWOFORM,
    SPEC_SYM_OUTPUT,
    SPEC_SYM_TIME,        // the built-in `t`
    SPEC_SYM_PI,          // the built-in `pi`
    SPEC_SYM_QUALIFIED,   // `comp.name`: see spec_ref
    SPEC_SYM_INDEX,       // an index of a sum or of an indexed statement (SPEC_EXPR_INDEX)
    // quantities of the solution that `output` expressions may name like the CSV columns
    SPEC_SYM_MULTIPLIER,  // `mu.C`: index of constraint C
    SPEC_SYM_MOMENTUM,    // `p.X`: ∂L/∂X', index of coordinate X
    SPEC_SYM_TEMPERATURE, // `T.S`: −∂L/∂S, index of entropy variable S
    SPEC_SYM_ENERGY,      // `E`: the generalized energy ⟨∂L/∂v, v⟩ − L
    SPEC_SYM_INTERACTION, // `F.I.X`, `P.I`: interaction I's force on X, its power (by name)
    SPEC_SYM_KIND_COUNT
} spec_sym_kind;

/// The target of a name. Plain names: `kind` and `index` into the model's array of that kind
/// (params, coords, lets, entropies, ...). Qualified names `a.b.c`: kind SPEC_SYM_QUALIFIED,
/// `index` the component `a` of this model, and `member` the kind of `c` inside the innermost
/// component's model (SPEC_SYM_NONE when that component file was not loaded);
/// spec_lookup_qualified finds the model and index.
typedef struct spec_ref {
    uint8_t kind;     // spec_sym_kind
    uint8_t member;   // spec_sym_kind of the final name of a qualified reference
    int32_t index;
} spec_ref;

typedef struct spec_expr_node spec_expr_node;

/// One node; `loc` is the token that made it (the operator of a unary/binary node, the
/// function name of a call, the name of a subscripted name, `sum` of a sum, the index name of
/// a range).
struct spec_expr_node {
    uint8_t kind;   // spec_expr_kind or spec_expr_index_kind
    uint8_t op;     // spec_op (UNARY, BINARY), spec_func (CALL), index slot (SUM); PRIME: 2
                    // for an acceleration; SUBSCRIPT: primes and kind (SPEC_SUBSCRIPT_OP)
    uint8_t argc;   // CALL: number of arguments; SUBSCRIPT: number of indices
    spec_loc loc;
    union {
        double number;                                    // NUMBER
        struct { const char *name; spec_ref ref; } sym;   // NAME, PRIME, INDEX
        spec_expr_node *arg[2];                           // UNARY, BINARY, CALL, SUM
        struct { const char *name; spec_expr_node **args; } sub;   // SUBSCRIPT
        struct { const char *binder; int32_t lo, hi; } range;      // RANGE
    } u;
};

/// An expression: `count` nodes in postorder; the root is nodes[count - 1].
typedef struct spec_expr {
    spec_expr_node *nodes;
    int32_t count;
} spec_expr;

static inline const spec_expr_node *spec_expr_root(const spec_expr *e)
{
    return &e->nodes[e->count - 1];
}

/// Name of a function ("atan2") and its number of arguments (the least number for pwl).
const char *spec_func_name(spec_func func);
int spec_func_arity(spec_func func);
/// Most arguments of a function; -1 for any number (pwl).
int spec_func_max_args(spec_func func);

/// Value of a call node (builtin_functions.c) from the values val[] of the nodes of e (the
/// call's arguments computed); NaN for a LIST link.
double spec_call_value(const spec_expr *e, const spec_expr_node *call, const double *val);
/// Value of operator `op` (spec_op) applied to a (and b); comparisons are 1, 0, or NaN if an
/// operand is NaN.
double spec_op_value(int op, double a, double b);

/// Walks the arguments of a call (see builtin_functions.h): *cursor starts at NULL; returns
/// the next argument, or NULL after the last.
static inline const spec_expr_node *spec_call_next_arg(const spec_expr_node *call,
                                                       const spec_expr_node **cursor,
                                                       bool *started)
{
    if (!*started) {
        *started = true;
        *cursor = call->argc > 1 ? call->u.arg[1] : NULL;
        return call->u.arg[0];
    }
    const spec_expr_node *c = *cursor;
    if (!c)
        return NULL;
    if (c->kind == SPEC_EXPR_CALL && c->op == SPEC_FUNC_LIST) {
        *cursor = c->u.arg[1];
        return c->u.arg[0];
    }
    *cursor = NULL;
    return c;
}
/// The function called `name`, or -1.
int spec_func_lookup(const char *name, size_t len);

// --- statements ----------------------------------------------------------------------------

/// One item of the index list of a statement's name: `x[i = 1..N, 2..M, K]`. In a definition
/// every item is a range (`[K]` means 1..K); in a reference (force, initial, ... and `d(...)`)
/// an item is a range (the statement is repeated over it) or one index expression. Each range
/// gets the next index slot of the statement (named by `binder` or not).
typedef struct spec_index {
    const char *binder;   // `i` of `i = LO..HI`; NULL when the range has no name
    spec_loc loc;         // its first token
    bool range;
    int slot;             // range: its slot (its value is the index `binder`); -1 otherwise
    spec_expr lo;         // range: the lower bound (count 0: 1)
    spec_expr hi;         // range: the upper bound; otherwise the index expression
    spec_loc hi_loc;      // the first token of `hi`
} spec_index;

/// A name used in a statement (not an expression), e.g. the coordinate of `force x: ...`.
/// With an index list (`force x[i = 1..N]`, `d(cell[i].q)`), `name` is the pattern with empty
/// brackets ("x[]", "cell[].q") and `index` holds the items of all its brackets in order.
typedef struct spec_name_ref {
    const char *name;   // as written, maybe qualified
    spec_loc loc;
    spec_ref ref;       // after resolve (not set for patterns)
    spec_index *index;
    int index_count;
} spec_name_ref;

/// `parameter NAME = EXPR`. An override (-p NAME=VALUE) replaces the value.
/// `input NAME = DEFAULT` is a parameter with is_input set: expressions see it as a variable
/// (held constant over a step), the value is its default.
/// Every definition below may be a family `NAME[RANGES]` (index/index_count; 0 for a plain one).
typedef struct spec_param {
    const char *name;
    spec_loc loc;
    spec_expr value;
    bool overridden;
    double override_value;
    bool is_input;   // `input NAME = DEFAULT`: set by the host between steps (docs/fmi.md)
    spec_index *index;
    int index_count;
} spec_param;

/// `coordinate NAME` and `entropy NAME`.
typedef struct spec_var {
    const char *name;
    spec_loc loc;
    spec_index *index;
    int index_count;
} spec_var;

/// `let NAME = EXPR` (a named subexpression; may use only names defined before it).
typedef struct spec_let {
    const char *name;
    spec_loc loc;
    spec_expr value;
    spec_index *index;
    int index_count;
    // filled by resolve
    const spec_expr_node *state_use;   // first use of a coordinate, velocity, entropy or t
                                       // (maybe through another let); NULL if constant
    int velocity_degree;               // 0, 1, or 2 meaning "nonlinear in the velocities"
} spec_let;

/// One `lagrangian EXPR` (all of them add up).
typedef struct spec_term {
    spec_loc loc;
    spec_expr value;
} spec_term;

typedef enum spec_constraint_kind {
    SPEC_CONSTRAINT_HOLONOMIC,      ///< no velocities: φ(q, t) = 0
    SPEC_CONSTRAINT_NONHOLONOMIC,   ///< linear in velocities: ⟨ω(q, t), v⟩ + b(q, t) = 0
} spec_constraint_kind;

/// `constraint NAME: LHS = RHS` (the equation is LHS - RHS = 0; `has_rhs` false: LHS = 0).
typedef struct spec_constraint {
    const char *name;
    spec_loc loc;
    spec_expr lhs, rhs;
    bool has_rhs;
    spec_constraint_kind kind;   // after resolve
    spec_index *index;
    int index_count;
} spec_constraint;

/// `force COORD: EXPR`.
typedef struct spec_force {
    spec_loc loc;
    spec_name_ref coord;
    spec_expr value;
} spec_force;

/// One assignment of `initial x = EXPR, x' = EXPR`.
typedef struct spec_initial {
    spec_name_ref var;   // a coordinate (velocity when `velocity`) or an entropy variable
    bool velocity;
    spec_expr value;
    uint8_t start;       // spec_start: what --project-initial may do with the value
} spec_initial;

/// The word after an initial value: none (free), `fixed` (never moved by the projection of
/// the initial state), `guess` (free, said explicitly).
typedef enum spec_start { SPEC_START_FREE, SPEC_START_FIXED, SPEC_START_GUESS } spec_start;

/// One `simulate KEY = VALUE`: `word` for `method` (a name), else `value`.
typedef struct spec_setting {
    const char *key;
    spec_loc loc;
    const char *word;   // method = NAME; NULL for numeric settings
    spec_loc word_loc;
    spec_expr value;    // count 0 when `word` is set
} spec_setting;

/// `output NAME = EXPR` (an extra CSV column).
typedef struct spec_output {
    const char *name;
    spec_loc loc;
    spec_expr value;
    spec_index *index;
    int index_count;
} spec_output;

/// `NAME = EXPR` inside `component c = MODEL(NAME = EXPR, ...)`.
typedef struct spec_arg {
    const char *name;
    spec_loc loc;
    spec_expr value;
} spec_arg;

typedef struct spec_model spec_model;

/// `component NAME = MODEL(ARGS) [from "FILE"]`.
typedef struct spec_component {
    const char *name;
    spec_loc loc;
    const char *model_name;
    spec_loc model_loc;
    const char *file;          // as written; NULL when absent (then MODEL.dirac)
    spec_loc file_loc;
    spec_arg *args;
    int arg_count;
    const spec_model *model;   // the loaded model; NULL when not loaded
    spec_index *index;
    int index_count;
} spec_component;

/// One term `sign * coefficient * d(A) ^ d(B)` of a two-form.
typedef struct spec_wedge {
    int sign;                 // +1 or -1
    spec_expr coefficient;    // count 0: coefficient 1
    spec_name_ref a, b;       // coordinates, maybe qualified
} spec_wedge;

/// `twoform NAME: TERM + TERM ...`.
typedef struct spec_twoform {
    const char *name;
    spec_loc loc;
    spec_wedge *terms;
    int term_count;
    spec_index *index;
    int index_count;
} spec_twoform;

/// `friction COORD -> S: EXPR`.
typedef struct spec_friction {
    spec_loc loc;
    spec_name_ref coord, entropy;
    spec_expr value;
} spec_friction;

/// `heat S1, S2: EXPR` (conductance between two entropy variables).
typedef struct spec_heat {
    spec_loc loc;
    spec_name_ref a, b;
    spec_expr value;
} spec_heat;

/// `heat_input S: EXPR` (external heat power into S).
typedef struct spec_heat_input {
    spec_loc loc;
    spec_name_ref entropy;
    spec_expr value;
} spec_heat_input;

typedef struct spec_names spec_names;
typedef struct spec_expansion spec_expansion;

/// One model (one file): every statement, by kind, in source order.
struct spec_model {
    const char *name;   // from `model NAME`
    spec_loc loc;       // of NAME
    const char *file;   // file name as shown in messages
    const char *dir;    // directory for `from "FILE"` ("" for the current directory)
    spec_param *params;             int param_count;
    spec_var *coords;               int coord_count;
    spec_let *lets;                 int let_count;
    spec_term *lagrangian;          int lagrangian_count;
    spec_constraint *constraints;   int constraint_count;
    spec_force *forces;             int force_count;
    spec_initial *initials;         int initial_count;
    spec_setting *settings;         int setting_count;
    spec_output *outputs;           int output_count;
    spec_component *components;     int component_count;
    spec_twoform *twoforms;         int twoform_count;
    spec_var *entropies;            int entropy_count;
    spec_friction *frictions;       int friction_count;
    spec_heat *heats;               int heat_count;
    spec_heat_input *heat_inputs;   int heat_input_count;
    bool indexed;                   // uses indexed families, sums or subscripts (spec_expand)
    // internal
    spec_names *names;              // every defined name, in definition order
    int capacity[15];               // allocated lengths of the arrays above
    bool failed;                    // had errors (its qualified names are not checked)
    spec_expansion *expansion;      // made by spec_expand: the families of its original
};

/// A validated parameter override (-p NAME=VALUE); NAME may be qualified (`rotor.J`).
typedef struct spec_override {
    const char *name;
    double value;
} spec_override;

/// The parse result: the root model, every loaded component model, the messages.
typedef struct spec spec;

// --- lifetime ------------------------------------------------------------------------------

/// Reads the file `path` for spec_load_file_with instead of the file system: sets *text and
/// *size (the text stays valid until the load returns) and returns 0, or an errno value.
typedef int (*spec_file_reader)(void *context, const char *path, const char **text,
                                size_t *size);

/// Options of a parse; zero-initialise, or pass NULL for the defaults.
typedef struct spec_options {
    int max_errors;         // messages kept before stopping (0: 20)
    long fail_alloc_after;  // testing: when > 0, allocation number N and all later ones fail
} spec_options;

/// Parses the model in text[0..size) (need not be '\0'-terminated; NUL bytes are an error)
/// and runs the resolve pass; `name` is the file name used in messages and `from "FILE"` is
/// not followed (components stay unloaded; qualified names are checked only up to the
/// component). Always sets *out to a spec holding the result or the messages, except on
/// DIRAC_ERR_NOMEM before one could be made (*out NULL). Returns DIRAC_OK, DIRAC_ERR_PARSE,
/// or DIRAC_ERR_NOMEM.
dirac_status spec_parse_buffer(const char *name, const char *text, size_t size,
                               const spec_options *options, spec **out);

/// Reads, parses and resolves the model file `path`, then loads its components recursively
/// (`from "FILE"` relative to the including file's directory, default MODEL.dirac), with cycle
/// detection and a depth limit of SPEC_COMPONENT_DEPTH_MAX, and checks qualified names and
/// component arguments against the loaded models. Errors in an included file carry its own
/// name and line, followed by `note: included from FILE:LINE`. Returns DIRAC_OK,
/// DIRAC_ERR_PARSE, DIRAC_ERR_IO (a file could not be read; the message names it and says
/// why), or DIRAC_ERR_NOMEM; *out as for spec_parse_buffer.
dirac_status spec_load_file(const char *path, const spec_options *options, spec **out);

/// As spec_load_file, reading every file through `reader` (NULL: the file system), which is
/// called with the path normalised (empty and "." parts removed, "NAME/.." cancelled); files
/// are told apart by that path instead of their realpath.
dirac_status spec_load_file_with(const char *path, const spec_options *options,
                                 spec_file_reader reader, void *context, spec **out);

/// Frees everything; NULL is a no-op.
void spec_destroy(spec *s);

/// Files read by spec_load_file (the model first, then its component files), as opened: paths
/// relative to the working directory, or absolute. 0 for spec_parse_buffer.
int spec_file_count(const spec *s);
const char *spec_file_name(const spec *s, int index);

/// Status of the parse (or of the last failed override).
dirac_status spec_status(const spec *s);

/// All messages, each `FILE:LINE:COL: error: MESSAGE` + source line + caret line (+ notes);
/// "" when there are none. Owned by the spec, valid until the next call on it.
const char *spec_errmsg(const spec *s);

/// Copies the status and the first line of the messages into a caller's error record.
dirac_status spec_fill_error(const spec *s, dirac_error *err);

/// The model of the file that was parsed (NULL if the file had no `model` line).
const spec_model *spec_root(const spec *s);

// --- errors of later passes ----------------------------------------------------------------

/// Reports an error at `loc` (file NULL: no location) in the spec's messages, formatted like
/// the parser's (the compile step uses this for its own errors); the spec keeps the status of
/// its first error. False when no more errors should be reported (error limit reached).
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
bool spec_error(spec *s, dirac_status status, spec_loc loc, const char *format, ...);
/// spec_error with the arguments in a va_list.
#if defined(__GNUC__)
__attribute__((format(printf, 4, 0)))
#endif
bool spec_verror(spec *s, dirac_status status, spec_loc loc, const char *format, va_list args);

/// A note attached to the last error, with the source line when `loc.file` is set.
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void spec_note(spec *s, spec_loc loc, const char *format, ...);

/// Marks the spec out of memory (status DIRAC_ERR_NOMEM unless an error came first).
void spec_out_of_memory(spec *s);

/// The spec's allocation account (src/mem.h): a model compiled from the spec continues its
/// failure injection (mem_counter_inherit).
const struct mem_counter *spec_allocations(const spec *s);

// --- lookup --------------------------------------------------------------------------------

/// What `name` (plain) denotes in `model`: kind and index; false if undefined.
bool spec_lookup(const spec_model *model, const char *name, spec_ref *ref);

/// Follows a qualified name `a.b.c` through loaded components: the model that defines the
/// last part and its kind/index there. False if some part is undefined or not loaded.
bool spec_lookup_qualified(const spec_model *model, const char *name, const spec_model **owner,
                           spec_ref *ref);

/// English name of a symbol kind ("coordinate", "entropy variable", ...).
const char *spec_sym_kind_name(spec_sym_kind kind);
/// The same with its article ("a coordinate", "an entropy variable", "the time").
const char *spec_sym_kind_phrase(spec_sym_kind kind);

// --- parameter overrides -------------------------------------------------------------------

/// Applies `-p NAME=VALUE` ("K=0.5", "rotor.J=2e-3") to a successfully parsed spec. NAME must
/// be a parameter of the root model, or `comp.param` of a loaded component; VALUE a finite
/// number. On failure returns DIRAC_ERR_ARGUMENT with a message (no file location) that names
/// the parameter and suggests close names, retrievable with spec_errmsg; the spec is unchanged.
/// Repeating a name replaces the earlier value.
dirac_status spec_set_parameter_override(spec *s, const char *assignment);

/// Overrides applied so far, in order.
const spec_override *spec_overrides(const spec *s, int *count);

// --- indexed families ----------------------------------------------------------------------

/// Expands the indexed families of a successfully parsed spec (with its components loaded and
/// its overrides applied): evaluates every range bound and index (constant expressions of
/// parameters and constant lets, overrides included), turns `coordinate x[N]` into the
/// coordinates `x[1]`, ..., `x[N]` (the brackets are part of the names; several indices are
/// written `x[1][2]`), repeats indexed statements for each index, replaces `x[i-1]` by the name
/// of that element and `sum(i = A..B, E)` by the chain E(A) + E(A+1) + ... + E(B), and
/// re-checks the result like a parsed file (spec_root then gives the expanded model; components
/// whose models contain families are expanded per instance). Models without families are left
/// as they are. Errors (an index out of range, an empty range, a bound that is not an integer,
/// an override of an element that does not exist, a model larger than the limit) are reported
/// at the offending token. Calling it again does nothing and returns the same status; after it
/// expanded something, parameter overrides are refused. Cost and memory are linear in the size
/// of the expanded model. Returns DIRAC_OK, DIRAC_ERR_PARSE or DIRAC_ERR_NOMEM.
dirac_status spec_expand(spec *s);

/// Sets the limit of spec_expand on the elements plus expression nodes it may create
/// (default SPEC_EXPAND_DEFAULT_LIMIT; <= 0 restores it).
void spec_set_expansion_limit(spec *s, long limit);

/// Sets the limit on the estimated memory (bytes) of the expanded model and its component
/// instances, and spec_expand's limit with it (<= 0 or NaN restores the defaults).
void spec_set_memory_limit(spec *s, double bytes);

#endif

// Internal to the model-language front end (parse_*.c, spec*.c): the spec object, the name
// table, the lexer and the parser state. Users of the syntax tree include spec.h only.
#ifndef DIRAC_SRC_PARSE_H
#define DIRAC_SRC_PARSE_H

#include "diagnostic.h"
#include "spec.h"
#include "mem.h"

// --- the spec object -----------------------------------------------------------------------

struct spec {
    mem_counter mem;
    mem_arena arena;           // nodes, strings, statements' inner arrays
    diag_sink diag;
    dirac_status status;       // first error's status
    diag_source **sources;     // every file read (texts owned)
    int source_count, source_cap;
    spec_model **models;       // every model (root first)
    int model_count, model_cap;
    spec_model *root;
    spec_override *overrides;
    int override_count, override_cap;
    char *override_message;    // message of the last failed override (NULL: none)
    dirac_status override_status;
    long max_expansion;        // spec_expand's limit (elements + nodes)
    double max_model_bytes;    // estimated memory of the expanded model and its instances
    bool expand_done;          // spec_expand was called
    bool expanded;             // ... and replaced the root by its expansion
    bool from_files;           // made by spec_load_file: the sources are the files read
};

/// New empty spec; NULL when out of memory.
spec *spec_create(const spec_options *options);

/// Records a source file (text owned by the spec from now on, even on failure); NULL when out
/// of memory.
diag_source *spec_add_source(spec *s, const char *name, char *text, size_t size);

/// The source whose name pointer is `file` (NULL if none).
diag_source *spec_source_of(const spec *s, const char *file);

/// New empty model of source `src`; NULL when out of memory.
spec_model *spec_add_model(spec *s, const diag_source *src, const char *dir);

/// Appends one zeroed element to the array whose pointer is stored at `items_field` (a `T **`;
/// length `*count`, capacity `*cap`); NULL when out of memory.
void *spec_push(spec *s, void *items_field, int *count, int *cap, size_t size);

/// Model array indices of spec_model.capacity.
enum {
    SPEC_ARRAY_PARAMS, SPEC_ARRAY_COORDS, SPEC_ARRAY_LETS, SPEC_ARRAY_LAGRANGIAN,
    SPEC_ARRAY_CONSTRAINTS, SPEC_ARRAY_FORCES, SPEC_ARRAY_INITIALS, SPEC_ARRAY_SETTINGS,
    SPEC_ARRAY_OUTPUTS, SPEC_ARRAY_COMPONENTS, SPEC_ARRAY_TWOFORMS, SPEC_ARRAY_ENTROPIES,
    SPEC_ARRAY_FRICTIONS, SPEC_ARRAY_HEATS, SPEC_ARRAY_HEAT_INPUTS, SPEC_ARRAY_COUNT
};

/// Appends to model array `which`: `SPEC_MODEL_PUSH(s, m, params, param_count, PARAMS)`.
#define SPEC_MODEL_PUSH(s, m, items, count, which)                                           \
    spec_push((s), &(m)->items, &(m)->count, &(m)->capacity[SPEC_ARRAY_##which],      \
              sizeof *(m)->items)

// --- name table ----------------------------------------------------------------------------

/// One defined name of a model. `seq` orders definitions (a parameter or let may use only
/// names with a smaller seq).
typedef struct spec_symbol {
    const char *name;
    spec_loc loc;
    uint8_t kind;    // spec_sym_kind
    int32_t index;   // into the model's array of that kind
    int32_t seq;
    uint8_t dims;    // a family's number of indices (0: a plain name)
} spec_symbol;

struct spec_names {
    spec_symbol *items;   // in definition order
    int count, cap;
    int32_t *slots;       // open addressing: index + 1, 0 empty
    size_t slot_count;    // power of two
};

spec_names *spec_names_create(mem_counter *mem);
void spec_names_destroy(mem_counter *mem, spec_names *names);
const spec_symbol *spec_names_find(const spec_names *names, const char *name, size_t len);
/// Adds a symbol (the caller checked it is new); false when out of memory.
bool spec_names_add(mem_counter *mem, spec_names *names, const spec_symbol *symbol);

// --- lexer ---------------------------------------------------------------------------------

typedef enum parse_tok {
    TOK_EOF, TOK_NEWLINE, TOK_NAME, TOK_NUMBER, TOK_STRING,
    TOK_PLUS, TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_CARET,
    TOK_LPAREN, TOK_RPAREN, TOK_COMMA, TOK_EQUALS, TOK_COLON, TOK_ARROW,
    TOK_LBRACKET, TOK_RBRACKET,   // [ ]  (RBRACKET: `primes` counts the ' right after it)
    TOK_DOTDOT,                   // ..
    TOK_MEMBER,                   // `.name` or `.a.b` right after ']' (primes after it)
    TOK_LT, TOK_LE, TOK_GT, TOK_GE, TOK_EQEQ, TOK_NE,   // < <= > >= == !=
    TOK_ERROR,   // the lexer has reported an error here
} parse_tok;

typedef struct parse_token {
    parse_tok kind;
    const char *text;   // into the source (STRING: without the quotes)
    size_t len;
    int line, col;
    int primes;         // NAME, RBRACKET, MEMBER: number of ' right after it
    bool qualified;     // NAME: contains '.'
    bool line_start;    // first token of its line
    double number;      // NUMBER
} parse_token;

enum { PARSE_LOOKAHEAD = 4 };

typedef struct parse_lexer {
    spec *s;
    diag_source *src;
    const char *p, *end;
    int line, col;
    int depth;                 // open parentheses and brackets (newlines inside are skipped)
    parse_tok last;            // last token produced
    bool line_has_token;
    bool quiet;                // errors make TOK_ERROR tokens without a message (lex_quiet)
    int last_line_len;         // characters of the previous line (for the end-of-file location)
    parse_token ahead[PARSE_LOOKAHEAD];
    int head, count;           // ring buffer of lexed tokens
} parse_lexer;

void lex_init(parse_lexer *lx, spec *s, diag_source *src);
/// The k-th token ahead (k < PARSE_LOOKAHEAD), without consuming.
const parse_token *lex_peek(parse_lexer *lx, int k);
/// Consumes and returns the next token.
parse_token lex_next(parse_lexer *lx);
/// After an error: forgets open parentheses and skips past the end of the current statement.
void lex_recover(parse_lexer *lx);
/// A statement keyword at the start of a line: where a new statement probably begins.
bool lex_starts_statement(const parse_token *t);
/// Human-readable description of a token for messages ("'('", "end of line", "name 'x'").
void lex_describe(const parse_token *t, char *buf, size_t size);

// --- parser --------------------------------------------------------------------------------

typedef struct parse_opentry parse_opentry;

typedef struct parse_state {
    spec *s;
    spec_model *m;
    diag_source *src;
    parse_lexer lex;
    int32_t seq;                 // definitions so far
    // expression scratch (reused)
    spec_expr_node *nodes;
    int32_t *kids;               // 2 per node: child indices (-1 none)
    int node_count, node_cap, kid_cap;
    int32_t *vals;               // operand stack (node indices)
    int val_count, val_cap;
    parse_opentry *ops;          // operator stack
    int op_count, op_cap;
    // indices in scope, by slot: the statement's ranges, then the enclosing sums (NULL: a
    // range without a name)
    const char *binders[SPEC_BINDERS_MAX];
    int binder_count;
    // patterns of the subscripted names being parsed ("x[]", "cell[].q"), a stack of strings
    char *pattern;
    int pattern_len, pattern_cap;
    int32_t *subkids;            // children of subscript nodes (see emit)
    int subkid_count, subkid_cap;
} parse_state;

/// Flags of parse_expr.
enum {
    PARSE_EXPR_COEFFICIENT = 1,   // two-form coefficient: stop at `* d(` and at + or - outside
                                  // parentheses
};

/// The largest model, component or table file read: a model file this large is almost
/// certainly not a model (the largest example is 5 KB; a 10^5-link chain written out is 10 MB).
#define SPEC_FILE_READ_MAX ((size_t)64 << 20)

/// Reads a whole regular file of at most SPEC_FILE_READ_MAX bytes (spec_load.c) into memory of
/// the spec (its mem_counter, '\0'-terminated; the caller frees it); NULL with an errno code in
/// *error (EINVAL: not a regular file, such as a device or a FIFO; EISDIR; EFBIG: too large).
char *spec_read_file(spec *s, const char *path, size_t *size, int *error);

/// The reason of a spec_read_file failure, for a message.
const char *spec_read_error_text(int error);

/// Reads the points of table(x, "file", column) (spec_table.c): `file` relative to `dir`,
/// the column by header name (column_name) or 1-based number. On success *xs and *ys
/// (mem_counter, the caller frees them) hold *count points; false after reporting an error.
bool spec_table_read(spec *s, const char *dir, const char *file, spec_loc at,
                     const char *column_name, double column_number, spec_loc column_at,
                     double **xs, double **ys, int *count);

/// Parses one expression at the current token; false after reporting an error (or out of
/// memory). The expression ends at the first token that cannot continue it outside
/// parentheses (',', '=', ':', end of line, an unmatched ')', ...).
bool parse_expr(parse_state *p, int flags, spec_expr *out);

/// The location of a token.
spec_loc parse_loc(const parse_state *p, const parse_token *t);

/// Puts an index in scope (name NULL: a range without a name) after checking its name;
/// its slot is p->binder_count - 1 afterwards. False after reporting an error at t.
bool parse_bind(parse_state *p, const parse_token *t, const char *name);

/// Is `name` reserved (t, pi, sum, a function)? Writes the message for "cannot be defined".
bool parse_reserved_name(const char *text, size_t len, char *why, size_t size);

/// Reports an error at token t (no message for TOK_ERROR, already reported); returns false.
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
bool parse_error_at(parse_state *p, const parse_token *t, const char *format, ...);

/// Parses one source into a new model of s (NULL when the file has no model line or memory
/// ran out); errors go to s.
spec_model *parse_model_source(spec *s, diag_source *src, const char *dir);

// --- passes --------------------------------------------------------------------------------

/// Checks the names, dependencies and constraints of one model (its own file only).
void spec_resolve_model(spec *s, spec_model *m);

/// Checks qualified names and component arguments of m against its loaded components.
void spec_resolve_components(spec *s, spec_model *m);

/// Segments of a pattern or qualified name: the next one starting at *p ("cell[,]" of
/// "cell[,].q", "u[1][2]" of "u[1][2]"): its name text/len and number of indices (commas and
/// consecutive brackets alike); *p moves past it and its '.'. False at the end.
bool spec_pattern_segment(const char **p, const char **name, size_t *len, int *dims);

#endif

// Internal to the SPICE import (spice_import.c, spice_read.c, spice_write.c): the netlist as
// read, and the helpers the reader and the writer share.
#ifndef DIRAC_CLI_SPICE_NETLIST_H
#define DIRAC_CLI_SPICE_NETLIST_H

#include <stddef.h>

#define SPICE_SUBCKT_DEPTH_MAX 32
#define SPICE_EXPR_DEPTH_MAX 64
#define SPICE_COUPLED_MAX 32   // inductors in one group joined by K elements

typedef struct text_buf {
    char *s;
    size_t len, cap;
    int failed;
} text_buf;

typedef struct token {
    char *s;   // lower-cased; a {expression} keeps its braces
    int line, col;
} token;

typedef struct card {
    token *t;
    int n, cap;
    int line;   // first physical line
} card;

typedef struct subckt {
    const char *name;
    int first, last;   // cards of the body (exclusive of .subckt and .ends)
    int header;        // the .subckt card
} subckt;

typedef struct element {
    char type;          // r c l k v i
    char *name;         // flattened (x1.r1), lower case
    char *ident;        // as an identifier (x1_r1)
    int a, b;           // nodes (-1 ground)
    double value;       // R, C, L in ohm, F, H; K: coupling
    char *wave;         // V, I: the source's expression in t
    int l1, l2;         // K: the inductors (element indices)
    double ic;          // L: initial current (IC=)
    int card;           // where it came from
    int scope_card;     // X card that instantiated it (-1 at top level)
} element;

typedef struct netlist {
    const char *path;
    char *data;
    char **line;        // physical lines (for messages)
    int n_lines;
    card *cards;
    int n_cards, cap_cards;
    subckt *subs;
    int n_subs, cap_subs;
    char **param_name;
    double *param_value;
    int n_params, cap_params;
    element *el;
    int n_el, cap_el;
    char **node;        // flattened node names
    int n_nodes, cap_nodes;
    double *node_ic;    // per node (NAN: none)
    int *driver;        // per node: the grounded voltage source that sets its voltage, or -1
    int *ic_card;
    double tstep, tstop, tmax;
    int have_tran, tran_card;
    text_buf msg;
    int errors;
    int nomem;
} netlist;

/// Appends formatted text (sets b->failed when out of memory).
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void spice_printf(text_buf *b, const char *format, ...);

/// Records `FILE:LINE:COL: error: MESSAGE` with the line and a caret; returns -1.
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
int spice_report(netlist *nl, int line, int col, const char *format, ...);
/// spice_report at token t; `format` has one %s for `arg`.
int spice_report_at(netlist *nl, const token *t, const char *format, const char *arg);
/// Grows an array to `need` items (doubling); NULL (nl->nomem set) when out of memory.
void *spice_grow(netlist *nl, void *items, int *cap, int need, size_t size);
/// Lower-cased copy of s[0..len); NULL (nl->nomem set) when out of memory.
char *spice_dup(netlist *nl, const char *s, size_t len);
/// The shortest of %.15g, %.16g, %.17g that reads back as v.
const char *spice_number_text(char *buf, size_t size, double v);
/// The value of .param `name` (the last definition); 0 if there is none.
int spice_param_lookup(const netlist *nl, const char *name, size_t len, double *value);

/// Reads the file into cards, the directives, and the elements flattened through their
/// subcircuits (spice_read.c); *top_last is the index of the .end card (or the card count).
/// 0, or -1 after reporting.
int spice_read(netlist *nl, int *top_last);

/// Makes node and element names identifiers; -1 after reporting a collision (spice_write.c).
int spice_make_identifiers(netlist *nl);
/// Writes the model text (spice_write.c).
void spice_write_model(netlist *nl, text_buf *o, const char *model_name, int top_last);

#endif

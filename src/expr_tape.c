// Compilation of a set of expressions into a flat tape, and its evaluation.
//
// The nodes reachable from the outputs, in increasing id order (a topological order), become
// one instruction each, except variables, which are gathered from the inputs into slots by a
// plain loop before the instructions run. Constant operands of + - * / ^ are folded into the instruction as
// immediates (so constants rarely need a slot), x^n for small integers n is evaluated by
// repeated multiplication, and slots are reused once their last reader has run (linear scan
// over the tape), which keeps `work` small and cache-resident.
#include "expr_pool.h"

#include "error.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// largest |n| evaluated as an integer power by repeated multiplication
#define TAPE_POWI_LIMIT 1024.0

typedef enum tape_op {
    OP_CONST,   // w[dst] = c
    OP_VAR,     // w[dst] = in[a] (compiled into the load list, never executed)
    OP_ADD,     // w[a] + w[b]
    OP_ADDC,    // w[a] + c
    OP_SUB,     // w[a] - w[b]
    OP_RSUBC,   // c - w[a]
    OP_MUL,     // w[a] * w[b]
    OP_MULC,    // w[a] * c
    OP_DIV,     // w[a] / w[b]
    OP_DIVC,    // w[a] / c
    OP_RDIVC,   // c / w[a]
    OP_SQR,     // w[a]^2 = w[a] * w[a]
    OP_POWI,    // w[a]^b, b integer, by repeated squaring
    OP_POWC,    // pow(w[a], c)
    OP_POW,     // pow(w[a], w[b])
    OP_LT,      // w[a] < w[b] as 1 or 0 (expr_compare)
    OP_LE,
    OP_EQ,
    OP_NE,
    OP_WHEN,    // expr_when(w[a], w[b])
    OP_NEG,     // -w[a]
#define FUNCTION_OP(id, ...) OP_##id,   // c_call(w[a]) or c_call(w[a], w[b])
    BUILTIN_MATH_LIST(FUNCTION_OP)
#undef FUNCTION_OP
} tape_op;

typedef struct tape_instr {
    int32_t op;        // tape_op
    int32_t dst;       // slot written
    int32_t a, b;      // slots read (b: exponent of OP_POWI)
    double c;          // immediate constant
} tape_instr;

struct expr_tape {
    int length;          // instructions
    int n_loads;         // inputs gathered into slots 0 .. n_loads-1 before the instructions
    int n_slots;         // doubles of work
    int n_nodes;         // DAG nodes computed
    int n_inputs;        // 1 + largest input index read
    int n_outputs;
    tape_instr *code;    // length instructions (inside this allocation)
    int32_t *load_input; // n_loads input indices (inside this allocation)
    int32_t *output_slot;   // n_outputs slots (inside this allocation)
};

void expr_tape_destroy(expr_tape *tape)
{
    free(tape);
}

int expr_tape_length(const expr_tape *tape)
{
    return tape->length;
}

int expr_tape_load_count(const expr_tape *tape)
{
    return tape->n_loads;
}

int expr_tape_work_size(const expr_tape *tape)
{
    return tape->n_slots;
}

int expr_tape_node_count(const expr_tape *tape)
{
    return tape->n_nodes;
}

int expr_tape_input_count(const expr_tape *tape)
{
    return tape->n_inputs;
}

int expr_tape_output_count(const expr_tape *tape)
{
    return tape->n_outputs;
}

// ---------------------------------------------------------------------------------------
// Instruction selection.

static const tape_op function_op[EXPR_KIND_COUNT] = {
#define FUNCTION_OP(id, ...) [EXPR_##id] = OP_##id,
    BUILTIN_MATH_LIST(FUNCTION_OP)
#undef FUNCTION_OP
};

// the instruction computing a non-constant node; in->a / in->b receive child node ids (to be
// mapped to slots) or EXPR_NONE when the operand is an immediate or absent
static void select_instr(const expr_pool *pool, const expr_node *n, tape_instr *in)
{
    const expr_node *na = n->a >= 0 ? &pool->nodes[n->a] : NULL;
    const expr_node *nb = n->b >= 0 ? &pool->nodes[n->b] : NULL;
    int const_a = na && na->kind == EXPR_CONST, const_b = nb && nb->kind == EXPR_CONST;
    in->a = n->a;
    in->b = n->b;
    in->c = 0.0;
    switch ((expr_kind)n->kind) {
    case EXPR_VAR:
        in->op = OP_VAR;
        in->b = EXPR_NONE;   // a holds the input index
        return;
    case EXPR_ADD:
        if (const_a || const_b) {   // c + x
            in->op = OP_ADDC;
            in->c = const_a ? na->value : nb->value;
            in->a = const_a ? n->b : n->a;
            in->b = EXPR_NONE;
            return;
        }
        in->op = OP_ADD;
        return;
    case EXPR_SUB:
        if (const_a) {   // c - x
            in->op = OP_RSUBC;
            in->c = na->value;
            in->a = n->b;
            in->b = EXPR_NONE;
            return;
        }
        if (const_b) {   // x - c = x + (-c)
            in->op = OP_ADDC;
            in->c = -nb->value;
            in->b = EXPR_NONE;
            return;
        }
        in->op = OP_SUB;
        return;
    case EXPR_MUL:
        if (const_a || const_b) {   // c * x
            in->op = OP_MULC;
            in->c = const_a ? na->value : nb->value;
            in->a = const_a ? n->b : n->a;
            in->b = EXPR_NONE;
            return;
        }
        in->op = OP_MUL;
        return;
    case EXPR_DIV:
        if (const_b) {   // x / c
            in->op = OP_DIVC;
            in->c = nb->value;
            in->b = EXPR_NONE;
            return;
        }
        if (const_a) {   // c / x
            in->op = OP_RDIVC;
            in->c = na->value;
            in->a = n->b;
            in->b = EXPR_NONE;
            return;
        }
        in->op = OP_DIV;
        return;
    case EXPR_POW:
        if (const_b) {
            double e = nb->value;
            in->b = EXPR_NONE;
            if (e == 2.0) {
                in->op = OP_SQR;
            } else if (e == floor(e) && fabs(e) <= TAPE_POWI_LIMIT) {
                in->op = OP_POWI;
                in->c = e;
            } else {
                in->op = OP_POWC;
                in->c = e;
            }
            return;
        }
        in->op = OP_POW;
        return;
    case EXPR_LT: in->op = OP_LT; return;
    case EXPR_LE: in->op = OP_LE; return;
    case EXPR_EQ: in->op = OP_EQ; return;
    case EXPR_NE: in->op = OP_NE; return;
    case EXPR_WHEN: in->op = OP_WHEN; return;
    case EXPR_NEG:
        in->op = OP_NEG;
        in->b = EXPR_NONE;
        return;
    default:
        in->op = (int32_t)function_op[n->kind];
        if (expr_kind_arity((expr_kind)n->kind) == 1)
            in->b = EXPR_NONE;
        return;
    }
}

// ---------------------------------------------------------------------------------------
// Compilation.

// the state of one compilation: the nodes in id order, then instructions with virtual
// registers (one per node), then slots
typedef struct tape_build {
    const expr_pool *pool;
    int n_outputs;
    const expr_id *outputs;
    expr_id *list;               // the reachable nodes in id order
    int32_t length;
    expr_idmap position;         // node id -> index in list
    // per node (by position in list): its virtual register (instruction index) or -1, and
    // whether a constant needs a slot; per instruction: last reader, slot
    int32_t *reg;
    tape_instr *code;
    int32_t *last_use;
    int32_t *slot_of;
    int32_t *free_slots;
    unsigned char *const_needed;
    int n_code, n_inputs, n_loads, n_slots, n_instr;
} tape_build;

static int32_t position_of(const tape_build *b, expr_id id)
{
    return *expr_idmap_find(&b->position, id);
}

// which constants must live in a slot (outputs, or operands without an immediate form)
static void mark_needed_constants(tape_build *b)
{
    const expr_pool *pool = b->pool;
    for (int32_t k = 0; k < b->length; k++) {
        const expr_node *n = &pool->nodes[b->list[k]];
        if (n->kind == EXPR_CONST || n->kind == EXPR_VAR)
            continue;
        tape_instr probe;
        select_instr(pool, n, &probe);
        if (probe.a >= 0 && pool->nodes[probe.a].kind == EXPR_CONST)
            b->const_needed[position_of(b, probe.a)] = 1;
        if (probe.b >= 0 && pool->nodes[probe.b].kind == EXPR_CONST)
            b->const_needed[position_of(b, probe.b)] = 1;
    }
    for (int r = 0; r < b->n_outputs; r++)
        if (pool->nodes[b->outputs[r]].kind == EXPR_CONST)
            b->const_needed[position_of(b, b->outputs[r])] = 1;
}

// emits the instructions in id order with virtual registers
static void emit_virtual(tape_build *b)
{
    for (int32_t k = 0; k < b->length; k++) {
        const expr_node *n = &b->pool->nodes[b->list[k]];
        tape_instr *in = &b->code[b->n_code];
        b->reg[k] = -1;
        if (n->kind == EXPR_CONST) {
            if (!b->const_needed[k])
                continue;
            in->op = OP_CONST;
            in->a = in->b = -1;
            in->c = n->value;
        } else {
            select_instr(b->pool, n, in);
            if (n->kind == EXPR_VAR) {
                if (n->a + 1 > b->n_inputs)
                    b->n_inputs = n->a + 1;
            } else {
                in->a = in->a >= 0 ? b->reg[position_of(b, in->a)] : -1;
                in->b = in->op == OP_POWI ? (int32_t)in->c
                        : in->b >= 0      ? b->reg[position_of(b, in->b)]
                                          : -1;
            }
        }
        in->dst = b->n_code;
        b->reg[k] = b->n_code++;
    }
}

// last reader of each virtual register; outputs stay live to the end
static void find_last_uses(tape_build *b)
{
    for (int i = 0; i < b->n_code; i++)
        b->last_use[i] = -1;
    for (int i = 0; i < b->n_code; i++) {
        const tape_instr *in = &b->code[i];
        if (in->op == OP_CONST || in->op == OP_VAR)
            continue;
        if (in->a >= 0)
            b->last_use[in->a] = i;
        if (in->b >= 0 && in->op != OP_POWI)
            b->last_use[in->b] = i;
    }
    for (int r = 0; r < b->n_outputs; r++)
        b->last_use[b->reg[position_of(b, b->outputs[r])]] = INT32_MAX;
}

// Inputs are gathered into slots 0 .. n_loads-1 before the loop (no dispatch per load); then
// linear-scan slot assignment: operands whose last reader this is are released first, so the
// result may overwrite an operand (every op reads before it writes).
static void assign_slots(tape_build *b)
{
    for (int i = 0; i < b->n_code; i++)
        if (b->code[i].op == OP_VAR)
            b->slot_of[i] = b->n_loads++;
    int n_free = 0;
    b->n_slots = b->n_loads;
    for (int i = 0; i < b->n_code; i++) {
        tape_instr *in = &b->code[i];
        if (in->op == OP_VAR)
            continue;
        int32_t va = in->op != OP_CONST ? in->a : -1;
        int32_t vb = in->op != OP_CONST && in->op != OP_POWI ? in->b : -1;
        if (va >= 0) {
            in->a = b->slot_of[va];
            if (b->last_use[va] == i)
                b->free_slots[n_free++] = b->slot_of[va];
        }
        if (vb >= 0) {
            in->b = b->slot_of[vb];
            if (b->last_use[vb] == i && vb != va)
                b->free_slots[n_free++] = b->slot_of[vb];
        }
        b->slot_of[i] = n_free > 0 ? b->free_slots[--n_free] : b->n_slots++;
        in->dst = b->slot_of[i];
        b->n_instr++;
    }
}

// the tape in one allocation: header, code, input indices of the loads, output slots
static expr_tape *pack_tape(const tape_build *b)
{
    size_t code_offset = (sizeof(expr_tape) + 15u) & ~(size_t)15u;
    size_t loads_offset = code_offset + (size_t)b->n_instr * sizeof(tape_instr);
    size_t slots_offset = loads_offset + (size_t)b->n_loads * sizeof(int32_t);
    expr_tape *tape = malloc(slots_offset + ((size_t)b->n_outputs + 1) * sizeof(int32_t));
    if (!tape)
        return NULL;
    tape->length = b->n_instr;
    tape->n_loads = b->n_loads;
    tape->n_slots = b->n_slots;
    tape->n_nodes = b->n_code;
    tape->n_inputs = b->n_inputs;
    tape->n_outputs = b->n_outputs;
    tape->code = (tape_instr *)(void *)((char *)tape + code_offset);
    tape->load_input = (int32_t *)(void *)((char *)tape + loads_offset);
    tape->output_slot = (int32_t *)(void *)((char *)tape + slots_offset);
    for (int i = 0, k = 0, j = 0; i < b->n_code; i++) {
        if (b->code[i].op == OP_VAR)
            tape->load_input[j++] = b->code[i].a;
        else
            tape->code[k++] = b->code[i];
    }
    for (int r = 0; r < b->n_outputs; r++)
        tape->output_slot[r] = b->slot_of[b->reg[position_of(b, b->outputs[r])]];
    return tape;
}

dirac_status expr_tape_compile(const expr_pool *pool, int n_outputs, const expr_id *outputs,
                               expr_tape **out, dirac_error *err)
{
    *out = NULL;
    if (n_outputs < 0 || (n_outputs > 0 && !outputs))
        return error_set(err, DIRAC_ERR_ARGUMENT, "expr_tape_compile: bad output list (%d outputs)",
                         n_outputs);
    tape_build b = { .pool = pool, .n_outputs = n_outputs, .outputs = outputs };
    dirac_status status = expr_collect(pool, n_outputs, outputs, &b.list, &b.length, &b.position,
                                       err);
    if (status != DIRAC_OK)
        return status;
    size_t span = (size_t)b.length + 1;
    b.reg = malloc(span * sizeof *b.reg);
    b.code = malloc(span * sizeof *b.code);
    b.last_use = malloc(span * sizeof *b.last_use);
    b.slot_of = malloc(span * sizeof *b.slot_of);
    b.free_slots = malloc(span * sizeof *b.free_slots);
    b.const_needed = calloc(span, 1);
    if (!b.reg || !b.code || !b.last_use || !b.slot_of || !b.free_slots || !b.const_needed) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory compiling %d nodes",
                           (int)b.length);
    } else {
        mark_needed_constants(&b);
        emit_virtual(&b);
        find_last_uses(&b);
        assign_slots(&b);
        *out = pack_tape(&b);
        if (!*out)
            status = error_set(err, DIRAC_ERR_NOMEM,
                               "out of memory for a tape of %d instructions", b.n_instr);
    }
    free(b.list);
    expr_idmap_free(&b.position);
    free(b.reg);
    free(b.code);
    free(b.last_use);
    free(b.slot_of);
    free(b.free_slots);
    free(b.const_needed);
    return status;
}

// ---------------------------------------------------------------------------------------
// Evaluation.

// x^n by binary powering: x^2 = x*x, x^3 = x*x^2, ...; negative n gives 1/x^|n|
static inline double powi(double x, int32_t n)
{
    uint32_t m = n < 0 ? (uint32_t)(-(int64_t)n) : (uint32_t)n;
    double r = 1.0;
    while (m) {
        if (m & 1u)
            r *= x;
        x *= x;
        m >>= 1;
    }
    return n < 0 ? 1.0 / r : r;
}

void expr_tape_eval(const expr_tape *tape, const double *inputs, double *work, double *outputs)
{
    const tape_instr *code = tape->code;
    double *w = work;
    for (int k = 0, n = tape->n_loads; k < n; k++)
        w[k] = inputs[tape->load_input[k]];
    for (int i = 0, n = tape->length; i < n; i++) {
        const tape_instr *p = &code[i];
        double r;
        switch ((tape_op)p->op) {
        case OP_CONST: r = p->c; break;
        case OP_VAR: r = inputs[p->a]; break;
        case OP_ADD: r = w[p->a] + w[p->b]; break;
        case OP_ADDC: r = w[p->a] + p->c; break;
        case OP_SUB: r = w[p->a] - w[p->b]; break;
        case OP_RSUBC: r = p->c - w[p->a]; break;
        case OP_MUL: r = w[p->a] * w[p->b]; break;
        case OP_MULC: r = w[p->a] * p->c; break;
        case OP_DIV: r = w[p->a] / w[p->b]; break;
        case OP_DIVC: r = w[p->a] / p->c; break;
        case OP_RDIVC: r = p->c / w[p->a]; break;
        case OP_SQR: r = w[p->a] * w[p->a]; break;
        case OP_POWI: r = powi(w[p->a], p->b); break;
        case OP_POWC: r = pow(w[p->a], p->c); break;
        case OP_POW: r = pow(w[p->a], w[p->b]); break;
        case OP_LT: r = expr_compare(EXPR_LT, w[p->a], w[p->b]); break;
        case OP_LE: r = expr_compare(EXPR_LE, w[p->a], w[p->b]); break;
        case OP_EQ: r = expr_compare(EXPR_EQ, w[p->a], w[p->b]); break;
        case OP_NE: r = expr_compare(EXPR_NE, w[p->a], w[p->b]); break;
        case OP_WHEN: r = expr_when(w[p->a], w[p->b]); break;
        case OP_NEG: r = -w[p->a]; break;
#define FUNCTION_EVAL(id, name, arity, c_call, ...) \
    case OP_##id: r = BUILTIN_CALL(arity, c_call, w[p->a], w[p->b]); break;
            BUILTIN_MATH_LIST(FUNCTION_EVAL)
#undef FUNCTION_EVAL
        default: r = NAN; break;
        }
        w[p->dst] = r;
    }
    for (int k = 0; k < tape->n_outputs; k++)
        outputs[k] = w[tape->output_slot[k]];
}

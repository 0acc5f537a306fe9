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

dirac_status expr_tape_compile(const expr_pool *pool, int n_outputs, const expr_id *outputs,
                               expr_tape **out, dirac_error *err)
{
    *out = NULL;
    if (n_outputs < 0 || (n_outputs > 0 && !outputs))
        return error_set(err, DIRAC_ERR_ARGUMENT, "expr_tape_compile: bad output list (%d outputs)",
                         n_outputs);
    expr_id *list = NULL;
    int32_t length = 0;
    expr_idmap position;
    dirac_status status = expr_collect(pool, n_outputs, outputs, &list, &length, &position, err);
    if (status != DIRAC_OK)
        return status;
    size_t span = (size_t)length + 1;

    // per node (by position in list): its virtual register (instruction index) or -1, and
    // whether a constant needs a slot; per instruction: last reader, slot
    int32_t *reg = malloc(span * sizeof *reg);
    tape_instr *code = malloc(span * sizeof *code);
    int32_t *last_use = malloc(span * sizeof *last_use);
    int32_t *slot_of = malloc(span * sizeof *slot_of);
    int32_t *free_slots = malloc(span * sizeof *free_slots);
    unsigned char *const_needed = calloc(span, 1);
    expr_tape *tape = NULL;
    if (!reg || !code || !last_use || !slot_of || !free_slots || !const_needed) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory compiling %d nodes", (int)length);
        goto done;
    }

    // which constants must live in a slot (outputs, or operands without an immediate form)
    for (int32_t k = 0; k < length; k++) {
        const expr_node *n = &pool->nodes[list[k]];
        if (n->kind == EXPR_CONST || n->kind == EXPR_VAR)
            continue;
        tape_instr probe;
        select_instr(pool, n, &probe);
        if (probe.a >= 0 && pool->nodes[probe.a].kind == EXPR_CONST)
            const_needed[*expr_idmap_find(&position, probe.a)] = 1;
        if (probe.b >= 0 && pool->nodes[probe.b].kind == EXPR_CONST)
            const_needed[*expr_idmap_find(&position, probe.b)] = 1;
    }
    for (int r = 0; r < n_outputs; r++)
        if (pool->nodes[outputs[r]].kind == EXPR_CONST)
            const_needed[*expr_idmap_find(&position, outputs[r])] = 1;

    // emit in id order with virtual registers
    int n_code = 0, n_inputs = 0;
    for (int32_t k = 0; k < length; k++) {
        expr_id id = list[k];
        const expr_node *n = &pool->nodes[id];
        tape_instr *in = &code[n_code];
        reg[k] = -1;
        if (n->kind == EXPR_CONST) {
            if (!const_needed[k])
                continue;
            in->op = OP_CONST;
            in->a = in->b = -1;
            in->c = n->value;
        } else {
            select_instr(pool, n, in);
            if (n->kind == EXPR_VAR) {
                if (n->a + 1 > n_inputs)
                    n_inputs = n->a + 1;
            } else {
                in->a = in->a >= 0 ? reg[*expr_idmap_find(&position, in->a)] : -1;
                in->b = in->op == OP_POWI ? (int32_t)in->c
                        : in->b >= 0      ? reg[*expr_idmap_find(&position, in->b)]
                                          : -1;
            }
        }
        in->dst = n_code;
        reg[k] = n_code++;
    }

    // last reader of each virtual register; outputs stay live to the end
    for (int i = 0; i < n_code; i++)
        last_use[i] = -1;
    for (int i = 0; i < n_code; i++) {
        const tape_instr *in = &code[i];
        if (in->op == OP_CONST || in->op == OP_VAR)
            continue;
        if (in->a >= 0)
            last_use[in->a] = i;
        if (in->b >= 0 && in->op != OP_POWI)
            last_use[in->b] = i;
    }
    for (int r = 0; r < n_outputs; r++)
        last_use[reg[*expr_idmap_find(&position, outputs[r])]] = INT32_MAX;

    // inputs are gathered into slots 0 .. n_loads-1 before the loop (no dispatch per load)
    int n_loads = 0;
    for (int i = 0; i < n_code; i++)
        if (code[i].op == OP_VAR)
            slot_of[i] = n_loads++;

    // linear-scan slot assignment: operands whose last reader this is are released first,
    // so the result may overwrite an operand (every op reads before it writes)
    int n_free = 0, n_slots = n_loads, n_instr = 0;
    for (int i = 0; i < n_code; i++) {
        tape_instr *in = &code[i];
        if (in->op == OP_VAR)
            continue;
        int32_t va = in->op != OP_CONST ? in->a : -1;
        int32_t vb = in->op != OP_CONST && in->op != OP_POWI ? in->b : -1;
        if (va >= 0) {
            in->a = slot_of[va];
            if (last_use[va] == i)
                free_slots[n_free++] = slot_of[va];
        }
        if (vb >= 0) {
            in->b = slot_of[vb];
            if (last_use[vb] == i && vb != va)
                free_slots[n_free++] = slot_of[vb];
        }
        slot_of[i] = n_free > 0 ? free_slots[--n_free] : n_slots++;
        in->dst = slot_of[i];
        n_instr++;
    }

    // one allocation: header, code, input indices of the loads, output slots
    size_t code_offset = (sizeof(expr_tape) + 15u) & ~(size_t)15u;
    size_t loads_offset = code_offset + (size_t)n_instr * sizeof(tape_instr);
    size_t slots_offset = loads_offset + (size_t)n_loads * sizeof(int32_t);
    tape = malloc(slots_offset + ((size_t)n_outputs + 1) * sizeof(int32_t));
    if (!tape) {
        status = error_set(err, DIRAC_ERR_NOMEM, "out of memory for a tape of %d instructions",
                           n_instr);
        goto done;
    }
    tape->length = n_instr;
    tape->n_loads = n_loads;
    tape->n_slots = n_slots;
    tape->n_nodes = n_code;
    tape->n_inputs = n_inputs;
    tape->n_outputs = n_outputs;
    tape->code = (tape_instr *)(void *)((char *)tape + code_offset);
    tape->load_input = (int32_t *)(void *)((char *)tape + loads_offset);
    tape->output_slot = (int32_t *)(void *)((char *)tape + slots_offset);
    for (int i = 0, k = 0, j = 0; i < n_code; i++) {
        if (code[i].op == OP_VAR)
            tape->load_input[j++] = code[i].a;
        else
            tape->code[k++] = code[i];
    }
    for (int r = 0; r < n_outputs; r++)
        tape->output_slot[r] = slot_of[reg[*expr_idmap_find(&position, outputs[r])]];
    *out = tape;

done:
    free(list);
    expr_idmap_free(&position);
    free(reg);
    free(code);
    free(last_use);
    free(slot_of);
    free(free_slots);
    free(const_needed);
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

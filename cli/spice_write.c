// The .dirac writer of the SPICE import (docs/circuits.md, "Formulation: node fluxes"): node
// fluxes as coordinates, sources first (waveform lets, forces, constraints), then R, C, L, K,
// the inductors' energies (coupled groups through the inverse inductance matrix), the
// Lagrangian, the initial voltages, the .tran line and the outputs.
#include "spice_netlist.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- writing -----------------------------------------------------------------------------

// the identifier of a SPICE name: characters other than letters, digits and _ become _
static char *identifier(netlist *nl, const char *name)
{
    size_t n = strlen(name);
    char *s = spice_dup(nl, name, n);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            s[i] = '_';
    return s;
}

static void write_source_comment(netlist *nl, text_buf *o, int card_index)
{
    const card *c = &nl->cards[card_index];
    int last = card_index + 1 < nl->n_cards ? nl->cards[card_index + 1].line : nl->n_lines + 1;
    for (int l = c->line; l < last && l <= nl->n_lines; l++) {
        const char *s = nl->line[l - 1];
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0' || *s == '*')
            continue;
        spice_printf(o, "# %s:%d: %s\n", nl->path, l, s);
    }
}

// the voltage of node n: phi_n', or the waveform of the grounded source that drives it
static void node_voltage(netlist *nl, text_buf *o, int n)
{
    if (nl->driver[n] >= 0) {
        const element *v = &nl->el[nl->driver[n]];
        spice_printf(o, v->a == n ? "%s" : "(-%s)", v->wave);
    } else {
        spice_printf(o, "phi_%s'", nl->node[n]);
    }
}

// v(a) - v(b) (velocity 1) or phi_a - phi_b; "0" when both are ground
static void difference(netlist *nl, text_buf *o, int a, int b, int velocity)
{
    if (velocity) {
        if (a >= 0 && b >= 0) {
            spice_printf(o, "(");
            node_voltage(nl, o, a);
            spice_printf(o, " - ");
            node_voltage(nl, o, b);
            spice_printf(o, ")");
        } else if (a >= 0) {
            node_voltage(nl, o, a);
        } else if (b >= 0) {
            spice_printf(o, "(-");
            node_voltage(nl, o, b);
            spice_printf(o, ")");
        } else {
            spice_printf(o, "0");
        }
        return;
    }
    if (a >= 0 && b >= 0)
        spice_printf(o, "(phi_%s - phi_%s)", nl->node[a], nl->node[b]);
    else if (a >= 0)
        spice_printf(o, "phi_%s", nl->node[a]);
    else if (b >= 0)
        spice_printf(o, "(-phi_%s)", nl->node[b]);
    else
        spice_printf(o, "0");
}

// grounded voltage sources whose node has no inductor (which would need its flux) set that
// node's voltage directly: the node needs no coordinate and the source no constraint
static int find_drivers(netlist *nl)
{
    nl->driver = malloc((size_t)(nl->n_nodes + 1) * sizeof *nl->driver);
    if (!nl->driver) {
        nl->nomem = 1;
        return -1;
    }
    for (int n = 0; n < nl->n_nodes; n++)
        nl->driver[n] = -1;
    for (int k = 0; k < nl->n_el; k++) {
        const element *e = &nl->el[k];
        if (e->type != 'v' || (e->a >= 0) == (e->b >= 0))
            continue;
        int n = e->a >= 0 ? e->a : e->b, inductor = 0;
        for (int j = 0; j < nl->n_el; j++)
            inductor |= nl->el[j].type == 'l' && (nl->el[j].a == n || nl->el[j].b == n);
        if (!inductor && nl->driver[n] < 0)
            nl->driver[n] = k;
    }
    return 0;
}

static char *difference_text(netlist *nl, int a, int b, int velocity)
{
    text_buf t = { NULL, 0, 0, 0 };
    difference(nl, &t, a, b, velocity);
    if (t.failed)
        nl->nomem = 1;
    return t.s;
}

// inverse of the n x n matrix m (row-major) by Gauss-Jordan with partial pivoting; -1 if
// singular
static int invert(int n, double *m, double *inv)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            inv[i * n + j] = i == j;
    for (int col = 0; col < n; col++) {
        int piv = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(m[r * n + col]) > fabs(m[piv * n + col]))
                piv = r;
        if (!(fabs(m[piv * n + col]) > 0))
            return -1;
        for (int j = 0; j < n; j++) {
            double t = m[col * n + j];
            m[col * n + j] = m[piv * n + j];
            m[piv * n + j] = t;
            t = inv[col * n + j];
            inv[col * n + j] = inv[piv * n + j];
            inv[piv * n + j] = t;
        }
        double d = m[col * n + col];
        for (int j = 0; j < n; j++) {
            m[col * n + j] /= d;
            inv[col * n + j] /= d;
        }
        for (int r = 0; r < n; r++) {
            if (r == col || m[r * n + col] == 0)
                continue;
            double f = m[r * n + col];
            for (int j = 0; j < n; j++) {
                m[r * n + j] -= f * m[col * n + j];
                inv[r * n + j] -= f * inv[col * n + j];
            }
        }
    }
    return 0;
}

typedef struct writer {
    netlist *nl;
    text_buf *o;
    char **current;     // per element: its current as an expression (NULL: unknown)
    char **energy;      // per element: the name of its energy let (C, L) or NULL
} writer;

// inductors: uncoupled ones alone, coupled groups through the inverse inductance matrix
// Gamma: energy 1/2 lambda^T Gamma lambda, currents Gamma lambda, lambda_k the flux linkage
// of inductor k (node flux difference + its initial flux L i0)
static int write_inductors(writer *w)
{
    netlist *nl = w->nl;
    int *group = malloc((size_t)(nl->n_el + 1) * sizeof *group);
    if (!group) {
        nl->nomem = 1;
        return -1;
    }
    for (int k = 0; k < nl->n_el; k++)
        group[k] = k;
    for (int k = 0; k < nl->n_el; k++) {   // union of the pairs of each K
        if (nl->el[k].type != 'k')
            continue;
        int a = nl->el[k].l1, b = nl->el[k].l2;
        while (group[a] != a)
            a = group[a];
        while (group[b] != b)
            b = group[b];
        if (a != b)
            group[b] = a;
    }
    for (int k = 0; k < nl->n_el; k++) {
        int r = k;
        while (group[r] != r)
            r = group[r];
        group[k] = r;
    }
    int status = 0;
    for (int root = 0; root < nl->n_el && status == 0; root++) {
        if (nl->el[root].type != 'l' || group[root] != root)
            continue;
        int member[SPICE_COUPLED_MAX], n = 0;
        for (int k = 0; k < nl->n_el; k++)
            if (nl->el[k].type == 'l' && group[k] == root) {
                if (n >= SPICE_COUPLED_MAX) {
                    status = spice_report(nl, nl->cards[nl->el[k].card].line, 1, "more than %d "
                                    "inductors coupled together", SPICE_COUPLED_MAX);
                    break;
                }
                member[n++] = k;
            }
        if (status)
            break;
        double lm[SPICE_COUPLED_MAX * SPICE_COUPLED_MAX], gm[SPICE_COUPLED_MAX * SPICE_COUPLED_MAX];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                lm[i * n + j] = i == j ? nl->el[member[i]].value : 0;
        int coupled_card = -1;
        for (int k = 0; k < nl->n_el; k++) {
            const element *e = &nl->el[k];
            if (e->type != 'k' || group[e->l1] != root)
                continue;
            int i = 0, j = 0;
            while (member[i] != e->l1)
                i++;
            while (member[j] != e->l2)
                j++;
            double m = e->value * sqrt(nl->el[e->l1].value * nl->el[e->l2].value);
            lm[i * n + j] += m;
            lm[j * n + i] += m;
            coupled_card = e->card;
        }
        double l0[SPICE_COUPLED_MAX];   // initial flux linkages L i0
        for (int i = 0; i < n; i++) {
            l0[i] = 0;
            for (int j = 0; j < n; j++)
                l0[i] += lm[i * n + j] * nl->el[member[j]].ic;
        }
        double lcopy[SPICE_COUPLED_MAX * SPICE_COUPLED_MAX];
        memcpy(lcopy, lm, sizeof(double) * (size_t)(n * n));
        if (invert(n, lcopy, gm) != 0) {
            status = spice_report(nl, nl->cards[coupled_card >= 0 ? coupled_card
                                                            : nl->el[root].card].line, 1,
                            "the inductance matrix of %s and its coupled inductors is singular",
                            nl->el[root].name);
            break;
        }
        char *lambda[SPICE_COUPLED_MAX];
        char num[32];
        for (int i = 0; i < n; i++) {
            const element *e = &nl->el[member[i]];
            text_buf t = { NULL, 0, 0, 0 };
            difference(nl, &t, e->a, e->b, 0);
            if (l0[i] != 0) {   // (flux + L i0)
                text_buf u = { NULL, 0, 0, 0 };
                spice_printf(&u, "(%s + %s)", t.s, spice_number_text(num, sizeof num, l0[i]));
                free(t.s);
                t = u;
            }
            lambda[i] = t.s;
        }
        for (int i = 0; i < n; i++) {
            const element *e = &nl->el[member[i]];
            text_buf cur = { NULL, 0, 0, 0 };
            if (n == 1) {
                spice_printf(w->o, "let e_%s = %s^2/(2*%s)     # magnetic energy\n", e->ident,
                          lambda[0], e->ident);
                spice_printf(&cur, "%s/%s", lambda[0], e->ident);
            } else {
                spice_printf(w->o, "let e_%s = %s/2*%s^2", e->ident,
                          spice_number_text(num, sizeof num, gm[i * n + i]), lambda[i]);
                for (int j = i + 1; j < n; j++)
                    spice_printf(w->o, " %s %s*%s*%s", gm[i * n + j] < 0 ? "-" : "+",
                              spice_number_text(num, sizeof num, fabs(gm[i * n + j])), lambda[i],
                              lambda[j]);
                spice_printf(w->o, "     # magnetic energy, 1/2 lambda^T inv(L) lambda over the "
                                "coupled group\n");
                spice_printf(&cur, "(");
                for (int j = 0; j < n; j++)
                    spice_printf(&cur, "%s%s*%s", gm[i * n + j] < 0 ? (j ? " - " : "-")
                                                                 : (j ? " + " : ""),
                              spice_number_text(num, sizeof num, fabs(gm[i * n + j])), lambda[j]);
                spice_printf(&cur, ")");
            }
            if (cur.failed)
                nl->nomem = 1;
            w->current[member[i]] = cur.s;
            size_t len = strlen(e->ident) + 3;
            w->energy[member[i]] = malloc(len);
            if (w->energy[member[i]])
                snprintf(w->energy[member[i]], len, "e_%s", e->ident);
        }
        for (int i = 0; i < n; i++)
            free(lambda[i]);
    }
    free(group);
    return status;
}

// i(e) for the capacitors and voltage sources that Kirchhoff's current law at one of their
// nodes gives from currents already known
static void resolve_currents(writer *w)
{
    netlist *nl = w->nl;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int k = 0; k < nl->n_el; k++) {
            element *e = &nl->el[k];
            if (w->current[k] || e->type == 'k')
                continue;
            for (int side = 0; side < 2 && !w->current[k]; side++) {
                int n = side == 0 ? e->a : e->b;
                if (n < 0)
                    continue;
                int known = 1;
                for (int j = 0; j < nl->n_el && known; j++)
                    if (j != k && nl->el[j].type != 'k' && (nl->el[j].a == n || nl->el[j].b == n))
                        known = w->current[j] != NULL;
                if (!known)
                    continue;
                // sum of the currents leaving n through the others; i(e) leaves n at side a
                text_buf t = { NULL, 0, 0, 0 };
                spice_printf(&t, "(");
                int terms = 0;
                for (int j = 0; j < nl->n_el; j++) {
                    if (j == k || nl->el[j].type == 'k')
                        continue;
                    int leaves = nl->el[j].a == n ? 1 : nl->el[j].b == n ? -1 : 0;
                    if (!leaves)
                        continue;
                    // i(e) = -(sum leaving) at side a, +(sum leaving) at side b
                    int sign = side == 0 ? -leaves : leaves;
                    spice_printf(&t, "%s%s", sign > 0 ? (terms ? " + " : "") : (terms ? " - " : "-"),
                              w->current[j]);
                    terms++;
                }
                spice_printf(&t, ")");
                if (t.failed) {
                    nl->nomem = 1;
                    return;
                }
                if (terms == 0) {
                    free(t.s);
                    t.s = malloc(2);
                    if (t.s)
                        strcpy(t.s, "0");
                }
                w->current[k] = t.s;
                changed = 1;
            }
        }
    }
}

void spice_write_model(netlist *nl, text_buf *o, const char *model_name, int top_last)
{
    char num[32];
    spice_printf(o, "# Imported by `dirac import spice` from %s (SPICE netlist); node-flux "
                 "formulation,\n# see docs/circuits.md: coordinate phi_N is the flux of node N, "
                 "its velocity phi_N' the\n# voltage v(N). Outputs: v_N = v(N), i_E = i(E) "
                 "(current from E's first node through E\n# to its second), p_E = power "
                 "absorbed by E; the current of voltage source V is also the\n# "
                 "multiplier column mu.kvl_V (its value over each step).\n", nl->path);
    spice_printf(o, "# %s:1: %s\n", nl->path, nl->line[0]);
    spice_printf(o, "model %s\n\n", model_name);
    for (int i = 0; i < nl->n_cards && i < top_last; i++) {
        const char *d = nl->cards[i].t[0].s;
        if (strcmp(d, ".param") == 0) {
            write_source_comment(nl, o, i);
            const card *c = &nl->cards[i];
            spice_printf(o, "#   ");
            for (int k = 1; k + 2 < c->n; k += 3) {
                double v = 0;
                spice_param_lookup(nl, c->t[k].s, strlen(c->t[k].s), &v);
                spice_printf(o, "%s = %s  ", c->t[k].s, spice_number_text(num, sizeof num, v));
            }
            spice_printf(o, "(folded into the element values below)\n");
        } else if (d[0] == '.' && strcmp(d, ".tran") != 0 && strcmp(d, ".ic") != 0) {
            write_source_comment(nl, o, i);
        }
    }
    if (find_drivers(nl) != 0)
        return;
    spice_printf(o, "\n# node fluxes (ground: node 0; nodes driven by a grounded voltage source "
                 "need none)\ncoordinate ");
    int coordinates = 0;
    for (int k = 0; k < nl->n_nodes; k++)
        if (nl->driver[k] < 0)
            spice_printf(o, "%sphi_%s", coordinates++ ? ", " : "", nl->node[k]);
    spice_printf(o, "\n");

    writer w = { nl, o, calloc((size_t)nl->n_el + 1, sizeof(char *)),
                 calloc((size_t)nl->n_el + 1, sizeof(char *)) };
    if (!w.current || !w.energy) {
        nl->nomem = 1;
        goto done;
    }
    // the sources' waveforms first (lets may only use what is defined before them), each a
    // let w_NAME that the rest of the model uses
    for (int k = 0; k < nl->n_el; k++) {
        element *e = &nl->el[k];
        if (e->type != 'v' && e->type != 'i')
            continue;
        spice_printf(o, "\n");
        write_source_comment(nl, o, e->card);
        spice_printf(o, "let w_%s = %s     # %s\n", e->ident, e->wave,
                  e->type == 'v' ? "volt" : "ampere");
        size_t len = strlen(e->ident) + 3;
        char *name = malloc(len);
        if (!name) {
            nl->nomem = 1;
            goto done;
        }
        snprintf(name, len, "w_%s", e->ident);
        free(e->wave);
        e->wave = name;
        char *dv = difference_text(nl, e->a, e->b, 1);
        if (!dv)
            goto done;
        if (e->type == 'i') {
            if (e->a >= 0 && nl->driver[e->a] < 0)
                spice_printf(o, "force phi_%s: -%s     # current leaving node %s\n",
                          nl->node[e->a], e->wave, nl->node[e->a]);
            if (e->b >= 0 && nl->driver[e->b] < 0)
                spice_printf(o, "force phi_%s: %s\n", nl->node[e->b], e->wave);
            size_t n = strlen(e->wave) + 1;
            w.current[k] = malloc(n);
            if (w.current[k])
                memcpy(w.current[k], e->wave, n);
        } else if ((e->a >= 0 && nl->driver[e->a] == k) || (e->b >= 0 && nl->driver[e->b] == k)) {
            spice_printf(o, "#   sets v(%s) = %s%s (no coordinate, no constraint)\n",
                      nl->node[e->a >= 0 ? e->a : e->b], e->a >= 0 ? "" : "-", e->wave);
        } else {
            // source = v(a) - v(b), so that the multiplier is SPICE's i(V) (docs/circuits.md)
            spice_printf(o, "constraint kvl_%s: %s = %s\n", e->ident, e->wave, dv);
        }
        free(dv);
    }
    // the elements, one parameter per value
    for (int k = 0; k < nl->n_el; k++) {
        element *e = &nl->el[k];
        if (e->type == 'v' || e->type == 'i')
            continue;
        spice_printf(o, "\n");
        write_source_comment(nl, o, e->card);
        char *dv = difference_text(nl, e->a, e->b, 1);
        if (!dv)
            goto done;
        switch (e->type) {
        case 'r':
            spice_printf(o, "parameter %s = %s     # ohm\n", e->ident,
                      spice_number_text(num, sizeof num, e->value));
            if (e->a >= 0 && nl->driver[e->a] < 0)
                spice_printf(o, "force phi_%s: -%s/%s     # current leaving node %s\n",
                          nl->node[e->a], dv, e->ident, nl->node[e->a]);
            if (e->b >= 0 && nl->driver[e->b] < 0)
                spice_printf(o, "force phi_%s: %s/%s\n", nl->node[e->b], dv, e->ident);
            {
                text_buf t = { NULL, 0, 0, 0 };
                spice_printf(&t, "%s/%s", dv, e->ident);
                w.current[k] = t.s;
            }
            break;
        case 'c':
            spice_printf(o, "parameter %s = %s     # farad\n", e->ident,
                      spice_number_text(num, sizeof num, e->value));
            spice_printf(o, "let e_%s = %s/2*%s^2     # electric co-energy\n", e->ident, e->ident, dv);
            {
                size_t len = strlen(e->ident) + 3;
                w.energy[k] = malloc(len);
                if (w.energy[k])
                    snprintf(w.energy[k], len, "e_%s", e->ident);
            }
            break;
        case 'l':
            spice_printf(o, "parameter %s = %s     # henry\n", e->ident,
                      spice_number_text(num, sizeof num, e->value));
            break;
        case 'k':
            spice_printf(o, "#   coupling of %s and %s: M = %s H (in the energy of the group "
                         "below)\n", nl->el[e->l1].ident, nl->el[e->l2].ident,
                      spice_number_text(num, sizeof num, e->value * sqrt(nl->el[e->l1].value *
                                                                   nl->el[e->l2].value)));
            break;
        default:
            break;
        }
        free(dv);
    }
    spice_printf(o, "\n# inductors\n");
    if (write_inductors(&w) != 0)
        goto done;
    resolve_currents(&w);

    spice_printf(o, "\n# L = electric co-energy of the capacitors - magnetic energy of the "
                 "inductors\nlagrangian ");
    int terms = 0;
    for (int k = 0; k < nl->n_el; k++)
        if (w.energy[k]) {
            spice_printf(o, "%s%s", nl->el[k].type == 'c' ? (terms ? " + " : "")
                                                         : (terms ? " - " : "-"),
                      w.energy[k]);
            terms++;
        }
    if (terms == 0)
        spice_printf(o, "0");
    spice_printf(o, "\n");

    // initial node voltages
    int any = 0;
    for (int k = 0; k < nl->n_nodes; k++)
        if (!isnan(nl->node_ic[k]) && nl->driver[k] < 0) {
            spice_printf(o, "%sphi_%s' = %s", any ? ", " : "\ninitial ", nl->node[k],
                      spice_number_text(num, sizeof num, nl->node_ic[k]));
            any = 1;
        }
    if (any)
        spice_printf(o, "     # .ic and IC= (node voltages)\n");
    for (int i = 0; i < top_last; i++)
        if (strcmp(nl->cards[i].t[0].s, ".ic") == 0)
            write_source_comment(nl, o, i);

    if (nl->have_tran) {
        spice_printf(o, "\n");
        write_source_comment(nl, o, nl->tran_card);
        double dt = nl->tmax > 0 && nl->tmax < nl->tstep ? nl->tmax : nl->tstep;
        char a[32];
        spice_printf(o, "simulate method = dgrad, dt = %s, t_end = %s\n",
                  spice_number_text(num, sizeof num, dt), spice_number_text(a, sizeof a, nl->tstop));
    }

    spice_printf(o, "\n# node voltages\noutput ");
    for (int k = 0; k < nl->n_nodes; k++) {
        spice_printf(o, "%sv_%s = ", k ? ", " : "", nl->node[k]);
        node_voltage(nl, o, k);
    }
    spice_printf(o, "\n# branch currents and absorbed powers\n");
    for (int k = 0; k < nl->n_el; k++) {
        element *e = &nl->el[k];
        if (e->type == 'k')
            continue;
        if (!w.current[k]) {
            spice_printf(o, "# i(%s) and its power: not a function of the state (see mu.kvl_%s "
                         "or docs/circuits.md)\n", e->name, e->ident);
            continue;
        }
        char *dv = difference_text(nl, e->a, e->b, 1);
        if (!dv)
            goto done;
        spice_printf(o, "output i_%s = %s, p_%s = %s*%s\n", e->ident, w.current[k], e->ident, dv,
                  w.current[k]);
        free(dv);
    }
    if (top_last < nl->n_cards)
        write_source_comment(nl, o, top_last);   // .end
done:
    if (w.current)
        for (int k = 0; k < nl->n_el; k++)
            free(w.current[k]);
    if (w.energy)
        for (int k = 0; k < nl->n_el; k++)
            free(w.energy[k]);
    free(w.current);
    free(w.energy);
}

// checks that the sanitized names are distinct identifiers
int spice_make_identifiers(netlist *nl)
{
    static const char *const reserved[] = { "t", "pi", "sum", "d", "sin", "cos", "tan", "asin",
                                            "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                                            "exp", "log", "sqrt", "abs", "sign", "step", "min",
                                            "max", "if", "clamp", "pwl", "table" };
    for (int k = 0; k < nl->n_nodes; k++) {
        char *id = identifier(nl, nl->node[k]);
        if (!id)
            return -1;
        free(nl->node[k]);
        nl->node[k] = id;
        for (int j = 0; j < k; j++)
            if (strcmp(nl->node[j], id) == 0)
                return spice_report(nl, 1, 1, "two node names become the same identifier '%s' "
                                        "(characters other than letters, digits and _ become _)",
                              id);
    }
    for (int k = 0; k < nl->n_el; k++) {
        char *id = identifier(nl, nl->el[k].name);
        if (!id)
            return -1;
        for (size_t r = 0; r < sizeof reserved / sizeof reserved[0]; r++)
            if (strcmp(id, reserved[r]) == 0) {
                size_t n = strlen(id);
                char *longer = realloc(id, n + 2);
                if (!longer) {
                    free(id);
                    nl->nomem = 1;
                    return -1;
                }
                id = longer;
                strcpy(id + n, "_");
            }
        nl->el[k].ident = id;
        for (int j = 0; j < k; j++)
            if (strcmp(nl->el[j].ident, id) == 0)
                return spice_report(nl, nl->cards[nl->el[k].card].line, 1, "element '%s' is defined "
                              "twice (or two names become the same identifier '%s')",
                              nl->el[k].name, id);
    }
    return 0;
}

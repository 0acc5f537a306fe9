// libFuzzer harness: loads the input as a model file and its component files, and, when that
// works, tries a parameter override taken from the input's last line, expands indexed
// families (with a small size limit), then compiles the model, analyses it, prints its
// equations and simulates a few steps. The input is a small file system: the text up to the
// first line "%%file NAME" is fuzz.dirac, each such line starts the file NAME; the loader reads
// them through its file reader (spec_load_file_with), so components, `from "FILE"`, paths
// with ".." and cycles are reached. The text of fuzz.dirac alone is also parsed as a buffer.
// Checks the invariants every load must keep: a status, a message exactly when it failed, in
// the documented format, and expression trees in postorder. Build and run with fuzz/run.sh.
#include "spec.h"
#include "spec_api.h"

#include <dirac/dirac.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define VFS_MAX_FILES 16
static const char separator[] = "%%file ";

// the files of one input: names and texts point into the input
typedef struct vfs {
    int count;
    const char *name[VFS_MAX_FILES];
    size_t name_len[VFS_MAX_FILES];
    const char *text[VFS_MAX_FILES];
    size_t size[VFS_MAX_FILES];
} vfs;

static void vfs_split(vfs *v, const char *data, size_t size)
{
    v->count = 1;
    v->name[0] = "fuzz.dirac";
    v->name_len[0] = strlen(v->name[0]);
    v->text[0] = data;
    const char *end = data + size;
    size_t sep = sizeof separator - 1;
    for (const char *line = data; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *line_end = nl ? nl : end;
        if ((size_t)(line_end - line) > sep && !memcmp(line, separator, sep) &&
            v->count < VFS_MAX_FILES) {
            int k = v->count - 1;
            v->size[k] = (size_t)(line - v->text[k]);
            v->name[v->count] = line + sep;
            v->name_len[v->count] = (size_t)(line_end - line) - sep;
            v->text[v->count] = nl ? nl + 1 : end;
            v->count++;
        }
        line = nl ? nl + 1 : end;
    }
    v->size[v->count - 1] = (size_t)(end - v->text[v->count - 1]);
}

static int vfs_read(void *context, const char *path, const char **text, size_t *size)
{
    const vfs *v = context;
    for (int k = v->count - 1; k >= 0; k--)   // a later file of the same name wins
        if (strlen(path) == v->name_len[k] && !memcmp(path, v->name[k], v->name_len[k])) {
            *text = v->text[k];
            *size = v->size[k];
            return 0;
        }
    return ENOENT;
}

// Compile, analyse, print and step: every failure must be a status with a message.
static void compile_and_step(spec *s)
{
    dirac_spec handle = { .parsed = s };
    dirac_model *model = NULL;
    if (dirac_model_compile(&handle, &model) != DIRAC_OK) {
        if (spec_errmsg(s)[0] == '\0')
            abort();
        return;
    }
    dirac_model_analysis analysis;
    dirac_error err;
    if (dirac_model_analyze(model, &analysis, &err) == DIRAC_OK)
        dirac_model_analysis_free(&analysis);
    FILE *sink = fopen("/dev/null", "w");
    if (sink) {
        dirac_model_write_equations(model, DIRAC_EQUATIONS_TEXT, sink, &err);
        dirac_model_write_equations(model, DIRAC_EQUATIONS_LATEX, sink, &err);
        fclose(sink);
    }
    dirac_sim_options options = { .method = "midpoint", .dt = 1e-2, .project_initial = 1 };
    dirac_sim *sim = NULL;
    if (dirac_sim_create(model, &options, &sim, &err) == DIRAC_OK) {
        for (int k = 0; k < 5; k++)
            if (dirac_sim_step(sim) != DIRAC_OK) {
                if (dirac_sim_errmsg(sim)[0] == '\0')
                    abort();
                break;
            }
        dirac_sim_destroy(sim);
    } else if (err.message[0] == '\0') {
        abort();
    }
    dirac_model_destroy(model);
}

static void check_expr(const spec_expr *e)
{
    for (int i = 0; i < e->count; i++) {
        const spec_expr_node *n = &e->nodes[i];
        int kids = n->kind == SPEC_EXPR_UNARY ? 1 : n->kind == SPEC_EXPR_BINARY ? 2
                   : n->kind == SPEC_EXPR_CALL ? n->argc : 0;
        for (int k = 0; k < kids; k++)
            if (!(n->u.arg[k] >= e->nodes && n->u.arg[k] < n))
                abort();
        if (n->loc.line < 1 || n->loc.col < 1)
            abort();
    }
}

static void check_model(const spec_model *m)
{
    for (int i = 0; i < m->param_count; i++)
        check_expr(&m->params[i].value);
    for (int i = 0; i < m->let_count; i++)
        check_expr(&m->lets[i].value);
    for (int i = 0; i < m->lagrangian_count; i++)
        check_expr(&m->lagrangian[i].value);
    for (int i = 0; i < m->constraint_count; i++) {
        check_expr(&m->constraints[i].lhs);
        check_expr(&m->constraints[i].rhs);
    }
}

// A failed load or parse: a known status and "FILE:LINE:COL: error: " or "error: " messages.
static void check_failure(dirac_status st, const char *msg)
{
    if (st != DIRAC_ERR_PARSE && st != DIRAC_ERR_IO && st != DIRAC_ERR_NOMEM)
        abort();
    if (st != DIRAC_ERR_NOMEM && strncmp(msg, "error: ", 7) != 0 && !strstr(msg, ": error: "))
        abort();
}

// The override of the input's last line, expansion, compilation and a few steps.
static void exercise(spec *s, const uint8_t *data, size_t size)
{
    const char *end = (const char *)data + size, *line = end;
    while (line > (const char *)data && line[-1] != '\n')
        line--;
    char buf[128];
    size_t n = (size_t)(end - line) < sizeof buf - 1 ? (size_t)(end - line) : sizeof buf - 1;
    memcpy(buf, line, n);
    buf[n] = '\0';
    if (spec_set_parameter_override(s, buf) != DIRAC_OK &&
        strncmp(spec_errmsg(s), "error: ", 7) != 0)
        abort();
    if (spec_status(s) != DIRAC_OK)
        return;
    // families stay small: the fuzzer looks for bugs, not for large models
    spec_set_expansion_limit(s, 20000);
    dirac_status expanded = spec_expand(s);
    if ((expanded == DIRAC_OK) != (spec_errmsg(s)[0] == '\0'))
        abort();
    if (expanded == DIRAC_OK)
        compile_and_step(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vfs files;
    vfs_split(&files, (const char *)data, size);

    // the main file alone, as a buffer (components not followed)
    spec *s = NULL;
    dirac_status st = spec_parse_buffer("fuzz.dirac", files.text[0], files.size[0], NULL, &s);
    if (s) {
        const char *msg = spec_errmsg(s);
        if (st == DIRAC_OK && (msg[0] != '\0' || !spec_root(s)))
            abort();
        if (st == DIRAC_OK)
            check_model(spec_root(s));
        else
            check_failure(st, msg);
        spec_destroy(s);
    }

    // the whole file system through the loader
    s = NULL;
    st = spec_load_file_with("fuzz.dirac", NULL, vfs_read, &files, &s);
    if (!s)
        return 0;
    const char *msg = spec_errmsg(s);
    if (st == DIRAC_OK) {
        if (msg[0] != '\0' || !spec_root(s) || spec_file_count(s) < 1 ||
            spec_file_count(s) > files.count)
            abort();
        check_model(spec_root(s));
        exercise(s, data, size);
    } else {
        check_failure(st, msg);
    }
    spec_destroy(s);
    return 0;
}

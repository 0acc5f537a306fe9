// Entry points of the front end: parse a buffer, or load a file and its components
// recursively (relative paths, cycle detection, depth limit, "included from" notes).
#define _XOPEN_SOURCE 700   // realpath, O_CLOEXEC
#include "parse.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// the largest buffer parsed (lines and columns must fit an int)
#define SPEC_FILE_MAX ((size_t)1 << 30)


// the directory part of a path ("" for none), in the arena
static const char *dir_of(spec *s, const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return "";
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    const char *d = mem_arena_strndup(&s->arena, path, len);
    if (!d)
        spec_out_of_memory(s);
    return d ? d : "";
}

// dir/file (file alone when absolute or dir is empty), malloc'd through the spec
static char *join_path(spec *s, const char *dir, const char *file)
{
    size_t ld = file[0] == '/' ? 0 : strlen(dir), lf = strlen(file);
    bool slash = ld > 0 && dir[ld - 1] != '/';
    char *p = mem_alloc(&s->mem, ld + slash + lf + 1);
    if (!p) {
        spec_out_of_memory(s);
        return NULL;
    }
    memcpy(p, dir, ld);
    if (slash)
        p[ld] = '/';
    memcpy(p + ld + slash, file, lf + 1);
    return p;
}

// Copies text[0..size) into a '\0'-terminated buffer of the spec; errno-style code in *error.
static char *copy_text(spec *s, const char *text, size_t size, int *error)
{
    if (size > SPEC_FILE_READ_MAX) {
        *error = EFBIG;
        return NULL;
    }
    char *buf = mem_alloc(&s->mem, size + 1);
    if (!buf) {
        *error = ENOMEM;
        return NULL;
    }
    if (size)
        memcpy(buf, text, size);
    buf[size] = '\0';
    return buf;
}

// The file is opened without blocking, so a FIFO with no writer is refused, not waited for.
char *spec_read_file(spec *s, const char *path, size_t *size, int *error)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *error = errno;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *error = errno;
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        *error = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        close(fd);
        return NULL;
    }
    if ((unsigned long long)st.st_size > SPEC_FILE_READ_MAX) {
        *error = EFBIG;
        close(fd);
        return NULL;
    }
    // the size may change while reading: read up to one byte past the limit
    size_t cap = (size_t)st.st_size + 2, len = 0;
    char *buf = mem_alloc(&s->mem, cap);
    if (!buf) {
        close(fd);
        *error = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (cap - len < 2) {
            if (cap > SPEC_FILE_READ_MAX) {
                *error = EFBIG;
                goto fail;
            }
            char *t = mem_realloc(&s->mem, buf, cap * 2);
            if (!t) {
                *error = ENOMEM;
                goto fail;
            }
            buf = t;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            *error = errno;
            goto fail;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    if (len > SPEC_FILE_READ_MAX) {
        mem_free(&s->mem, buf);
        *error = EFBIG;
        return NULL;
    }
    buf[len] = '\0';
    *size = len;
    return buf;
fail:
    close(fd);
    mem_free(&s->mem, buf);
    return NULL;
}

static spec_options default_options(const spec_options *options)
{
    spec_options o;
    memset(&o, 0, sizeof o);
    if (options)
        o = *options;
    return o;
}

dirac_status spec_parse_buffer(const char *name, const char *text, size_t size,
                               const spec_options *options, spec **out)
{
    spec_options o = default_options(options);
    spec *s = spec_create(&o);
    *out = s;
    if (!s)
        return DIRAC_ERR_NOMEM;
    if (!name)
        name = "<input>";
    if (size > SPEC_FILE_MAX) {
        spec_loc none = { NULL, 0, 0 };
        spec_error(s, DIRAC_ERR_PARSE, none, "'%s' is too large (more than %zu bytes)", name,
                   SPEC_FILE_MAX);
        diag_finish(&s->diag);
        return s->status;
    }
    char *copy = mem_alloc(&s->mem, size + 1);
    if (!copy) {
        spec_out_of_memory(s);
        return s->status;
    }
    if (size)
        memcpy(copy, text, size);
    copy[size] = '\0';
    diag_source *src = spec_add_source(s, name, copy, size);
    if (src) {
        s->root = parse_model_source(s, src, dir_of(s, name));
        spec_resolve_model(s, s->root);
    }
    if (s->mem.failed)
        spec_out_of_memory(s);
    diag_finish(&s->diag);
    return s->status;
}

// --- loading files -------------------------------------------------------------------------

typedef struct loader {
    spec *s;
    spec_file_reader reader;   // NULL: the file system
    void *reader_context;
    int depth;
    char *stack_real[SPEC_COMPONENT_DEPTH_MAX + 1];        // files being loaded (identity)
    const char *stack_name[SPEC_COMPONENT_DEPTH_MAX + 1];  // and their names in messages
    char **cache_real;                                     // files loaded so far
    spec_model **cache_model;
    int cache_count, cache_cap, cache_model_cap;
} loader;

// `from`: the component statement's file location (NULL for the root), `line` its line
static spec_model *load_model(loader *L, const char *path, const spec_loc *from, int line);

// loads the components of m, then checks m against them
static void load_components(loader *L, spec_model *m)
{
    spec *s = L->s;
    for (int i = 0; i < m->component_count && !diag_full(&s->diag) && !s->mem.failed; i++) {
        spec_component *c = &m->components[i];
        char *path;
        spec_loc at = c->file ? c->file_loc : c->model_loc;
        if (c->file) {
            path = join_path(s, m->dir, c->file);
        } else {
            size_t n = strlen(c->model_name);
            char *file = mem_alloc(&s->mem, n + 7);
            if (!file) {
                spec_out_of_memory(s);
                return;
            }
            memcpy(file, c->model_name, n);
            memcpy(file + n, ".dirac", 7);
            path = join_path(s, m->dir, file);
            mem_free(&s->mem, file);
        }
        if (!path)
            return;
        const spec_model *child = load_model(L, path, &at, c->loc.line);
        mem_free(&s->mem, path);
        c->model = child && !child->failed ? child : NULL;
        if (!c->model)
            m->failed = true;
    }
    if (!m->failed)
        spec_resolve_components(s, m);
}

static bool cache_add(loader *L, char *real, spec_model *m)
{
    int count = L->cache_count;
    if (!mem_reserve(&L->s->mem, &L->cache_real, &L->cache_cap, count + 1,
                     sizeof *L->cache_real) ||
        !mem_reserve(&L->s->mem, &L->cache_model, &L->cache_model_cap, count + 1,
                     sizeof *L->cache_model)) {
        spec_out_of_memory(L->s);
        return false;
    }
    L->cache_real[count] = real;
    L->cache_model[count] = m;
    L->cache_count++;
    return true;
}

// `path` with empty and "." parts removed and "NAME/.." parts cancelled (malloc'd; NULL when
// out of memory): the identity of a file served by a reader, which has no realpath
static char *normalize_path(const char *path)
{
    size_t n = strlen(path);
    char *out = malloc(n + 2);
    if (!out)
        return NULL;
    size_t len = 0, keep = 0;   // keep: length of the leading part that ".." cannot remove
    if (path[0] == '/')
        out[len++] = '/', keep = 1;
    for (const char *p = path; *p;) {
        const char *end = strchr(p, '/');
        size_t part = end ? (size_t)(end - p) : strlen(p);
        if (part == 2 && p[0] == '.' && p[1] == '.' && len > keep) {
            while (len > keep && out[len - 1] != '/')
                len--;                  // drop the last part ...
            if (len > keep)
                len--;                  // ... and its separator
        } else if (part == 2 && p[0] == '.' && p[1] == '.') {
            if (len > 0 && out[len - 1] != '/')
                out[len++] = '/';
            memcpy(out + len, "..", 2);   // a leading "..": kept
            len += 2;
            keep = len;
        } else if (part > 0 && !(part == 1 && p[0] == '.')) {
            if (len > 0 && out[len - 1] != '/')
                out[len++] = '/';
            memcpy(out + len, p, part);
            len += part;
        }
        p += part + (end != NULL);
    }
    out[len] = '\0';
    return out;
}

// the text of `path` from the reader or the file system; errno-style code in *error
static char *read_model_file(loader *L, const char *path, size_t *size, int *error)
{
    if (!L->reader)
        return spec_read_file(L->s, path, size, error);
    const char *text = NULL;
    size_t n = 0;
    int e = L->reader(L->reader_context, path, &text, &n);
    if (e != 0 || !text) {
        *error = e ? e : EIO;
        return NULL;
    }
    char *copy = copy_text(L->s, text, n, error);
    if (copy)
        *size = n;
    return copy;
}

const char *spec_read_error_text(int error)
{
    if (error == EFBIG)
        return "file too large (more than 64 MB; an input file this large is almost certainly "
               "not one of a model)";
    if (error == EINVAL)
        return "not a regular file";
    return strerror(error);
}

static spec_model *load_model(loader *L, const char *path, const spec_loc *from, int line)
{
    spec *s = L->s;
    spec_loc none = { NULL, 0, 0 };
    spec_loc at = from ? *from : none;
    errno = path ? 0 : EINVAL;   // no path: the message names EINVAL's text
    char *real = !path ? NULL : L->reader ? normalize_path(path) : realpath(path, NULL);
    if (!real && L->reader && path)
        errno = ENOMEM;
    if (!real) {
        int e = errno;
        if (e == ENOMEM) {
            spec_out_of_memory(s);
            return NULL;
        }
        if (from)
            spec_error(s, DIRAC_ERR_IO, at, "cannot read component file '%s': %s", path,
                       strerror(e));
        else
            spec_error(s, DIRAC_ERR_IO, at, "cannot read '%s': %s", path, strerror(e));
        return NULL;
    }
    // a file that includes itself
    for (int i = 0; i < L->depth; i++)
        if (strcmp(L->stack_real[i], real) == 0) {
            char chain[1024];
            size_t len = 0;
            for (int j = i; j < L->depth && len < sizeof chain - 1; j++) {
                int n = snprintf(chain + len, sizeof chain - len, "%s -> ", L->stack_name[j]);
                len = n < 0 ? len : len + (size_t)n;
                if (len >= sizeof chain)
                    len = sizeof chain - 1;
            }
            spec_error(s, DIRAC_ERR_PARSE, at, "component cycle: %s%s", chain, path);
            free(real);
            return NULL;
        }
    for (int i = 0; i < L->cache_count; i++)
        if (strcmp(L->cache_real[i], real) == 0) {
            free(real);
            return L->cache_model[i];
        }
    if (L->depth > SPEC_COMPONENT_DEPTH_MAX) {
        spec_error(s, DIRAC_ERR_PARSE, at, "components nested too deeply (limit %d)",
                   SPEC_COMPONENT_DEPTH_MAX);
        free(real);
        return NULL;
    }
    size_t size = 0;
    int error = 0;
    char *text = read_model_file(L, L->reader ? real : path, &size, &error);
    if (!text) {
        free(real);
        if (error == ENOMEM) {
            spec_out_of_memory(s);
            return NULL;
        }
        const char *why = spec_read_error_text(error);
        if (from)
            spec_error(s, DIRAC_ERR_IO, at, "cannot read component file '%s': %s", path, why);
        else
            spec_error(s, DIRAC_ERR_IO, at, "cannot read '%s': %s", path, why);
        return NULL;
    }
    diag_source *src = spec_add_source(s, path, text, size);
    if (!src) {
        free(real);
        return NULL;
    }
    // errors inside this file get "included from" notes
    if (from)
        diag_push_include(&s->diag, from->file, line);
    spec_model *m = parse_model_source(s, src, dir_of(s, src->name));
    if (m) {
        spec_resolve_model(s, m);
        if (!cache_add(L, real, m)) {
            free(real);
            m = NULL;
        } else if (!m->failed && m->component_count > 0) {
            L->stack_real[L->depth] = real;
            L->stack_name[L->depth] = src->name;
            L->depth++;
            load_components(L, m);
            L->depth--;
        }
    } else {
        free(real);
    }
    if (from)
        diag_pop_include(&s->diag);
    return m;
}

dirac_status spec_load_file(const char *path, const spec_options *options, spec **out)
{
    return spec_load_file_with(path, options, NULL, NULL, out);
}

dirac_status spec_load_file_with(const char *path, const spec_options *options,
                                 spec_file_reader reader, void *context, spec **out)
{
    spec_options o = default_options(options);
    spec *s = spec_create(&o);
    *out = s;
    if (!s)
        return DIRAC_ERR_NOMEM;
    loader L;
    memset(&L, 0, sizeof L);
    L.s = s;
    L.reader = reader;
    L.reader_context = context;
    s->from_files = true;
    s->root = load_model(&L, path, NULL, 0);
    for (int i = 0; i < L.cache_count; i++)
        free(L.cache_real[i]);
    mem_free(&s->mem, L.cache_real);
    mem_free(&s->mem, L.cache_model);
    if (s->mem.failed)
        spec_out_of_memory(s);
    diag_finish(&s->diag);
    return s->status;
}

int spec_file_count(const spec *s)
{
    return s && s->from_files ? s->source_count : 0;
}

const char *spec_file_name(const spec *s, int index)
{
    if (index < 0 || index >= spec_file_count(s))
        return NULL;
    return s->sources[index]->name;
}

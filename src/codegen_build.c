// Compiling, caching and loading generated code (src/codegen.h).
//
// Key: a 128-bit hash of the generated files, the compiler's resolved path, size, inode and
// modification time (its identity and version, read with one stat, no process), and the
// flags. The shared object is DIR/dirac-KEY.so in the cache directory; it is built in a
// fresh private directory (mkdtemp) next to it and renamed into place, which is atomic, so
// two processes compiling the same model at once both succeed and one object survives. The
// object records the hash of its source (dirac_generated_source), checked after loading, so
// a foreign or stale file is compiled again rather than used.
#define _GNU_SOURCE   // mkdtemp, environ
#include "codegen.h"
#include "codegen_stage.h"
#include "text.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

// glibc's dlopen, dlsym and dlclose are thread-safe behind a lock inside ld.so, which
// ThreadSanitizer cannot see (it reported a race between two threads' dlclose of one cached
// object). This lock of our own makes the ordering visible, and guards the list of loaded
// objects below; loads happen only when a model is compiled or destroyed, so it costs nothing
// in a step.
static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;

// The objects this process has loaded, shared by every model whose generated source is the
// same (a parameter sweep compiles one model per run: the source is the same whenever the
// parameters leave the structure alone, since the constants live in a table outside it). A
// model compiled while another model holds its object takes it from here: no compiler lookup,
// no file system, no dlopen. An object is unloaded when its last model is destroyed.
typedef struct loaded_object {
    char key[33];       // the source's hash and what finds the compiler and the cache
    void *handle;
    codegen_fn eval;
    codegen_stage_fn stage[CODEGEN_STAGE_COUNT];   // midpoint's kernels, NULL when not emitted
    int users;          // modules holding it
    struct loaded_object *next;
} loaded_object;

static loaded_object *loaded_objects;   // under loader_lock

// the loaded object of `key` with one more user, or NULL (call with loader_lock held)
static loaded_object *loaded_find(const char *key)
{
    for (loaded_object *o = loaded_objects; o; o = o->next)
        if (!strcmp(o->key, key)) {
            o->users++;
            return o;
        }
    return NULL;
}

static void loaded_release(loaded_object *object)
{
    pthread_mutex_lock(&loader_lock);
    if (--object->users == 0) {
        for (loaded_object **p = &loaded_objects; *p; p = &(*p)->next)
            if (*p == object) {
                *p = object->next;
                break;
            }
        dlclose(object->handle);
        free(object);
    }
    pthread_mutex_unlock(&loader_lock);
}

// -ffp-contract=off: no fused multiply-adds, so each operation rounds as the tape's does
// (vectorisers off: they double the compiler's time on straight-line code for no gain here)
// (the compiler runs with them, and they are part of the cache key)
static const char *const codegen_flags[] = { "-O2", "-fno-tree-vectorize",
                                             "-fno-tree-slp-vectorize", "-fPIC", "-shared",
                                             "-ffp-contract=off", "-fno-math-errno", "-w" };
#define CODEGEN_FLAG_COUNT ((int)(sizeof codegen_flags / sizeof codegen_flags[0]))

struct codegen_module {
    loaded_object *object;
    codegen_fn eval;
    codegen_stage_fn stage[CODEGEN_STAGE_COUNT];
    double *constants;
    int *index;
    int work_size;
};

void codegen_eval(const codegen_module *module, unsigned what, const double *x,
                  double *const *out, double *work)
{
    module->eval(x, module->constants, what, out, work, module->index);
}

codegen_stage_fn codegen_stage(const codegen_module *module, int stage)
{
    return module ? module->stage[stage] : NULL;
}

void codegen_stage_run(const codegen_module *module, int stage, const codegen_stage_args *a,
                       const double *z, double *r, double *J, double *work)
{
    module->stage[stage](a, z, r, J, module->constants, work, module->index);
}

int codegen_work_size(const codegen_module *module)
{
    return module->work_size;
}

void codegen_destroy(codegen_module *module)
{
    if (!module)
        return;
    if (module->object)
        loaded_release(module->object);
    free(module->constants);
    free(module->index);
    free(module);
}

int codegen_enabled_by_environment(void)
{
    const char *v = getenv("DIRAC_CODEGEN");
    return !(v && (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no") ||
                   !strcmp(v, "tape")));
}

// ---- hashing ------------------------------------------------------------------------------

typedef struct hash128 {
    uint64_t a, b;
} hash128;

// two independent 64-bit streams over 8-byte words (a generated source is hashed at every
// model compilation, so a word at a time), mixed at the end by hash_text
static void hash_word(hash128 *h, uint64_t w)
{
    h->a = (h->a ^ w) * 0x100000001b3ull;
    h->a ^= h->a >> 29;
    h->b = (h->b + w) * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    h->b = (h->b << 31) | (h->b >> 33);
}

static void hash_bytes(hash128 *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        hash_word(h, w);
    }
    uint64_t tail = 0;
    memcpy(&tail, p + i, n - i);
    hash_word(h, tail);
    hash_word(h, (uint64_t)n);   // the length: "ab" + "c" differs from "a" + "bc"
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void hash_text(const hash128 *h, char text[33])
{
    snprintf(text, 33, "%016llx%016llx", (unsigned long long)mix64(h->a),
             (unsigned long long)mix64(h->b ^ h->a));
}

// ---- the compiler -------------------------------------------------------------------------

#define MAX_COMPILER_WORDS 16

typedef struct compiler {
    char words[512];                 // $CC split at spaces (words point into it)
    char *argv[MAX_COMPILER_WORDS];
    int argc;
    char path[4096];                 // the resolved executable
    struct stat st;
} compiler;

// finds the compiler: $CC (words separated by spaces), else `cc` on PATH
static int find_compiler(compiler *cc, char *reason, size_t size)
{
    const char *env = getenv("CC");
    const char *spec = env && *env ? env : "cc";
    if (strlen(spec) >= sizeof cc->words) {
        snprintf(reason, size, "CC is too long");
        return 0;
    }
    strcpy(cc->words, spec);
    cc->argc = 0;
    for (char *save = NULL, *w = strtok_r(cc->words, " \t", &save); w;
         w = strtok_r(NULL, " \t", &save)) {
        if (cc->argc == MAX_COMPILER_WORDS - 1) {
            snprintf(reason, size, "CC has too many words");
            return 0;
        }
        cc->argv[cc->argc++] = w;
    }
    if (cc->argc == 0) {
        snprintf(reason, size, "CC is empty");
        return 0;
    }
    const char *name = cc->argv[0];
    if (strchr(name, '/')) {
        if (strlen(name) < sizeof cc->path && stat(name, &cc->st) == 0 &&
            S_ISREG(cc->st.st_mode) && access(name, X_OK) == 0) {
            strcpy(cc->path, name);
            return 1;
        }
        snprintf(reason, size, "no C compiler: '%.200s' is not an executable file", name);
        return 0;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 0 && len + strlen(name) + 2 < sizeof cc->path) {
            memcpy(cc->path, p, len);
            cc->path[len] = '/';
            strcpy(cc->path + len + 1, name);
            if (stat(cc->path, &cc->st) == 0 && S_ISREG(cc->st.st_mode) &&
                access(cc->path, X_OK) == 0)
                return 1;
        }
        p = end ? end + 1 : p + len;
    }
    snprintf(reason, size, "no C compiler: '%.200s' is not on PATH (set CC)", name);
    return 0;
}

// ---- the cache directory ------------------------------------------------------------------

// mkdir -p for the directories of `path` and path itself
static int make_directories(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int ok = mkdir(path, 0700) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok)
            return 0;
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

static int cache_directory(char *dir, size_t size, char *reason, size_t reason_size)
{
    const char *d = getenv("DIRAC_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (d && *d)
        n = snprintf(dir, size, "%s", d);
    else if (xdg && *xdg)
        n = snprintf(dir, size, "%s/dirac", xdg);
    else if (home && *home)
        n = snprintf(dir, size, "%s/.cache/dirac", home);
    else {
        snprintf(reason, reason_size, "no cache directory (set DIRAC_CACHE_DIR or HOME)");
        return 0;
    }
    if (n < 0 || (size_t)n >= size - 64) {
        snprintf(reason, reason_size, "the cache directory's name is too long");
        return 0;
    }
    if (!make_directories(dir)) {
        snprintf(reason, reason_size, "cannot create the cache directory '%.180s': %s", dir,
                 strerror(errno));
        return 0;
    }
    return 1;
}

// ---- building -----------------------------------------------------------------------------

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + 1e-9 * (double)(now.tv_nsec - start->tv_nsec);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return (fclose(f) == 0) & ok;
}

// the first line of the compiler's messages, for the reason
static void first_line(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(out, (int)size, f))
        out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

// runs the compiler on the files into `object`; messages to `log`
static int run_compiler(const compiler *cc, char **sources, int count, const char *object,
                        const char *log, char *reason, size_t size)
{
    const char *const *flags = codegen_flags;
    int n_flags = CODEGEN_FLAG_COUNT;
    char **argv = calloc((size_t)(cc->argc + n_flags + count + 4), sizeof *argv);
    if (!argv) {
        snprintf(reason, size, "out of memory");
        return 0;
    }
    int argc = 0;
    argv[argc++] = (char *)cc->path;
    for (int i = 1; i < cc->argc; i++)
        argv[argc++] = cc->argv[i];
    for (int i = 0; i < n_flags; i++)
        argv[argc++] = (char *)flags[i];
    for (int i = 0; i < count; i++)
        argv[argc++] = sources[i];
    argv[argc++] = (char *)"-o";
    argv[argc++] = (char *)object;
    argv[argc++] = (char *)"-lm";
    argv[argc] = NULL;

    posix_spawn_file_actions_t actions;
    int ok = posix_spawn_file_actions_init(&actions) == 0;
    if (ok) {
        ok = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) == 0 &&
             posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC,
                                              0600) == 0 &&
             posix_spawn_file_actions_adddup2(&actions, 1, 2) == 0;
        pid_t pid;
        int error = ok ? posix_spawn(&pid, cc->path, &actions, NULL, argv, environ) : EINVAL;
        posix_spawn_file_actions_destroy(&actions);
        if (error != 0) {
            snprintf(reason, size, "cannot run the C compiler '%.200s': %s", cc->path,
                     strerror(error));
            ok = 0;
        } else {
            int status = 0;
            pid_t r;
            while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
                ;
            if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                char line[160];
                first_line(log, line, sizeof line);
                snprintf(reason, size, "the C compiler '%.60s' failed (%s %d)%s%.150s", cc->path,
                         r >= 0 && WIFEXITED(status) ? "exit status" : "signal",
                         r >= 0 && WIFEXITED(status) ? WEXITSTATUS(status)
                                                     : (r >= 0 ? WTERMSIG(status) : -1),
                         line[0] ? ": " : "", line);
                ok = 0;
            }
        }
    } else {
        snprintf(reason, size, "cannot run the C compiler: out of memory");
    }
    free(argv);
    return ok;
}

// loads `object`, checks that it holds the code of `source_hash` and makes it the loaded
// object of `key` (or takes the one another thread loaded meanwhile)
static int load(const char *object, const char *source_hash, const char *key,
                codegen_module *module, char *reason, size_t size)
{
    pthread_mutex_lock(&loader_lock);
    void *handle = dlopen(object, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(reason, size, "cannot load the generated code: %.200s", why ? why : "dlopen");
        pthread_mutex_unlock(&loader_lock);
        return 0;
    }
    const char *recorded = dlsym(handle, "dirac_generated_source");
    void *eval = dlsym(handle, "dirac_generated_eval");
    int ours = recorded && eval && strcmp(recorded, source_hash) == 0;
    loaded_object *o = ours ? loaded_find(key) : NULL;
    if (o || !ours) {
        dlclose(handle);   // o holds the same object (ld.so counts its opens)
    } else if ((o = calloc(1, sizeof *o)) != NULL) {
        memcpy(o->key, key, sizeof o->key);
        o->handle = handle;
        // POSIX: dlsym's object pointer converts to the function pointer it names
        memcpy(&o->eval, &eval, sizeof o->eval);
        static const char *const stage_names[CODEGEN_STAGE_COUNT] = {
            "dirac_stage_positions", "dirac_stage_velocities", "dirac_stage_start",
            "dirac_stage_midpoint"
        };
        // all four kernels or none: step_into decides from the positions kernel alone
        int all_stages = 1;
        for (int i = 0; i < CODEGEN_STAGE_COUNT; i++) {
            void *stage = dlsym(handle, stage_names[i]);
            if (stage)
                memcpy(&o->stage[i], &stage, sizeof o->stage[i]);
            else
                all_stages = 0;
        }
        if (!all_stages)
            memset(o->stage, 0, sizeof o->stage);
        o->users = 1;
        o->next = loaded_objects;
        loaded_objects = o;
    } else {
        dlclose(handle);
    }
    pthread_mutex_unlock(&loader_lock);
    if (!ours) {
        snprintf(reason, size, "the cached object '%.200s' holds other code", object);
        return 0;
    }
    if (!o) {
        snprintf(reason, size, "out of memory");
        return 0;
    }
    module->object = o;
    module->eval = o->eval;
    memcpy(module->stage, o->stage, sizeof module->stage);
    return 1;
}

// compiles the files into `object` through a private directory and an atomic rename
static int compile_into_cache(const compiler *cc, const codegen_source *src, const char *dir,
                              const char *object, char *reason, size_t size)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/tmp-XXXXXX", dir);
    if (!mkdtemp(tmp)) {
        snprintf(reason, size, "cannot create a directory in the cache '%.180s': %s", dir,
                 strerror(errno));
        return 0;
    }
    size_t len = strlen(tmp) + 32;
    char **names = calloc((size_t)src->file_count, sizeof *names);
    char *built = malloc(len), *log = malloc(len);
    int ok = names && built && log;
    if (!ok)
        snprintf(reason, size, "out of memory");
    for (int f = 0; ok && f < src->file_count; f++) {
        names[f] = malloc(len);
        ok = names[f] != NULL;
        if (ok) {
            snprintf(names[f], len, "%s/g%d.c", tmp, f);
            ok = write_file(names[f], src->files[f]);
            if (!ok)
                snprintf(reason, size, "cannot write the generated code to '%.180s': %s",
                         names[f], strerror(errno));
        }
    }
    if (ok) {
        snprintf(built, len, "%s/model.so", tmp);
        snprintf(log, len, "%s/compiler.log", tmp);
        ok = run_compiler(cc, names, src->file_count, built, log, reason, size);
    }
    if (ok && rename(built, object) != 0) {
        snprintf(reason, size, "cannot move the compiled code into the cache: %s",
                 strerror(errno));
        ok = 0;
    }
    for (int f = 0; names && f < src->file_count; f++)
        if (names[f]) {
            unlink(names[f]);
            free(names[f]);
        }
    if (built)
        unlink(built);
    if (log)
        unlink(log);
    rmdir(tmp);
    free(names);
    free(built);
    free(log);
    return ok;
}

// One build; returns 1 when the appendix went into the source and compiling or loading it
// failed (what a retry without the appendix can mend: not a missing compiler or cache, nor
// memory).
static int build_once(const expr_pool *pool, int n_groups, const expr_id *const *ids,
                      const int *counts, const char *appendix, codegen_module **out,
                      codegen_report *report)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    *out = NULL;
    memset(report, 0, sizeof *report);
    char *reason = report->reason;
    size_t size = sizeof report->reason;

    codegen_source src;
    dirac_error err;
    if (codegen_emit(pool, n_groups, ids, counts, &src, &err) != DIRAC_OK) {
        snprintf(reason, size, "%.250s", err.message);
        report->seconds = seconds_since(&start);
        return 0;
    }
    // the appendix calls dg_eval for its groups: only when the generated code computes them all
    int appended = 0, compile_failed = 0;
    if (appendix && src.tape_groups == 0) {
        char *last = src.files[src.file_count - 1];
        char *grown = text_concat(last, appendix, NULL);
        if (grown) {
            free(last);
            src.files[src.file_count - 1] = grown;
            appended = 1;
        }
    }
    report->statements = src.statements;
    report->tape_groups = src.tape_groups;
    report->functions = src.functions;
    report->files = src.file_count;

    codegen_module *module = calloc(1, sizeof *module);
    compiler *cc = malloc(sizeof *cc);
    char *dir = malloc(4096), *object = malloc(4200);
    int ok = module && cc && dir && object;
    if (!ok)
        snprintf(reason, size, "out of memory");

    // the hash of the source (recorded in the object), and the key of the loaded object: the
    // source and the environment that finds the compiler and the cache
    char source_hash[33], loaded_key[33], key[33];
    hash128 h = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };
    for (int f = 0; ok && f < src.file_count; f++)
        hash_bytes(&h, src.files[f], strlen(src.files[f]));
    hash_text(&h, source_hash);
    hash128 env = h;
    static const char *const finders[] = { "CC", "PATH", "DIRAC_CACHE_DIR", "XDG_CACHE_HOME",
                                           "HOME" };
    for (size_t i = 0; i < sizeof finders / sizeof finders[0]; i++) {
        const char *value = getenv(finders[i]);
        hash_bytes(&env, value ? value : "", value ? strlen(value) + 1 : 0);   // unset != ""
    }
    hash_text(&env, loaded_key);
    if (ok) {
        pthread_mutex_lock(&loader_lock);
        loaded_object *o = loaded_find(loaded_key);
        pthread_mutex_unlock(&loader_lock);
        if (o) {
            module->object = o;
            module->eval = o->eval;
            memcpy(module->stage, o->stage, sizeof module->stage);
            report->cached = 1;
        }
    }
    int found = ok && module->object;
    ok = ok && (found || (find_compiler(cc, reason, size) &&
                          cache_directory(dir, 4096, reason, size)));

    // the key of the object in the cache directory
    if (ok && !found) {
        for (int i = 0; i < CODEGEN_FLAG_COUNT; i++)   // each with its '\0'
            hash_bytes(&h, codegen_flags[i], strlen(codegen_flags[i]) + 1);
        hash_bytes(&h, cc->path, strlen(cc->path));
        for (int i = 1; i < cc->argc; i++)
            hash_bytes(&h, cc->argv[i], strlen(cc->argv[i]));
        int64_t identity[5] = { (int64_t)cc->st.st_size, (int64_t)cc->st.st_ino,
                                (int64_t)cc->st.st_dev, (int64_t)cc->st.st_mtim.tv_sec,
                                (int64_t)cc->st.st_mtim.tv_nsec };
        hash_bytes(&h, identity, sizeof identity);
        hash_text(&h, key);
        snprintf(object, 4200, "%s/dirac-%s.so", dir, key);
        // the hash of the source, recorded in the object (outside the hashed text)
        char line[160];
        snprintf(line, sizeof line,
                 "__attribute__((visibility(\"default\"))) const char dirac_generated_source[] "
                 "= \"%s\";\n", source_hash);
        char *last = src.files[src.file_count - 1];
        char *grown = realloc(last, strlen(last) + strlen(line) + 1);
        if (!grown) {
            snprintf(reason, size, "out of memory");
            ok = 0;
        } else {
            strcat(grown, line);
            src.files[src.file_count - 1] = grown;
        }
    }
    if (ok && !found) {
        char ignored[256];
        if (access(object, R_OK) == 0 &&
            load(object, source_hash, loaded_key, module, ignored, sizeof ignored))
            report->cached = 1;
        else {
            ok = compile_into_cache(cc, &src, dir, object, reason, size) &&
                 load(object, source_hash, loaded_key, module, reason, size);
            compile_failed = !ok;
        }
    }
    if (ok) {
        module->constants = src.constants;
        src.constants = NULL;
        module->index = src.index;
        src.index = NULL;
        module->work_size = src.work_size;
        report->compiled = 1;
        *out = module;
        module = NULL;
    }
    codegen_destroy(module);
    codegen_source_free(&src);
    free(cc);
    free(dir);
    free(object);
    report->seconds = seconds_since(&start);
    return appended && compile_failed;
}

void codegen_build(const expr_pool *pool, int n_groups, const expr_id *const *ids,
                   const int *counts, const char *appendix, codegen_module **out,
                   codegen_report *report)
{
    if (!build_once(pool, n_groups, ids, counts, appendix, out, report) || *out)
        return;
    // a broken appendix (an emission bug, a compiler quirk) must not cost the model its compiled
    // evaluation: when its source did not compile or load, retry once without it, and say why
    // the kernels are missing
    codegen_report first = *report;
    build_once(pool, n_groups, ids, counts, NULL, out, report);
    report->seconds += first.seconds;
    if (*out)
        snprintf(report->reason, sizeof report->reason, "stage kernels left out: %.200s",
                 first.reason);
}

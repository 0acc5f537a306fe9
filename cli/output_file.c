// Output files written whole or not at all (see output_file.h).
#define _XOPEN_SOURCE 700   // realpath, mkstemp, fchmod
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

char *output_canonical_path(const char *path)
{
    char *real = realpath(path, NULL);
    if (real)
        return real;
    // not there yet: the directory's realpath joined with the last part
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir;
    if (!slash)
        dir = realpath(".", NULL);
    else if (slash == path)
        dir = realpath("/", NULL);
    else {
        char *d = copy_string(path);
        if (!d)
            return NULL;
        d[slash - path] = '\0';
        dir = realpath(d, NULL);
        free(d);
    }
    if (!dir)
        return NULL;
    size_t ld = strlen(dir), lb = strlen(base);
    char *out = malloc(ld + lb + 2);
    if (out) {
        memcpy(out, dir, ld);
        size_t at = ld;
        if (at == 0 || out[at - 1] != '/')
            out[at++] = '/';
        memcpy(out + at, base, lb + 1);
    }
    free(dir);
    return out;
}

int output_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// the permissions a new file gets from fopen (0666 less the umask), or an existing file's
static mode_t new_file_mode(const char *final_path)
{
    struct stat st;
    if (stat(final_path, &st) == 0)
        return st.st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

static void release(output_file *f)
{
    free(f->final_path);
    free(f->temp_path);
    f->final_path = f->temp_path = NULL;
    f->file = NULL;
}

int output_open(output_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    if (!strcmp(path, "-")) {
        f->file = stdout;
        f->is_stdout = 1;
        return 0;
    }
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return EISDIR;
    if (exists && !S_ISREG(st.st_mode)) {
        // a device or a FIFO: written in place
        f->final_path = copy_string(path);
        if (!f->final_path)
            return ENOMEM;
        f->file = fopen(path, "w");
        if (!f->file) {
            int e = errno ? errno : EIO;
            release(f);
            return e;
        }
        return 0;
    }
    // a symbolic link to an existing file: that file is replaced, not the link
    f->final_path = exists ? realpath(path, NULL) : copy_string(path);
    if (!f->final_path)
        return errno ? errno : ENOMEM;
    const char *slash = strrchr(f->final_path, '/');
    size_t dir_len = slash ? (size_t)(slash - f->final_path) + 1 : 0;
    const char *base = f->final_path + dir_len;
    f->temp_path = malloc(dir_len + strlen(base) + 9);
    if (!f->temp_path) {
        output_discard(f);
        return ENOMEM;
    }
    memcpy(f->temp_path, f->final_path, dir_len);
    sprintf(f->temp_path + dir_len, ".%s.XXXXXX", base);
    int fd = mkstemp(f->temp_path);
    if (fd < 0) {
        int e = errno;
        free(f->temp_path);
        f->temp_path = NULL;
        output_discard(f);
        return e;
    }
    if (fchmod(fd, new_file_mode(f->final_path)) != 0 || !(f->file = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        output_discard(f);
        return e ? e : EIO;
    }
    return 0;
}

const char *output_write_path(const output_file *f)
{
    return f->temp_path ? f->temp_path : f->final_path;
}

int output_commit(output_file *f, int write_error)
{
    int error = write_error;
    if (f->file) {
        if (ferror(f->file) && !error)
            error = EIO;
        if (f->is_stdout) {
            if (fflush(f->file) == EOF && !error)
                error = errno ? errno : EIO;
        } else if (fclose(f->file) == EOF && !error) {
            error = errno ? errno : EIO;
        }
        f->file = NULL;
    }
    if (f->temp_path) {
        if (!error && rename(f->temp_path, f->final_path) != 0)
            error = errno ? errno : EIO;
        if (error)
            unlink(f->temp_path);
    }
    release(f);
    return error;
}

void output_discard(output_file *f)
{
    if (f->file && !f->is_stdout)
        fclose(f->file);
    else if (f->file)
        fflush(f->file);
    if (f->temp_path)
        unlink(f->temp_path);
    release(f);
}

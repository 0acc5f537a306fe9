// Options of the C API in library messages → the tool's flags (library_message.h).
#include "library_message.h"

#include <string.h>

// Longer names first where one is a prefix of another.
static const char *const names[][2] = {
    { "options.project_initial", "--project-initial" },
    { "options.adaptive_rtol", "--rtol" },
    { "options.adaptive_atol", "--atol" },
    { "options.newton_rtol", "--tol" },
    { "options.newton_max_iterations", "--max-iter" },
    { "options.method", "--method" },
    { "options.dt", "--dt" },
    { "options.t0", "t0" },
};

const char *cli_library_message(const char *message, char *out, size_t size)
{
    if (size == 0)
        return out;
    size_t used = 0;
    const char *p = message ? message : "";
    while (*p && used + 1 < size) {
        size_t k = 0, count = sizeof names / sizeof names[0];
        while (k < count && strncmp(p, names[k][0], strlen(names[k][0])) != 0)
            k++;
        const char *piece = k < count ? names[k][1] : p;
        size_t length = k < count ? strlen(piece) : 1;
        if (used + length >= size)
            length = size - 1 - used;
        memmove(out + used, piece, length);
        used += length;
        p += k < count ? strlen(names[k][0]) : 1;
    }
    out[used] = '\0';
    return out;
}

void cli_library_message_in_place(char *message)
{
    // every flag is shorter than its option name, so writing never overtakes reading
    cli_library_message(message, message, strlen(message) + 1);
}

// Status strings and the helper that fills a caller's error record.
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const status_strings[DIRAC_STATUS_COUNT] = {
#define DIRAC_STATUS_TEXT(code, text) [code] = text,
    DIRAC_STATUS_LIST(DIRAC_STATUS_TEXT)
#undef DIRAC_STATUS_TEXT
};

const char *dirac_status_string(dirac_status status)
{
    if ((int)status < 0 || status >= DIRAC_STATUS_COUNT)
        return "unknown status";
    return status_strings[status];
}

const char *dirac_version(void)
{
    return DIRAC_VERSION_STRING;
}

dirac_status error_set(dirac_error *err, dirac_status status, const char *format, ...)
{
    if (err) {
        va_list args;
        va_start(args, format);
        err->status = status;
        vsnprintf(err->message, sizeof err->message, format, args);
        va_end(args);
    }
    return status;
}

dirac_status error_null(dirac_error *err, const char *function, const char *what)
{
    return error_set(err, DIRAC_ERR_ARGUMENT, "%s: %s is NULL", function, what);
}

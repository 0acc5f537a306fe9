// The exit statuses of the dirac tool: the one table docs/cli.md ("Exit status") documents.
#ifndef DIRAC_CLI_EXIT_STATUS_H
#define DIRAC_CLI_EXIT_STATUS_H

#include <dirac/status.h>

enum {
    EXIT_OK = 0,              ///< success (also `check` of a model whose equations are too long to print)
    EXIT_BAD_INPUT = 2,       ///< bad arguments, model, input file, or an output that cannot be created
    EXIT_FAILED = 3,          ///< a computation failed, a write failed, or a --max-steps/--max-wall limit stopped the run
    EXIT_OUT_OF_MEMORY = 4,   ///< out of memory, wherever it happened
    EXIT_SIGNAL_BASE = 128    ///< + signal number: stopped by SIGHUP (129), SIGINT (130), SIGPIPE (141), SIGTERM (143)
};

/// The exit status of a library failure found before any computation (loading, overriding,
/// compiling): out of memory, or bad input.
static inline int cli_exit_of_input_status(dirac_status status)
{
    return status == DIRAC_ERR_NOMEM ? EXIT_OUT_OF_MEMORY : EXIT_BAD_INPUT;
}

#endif

// The library's messages name the options of its C API (`options.dt`, ...); the tool's users
// know its flags. cli_library_message rewrites the one into the other where the tool prints or
// stores a library message.
#ifndef DIRAC_CLI_LIBRARY_MESSAGE_H
#define DIRAC_CLI_LIBRARY_MESSAGE_H

#include <stddef.h>

/// Copies `message` into out (size bytes, always terminated) with each option of
/// dirac_sim_options replaced by the flag that sets it (options.dt → --dt); returns out.
const char *cli_library_message(const char *message, char *out, size_t size);

/// The same in place (the result is never longer than the message).
void cli_library_message_in_place(char *message);

#endif

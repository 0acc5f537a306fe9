// The commands of the dirac tool; each takes the arguments after the program name
// (argv[0] is the command) and returns the process exit status (0 ok, 2 bad input, 3 failed).
#ifndef DIRAC_CLI_COMMANDS_H
#define DIRAC_CLI_COMMANDS_H

typedef struct cli_command {
    const char *name;
    const char *summary;   // one line for `dirac help`
    int (*run)(int argc, char **argv);
} cli_command;

int cli_help(int argc, char **argv);
int cli_demo(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_simulate(int argc, char **argv);
int cli_methods(int argc, char **argv);
int cli_plot(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_import(int argc, char **argv);

#endif

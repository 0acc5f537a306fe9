// The commands of the dirac tool; each takes the arguments after the program name
// (argv[0] is the command) and returns the process exit status (exit_status.h).
#ifndef DIRAC_CLI_COMMANDS_H
#define DIRAC_CLI_COMMANDS_H

typedef struct cli_command {
    const char *name;
    const char *summary;   // one line for `dirac help`
    int (*run)(int argc, char **argv);
    int uses_blas;         // 1: reserve the BLAS work buffer first (blas_setup.h)
} cli_command;

int cli_help(int argc, char **argv);
int cli_demo(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_simulate(int argc, char **argv);
int cli_methods(int argc, char **argv);
int cli_plot(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_equilibrium(int argc, char **argv);
int cli_linearize(int argc, char **argv);
int cli_modes(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_import(int argc, char **argv);

#endif

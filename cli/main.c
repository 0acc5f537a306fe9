// The dirac command-line tool: dispatches to one function per command.
#include "commands.h"

#include <dirac/dirac.h>

#include <stdio.h>
#include <string.h>

static const cli_command commands[] = {
    { "check", "parse and compile a model; report sizes, constraints, degeneracy, equations",
      cli_check },
    { "demo", "build and check Dirac structures of paper 000's examples (DC motor, two masses)",
      cli_demo },
    { "simulate", "run a model with an integrator; write a CSV trajectory and a JSON summary",
      cli_simulate },
    { "import", "translate a SPICE netlist into a .dirac model (dirac import spice FILE.cir)",
      cli_import },
    { "methods", "list the integrators: name, order, what each preserves", cli_methods },
    { "plot", "draw CSV trajectories with gnuplot (PNG or SVG): columns, phase, x-y, errors",
      cli_plot },
    { "export", "export a model: `dirac export fmu MODEL -o MODEL.fmu` (FMI 2.0 co-simulation)",
      cli_export },
    { "help", "list the commands", cli_help },
};

int cli_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("dirac %s — Lagrange–Dirac systems and structure-preserving integrators\n\n"
           "usage: dirac COMMAND [ARGS]...\n       dirac --version\n\ncommands:\n",
           dirac_version());
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        printf("  %-10s %s\n", commands[i].name, commands[i].summary);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_help(0, NULL);
        return 2;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("dirac %s\n", dirac_version());
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return cli_help(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "dirac: error: unknown command '%s' (try 'dirac help')\n", argv[1]);
    return 2;
}

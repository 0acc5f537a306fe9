// The dirac command-line tool: dispatches to one function per command.
#include "blas_setup.h"
#include "commands.h"
#include "exit_status.h"

#include <dirac/dirac.h>

#include <stdio.h>
#include <string.h>

static const cli_command commands[] = {
    { "check", "parse and compile a model; report sizes, constraints, degeneracy, equations",
      cli_check, 1 },
    { "demo", "build and check Dirac structures of paper 000's examples (DC motor, two masses)",
      cli_demo, 1 },
    { "simulate", "run a model with an integrator; write a CSV trajectory and a JSON summary",
      cli_simulate, 1 },
    { "sweep", "run a model over a grid or samples of parameters (threads; MPI: dirac-mpi)",
      cli_sweep, 1 },
    { "import", "translate a SPICE netlist into a .dirac model (dirac import spice FILE.cir)",
      cli_import, 0 },
    { "methods", "list the integrators: name, order, what each preserves", cli_methods, 0 },
    { "plot", "draw CSV trajectories with gnuplot (PNG or SVG): columns, phase, x-y, errors",
      cli_plot, 0 },
    { "equilibrium", "solve for a static equilibrium consistent with the constraints",
      cli_equilibrium, 1 },
    { "linearize", "linearised descriptor system (E, A, B, C, D) and reduced M, K, as JSON",
      cli_linearize, 1 },
    { "modes", "undamped natural frequencies and mode shapes about the equilibrium", cli_modes,
      1 },
    { "export", "export a model: `dirac export fmu MODEL -o MODEL.fmu` (FMI 2.0 co-simulation)",
      cli_export, 1 },
    { "help", "list the commands", cli_help, 0 },
};

int cli_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("dirac %s — Lagrange–Dirac systems and structure-preserving integrators\n\n"
           "usage: dirac COMMAND [ARGS]...\n       dirac --version\n\ncommands:\n",
           dirac_version());
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        printf("  %-12s %s\n", commands[i].name, commands[i].summary);
    return 0;
}

int main(int argc, char **argv)
{
    cli_blas_single_thread(argv);
    if (argc < 2) {
        cli_help(0, NULL);
        return EXIT_BAD_INPUT;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("dirac %s\n", dirac_version());
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return cli_help(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = commands[i].uses_blas ? cli_blas_reserve() : 0;
            return rc ? rc : commands[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "dirac: error: unknown command '%s' (try 'dirac help')\n", argv[1]);
    return EXIT_BAD_INPUT;
}

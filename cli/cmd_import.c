// `dirac import spice NETLIST [-o MODEL.dirac]`: writes the .dirac model of a SPICE netlist
// (docs/circuits.md) to MODEL.dirac or standard output.
#include "commands.h"
#include "spice_import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: dirac import spice NETLIST [-o MODEL.dirac]\n");
    return 2;
}

int cli_import(int argc, char **argv)
{
    const char *input = NULL, *output = NULL;
    if (argc < 2 || strcmp(argv[1], "spice") != 0) {
        if (argc >= 2)
            fprintf(stderr, "dirac import: unknown format '%s' (supported: spice)\n", argv[1]);
        return usage();
    }
    for (int k = 2; k < argc; k++) {
        if (strcmp(argv[k], "-o") == 0 || strcmp(argv[k], "--out") == 0) {
            if (++k >= argc)
                return usage();
            output = argv[k];
        } else if (argv[k][0] == '-' && argv[k][1] != '\0') {
            fprintf(stderr, "dirac import: unknown option '%s'\n", argv[k]);
            return usage();
        } else if (!input) {
            input = argv[k];
        } else {
            return usage();
        }
    }
    if (!input)
        return usage();
    char *text = NULL, *message = NULL;
    if (spice_import(input, &text, &message) != 0) {
        fputs(message ? message : "dirac import: out of memory\n", stderr);
        free(message);
        return 2;
    }
    FILE *f = output && strcmp(output, "-") != 0 ? fopen(output, "w") : stdout;
    if (!f) {
        fprintf(stderr, "dirac import: cannot write '%s'\n", output);
        free(text);
        return 2;
    }
    int ok = fputs(text, f) >= 0;
    if (f != stdout)
        ok = fclose(f) == 0 && ok;
    free(text);
    if (!ok) {
        fprintf(stderr, "dirac import: error writing '%s'\n", output ? output : "stdout");
        return 3;
    }
    return 0;
}

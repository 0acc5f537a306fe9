// `dirac methods`: the integrators of the library (dirac_method table): name, order, what each
// preserves, and a one-line summary. docs/methods.md has their step equations.
#include "commands.h"

#include <dirac/dirac.h>

#include <stdio.h>
#include <string.h>

int cli_methods(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: dirac methods\n");
            return 0;
        }
        fprintf(stderr, "dirac methods: error: unexpected argument '%s'\n", argv[i]);
        return 2;
    }
    int count = dirac_method_count(), width = (int)strlen("method");
    for (int i = 0; i < count; i++) {
        int len = (int)strlen(dirac_method(i)->name);
        if (len > width)
            width = len;
    }
    printf("%-*s  order  preserves\n", width, "method");
    printf("%-*s      -  the default: picks per model class and records the choice in the "
           "summary\n", width, "auto");
    printf("%-*s         dgrad for entropy variables or a degenerate Lagrangian (d2L/dv2 "
           "singular), midpoint otherwise\n", width, "");
    for (int i = 0; i < count; i++) {
        const dirac_method_info *info = dirac_method(i);
        printf("%-*s  %5d  %s\n", width, info->name, info->order,
               info->preserves ? info->preserves : "");
        if (info->summary && *info->summary)
            printf("%-*s         %s\n", width, "", info->summary);
    }
    printf("\nchoose one with 'dirac simulate MODEL --method NAME' or 'simulate method = NAME' "
           "in the model\n");
    return 0;
}

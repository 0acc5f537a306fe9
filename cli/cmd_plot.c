// `dirac plot FILE.csv [FILE2.csv ...] -o OUT.png|OUT.svg [--x COL] [--y COL[,COL...]]
//             [--phase NAME] [--xy X,Y] [--errors[=energy|constraints]] [--logy] [--title T]
//             [--label L]... [--xlabel T] [--ylabel T] [--xrange MIN:MAX] [--yrange MIN:MAX]
//             [--size WxH]`
//
// Draws CSV trajectories written by `dirac simulate` with gnuplot (plot.c does the work).
// Exit status: 0 success; 2 bad arguments, a missing file or column, no gnuplot; 3 gnuplot
// failed. docs/figures.md is the user's reference.
#include "commands.h"
#include "plot.h"
#include "exit_status.h"
#include "option_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char usage[] =
    "usage: dirac plot FILE.csv [FILE2.csv ...] -o OUT.png|OUT.svg [--x COL] [--y COL[,COL...]]\n"
    "                  [--phase NAME] [--xy X,Y] [--errors[=energy|constraints]] [--logy]\n"
    "                  [--title T] [--label L]... [--xlabel T] [--ylabel T]\n"
    "                  [--xrange MIN:MAX] [--yrange MIN:MAX] [--size WxH]\n";

static int bad_input(const char *fmt, const char *a)
{
    fputs("dirac plot: error: ", stderr);
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return EXIT_BAD_INPUT;
}

static int out_of_memory(void)
{
    fputs("dirac plot: error: out of memory\n", stderr);
    return EXIT_OUT_OF_MEMORY;
}

// "WxH" with both from 100 to 10000
static int parse_size(const char *text, int *width, int *height)
{
    char *end;
    errno = 0;
    long w = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X'))
        return -1;
    const char *h_text = end + 1;
    long h = strtol(h_text, &end, 10);
    if (end == h_text || *end || errno == ERANGE || w < 100 || h < 100 || w > 10000 ||
        h > 10000)
        return -1;
    *width = (int)w;
    *height = (int)h;
    return 0;
}

// the shortcut options given so far, for the "cannot be combined" message
typedef struct shortcut_state {
    const char *mode;   // "--phase", "--xy", "--errors" or NULL
    const char *x_option, *y_option;
} shortcut_state;

static int set_mode(shortcut_state *st, const char *mode)
{
    if (st->mode && strcmp(st->mode, mode))
        return bad_input("%s cannot be combined with another of --phase, --xy, --errors",
                         mode);
    if (st->mode)
        return bad_input("%s given twice", mode);
    st->mode = mode;
    return 0;
}

static int parse_args(int argc, char **argv, cli_plot_request *r, const char **files,
                      const char **labels, char **xy_copy)
{
    shortcut_state st = { NULL, NULL, NULL };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        int rc = 0;
        if (!strcmp(arg, "--errors") || !strncmp(arg, "--errors=", 9)) {
            if ((rc = set_mode(&st, "--errors")))
                return rc;
            r->kind = CLI_PLOT_ERRORS;
            const char *what = arg[8] == '=' ? arg + 9 : NULL;
            if (!what)
                r->errors = CLI_PLOT_ERRORS_ENERGY | CLI_PLOT_ERRORS_CONSTRAINTS;
            else if (!strcmp(what, "energy"))
                r->errors = CLI_PLOT_ERRORS_ENERGY;
            else if (!strcmp(what, "constraints"))
                r->errors = CLI_PLOT_ERRORS_CONSTRAINTS;
            else
                return bad_input("--errors=%s: expected --errors, --errors=energy or "
                                 "--errors=constraints", what);
        } else if (cli_take_option(argc, argv, &i, "--phase", &value)) {
            if (!value || !*value)
                return bad_input("--phase needs a coordinate name%s", "");
            if ((rc = set_mode(&st, "--phase")))
                return rc;
            r->kind = CLI_PLOT_PHASE;
            r->x = value;
        } else if (cli_take_option(argc, argv, &i, "--xy", &value)) {
            const char *comma = value ? strchr(value, ',') : NULL;
            if (!comma || comma == value || !comma[1] || strchr(comma + 1, ','))
                return bad_input("--xy needs two column names X,Y, got '%s'",
                                 value ? value : "");
            if ((rc = set_mode(&st, "--xy")))
                return rc;
            r->kind = CLI_PLOT_XY;
            free(*xy_copy);
            *xy_copy = malloc(strlen(value) + 1);
            if (!*xy_copy)
                return out_of_memory();
            strcpy(*xy_copy, value);
            (*xy_copy)[comma - value] = '\0';
            r->x = *xy_copy;
            r->y = *xy_copy + (comma - value) + 1;
        } else if (cli_take_option(argc, argv, &i, "--x", &value)) {
            if (!value || !*value)
                return bad_input("--x needs a column name%s", "");
            st.x_option = value;
            r->x = value;
        } else if (cli_take_option(argc, argv, &i, "--y", &value)) {
            if (!value || !*value)
                return bad_input("--y needs column names COL[,COL...]%s", "");
            st.y_option = value;
            r->y = value;
        } else if (!strcmp(arg, "--logy")) {
            r->logy = 1;
        } else if (cli_take_option(argc, argv, &i, "--title", &value)) {
            if (!value)
                return bad_input("--title needs a text%s", "");
            r->title = value;
        } else if (cli_take_option(argc, argv, &i, "--label", &value)) {
            if (!value)
                return bad_input("--label needs a text%s", "");
            labels[r->label_count++] = value;
        } else if (cli_take_option(argc, argv, &i, "--xlabel", &value)) {
            if (!value)
                return bad_input("--xlabel needs a text%s", "");
            r->xlabel = value;
        } else if (cli_take_option(argc, argv, &i, "--ylabel", &value)) {
            if (!value)
                return bad_input("--ylabel needs a text%s", "");
            r->ylabel = value;
        } else if (cli_take_option(argc, argv, &i, "--xrange", &value)) {
            if (!value)
                return bad_input("--xrange needs MIN:MAX%s", "");
            r->xrange = value;
        } else if (cli_take_option(argc, argv, &i, "--yrange", &value)) {
            if (!value)
                return bad_input("--yrange needs MIN:MAX%s", "");
            r->yrange = value;
        } else if (cli_take_option(argc, argv, &i, "--size", &value)) {
            if (!value || parse_size(value, &r->width, &r->height))
                return bad_input("--size needs WIDTHxHEIGHT in pixels (100 to 10000), got '%s'",
                                 value ? value : "");
        } else if (cli_take_option(argc, argv, &i, "--out", &value) ||
                   cli_take_option(argc, argv, &i, "-o", &value)) {
            if (!value || !*value)
                return bad_input("%s needs a file name ending in .png or .svg", arg);
            r->out = value;
        } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            fputs(usage, stdout);
            return -1;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return bad_input("unknown option '%s' (see 'dirac plot --help')", arg);
        } else {
            files[r->file_count++] = arg;
        }
    }
    if (st.mode && (st.x_option || st.y_option))
        return bad_input("--x and --y cannot be combined with %s", st.mode);
    if (r->file_count == 0) {
        fputs(usage, stderr);
        return EXIT_BAD_INPUT;
    }
    if (!r->out)
        return bad_input("no output file: give -o FILE.png or -o FILE.svg%s", "");
    if (r->label_count) {
        r->labels = labels;
        if (r->label_count != r->file_count) {
            fprintf(stderr, "dirac plot: error: %d --label options for %d files (give one per "
                            "file, or none)\n", r->label_count, r->file_count);
            return EXIT_BAD_INPUT;
        }
    }
    return 0;
}

int cli_plot(int argc, char **argv)
{
    cli_plot_request r;
    cli_plot_default_request(&r);
    const char **files = malloc((size_t)argc * sizeof *files);
    const char **labels = malloc((size_t)argc * sizeof *labels);
    char *xy_copy = NULL;
    int rc;
    if (!files || !labels) {
        rc = out_of_memory();
    } else {
        r.files = files;
        rc = parse_args(argc, argv, &r, files, labels, &xy_copy);
        if (rc < 0)
            rc = 0;   // --help
        else if (rc == 0)
            rc = cli_plot_draw(&r);
    }
    free(files);
    free(labels);
    free(xy_copy);
    return rc;
}

// Figures of dirac CSV trajectories, drawn by gnuplot (Debian package gnuplot-nox).
//
// The CSV files are read here only to find the columns and check that there is something to
// draw; gnuplot reads the data itself. The gnuplot script goes to a temporary file and gnuplot
// is started without a shell; every file name and text in the script is a single-quoted gnuplot
// string (no macro or backquote substitution), relative paths get a "./" prefix (so that
// gnuplot's '<command' and '|command' file names cannot be formed), and control characters
// are refused in paths and replaced by spaces in texts. docs/figures.md (`dirac plot`)
// is the user's reference.
#ifndef DIRAC_CLI_PLOT_H
#define DIRAC_CLI_PLOT_H

/// What a figure shows.
typedef enum cli_plot_kind {
    CLI_PLOT_COLUMNS,   ///< columns `y` against column `x` (default: the coordinates against t)
    CLI_PLOT_PHASE,     ///< coordinate `x` against its velocity column `x'` (`--phase NAME`)
    CLI_PLOT_XY,        ///< column `y` against column `x` with equal axes (`--xy X,Y`)
    CLI_PLOT_ERRORS     ///< |E - E(0)| and |residual*| columns against t, log scale (`--errors`)
} cli_plot_kind;

/// Parts of an errors figure (`--errors[=energy|constraints]`).
enum { CLI_PLOT_ERRORS_ENERGY = 1, CLI_PLOT_ERRORS_CONSTRAINTS = 2 };

/// A figure request; fill it with cli_plot_default_request() and set what differs.
typedef struct cli_plot_request {
    const char *const *files;   ///< the CSV files (file_count >= 1); overlaid in this order
    int file_count;
    const char *const *labels;  ///< legend text per file (NULL: file names without ".csv")
    int label_count;            ///< 0 or file_count
    cli_plot_kind kind;
    const char *x;              ///< COLUMNS: the x column (NULL: t); PHASE, XY: the x column
    const char *y;              ///< COLUMNS: comma-separated y columns (NULL: the coordinates);
                                ///< XY: the y column
    int errors;                 ///< ERRORS: CLI_PLOT_ERRORS_* mask
    int logy;                   ///< logarithmic y axis (always for ERRORS)
    const char *title;          ///< NULL: no title
    const char *xlabel, *ylabel;   ///< NULL: from the column names (with units where known)
    const char *xrange, *yrange;   ///< "MIN:MAX" (either may be empty: automatic); NULL: automatic
    int width, height;          ///< pixels (default 800 x 500)
    const char *out;            ///< the figure: FILE.png or FILE.svg
    const char *who;            ///< message prefix, e.g. "dirac plot"
} cli_plot_request;

/// Sets `r` to the defaults: one file, coordinates against t, 800 x 500, who = "dirac plot".
void cli_plot_default_request(cli_plot_request *r);

/// Checks what can be checked before any data exists: the output name ends in .png or .svg,
/// has no control characters, and gnuplot is installed. Prints "WHO: error: ..." and returns 2,
/// or returns 0.
int cli_plot_check_output(const char *out_path, const char *who);

/// Draws the figure. Returns 0 on success; 2 for bad input (a missing or unreadable CSV file,
/// an unknown column, nothing to draw, an output that cannot be created, no gnuplot), with a
/// message "WHO: error: ..." on standard error; 3 if gnuplot failed (its messages follow).
int cli_plot_draw(const cli_plot_request *r);

/// The default figure of a `dirac simulate` run: the coordinates of `csv_path` against time,
/// written to `out_path` (.png or .svg) with the given title (may be NULL). Messages start with
/// "dirac simulate:". Returns as cli_plot_draw().
int cli_plot_default(const char *csv_path, const char *out_path, const char *title);

#endif

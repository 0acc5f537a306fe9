"""The cffi description of libdirac's API used by the Python package (API mode: compiled
against the installed headers, so struct layouts are checked by the C compiler), and where
libdirac is found at build time:

1. ``DIRAC_PREFIX``: an installation prefix (``cmake --install build --prefix P``);
2. ``pkg-config dirac`` (set ``PKG_CONFIG_PATH`` to ``P/lib/pkgconfig`` for a private prefix);
3. the source tree around this directory: ``../include`` and the shared library in ``../build``
   (``DIRAC_BUILD_DIR`` names another build directory).
"""
import glob
import os
import subprocess
import sys
from collections import namedtuple

from cffi import FFI

Library = namedtuple("Library", "include_dir lib_dir path soname origin")

HERE = os.path.dirname(os.path.abspath(__file__))


def _soname(path):
    """DT_SONAME of a shared library (libdirac.so.MAJOR.MINOR), from objdump or the file name."""
    try:
        out = subprocess.run(["objdump", "-p", path], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            fields = line.split()
            if len(fields) == 2 and fields[0] == "SONAME":
                return fields[1]
    except (OSError, subprocess.CalledProcessError):
        pass
    # without objdump: the shortest versioned name in the directory that is the same file
    same = [name for name in glob.glob(os.path.join(os.path.dirname(path), "libdirac.so.*"))
            if os.path.realpath(name) == path]
    return os.path.basename(min(same, key=len)) if same else os.path.basename(path)


def _library_in(include_dir, lib_dirs, origin):
    if not os.path.isfile(os.path.join(include_dir, "dirac", "dirac.h")):
        return None
    for lib_dir in lib_dirs:
        so = os.path.join(lib_dir, "libdirac.so")
        if os.path.exists(so):
            path = os.path.realpath(so)
            return Library(include_dir, lib_dir, path, _soname(path), origin)
    return None


def _prefix_lib_dirs(prefix):
    dirs = [os.path.join(prefix, "lib"), os.path.join(prefix, "lib64")]
    dirs += sorted(glob.glob(os.path.join(prefix, "lib", "*-linux-gnu")))
    return dirs


def locate():
    prefix = os.environ.get("DIRAC_PREFIX")
    if prefix:
        found = _library_in(os.path.join(prefix, "include"), _prefix_lib_dirs(prefix),
                            "DIRAC_PREFIX=" + prefix)
        if not found:
            sys.exit("dirac: DIRAC_PREFIX=%s has no include/dirac/dirac.h and lib/libdirac.so "
                     "(install it with: cmake --install build --prefix %s)" % (prefix, prefix))
        return found
    try:
        def variable(name):
            return subprocess.run(["pkg-config", "--variable=" + name, "dirac"],
                                  capture_output=True, text=True, check=True).stdout.strip()
        found = _library_in(variable("includedir"), [variable("libdir")], "pkg-config dirac")
        if found:
            return found
    except (OSError, subprocess.CalledProcessError):
        pass
    root = os.path.dirname(HERE)
    build = os.environ.get("DIRAC_BUILD_DIR", os.path.join(root, "build"))
    found = _library_in(os.path.join(root, "include"), [build], "build tree " + build)
    if found:
        return found
    sys.exit("dirac: libdirac not found. Build and install it first, e.g.\n"
             "  cmake --install build --prefix $HOME/.local\n"
             "then set DIRAC_PREFIX=$HOME/.local (or PKG_CONFIG_PATH) and run pip again; or\n"
             "build the repository (bash scripts/build.sh build) and install ./python from it.")


LIBRARY = locate()

CDEF = r"""
typedef int... dirac_status;
#define DIRAC_OK ...
#define DIRAC_ERR_ARGUMENT ...
#define DIRAC_ERR_NOMEM ...
#define DIRAC_ERR_IO ...
#define DIRAC_ERR_PARSE ...
#define DIRAC_ERR_UNSUPPORTED ...
#define DIRAC_ERR_NEWTON ...

const char *dirac_status_string(dirac_status status);
typedef struct dirac_error {
    dirac_status status;
    char message[...];
    ...;
} dirac_error;
const char *dirac_version(void);

typedef struct dirac_spec dirac_spec;
dirac_status dirac_spec_load(const char *path, dirac_spec **out);
dirac_status dirac_spec_parse(const char *name, const char *text, size_t size, dirac_spec **out);
dirac_status dirac_spec_set_parameter(dirac_spec *spec, const char *assignment);
const char *dirac_spec_errmsg(const dirac_spec *spec);
void dirac_spec_destroy(dirac_spec *spec);

typedef struct dirac_model dirac_model;
typedef int... dirac_constraint_kind;
#define DIRAC_CONSTRAINT_HOLONOMIC ...
dirac_status dirac_model_compile(dirac_spec *spec, dirac_model **out);
void dirac_model_destroy(dirac_model *model);
typedef struct dirac_model_evaluation {
    int compiled;
    int cached;
    double compile_seconds;
    long statements;
    int functions, files;
    const char *reason;
} dirac_model_evaluation;
void dirac_model_evaluation_info(const dirac_model *model, dirac_model_evaluation *out);
const char *dirac_model_name(const dirac_model *model);
int dirac_model_coordinate_count(const dirac_model *model);
int dirac_model_entropy_count(const dirac_model *model);
int dirac_model_constraint_count(const dirac_model *model);
int dirac_model_component_count(const dirac_model *model);
int dirac_model_output_count(const dirac_model *model);
const char *dirac_model_coordinate_name(const dirac_model *model, int i);
const char *dirac_model_entropy_name(const dirac_model *model, int i);
const char *dirac_model_constraint_name(const dirac_model *model, int a);
const char *dirac_model_output_name(const dirac_model *model, int k);
dirac_constraint_kind dirac_model_constraint_kind(const dirac_model *model, int a);
int dirac_model_constraint_is_time_dependent(const dirac_model *model, int a);
int dirac_model_interaction_count(const dirac_model *model);
const char *dirac_model_interaction_name(const dirac_model *model, int k);
const int *dirac_model_interaction_coordinates(const dirac_model *model, int k, int *count);
int dirac_model_parameter_count(const dirac_model *model);
const char *dirac_model_parameter_name(const dirac_model *model, int k);
double dirac_model_parameter_value(const dirac_model *model, int k);
void dirac_model_initial_state(const dirac_model *model, double *q, double *v, double *s);

typedef struct dirac_simulate_defaults {
    const char *method;
    double dt, t_end;
    int every;
    double tol;
    int max_iter;
    int has_method, has_dt, has_t_end, has_every, has_tol, has_max_iter;
    ...;
} dirac_simulate_defaults;
void dirac_model_simulate_defaults(const dirac_model *model, dirac_simulate_defaults *out);

typedef struct dirac_model_analysis {
    int constraint_rank;
    int velocity_hessian_rank;
    int distribution_dim;
    double *integrability_defect;
    int *integrable;
    double *residual;
    double *velocity_residual;
    double energy;
    double interconnection_angle;
    int subsystem_count;
    ...;
} dirac_model_analysis;
dirac_status dirac_model_analyze(const dirac_model *model, dirac_model_analysis *out,
                                 dirac_error *err);
void dirac_model_analysis_free(dirac_model_analysis *analysis);

typedef int... dirac_equation_style;
#define DIRAC_EQUATIONS_TEXT ...
#define DIRAC_EQUATIONS_LATEX ...
typedef struct { ...; } FILE;
FILE *tmpfile(void);
int fclose(FILE *stream);
long ftell(FILE *stream);
void rewind(FILE *stream);
size_t fread(void *ptr, size_t size, size_t count, FILE *stream);
dirac_status dirac_model_write_equations(const dirac_model *model, dirac_equation_style style,
                                         FILE *out, dirac_error *err);

typedef struct dirac_method_info {
    const char *name;
    int order;
    const char *preserves;
    const char *summary;
    ...;
} dirac_method_info;
int dirac_method_count(void);
const dirac_method_info *dirac_method(int i);

typedef int... dirac_linear_solver;
typedef struct dirac_sim_options {
    const char *method;
    double dt;
    double t0;
    int project_initial;
    double newton_rtol;
    int newton_max_iterations;
    dirac_linear_solver linear_solver;
    double adaptive_rtol, adaptive_atol;
    ...;
} dirac_sim_options;
typedef struct dirac_sim dirac_sim;
dirac_status dirac_sim_create(const dirac_model *model, const dirac_sim_options *options,
                              dirac_sim **out, dirac_error *err);
void dirac_sim_destroy(dirac_sim *sim);
dirac_status dirac_sim_step(dirac_sim *sim);
size_t dirac_sim_state_size(const dirac_sim *sim);
dirac_status dirac_sim_state_save(const dirac_sim *sim, void *buffer, size_t size);
dirac_status dirac_sim_state_restore(dirac_sim *sim, const void *buffer, size_t size);
const char *dirac_sim_errmsg(const dirac_sim *sim);
double dirac_sim_time(const dirac_sim *sim);
long dirac_sim_step_count(const dirac_sim *sim);
const double *dirac_sim_q(const dirac_sim *sim);
const double *dirac_sim_v(const dirac_sim *sim);
const double *dirac_sim_p(const dirac_sim *sim);
const double *dirac_sim_mu(const dirac_sim *sim);
const double *dirac_sim_s(const dirac_sim *sim);
const double *dirac_sim_temperature(const dirac_sim *sim);
double dirac_sim_energy(const dirac_sim *sim);
double dirac_sim_work(const dirac_sim *sim);
double dirac_sim_constraint_residual(const dirac_sim *sim);
double dirac_sim_velocity_constraint_residual(const dirac_sim *sim);
double dirac_sim_projection_distance(const dirac_sim *sim);
long dirac_sim_rejected_steps(const dirac_sim *sim);
const char *dirac_sim_method(const dirac_sim *sim);
const char *dirac_sim_method_requested(const dirac_sim *sim);
const char *dirac_sim_method_reason(const dirac_sim *sim);
int dirac_sim_newton_iterations(const dirac_sim *sim);
typedef struct dirac_sim_quality {
    double energy_error;
    double energy_error_time;
    double constraint_error;
    double constraint_error_time;
    int constraint_error_index;
    double velocity_constraint_error;
    double velocity_constraint_error_time;
    int velocity_constraint_error_index;
    double entropy_decrease;
    double entropy_decrease_time;
} dirac_sim_quality;
void dirac_sim_quality_get(const dirac_sim *sim, dirac_sim_quality *out);
int dirac_sim_warning_count(const dirac_sim *sim);
const char *dirac_sim_warning(const dirac_sim *sim, int i);

int dirac_model_column_count(const dirac_model *model);
int dirac_model_column_name(const dirac_model *model, int k, char *buf, size_t size);
typedef struct dirac_run_stats {
    long steps;
    long steps_planned;
    long rows;
    long newton_iterations_sum;
    int newton_iterations_max;
    int newton_failures;
    double step_size_min, step_size_max;
    double constraint_residual_max;
    double velocity_constraint_residual_max;
    double energy_initial;
    double work_initial;
    double energy_error_max;
    double entropy_initial;
    double entropy_step_min;
    double interaction_power_max;
    double projection_distance;
    dirac_status status;
    ...;
} dirac_run_stats;
typedef struct dirac_run dirac_run;
dirac_status dirac_run_create(dirac_sim *sim, double t_end, long every, dirac_run **out,
                              dirac_error *err);
void dirac_run_destroy(dirac_run *run);
void dirac_run_row(dirac_run *run, double *row);
dirac_status dirac_run_advance(dirac_run *run, long max_steps, double *rows, long capacity,
                               long *written);
int dirac_run_finished(const dirac_run *run);
int dirac_run_finish(dirac_run *run, double *row);
const dirac_run_stats *dirac_run_statistics(const dirac_run *run);
"""

ffibuilder = FFI()
ffibuilder.cdef(CDEF)
ffibuilder.set_source(
    "dirac._lib",
    "#include <stdio.h>\n#include <dirac/dirac.h>\n",
    include_dirs=[LIBRARY.include_dir],
    library_dirs=[LIBRARY.lib_dir],
    libraries=["dirac"],
    # libdirac.so.SONAME is copied next to the extension (setup.py)
    extra_link_args=["-Wl,-rpath,$ORIGIN", "-Wl,--enable-new-dtags"],
)

if __name__ == "__main__":
    print("libdirac from %s: %s (%s)" % (LIBRARY.origin, LIBRARY.path, LIBRARY.soname))
    ffibuilder.compile(verbose=True)

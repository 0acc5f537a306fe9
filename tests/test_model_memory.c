// The memory of a model is estimated before it is built, nested component families
// multiplying, and a model above the limit (dirac_spec_set_memory_limit) is refused with the
// estimate instead of growing until the machine runs out of memory.
#include "harness.h"
#include "mem_files.h"

#include <dirac/dirac.h>

#include <stdlib.h>

static mem_files files = { .dir = "models" };

static void write_file(const char *name, const char *text)
{
    ENSURE(mem_files_write(&files, name, text) == 0);
}

// levels l1 .. l<levels>, each holding K instances of the next (as one family, or as K plain
// components), the last one a harmonic oscillator: K^levels oscillators
static void write_levels(int levels, int as_family)
{
    for (int l = 1; l <= levels; l++) {
        char name[32], text[512];
        snprintf(name, sizeof name, "l%d.dirac", l);
        if (as_family)
            snprintf(text, sizeof text, "model l%d\nparameter K = 4\n"
                     "component c[i = 1..K] = l%d() from \"l%d.dirac\"\n", l, l + 1, l + 1);
        else
            snprintf(text, sizeof text, "model l%d\ncomponent a = l%d() from \"l%d.dirac\"\n"
                     "component b = l%d() from \"l%d.dirac\"\ncomponent c = l%d() from "
                     "\"l%d.dirac\"\ncomponent d = l%d() from \"l%d.dirac\"\n",
                     l, l + 1, l + 1, l + 1, l + 1, l + 1, l + 1, l + 1, l + 1);
        write_file(name, text);
    }
    char name[32], text[256];
    snprintf(name, sizeof name, "l%d.dirac", levels + 1);
    snprintf(text, sizeof text, "model l%d\ncoordinate x\nlagrangian x'^2/2 - x^2/2\n"
             "initial x = 1\n", levels + 1);
    write_file(name, text);
}

// compiles l1.dirac with the memory limit (0: default); the status and message
static dirac_status compile_with_limit(double limit, int *coordinates, char *message, size_t size)
{
    dirac_spec *spec = NULL;
    dirac_model *model = NULL;
    dirac_status status = mem_files_load(&files, "l1.dirac", &spec);
    if (status == DIRAC_OK)
        status = dirac_spec_set_memory_limit(spec, limit);
    if (status == DIRAC_OK)
        status = dirac_model_compile(spec, &model);
    *coordinates = model ? dirac_model_coordinate_count(model) : 0;
    snprintf(message, size, "%s", spec ? dirac_spec_errmsg(spec) : "");
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    return status;
}

// 4^5 = 1024 oscillators through nested families: 341 expanded model instances
static void nested_families(void)
{
    write_levels(5, 1);
    int n = 0;
    char message[2048];
    ENSURE_EQ_INT(compile_with_limit(0, &n, message, sizeof message), DIRAC_OK);
    ENSURE_EQ_INT(n, 1024);
    // 1 MB admits about 160 expanded instances (128 units of 48 bytes each): refused
    ENSURE_EQ_INT(compile_with_limit(1e6, &n, message, sizeof message), DIRAC_ERR_PARSE);
    ENSURE_CONTAINS(message, "error: the expanded model is too large");
    ENSURE_CONTAINS(message, "an estimated 0.001 GB or more; the memory limit is an option");
    ENSURE_EQ_INT(n, 0);
    mem_files_clear(&files);
}

// 4^6 = 4096 oscillators and 5461 instances through plain components (nothing to expand): the
// instance count is taken before the tree is built
static void nested_plain_components(void)
{
    write_levels(6, 0);
    int n = 0;
    char message[2048];
    ENSURE_EQ_INT(compile_with_limit(0, &n, message, sizeof message), DIRAC_OK);
    ENSURE_EQ_INT(n, 4096);
    // 10^7 bytes at 2560 per instance admit 3906 instances
    ENSURE_EQ_INT(compile_with_limit(1e7, &n, message, sizeof message), DIRAC_ERR_PARSE);
    ENSURE_CONTAINS(message, "model 'l1' has more than 3906 component instances");
    ENSURE_CONTAINS(message, "above the limit of 0.01 GB");
    mem_files_clear(&files);
}

TEST_MAIN(TEST(nested_families), TEST(nested_plain_components))

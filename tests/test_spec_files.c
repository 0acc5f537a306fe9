// The files a load reads: dirac_spec_file_count/dirac_spec_file name exactly the model and its
// component files; dirac_spec_load_with reads them through a caller's reader (paths joined and
// normalised, cycles found through "..", a missing file named with its errno); files that are
// not regular files or larger than 64 MB are refused without being read.
#define _XOPEN_SOURCE 700   // mkfifo, ftruncate
#include "harness.h"
#include "mem_files.h"
#include "temp_dir.h"

#include <dirac/dirac.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

// the example of two blocks in contact: the model file and one component file (used twice)
static void test_files_of_a_load(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/interconnect/contact/contact.dirac",
             DIRAC_SOURCE_DIR);
    dirac_spec *spec = NULL;
    ENSURE_EQ_INT(dirac_spec_load(path, &spec), DIRAC_OK);
    ENSURE_EQ_INT(dirac_spec_file_count(spec), 2);
    ENSURE(dirac_spec_file(spec, 0) && !strcmp(dirac_spec_file(spec, 0), path));
    ENSURE_CONTAINS(dirac_spec_file(spec, 1), "contact/block.dirac");
    ENSURE(dirac_spec_file(spec, 2) == NULL);
    ENSURE(dirac_spec_file(spec, -1) == NULL);
    // the listed names open the files that were read
    struct stat a, b;
    snprintf(path, sizeof path, "%s/examples/interconnect/contact/block.dirac", DIRAC_SOURCE_DIR);
    ENSURE(stat(dirac_spec_file(spec, 1), &a) == 0 && stat(path, &b) == 0 &&
           a.st_ino == b.st_ino && a.st_dev == b.st_dev);
    dirac_spec_destroy(spec);

    // a buffer has no files
    const char text[] = "model m\ncoordinate x\nlagrangian x'^2\n";
    ENSURE_EQ_INT(dirac_spec_parse("m.dirac", text, sizeof text - 1, &spec), DIRAC_OK);
    ENSURE_EQ_INT(dirac_spec_file_count(spec), 0);
    ENSURE(dirac_spec_file(spec, 0) == NULL);
    dirac_spec_destroy(spec);
}

static void test_reader(void)
{
    mem_files fs = { 0 };
    ENSURE(mem_files_write(&fs, "top.dirac",
                           "model top\ncoordinate y\nlagrangian y'^2/2\n"
                           "component c = mid() from \"sub/mid.dirac\"\n"
                           "component d = leaf() from \"./sub/../leaf.dirac\"\n") == 0);
    ENSURE(mem_files_write(&fs, "sub/mid.dirac",
                           "model mid\ncoordinate z\nlagrangian z'^2/2\n"
                           "component l = leaf() from \"../leaf.dirac\"\n") == 0);
    ENSURE(mem_files_write(&fs, "leaf.dirac",
                           "model leaf\ncoordinate x\nlagrangian x'^2/2 - x^2/2\n") == 0);
    dirac_spec *spec = NULL;
    ENSURE_EQ_INT(dirac_spec_load_with("top.dirac", mem_files_read, &fs, &spec), DIRAC_OK);
    // leaf.dirac is reached as sub/../leaf.dirac and ./sub/../leaf.dirac: read once
    ENSURE_EQ_INT(fs.reads, 3);
    ENSURE(!strcmp(fs.asked[0], "top.dirac"));
    ENSURE(!strcmp(fs.asked[1], "sub/mid.dirac"));
    ENSURE(!strcmp(fs.asked[2], "leaf.dirac"));
    ENSURE_EQ_INT(dirac_spec_file_count(spec), 3);
    dirac_model *model = NULL;
    ENSURE_EQ_INT(dirac_model_compile(spec, &model), DIRAC_OK);
    ENSURE_EQ_INT(dirac_model_coordinate_count(model), 4);   // y, c.z, c.l.x, d.x
    dirac_model_destroy(model);
    dirac_spec_destroy(spec);
    mem_files_clear(&fs);

    // a cycle through ".." is found; a missing file is named with its reason
    ENSURE(mem_files_write(&fs, "a.dirac", "model a\ncoordinate x\nlagrangian x'^2\n"
                                           "component b = b() from \"d/b.dirac\"\n") == 0);
    ENSURE(mem_files_write(&fs, "d/b.dirac", "model b\ncoordinate y\nlagrangian y'^2\n"
                                             "component a = a() from \"../a.dirac\"\n") == 0);
    ENSURE_EQ_INT(dirac_spec_load_with("a.dirac", mem_files_read, &fs, &spec), DIRAC_ERR_PARSE);
    ENSURE_CONTAINS(dirac_spec_errmsg(spec), "component cycle: a.dirac -> d/b.dirac -> ");
    dirac_spec_destroy(spec);
    mem_files_remove(&fs, "d/b.dirac");
    ENSURE_EQ_INT(dirac_spec_load_with("a.dirac", mem_files_read, &fs, &spec), DIRAC_ERR_IO);
    ENSURE_CONTAINS(dirac_spec_errmsg(spec),
                    "a.dirac:4:24: error: cannot read component file 'd/b.dirac': No such file");
    dirac_spec_destroy(spec);
    mem_files_clear(&fs);
}

static void ensure_refused(const char *path, const char *why)
{
    dirac_spec *spec = NULL;
    ENSURE_EQ_INT(dirac_spec_load(path, &spec), DIRAC_ERR_IO);
    ENSURE_CONTAINS(spec ? dirac_spec_errmsg(spec) : NULL, why);
    dirac_spec_destroy(spec);
}

// devices, FIFOs and directories are refused at once, as model, component or table files (a
// FIFO without a writer would block, /dev/zero would be read up to the size limit); a 65 MB
// file is refused by its size
static void test_not_model_files(void)
{
    ENSURE(temp_dir_make(dir, sizeof dir, "spec-files") == 0);
    ensure_refused("/dev/zero", "cannot read '/dev/zero': not a regular file");
    ensure_refused("/dev/null", "cannot read '/dev/null': not a regular file");
    char path[256];
    snprintf(path, sizeof path, "%s/fifo", dir);
    ENSURE(mkfifo(path, 0600) == 0);
    ensure_refused(path, "not a regular file");
    ensure_refused(dir, "Is a directory");

    // a component that is a device
    ENSURE(temp_dir_write(dir, "z.dirac", "model z\ncoordinate x\nlagrangian x'^2\n"
                                          "component c = q() from \"/dev/zero\"\n") == 0);
    snprintf(path, sizeof path, "%s/z.dirac", dir);
    ensure_refused(path, "z.dirac:4:24: error: cannot read component file '/dev/zero': not a "
                         "regular file");

    // a table file that is a FIFO or a device: refused at once too (the FIFO used to block)
    char model[512];
    const char *devices[] = { "fifo", "/dev/zero" };
    for (int k = 0; k < 2; k++) {
        snprintf(model, sizeof model, "model t\ncoordinate x\nlagrangian x'^2\n"
                 "output y = table(x, \"%s\", 2)\n", devices[k]);
        ENSURE(temp_dir_write(dir, "t.dirac", model) == 0);
        snprintf(path, sizeof path, "%s/t.dirac", dir);
        dirac_spec *spec = NULL;
        ENSURE(dirac_spec_load(path, &spec) != DIRAC_OK);
        ENSURE_CONTAINS(spec ? dirac_spec_errmsg(spec) : NULL,
                        "t.dirac:4:21: error: table(): cannot read");
        ENSURE_CONTAINS(spec ? dirac_spec_errmsg(spec) : NULL, "not a regular file");
        dirac_spec_destroy(spec);
    }

    // 65 MB (a sparse file: nothing is written)
    snprintf(path, sizeof path, "%s/big.dirac", dir);
    FILE *f = fopen(path, "w");
    ENSURE(f && ftruncate(fileno(f), (off_t)65 << 20) == 0);
    if (f)
        fclose(f);
    ensure_refused(path, "file too large (more than 64 MB");
}

static void test_cleanup(void)
{
    ENSURE(temp_dir_remove(dir) == 0);
}

TEST_MAIN(TEST(test_files_of_a_load), TEST(test_reader), TEST(test_not_model_files),
          TEST(test_cleanup))

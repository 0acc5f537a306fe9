// The public face of the parser (include/dirac/model.h): load, parse, override, messages.
#include "spec_api.h"

#include "parse.h"

#include <stdlib.h>

static dirac_status wrap(dirac_status status, spec *parsed, dirac_spec **out)
{
    *out = NULL;
    if (!parsed)
        return DIRAC_ERR_NOMEM;
    dirac_spec *ds = malloc(sizeof *ds);
    if (!ds) {
        spec_destroy(parsed);
        return DIRAC_ERR_NOMEM;
    }
    ds->parsed = parsed;
    ds->codegen = DIRAC_CODEGEN_AUTO;
    *out = ds;
    return status;
}

dirac_status dirac_spec_load(const char *path, dirac_spec **out)
{
    if (!out)
        return DIRAC_ERR_ARGUMENT;
    spec *parsed = NULL;
    dirac_status status = spec_load_file(path, NULL, &parsed);
    return wrap(status, parsed, out);
}

dirac_status dirac_spec_load_with(const char *path, dirac_file_reader reader, void *context,
                                  dirac_spec **out)
{
    if (!out)
        return DIRAC_ERR_ARGUMENT;
    if (!reader) {   // no spec to keep a message in
        *out = NULL;
        return DIRAC_ERR_ARGUMENT;
    }
    spec *parsed = NULL;
    dirac_status status = spec_load_file_with(path, NULL, reader, context, &parsed);
    return wrap(status, parsed, out);
}

int dirac_spec_file_count(const dirac_spec *ds)
{
    return ds ? spec_file_count(ds->parsed) : 0;
}

const char *dirac_spec_file(const dirac_spec *ds, int index)
{
    return ds ? spec_file_name(ds->parsed, index) : NULL;
}

dirac_status dirac_spec_parse(const char *name, const char *text, size_t size, dirac_spec **out)
{
    if (!out)
        return DIRAC_ERR_ARGUMENT;
    if (!text && size > 0) {   // no spec to keep a message in
        *out = NULL;
        return DIRAC_ERR_ARGUMENT;
    }
    spec *parsed = NULL;
    dirac_status status = spec_parse_buffer(name, text, size, NULL, &parsed);
    return wrap(status, parsed, out);
}

dirac_status dirac_spec_set_parameter(dirac_spec *ds, const char *assignment)
{
    if (!ds)
        return DIRAC_ERR_ARGUMENT;
    if (!assignment)
        return spec_set_parameter_override(ds->parsed, "");   // message: expected NAME=VALUE
    return spec_set_parameter_override(ds->parsed, assignment);
}

dirac_status dirac_spec_set_memory_limit(dirac_spec *ds, double bytes)
{
    if (!ds || !(bytes >= 0.0))
        return DIRAC_ERR_ARGUMENT;
    spec_set_memory_limit(ds->parsed, bytes);
    return DIRAC_OK;
}

dirac_status dirac_spec_set_codegen(dirac_spec *ds, dirac_codegen_mode mode)
{
    if (!ds || (mode != DIRAC_CODEGEN_AUTO && mode != DIRAC_CODEGEN_OFF))
        return DIRAC_ERR_ARGUMENT;
    ds->codegen = mode;
    return DIRAC_OK;
}

const char *dirac_spec_errmsg(const dirac_spec *ds)
{
    return ds ? spec_errmsg(ds->parsed) : "invalid argument: the spec is NULL";
}

void dirac_spec_destroy(dirac_spec *ds)
{
    if (!ds)
        return;
    spec_destroy(ds->parsed);
    free(ds);
}

const char *dirac_spec_file_text(const dirac_spec *ds, int index, size_t *size)
{
    if (size)
        *size = 0;
    if (!ds || index < 0 || index >= dirac_spec_file_count(ds))
        return NULL;
    const diag_source *src = ds->parsed->sources[index];
    if (size)
        *size = src->size;
    return src->text;
}

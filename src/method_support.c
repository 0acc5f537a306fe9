// Which methods accept a model, for the suggestion of a refusal. A method refuses a model class
// at creation (sim_create: the thermodynamic check of the method table, the integrators' check
// hooks) with a message that ends "; use A, B or C". The methods worth naming depend on the
// model, not only on the refusing method (a circuit whose resistor currents only forces fix is
// refused by lobatto3, dirac2, euler and rk4 alike), so the suggestion is recomputed here from
// the methods that accept the same model with the same options: a refusal never sends the user
// to a method that refuses too.
#include "sim.h"

#include <stdio.h>
#include <string.h>

// "use A, B or C" (or a sentence saying that no method accepts the model) into out.
static void accepting_methods(const dirac_model *model, const dirac_sim_options *options,
                              const char *refusing, char *out, size_t size)
{
    const char *accepted[32];
    int count = 0;
    for (int i = 0; i < dirac_method_count() && count < 32; i++) {
        const char *name = dirac_method(i)->name;
        if (refusing && !strcmp(name, refusing))
            continue;
        dirac_sim_options trial = *options;
        trial.method = name;
        dirac_sim *sim = NULL;
        if (sim_create(model, &trial, &sim, NULL) == DIRAC_OK)
            accepted[count++] = name;
        dirac_sim_destroy(sim);
    }
    if (count == 0) {
        snprintf(out, size, "no method accepts this model");
        return;
    }
    size_t used = (size_t)snprintf(out, size, "use %s", accepted[0]);
    for (int k = 1; k < count && used < size; k++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", k == count - 1 ? " or " : ", ",
                                 accepted[k]);
}

dirac_status dirac_sim_create(const dirac_model *model, const dirac_sim_options *options,
                              dirac_sim **out, dirac_error *err)
{
    dirac_status status = sim_create(model, options, out, err);
    if (status != DIRAC_ERR_UNSUPPORTED || !err || !options)
        return status;
    // the refusal's own suggestion, "; use ...", becomes the methods that accept the model
    char *tail = NULL;
    for (char *p = err->message; (p = strstr(p, "; use ")) != NULL; p++)
        tail = p;
    if (!tail)
        return status;
    char suggestion[256];
    accepting_methods(model, options, options->method, suggestion, sizeof suggestion);
    size_t offset = (size_t)(tail - err->message) + 2;
    snprintf(tail + 2, sizeof err->message - offset, "%s", suggestion);
    return status;
}

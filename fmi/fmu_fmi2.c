// FMI 2.0 for Co-Simulation over the version-independent instance of fmu_instance.c: each
// fmi2 function checks its arguments, calls the instance and maps 1/0 to fmi2OK/fmi2Error.
// Messages go to the host's logger with '#' doubled (FMI 2.0 reads "#r12#" as a variable).
#include "fmi2_interface.h"
#include "fmu_instance.h"

#include <stdio.h>
#include <string.h>

static fmi2Status status_of(int ok) { return ok ? fmi2OK : fmi2Error; }

static void log_fmi2(const fmu *f, int error, const char *message)
{
    fmi2CallbackLogger logger = (fmi2CallbackLogger)f->logger;
    if (!logger || (!error && !f->logging))
        return;
    char escaped[4096];
    size_t k = 0;
    for (const char *c = message; *c && k + 2 < sizeof escaped; c++) {
        if (*c == '#')
            escaped[k++] = '#';
        escaped[k++] = *c;
    }
    escaped[k] = '\0';
    logger(f->environment, f->name, error ? fmi2Error : fmi2OK,
           error ? "logStatusError" : "logAll", "%s", escaped);
}

static fmu *instance_of(fmi2Component c) { return (fmu *)c; }

// A feature the FMU does not have: "FUNCTION: REASON" to the logger, fmi2Error.
static fmi2Status refuse(fmi2Component c, const char *function, const char *reason)
{
    return c ? status_of(fmu_fail(instance_of(c), "%s: %s", function, reason)) : fmi2Error;
}

#define NOT_ASYNCHRONOUS "steps are not asynchronous"

// ---- instances ----------------------------------------------------------------------------

const char *fmi2GetTypesPlatform(void) { return "default"; }
const char *fmi2GetVersion(void) { return "2.0"; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    (void)nCategories, (void)categories;
    if (!c)
        return fmi2Error;
    instance_of(c)->logging = loggingOn != fmi2False;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn)
{
    (void)fmuResourceLocation, (void)visible;
    fmu *f = fmu_new(instanceName, "fmi2", log_fmi2,
                     functions ? (void (*)(void))functions->logger : NULL,
                     functions ? functions->componentEnvironment : NULL,
                     loggingOn != fmi2False, ~0u);
    if (!f)
        return NULL;
    int ok = fmuType == fmi2CoSimulation ||
             fmu_fail(f, "this FMU implements co-simulation only (fmuType %d requested)",
                      (int)fmuType);
    ok = ok && fmu_check_token(f, fmuGUID) && fmu_setup(f);
    if (!ok) {
        fmu_free(f);
        return NULL;
    }
    return f;
}

void fmi2FreeInstance(fmi2Component c) { fmu_free(instance_of(c)); }

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                               fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
    fmu *f = instance_of(c);
    if (!f)
        return fmi2Error;
    if (f->phase != FMU_INSTANTIATED)
        return status_of(fmu_fail(f, "fmi2SetupExperiment is allowed only after "
                                     "fmi2Instantiate"));
    return status_of(fmu_set_start_time(f, startTime));
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    return c ? status_of(fmu_enter_initialization(instance_of(c))) : fmi2Error;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    return c ? status_of(fmu_exit_initialization(instance_of(c))) : fmi2Error;
}

fmi2Status fmi2Terminate(fmi2Component c)
{
    return c ? status_of(fmu_terminate(instance_of(c))) : fmi2Error;
}

fmi2Status fmi2Reset(fmi2Component c)
{
    return c ? status_of(fmu_reset(instance_of(c))) : fmi2Error;
}

// ---- values -------------------------------------------------------------------------------

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[])
{
    return c ? status_of(fmu_get_reals(instance_of(c), vr, nvr, value, "fmi2GetReal"))
             : fmi2Error;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    return c ? status_of(fmu_set_reals(instance_of(c), vr, nvr, value, "fmi2SetReal"))
             : fmi2Error;
}

// Integer, Boolean and String: the FMU has none
#define NO_SUCH_TYPE(function, type)                                                         \
    fmi2Status function(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,           \
                        type value[])                                                         \
    {                                                                                         \
        (void)vr, (void)value;                                                                \
        return c ? status_of(fmu_no_such_type(instance_of(c), nvr, #function)) : fmi2Error;  \
    }
NO_SUCH_TYPE(fmi2GetInteger, fmi2Integer)
NO_SUCH_TYPE(fmi2GetBoolean, fmi2Boolean)
NO_SUCH_TYPE(fmi2GetString, fmi2String)
NO_SUCH_TYPE(fmi2SetInteger, const fmi2Integer)
NO_SUCH_TYPE(fmi2SetBoolean, const fmi2Boolean)
NO_SUCH_TYPE(fmi2SetString, const fmi2String)

// ---- FMU states ---------------------------------------------------------------------------

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    return c ? status_of(fmu_state_get(instance_of(c), state)) : fmi2Error;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state)
{
    return c ? status_of(fmu_state_set(instance_of(c), state)) : fmi2Error;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    return c ? status_of(fmu_state_free(instance_of(c), state)) : fmi2Error;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate state, size_t *size)
{
    return c ? status_of(fmu_state_serialized_size(instance_of(c), state, size)) : fmi2Error;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate state, fmi2Byte bytes[],
                                 size_t size)
{
    return c ? status_of(fmu_state_serialize(instance_of(c), state, (unsigned char *)bytes,
                                             size))
             : fmi2Error;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte bytes[], size_t size,
                                   fmi2FMUstate *state)
{
    return c ? status_of(fmu_state_deserialize(instance_of(c), (const unsigned char *)bytes,
                                               size, state))
             : fmi2Error;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference unknown[],
                                        size_t nUnknown, const fmi2ValueReference known[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[])
{
    (void)unknown, (void)nUnknown, (void)known, (void)nKnown, (void)dvKnown, (void)dvUnknown;
    return refuse(c, "fmi2GetDirectionalDerivative",
                  "not provided (providesDirectionalDerivative=false)");
}

// ---- co-simulation ------------------------------------------------------------------------

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                       size_t nvr, const fmi2Integer order[],
                                       const fmi2Real value[])
{
    (void)vr, (void)order, (void)value;
    return nvr == 0 ? fmi2OK
                    : refuse(c, "fmi2SetRealInputDerivatives", "input derivatives are not used "
                             "(inputs are held over each step; canInterpolateInputs=false)");
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[],
                                        fmi2Real value[])
{
    (void)vr, (void)order, (void)value;
    return nvr == 0 ? fmi2OK
                    : refuse(c, "fmi2GetRealOutputDerivatives", "output derivatives are not "
                             "provided (maxOutputDerivativeOrder=0)");
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    return c ? status_of(fmu_do_step(instance_of(c), currentCommunicationPoint,
                                     communicationStepSize))
             : fmi2Error;
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
    return refuse(c, "fmi2CancelStep", NOT_ASYNCHRONOUS);
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    (void)s, (void)value;
    return refuse(c, "fmi2GetStatus", NOT_ASYNCHRONOUS);
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    fmu *f = instance_of(c);
    if (!f || !value)
        return fmi2Error;
    if (s != fmi2LastSuccessfulTime)
        return refuse(c, "fmi2GetRealStatus", "only fmi2LastSuccessfulTime is available");
    *value = f->last_successful_time;
    return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    (void)s, (void)value;
    return refuse(c, "fmi2GetIntegerStatus", "no integer status");
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    fmu *f = instance_of(c);
    if (!f || !value)
        return fmi2Error;
    if (s != fmi2Terminated)
        return refuse(c, "fmi2GetBooleanStatus", "only fmi2Terminated is available");
    *value = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    (void)s, (void)value;
    return refuse(c, "fmi2GetStringStatus", "no string status");
}

// FMI 3.0 for Co-Simulation over the version-independent instance of fmu_instance.c: each
// fmi3 function checks its arguments, calls the instance and maps 1/0 to fmi3OK/fmi3Error.
// The variables are those of FMI 2.0 (fmu_layout.h) as Float64 scalars, plus the independent
// variable `time` with the value reference after them. Model exchange, scheduled execution,
// event mode, clocks and the other variable types are refused with fmi3Error and a message.
#include "fmi3_interface.h"
#include "fmu_instance.h"
#include "fmu_model.h"

#include <stdio.h>

static fmi3Status status_of(int ok) { return ok ? fmi3OK : fmi3Error; }

static void log_fmi3(const fmu *f, int error, const char *message)
{
    fmi3LogMessageCallback logger = (fmi3LogMessageCallback)f->logger;
    if (logger && (error || f->logging))
        logger(f->environment, error ? fmi3Error : fmi3OK,
               error ? "logStatusError" : "logAll", message);
}

static fmu *instance_of(fmi3Instance instance) { return (fmu *)instance; }

// A function of another interface type or a feature the FMU does not have.
static fmi3Status refuse(fmi3Instance instance, const char *function, const char *reason)
{
    return instance ? status_of(fmu_fail(instance_of(instance), "%s: %s", function, reason))
                    : fmi3Error;
}

#define NO_EVENTS "this FMU has no event mode, clocks or discrete states (hasEventMode=false)"
#define CS_ONLY "this FMU implements co-simulation only"

// ---- instances ----------------------------------------------------------------------------

const char *fmi3GetVersion(void) { return "3.0"; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn,
                               size_t nCategories, const fmi3String categories[])
{
    (void)nCategories, (void)categories;
    if (!instance)
        return fmi3Error;
    instance_of(instance)->logging = loggingOn;
    return fmi3OK;
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName,
                                         fmi3String instantiationToken,
                                         fmi3String resourcePath, fmi3Boolean visible,
                                         fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate)
{
    (void)resourcePath, (void)visible, (void)earlyReturnAllowed;
    (void)requiredIntermediateVariables, (void)intermediateUpdate;
    fmu *f = fmu_new(instanceName, "fmi3", log_fmi3, (void (*)(void))logMessage,
                     instanceEnvironment, loggingOn, fmu_variable_count(&dirac_fmu_layout));
    if (!f)
        return NULL;
    int ok = !eventModeUsed || fmu_fail(f, "fmi3InstantiateCoSimulation: " NO_EVENTS);
    ok = ok && (nRequiredIntermediateVariables == 0 ||
                fmu_fail(f, "fmi3InstantiateCoSimulation: this FMU has no intermediate "
                            "update (providesIntermediateUpdate=false)"));
    ok = ok && fmu_check_token(f, instantiationToken) && fmu_setup(f);
    if (!ok) {
        fmu_free(f);
        return NULL;
    }
    return f;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName,
                                          fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage)
{
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible;
    (void)loggingOn;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "fmi3InstantiateModelExchange: " CS_ONLY);
    return NULL;
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String instanceName,
                                               fmi3String instantiationToken,
                                               fmi3String resourcePath, fmi3Boolean visible,
                                               fmi3Boolean loggingOn,
                                               fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3LogMessageCallback logMessage,
                                               fmi3ClockUpdateCallback clockUpdate,
                                               fmi3LockPreemptionCallback lockPreemption,
                                               fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible;
    (void)loggingOn, (void)clockUpdate, (void)lockPreemption, (void)unlockPreemption;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "fmi3InstantiateScheduledExecution: " CS_ONLY);
    return NULL;
}

void fmi3FreeInstance(fmi3Instance instance) { fmu_free(instance_of(instance)); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    (void)toleranceDefined, (void)tolerance, (void)stopTimeDefined, (void)stopTime;
    fmu *f = instance_of(instance);
    if (!f)
        return fmi3Error;
    if (f->phase != FMU_INSTANTIATED)
        return status_of(fmu_enter_initialization(f));   // its message
    return status_of(fmu_set_start_time(f, startTime) && fmu_enter_initialization(f));
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    return instance ? status_of(fmu_exit_initialization(instance_of(instance))) : fmi3Error;
}

fmi3Status fmi3Terminate(fmi3Instance instance)
{
    return instance ? status_of(fmu_terminate(instance_of(instance))) : fmi3Error;
}

fmi3Status fmi3Reset(fmi3Instance instance)
{
    return instance ? status_of(fmu_reset(instance_of(instance))) : fmi3Error;
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance)
{
    return refuse(instance, "fmi3EnterEventMode", NO_EVENTS);
}

fmi3Status fmi3EnterStepMode(fmi3Instance instance)
{
    return refuse(instance, "fmi3EnterStepMode", NO_EVENTS);
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance)
{
    return refuse(instance, "fmi3EnterConfigurationMode", "this FMU has no structural "
                  "parameters (a family's size is fixed at export: -p)");
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance)
{
    return refuse(instance, "fmi3ExitConfigurationMode", "this FMU has no structural "
                  "parameters (a family's size is fixed at export: -p)");
}

// ---- values -------------------------------------------------------------------------------

// Every variable is a Float64 scalar: as many values as value references.
static int scalar_count(fmu *f, size_t nvr, size_t nValues, const char *function)
{
    return nvr == nValues ||
           fmu_fail(f, "%s: %zu values for %zu value references (every variable is a "
                       "scalar)", function, nValues, nvr);
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, fmi3Float64 values[], size_t nValues)
{
    fmu *f = instance_of(instance);
    return f ? status_of(scalar_count(f, nValueReferences, nValues, "fmi3GetFloat64") &&
                         fmu_get_reals(f, valueReferences, nValueReferences, values,
                                       "fmi3GetFloat64"))
             : fmi3Error;
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, const fmi3Float64 values[], size_t nValues)
{
    fmu *f = instance_of(instance);
    return f ? status_of(scalar_count(f, nValueReferences, nValues, "fmi3SetFloat64") &&
                         fmu_set_reals(f, valueReferences, nValueReferences, values,
                                       "fmi3SetFloat64"))
             : fmi3Error;
}

// The other types: the FMU has none
#define NO_SUCH_TYPE(Type, type)                                                             \
    fmi3Status fmi3Get##Type(fmi3Instance instance, const fmi3ValueReference vr[],           \
                             size_t nvr, type values[], size_t nValues)                      \
    {                                                                                         \
        (void)vr, (void)values, (void)nValues;                                                \
        return instance ? status_of(fmu_no_such_type(instance_of(instance), nvr,             \
                                                     "fmi3Get" #Type))                        \
                        : fmi3Error;                                                          \
    }                                                                                         \
    fmi3Status fmi3Set##Type(fmi3Instance instance, const fmi3ValueReference vr[],           \
                             size_t nvr, const type values[], size_t nValues)                \
    {                                                                                         \
        (void)vr, (void)values, (void)nValues;                                                \
        return instance ? status_of(fmu_no_such_type(instance_of(instance), nvr,             \
                                                     "fmi3Set" #Type))                        \
                        : fmi3Error;                                                          \
    }
NO_SUCH_TYPE(Float32, fmi3Float32)
NO_SUCH_TYPE(Int8, fmi3Int8)
NO_SUCH_TYPE(UInt8, fmi3UInt8)
NO_SUCH_TYPE(Int16, fmi3Int16)
NO_SUCH_TYPE(UInt16, fmi3UInt16)
NO_SUCH_TYPE(Int32, fmi3Int32)
NO_SUCH_TYPE(UInt32, fmi3UInt32)
NO_SUCH_TYPE(Int64, fmi3Int64)
NO_SUCH_TYPE(UInt64, fmi3UInt64)
NO_SUCH_TYPE(Boolean, fmi3Boolean)
NO_SUCH_TYPE(String, fmi3String)

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, size_t valueSizes[], fmi3Binary values[],
                         size_t nValues)
{
    (void)valueReferences, (void)valueSizes, (void)values, (void)nValues;
    return instance ? status_of(fmu_no_such_type(instance_of(instance), nValueReferences,
                                                 "fmi3GetBinary"))
                    : fmi3Error;
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues)
{
    (void)valueReferences, (void)valueSizes, (void)values, (void)nValues;
    return instance ? status_of(fmu_no_such_type(instance_of(instance), nValueReferences,
                                                 "fmi3SetBinary"))
                    : fmi3Error;
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, fmi3Clock values[])
{
    (void)valueReferences, (void)values;
    return nValueReferences ? refuse(instance, "fmi3GetClock", NO_EVENTS)
                            : instance ? fmi3OK : fmi3Error;
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Clock values[])
{
    (void)valueReferences, (void)values;
    return nValueReferences ? refuse(instance, "fmi3SetClock", NO_EVENTS)
                            : instance ? fmi3OK : fmi3Error;
}

// ---- dependencies, derivatives --------------------------------------------------------------

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                               fmi3ValueReference valueReference,
                                               size_t *nDependencies)
{
    (void)valueReference, (void)nDependencies;
    return refuse(instance, "fmi3GetNumberOfVariableDependencies", "not provided (the "
                  "model description declares no dependencies: every output may depend on "
                  "every input)");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies)
{
    (void)dependent, (void)elementIndicesOfDependent, (void)independents;
    (void)elementIndicesOfIndependents, (void)dependencyKinds, (void)nDependencies;
    return refuse(instance, "fmi3GetVariableDependencies", "not provided");
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance,
                                        const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns,
                                        const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity)
{
    (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;
    (void)sensitivity, (void)nSensitivity;
    return refuse(instance, "fmi3GetDirectionalDerivative",
                  "not provided (providesDirectionalDerivative=false)");
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance,
                                    const fmi3ValueReference unknowns[], size_t nUnknowns,
                                    const fmi3ValueReference knowns[], size_t nKnowns,
                                    const fmi3Float64 seed[], size_t nSeed,
                                    fmi3Float64 sensitivity[], size_t nSensitivity)
{
    (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;
    (void)sensitivity, (void)nSensitivity;
    return refuse(instance, "fmi3GetAdjointDerivative",
                  "not provided (providesAdjointDerivatives=false)");
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int32 orders[],
                                    fmi3Float64 values[], size_t nValues)
{
    (void)valueReferences, (void)orders, (void)values, (void)nValues;
    return nValueReferences ? refuse(instance, "fmi3GetOutputDerivatives",
                                     "not provided (maxOutputDerivativeOrder=0)")
                            : instance ? fmi3OK : fmi3Error;
}

// ---- FMU states ---------------------------------------------------------------------------

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    return instance ? status_of(fmu_state_get(instance_of(instance), FMUState)) : fmi3Error;
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    return instance ? status_of(fmu_state_set(instance_of(instance), FMUState)) : fmi3Error;
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState)
{
    return instance ? status_of(fmu_state_free(instance_of(instance), FMUState)) : fmi3Error;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState,
                                      size_t *size)
{
    return instance
               ? status_of(fmu_state_serialized_size(instance_of(instance), FMUState, size))
               : fmi3Error;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size)
{
    return instance ? status_of(fmu_state_serialize(instance_of(instance), FMUState,
                                                    serializedState, size))
                    : fmi3Error;
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                   size_t size, fmi3FMUState *FMUState)
{
    return instance ? status_of(fmu_state_deserialize(instance_of(instance), serializedState,
                                                      size, FMUState))
                    : fmi3Error;
}

// ---- co-simulation ------------------------------------------------------------------------

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    fmu *f = instance_of(instance);
    if (!f)
        return fmi3Error;
    if (!eventHandlingNeeded || !terminateSimulation || !earlyReturn || !lastSuccessfulTime)
        return status_of(fmu_fail(f, "fmi3DoStep: a null output argument"));
    int ok = fmu_do_step(f, currentCommunicationPoint, communicationStepSize);
    *eventHandlingNeeded = fmi3False;
    *terminateSimulation = fmi3False;
    *earlyReturn = fmi3False;
    *lastSuccessfulTime = f->last_successful_time;
    return status_of(ok);
}

// ---- other interface types, events, clocks ------------------------------------------------

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance)
{
    return refuse(instance, "fmi3EnterContinuousTimeMode", CS_ONLY);
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode,
                                       fmi3Boolean *terminateSimulation)
{
    (void)noSetFMUStatePriorToCurrentPoint, (void)enterEventMode, (void)terminateSimulation;
    return refuse(instance, "fmi3CompletedIntegratorStep", CS_ONLY);
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    (void)time;
    return refuse(instance, "fmi3SetTime", CS_ONLY);
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    (void)continuousStates, (void)nContinuousStates;
    return refuse(instance, "fmi3SetContinuousStates", CS_ONLY);
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates)
{
    (void)derivatives, (void)nContinuousStates;
    return refuse(instance, "fmi3GetContinuousStateDerivatives", CS_ONLY);
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators)
{
    (void)eventIndicators, (void)nEventIndicators;
    return refuse(instance, "fmi3GetEventIndicators", CS_ONLY);
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                   size_t nContinuousStates)
{
    (void)continuousStates, (void)nContinuousStates;
    return refuse(instance, "fmi3GetContinuousStates", CS_ONLY);
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nContinuousStates)
{
    (void)nominals, (void)nContinuousStates;
    return refuse(instance, "fmi3GetNominalsOfContinuousStates", CS_ONLY);
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators)
{
    if (!instance || !nEventIndicators)
        return fmi3Error;
    *nEventIndicators = 0;
    return fmi3OK;
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates)
{
    (void)nContinuousStates;
    return refuse(instance, "fmi3GetNumberOfContinuousStates", CS_ONLY);
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance)
{
    return refuse(instance, "fmi3EvaluateDiscreteStates", NO_EVENTS);
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance,
                                    fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged,
                                    fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime)
{
    (void)discreteStatesNeedUpdate, (void)terminateSimulation;
    (void)nominalsOfContinuousStatesChanged, (void)valuesOfContinuousStatesChanged;
    (void)nextEventTimeDefined, (void)nextEventTime;
    return refuse(instance, "fmi3UpdateDiscreteStates", NO_EVENTS);
}

#define NO_CLOCK_VALUES(function, unused, ...)                                               \
    fmi3Status function(fmi3Instance instance, const fmi3ValueReference valueReferences[],    \
                        size_t nValueReferences, __VA_ARGS__)                                 \
    {                                                                                         \
        (void)valueReferences, (void)nValueReferences, (void)unused;                          \
        return refuse(instance, #function, NO_EVENTS);                                        \
    }
NO_CLOCK_VALUES(fmi3GetIntervalDecimal, ((void)intervals, qualifiers), fmi3Float64 intervals[],
                fmi3IntervalQualifier qualifiers[])
NO_CLOCK_VALUES(fmi3GetIntervalFraction, ((void)counters, (void)resolutions, qualifiers),
                fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                fmi3IntervalQualifier qualifiers[])
NO_CLOCK_VALUES(fmi3GetShiftDecimal, shifts, fmi3Float64 shifts[])
NO_CLOCK_VALUES(fmi3GetShiftFraction, ((void)counters, resolutions), fmi3UInt64 counters[],
                fmi3UInt64 resolutions[])
NO_CLOCK_VALUES(fmi3SetIntervalDecimal, intervals, const fmi3Float64 intervals[])
NO_CLOCK_VALUES(fmi3SetIntervalFraction, ((void)counters, resolutions),
                const fmi3UInt64 counters[], const fmi3UInt64 resolutions[])
NO_CLOCK_VALUES(fmi3SetShiftDecimal, shifts, const fmi3Float64 shifts[])
NO_CLOCK_VALUES(fmi3SetShiftFraction, ((void)counters, resolutions), const fmi3UInt64 counters[],
                const fmi3UInt64 resolutions[])

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime)
{
    (void)clockReference, (void)activationTime;
    return refuse(instance, "fmi3ActivateModelPartition", CS_ONLY);
}

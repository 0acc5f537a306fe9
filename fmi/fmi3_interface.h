// The C interface of FMI 3.0, as the Functional Mock-up Interface 3.0 standard (modelica.org,
// section 2.2: platform types, callbacks and the functions of every interface type; 3.2, 4.2,
// 5.2: model exchange, co-simulation and scheduled execution) specifies it. Written for this
// project from the standard's text; every function an FMU's binary exports is declared, since
// a dirac FMU exports all of them (those of other interface types refuse with fmi3Error).
#ifndef DIRAC_FMI3_INTERFACE_H
#define DIRAC_FMI3_INTERFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---- platform types (2.2.2) ----------------------------------------------------------------
typedef void *fmi3Instance;              // one instance of the FMU
typedef void *fmi3InstanceEnvironment;   // the host's pointer, passed back to its callbacks
typedef void *fmi3FMUState;              // a saved state of an instance
typedef uint32_t fmi3ValueReference;
typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean;
typedef char fmi3Char;
typedef const fmi3Char *fmi3String;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary;
typedef bool fmi3Clock;

#define fmi3True true
#define fmi3False false

// ---- status and enumerations (2.2.3, 2.2.10, 2.2.9) --------------------------------------
typedef enum {
    fmi3OK,
    fmi3Warning,
    fmi3Discard,
    fmi3Error,
    fmi3Fatal
} fmi3Status;

typedef enum {
    fmi3Independent,
    fmi3Constant,
    fmi3Fixed,
    fmi3Tunable,
    fmi3Discrete,
    fmi3Dependent
} fmi3DependencyKind;

typedef enum {
    fmi3IntervalNotYetKnown,
    fmi3IntervalUnchanged,
    fmi3IntervalChanged
} fmi3IntervalQualifier;

// ---- callbacks the host provides (2.2.4, 4.2.2, 5.2.1) -------------------------------------
typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment instanceEnvironment,
                                       fmi3Status status, fmi3String category,
                                       fmi3String message);
typedef void (*fmi3ClockUpdateCallback)(fmi3InstanceEnvironment instanceEnvironment);
typedef void (*fmi3IntermediateUpdateCallback)(fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3Float64 intermediateUpdateTime,
                                               fmi3Boolean intermediateVariableSetRequested,
                                               fmi3Boolean intermediateVariableGetAllowed,
                                               fmi3Boolean intermediateStepFinished,
                                               fmi3Boolean canReturnEarly,
                                               fmi3Boolean *earlyReturnRequested,
                                               fmi3Float64 *earlyReturnTime);
typedef void (*fmi3LockPreemptionCallback)(void);
typedef void (*fmi3UnlockPreemptionCallback)(void);

// ---- inquire version, logging (2.2.4, 2.2.5) ------------------------------------------------
const char *fmi3GetVersion(void);
fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn,
                               size_t nCategories, const fmi3String categories[]);

// ---- creation and destruction (2.2.4) ------------------------------------------------------
fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName,
                                          fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage);
fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName,
                                         fmi3String instantiationToken,
                                         fmi3String resourcePath, fmi3Boolean visible,
                                         fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate);
fmi3Instance fmi3InstantiateScheduledExecution(fmi3String instanceName,
                                               fmi3String instantiationToken,
                                               fmi3String resourcePath, fmi3Boolean visible,
                                               fmi3Boolean loggingOn,
                                               fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3LogMessageCallback logMessage,
                                               fmi3ClockUpdateCallback clockUpdate,
                                               fmi3LockPreemptionCallback lockPreemption,
                                               fmi3UnlockPreemptionCallback unlockPreemption);
void fmi3FreeInstance(fmi3Instance instance);

// ---- initialization, termination, reset (2.3) --------------------------------------------
fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime);
fmi3Status fmi3ExitInitializationMode(fmi3Instance instance);
fmi3Status fmi3EnterEventMode(fmi3Instance instance);
fmi3Status fmi3Terminate(fmi3Instance instance);
fmi3Status fmi3Reset(fmi3Instance instance);

// ---- getting and setting variable values (2.2.6) -------------------------------------------
#define FMI3_GET_SET(Type, type)                                                             \
    fmi3Status fmi3Get##Type(fmi3Instance instance, const fmi3ValueReference valueReferences[], \
                             size_t nValueReferences, type values[], size_t nValues);        \
    fmi3Status fmi3Set##Type(fmi3Instance instance, const fmi3ValueReference valueReferences[], \
                             size_t nValueReferences, const type values[], size_t nValues);
FMI3_GET_SET(Float32, fmi3Float32)
FMI3_GET_SET(Float64, fmi3Float64)
FMI3_GET_SET(Int8, fmi3Int8)
FMI3_GET_SET(UInt8, fmi3UInt8)
FMI3_GET_SET(Int16, fmi3Int16)
FMI3_GET_SET(UInt16, fmi3UInt16)
FMI3_GET_SET(Int32, fmi3Int32)
FMI3_GET_SET(UInt32, fmi3UInt32)
FMI3_GET_SET(Int64, fmi3Int64)
FMI3_GET_SET(UInt64, fmi3UInt64)
FMI3_GET_SET(Boolean, fmi3Boolean)
FMI3_GET_SET(String, fmi3String)
#undef FMI3_GET_SET
fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, size_t valueSizes[], fmi3Binary values[],
                         size_t nValues);
fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues);
fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, fmi3Clock values[]);
fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Clock values[]);

// ---- variable dependencies (2.2.11) --------------------------------------------------------
fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance,
                                               fmi3ValueReference valueReference,
                                               size_t *nDependencies);
fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies);

// ---- FMU states (2.2.7) --------------------------------------------------------------------
fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState);
fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState);
fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState);
fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState,
                                      size_t *size);
fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size);
fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[],
                                   size_t size, fmi3FMUState *FMUState);

// ---- partial derivatives (2.2.8) -----------------------------------------------------------
fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance,
                                        const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns,
                                        const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity);
fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance,
                                    const fmi3ValueReference unknowns[], size_t nUnknowns,
                                    const fmi3ValueReference knowns[], size_t nKnowns,
                                    const fmi3Float64 seed[], size_t nSeed,
                                    fmi3Float64 sensitivity[], size_t nSensitivity);

// ---- configuration mode, clocks, discrete states (2.3.3, 2.2.9, 2.3.5) -----------------------
fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance);
fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance);
fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance,
                                  const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, fmi3Float64 intervals[],
                                  fmi3IntervalQualifier qualifiers[]);
fmi3Status fmi3GetIntervalFraction(fmi3Instance instance,
                                   const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, fmi3UInt64 counters[],
                                   fmi3UInt64 resolutions[],
                                   fmi3IntervalQualifier qualifiers[]);
fmi3Status fmi3GetShiftDecimal(fmi3Instance instance,
                               const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, fmi3Float64 shifts[]);
fmi3Status fmi3GetShiftFraction(fmi3Instance instance,
                                const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, fmi3UInt64 counters[],
                                fmi3UInt64 resolutions[]);
fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance,
                                  const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, const fmi3Float64 intervals[]);
fmi3Status fmi3SetIntervalFraction(fmi3Instance instance,
                                   const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, const fmi3UInt64 counters[],
                                   const fmi3UInt64 resolutions[]);
fmi3Status fmi3SetShiftDecimal(fmi3Instance instance,
                               const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, const fmi3Float64 shifts[]);
fmi3Status fmi3SetShiftFraction(fmi3Instance instance,
                                const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, const fmi3UInt64 counters[],
                                const fmi3UInt64 resolutions[]);
fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance);
fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance,
                                    fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation,
                                    fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged,
                                    fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime);

// ---- model exchange (3.2) ------------------------------------------------------------------
fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance);
fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                       fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode,
                                       fmi3Boolean *terminateSimulation);
fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time);
fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates);
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates);
fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators);
fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                   size_t nContinuousStates);
fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nContinuousStates);
fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators);
fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates);

// ---- co-simulation (4.2) -------------------------------------------------------------------
fmi3Status fmi3EnterStepMode(fmi3Instance instance);
fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance,
                                    const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int32 orders[],
                                    fmi3Float64 values[], size_t nValues);
fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                      fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime);

// ---- scheduled execution (5.2) -------------------------------------------------------------
fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime);

#ifdef __cplusplus
}
#endif

#endif

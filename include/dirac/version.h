/// @file version.h
/// Library version, in the header and at run time.
#ifndef DIRAC_VERSION_H
#define DIRAC_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define DIRAC_VERSION_MAJOR 0
#define DIRAC_VERSION_MINOR 2
#define DIRAC_VERSION_PATCH 0

/// Version of the library actually linked, "MAJOR.MINOR.PATCH".
const char *dirac_version(void);

#ifdef __cplusplus
}
#endif

#endif

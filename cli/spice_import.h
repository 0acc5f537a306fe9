// SPICE netlists into .dirac models (docs/circuits.md): the reader of `dirac import spice`
// and of `dirac simulate NETLIST`. Node-flux formulation: one coordinate phi_NODE per node
// other than ground, whose velocity is the node voltage; capacitors are kinetic terms,
// inductors potential terms, resistors Rayleigh forces, current sources forces, voltage
// sources velocity constraints. Subcircuits are flattened.
#ifndef DIRAC_CLI_SPICE_IMPORT_H
#define DIRAC_CLI_SPICE_IMPORT_H

/// 1 if `path` names a SPICE netlist: extension .cir, .sp, .spice or .net (any case), or a
/// file whose last non-blank line is `.end` (the SPICE terminator).
int spice_is_netlist(const char *path);

/// Reads the netlist `path` and writes the equivalent model text into *text (malloc'ed; the
/// caller frees it). Returns 0, or nonzero after writing the messages (`FILE:LINE:COL: error:
/// ...`, each followed by the netlist line and a caret) into *message (malloc'ed).
int spice_import(const char *path, char **text, char **message);

#endif

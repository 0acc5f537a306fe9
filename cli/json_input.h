// JSON reader of the dirac tool (RFC 8259): parses a whole text into a tree of values.
// Numbers are read with strtod (so the shortest round-trip form json_output writes reads back
// to the same double); strings are unescaped (\uXXXX to UTF-8). Nesting is limited to
// JSON_INPUT_MAX_DEPTH levels. Errors say where: "line L, column C: ...".
#ifndef DIRAC_CLI_JSON_INPUT_H
#define DIRAC_CLI_JSON_INPUT_H

#include <stddef.h>

#define JSON_INPUT_MAX_DEPTH 64

typedef enum json_type {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT,
} json_type;

typedef struct json_value {
    json_type type;
    double number;              // JSON_NUMBER; JSON_BOOL: 0 or 1
    char *string;               // JSON_STRING (NUL-terminated; may contain NUL via \u0000)
    size_t length;              // of string
    size_t count;               // elements of an array or members of an object
    char **keys;                // JSON_OBJECT: the member names
    struct json_value *items;   // JSON_ARRAY, JSON_OBJECT: the elements or member values
} json_value;

/// Parses text[0 .. size) into *out. Returns 0, or -1 with the reason in message (out of memory
/// included); *out is then empty (type JSON_NULL, nothing to free).
int json_parse(const char *text, size_t size, json_value *out, char *message,
               size_t message_size);

/// Releases the tree (not the value itself).
void json_value_free(json_value *v);

/// The member `key` of an object (the last one of that name), or NULL.
const json_value *json_member(const json_value *object, const char *key);

#endif

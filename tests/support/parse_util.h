// Helpers shared by the tests of the model-language front end (tests/test_parse*.c and
// tests/test_indexed.c).
#ifndef DIRAC_TEST_PARSE_UTIL_H
#define DIRAC_TEST_PARSE_UTIL_H

#include "harness.h"
#include "spec.h"

#include <stdlib.h>
#include <string.h>

// Parses `text` as file "t.dirac"; the caller destroys the spec.
static inline spec *parse_text(const char *text, dirac_status *status)
{
    spec *s = NULL;
    dirac_status st = spec_parse_buffer("t.dirac", text, strlen(text), NULL, &s);
    if (status)
        *status = st;
    return s;
}

// The first line of the messages equals `first` exactly.
#define ENSURE_FIRST_LINE(msg, first)                                                    \
    do {                                                                                 \
        const char *m_ = (msg), *f_ = (first);                                           \
        size_t n_ = strlen(f_);                                                          \
        if (!(strncmp(m_, f_, n_) == 0 && (m_[n_] == '\n' || m_[n_] == '\0'))) {         \
            fprintf(stderr, "%s:%d: check failed: first line of\n%s\nis not\n%s\n",      \
                    __FILE__, __LINE__, m_, f_);                                         \
            test_failed_checks++;                                                        \
        }                                                                                \
    } while (0)

// Parsing `text` fails with DIRAC_ERR_PARSE and the first message line `first`.
#define ENSURE_PARSE_ERROR(text, first)                                                  \
    do {                                                                                 \
        dirac_status st_;                                                                \
        spec *s_ = parse_text((text), &st_);                                             \
        ENSURE_EQ_INT(st_, DIRAC_ERR_PARSE);                                             \
        ENSURE_FIRST_LINE(spec_errmsg(s_), (first));                                     \
        spec_destroy(s_);                                                                \
    } while (0)

// Parsing `text` succeeds.
#define ENSURE_PARSES(text)                                                              \
    do {                                                                                 \
        dirac_status st_;                                                                \
        spec *s_ = parse_text((text), &st_);                                             \
        ENSURE_EQ_INT(st_, DIRAC_OK);                                                    \
        if (st_ != DIRAC_OK)                                                             \
            fprintf(stderr, "%s", spec_errmsg(s_));                                      \
        spec_destroy(s_);                                                                \
    } while (0)

#endif

// C helpers Swift cannot import directly: OpenSSL macros, and a few Linux syscalls whose
// structures Swift imports badly (packed epoll_event, SO_ORIGINAL_DST). One static inline each.
#ifndef C_MOUCHARD_SHIMS_H
#define C_MOUCHARD_SHIMS_H

#include <openssl/ssl.h>
#include <openssl/evp.h>

/// OPENSSL_VERSION_NUMBER is a macro; exposed for `mouchard --version` and diagnostics.
static inline unsigned long mouchard_openssl_version_number(void) { return OPENSSL_VERSION_NUMBER; }

#endif

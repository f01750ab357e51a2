#include "CMouchardShims.h"

/// Turns off OpenSSL's exit-time cleanup before anything else uses OpenSSL (a constructor runs
/// before main, and the first initialisation decides). By default OpenSSL registers an atexit
/// handler (OPENSSL_cleanup) that frees its global state when the main thread calls exit. Threads
/// that used OpenSSL (the proxy's event loops, the audit, the fleet uploader) are not joined: they
/// may still be ending at that moment, and each ending thread runs OpenSSL's thread-exit
/// destructor on that state, a use after free that crashed `mouchard proxy` after its shutdown
/// (SIGSEGV or a glibc "double free" abort). The kernel reclaims the memory at exit anyway.
static int openssl_init_result = 0;

__attribute__((constructor)) static void mouchard_openssl_without_atexit(void) {
    openssl_init_result = OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

int mouchard_openssl_init_result(void) { return openssl_init_result; }

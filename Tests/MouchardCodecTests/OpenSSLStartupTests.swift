import CMouchardShims
import Testing

/// OpenSSL is initialised before main without its atexit cleanup (shims.c): threads that used
/// OpenSSL may still be ending when the main thread calls exit, and their thread-exit destructors
/// ran on the state that cleanup had freed (a crash of `mouchard proxy` after its shutdown).
struct OpenSSLStartupTests {
    @Test func initialisedWithoutAtexitCleanupBeforeMain() {
        #expect(mouchard_openssl_init_result() == 1, "the start-up constructor did not run or OPENSSL_init_crypto failed")
    }
}

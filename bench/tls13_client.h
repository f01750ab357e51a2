// A lean TLS 1.3 client for load generation (bench/proxy_load.c's `tls13` mode).
//
// Why it exists: OpenSSL 3.0's own client spends about 4.8M instructions per full handshake
// (1.6M of them decoding the server's certificate through the provider decoder machinery), so a
// load client built on SSL_connect burns as much CPU as the proxy it loads, on the same two
// cores. This one speaks the same protocol from the server's point of view -- a full TLS 1.3
// handshake per connection: X25519 key exchange, TLS_AES_128_GCM_SHA256, SNI, signature
// algorithms for ECDSA and RSA leaves, psk_dhe_ke (so servers issue tickets as they do to
// phones), every record encrypted -- but does only what an unauthenticated client must: it
// neither parses the certificate nor checks CertificateVerify (like SSL_VERIFY_NONE, one step
// further), reuses one X25519 key pair for all connections, and checks the server's Finished.
// Libcrypto primitives only (SHA-256, AES-128-GCM, X25519); the key schedule is RFC 8446 §7.
#ifndef MOUCHARD_BENCH_TLS13_CLIENT_H
#define MOUCHARD_BENCH_TLS13_CLIENT_H
#include <stddef.h>

/// Once per process, before any thread calls tls13_exchange. Returns 0 on success.
int tls13_init(void);

/// On a connected socket `fd` (after the proxy's CONNECT reply): a full TLS 1.3 handshake with
/// `server_name` as SNI, then `request` sent as application data, then the response read until
/// its head and Content-Length body are in, then close_notify. Returns 0 when the response status
/// is 200, -1 otherwise (any protocol, I/O or decryption error).
int tls13_exchange(int fd, const char *server_name, const char *request, size_t request_len);

#endif

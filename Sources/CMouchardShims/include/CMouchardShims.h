// C helpers Swift cannot import directly: OpenSSL macros, and a few Linux syscalls whose
// structures Swift imports badly (packed epoll_event, SO_ORIGINAL_DST). One static inline each.
#ifndef C_MOUCHARD_SHIMS_H
#define C_MOUCHARD_SHIMS_H

#include <openssl/ssl.h>
#include <openssl/evp.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/x509v3.h>

/// OPENSSL_VERSION_NUMBER is a macro; exposed for `mouchard --version` and diagnostics.
static inline unsigned long mouchard_openssl_version_number(void) { return OPENSSL_VERSION_NUMBER; }

// --- OpenSSL macros used by MouchardTLS -------------------------------------------------------

/// SSL_CTX_set_min_proto_version (macro over SSL_CTX_ctrl).
static inline int mouchard_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
/// SSL_CTX_set_mode (macro over SSL_CTX_ctrl).
static inline long mouchard_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
/// SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION (SSL_OP_BIT macros) on a context.
static inline void mouchard_SSL_CTX_disable_renegotiation_and_compression(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
}
/// SSL_CTX_set_session_cache_mode (macro over SSL_CTX_ctrl).
static inline long mouchard_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
/// SSL_set_tlsext_host_name (macro over SSL_ctrl): the SNI a client sends.
static inline int mouchard_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
/// BIO_set_mem_eof_return (macro over BIO_ctrl): an empty memory BIO asks to retry instead of EOF.
static inline long mouchard_BIO_set_mem_eof_return(BIO *bio, int value) { return BIO_set_mem_eof_return(bio, value); }
/// The allocated capacity of a memory BIO's buffer (BIO_get_mem_ptr is a macro over BIO_ctrl).
/// Memory BIOs never shrink; callers swap out a drained BIO whose capacity grew large.
static inline size_t mouchard_BIO_mem_capacity(BIO *bio) {
    BUF_MEM *mem = NULL;
    if (BIO_get_mem_ptr(bio, &mem) <= 0 || mem == NULL) return 0;
    return mem->max;
}
/// EVP_EC_gen (a variadic-call macro): a fresh EC key on a named curve ("P-256").
static inline EVP_PKEY *mouchard_EVP_EC_gen(const char *curve) { return EVP_EC_gen(curve); }
/// EVP_RSA_gen (a variadic-call macro): a fresh RSA key of `bits`.
static inline EVP_PKEY *mouchard_EVP_RSA_gen(unsigned int bits) { return EVP_RSA_gen(bits); }
/// SSL_get_ex_new_index (macro over CRYPTO_get_ex_new_index).
static inline int mouchard_SSL_get_ex_new_index(void) { return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }
/// SSL_CTX_get_ex_new_index (macro over CRYPTO_get_ex_new_index).
static inline int mouchard_SSL_CTX_get_ex_new_index(void) { return SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL); }
/// sk_GENERAL_NAME_num / _value (type-checked stack macros).
static inline int mouchard_sk_GENERAL_NAME_num(const GENERAL_NAMES *names) { return sk_GENERAL_NAME_num(names); }
static inline GENERAL_NAME *mouchard_sk_GENERAL_NAME_value(const GENERAL_NAMES *names, int i) {
    return sk_GENERAL_NAME_value(names, i);
}
/// sk_GENERAL_NAME_push: takes ownership of `name` on success (returns > 0).
static inline int mouchard_sk_GENERAL_NAME_push(GENERAL_NAMES *names, GENERAL_NAME *name) {
    return sk_GENERAL_NAME_push(names, name);
}

#endif

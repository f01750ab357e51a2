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

/// What the start-up initialisation of OpenSSL without its atexit cleanup returned (1: done, 0:
/// failed or not run); see shims.c.
int mouchard_openssl_init_result(void);

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
/// SSL_OP_CIPHER_SERVER_PREFERENCE (an SSL_OP_BIT macro) on a context: the server's order of
/// cipher suites wins over the client's.
static inline void mouchard_SSL_CTX_prefer_server_ciphers(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
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

/* ======================================================================================
 * MouchardPosix (proxy engineer): sockets, epoll, eventfd, SO_ORIGINAL_DST.
 * `struct epoll_event` is packed on x86_64, which Swift imports badly: these helpers take and
 * return its two fields separately. Everything here is used only by MouchardPosix.
 * ====================================================================================== */
#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef SO_ORIGINAL_DST
#define SO_ORIGINAL_DST 80
#endif

enum {
    MOUCHARD_EPOLLIN = EPOLLIN,
    MOUCHARD_EPOLLOUT = EPOLLOUT,
    MOUCHARD_EPOLLERR = EPOLLERR,
    MOUCHARD_EPOLLHUP = EPOLLHUP,
    MOUCHARD_EPOLLRDHUP = EPOLLRDHUP,
};
static const uint32_t MOUCHARD_EPOLLET = (uint32_t)EPOLLET;

/// errno of the calling thread (a macro in glibc).
static inline int mouchard_errno(void) { return errno; }

/// epoll_ctl with the event mask and the 64-bit user data passed separately.
static inline int mouchard_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}

/// epoll_wait that unpacks up to `max` (≤ 512) events into two plain arrays.
static inline int mouchard_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout_ms) {
    struct epoll_event evs[512];
    if (max > 512) max = 512;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) { events[i] = evs[i].events; data[i] = evs[i].data.u64; }
    return n;
}

static inline int mouchard_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
static inline int mouchard_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/// A non-blocking, close-on-exec TCP socket of `family` (AF_INET or AF_INET6).
static inline int mouchard_tcp_socket(int family) {
    return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
}

/* accept4 is declared only under _GNU_SOURCE, which must not leak into the OpenSSL section above. */
extern int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

/// accept4 returning a non-blocking, close-on-exec socket.
static inline int mouchard_accept(int fd, struct sockaddr_storage *addr, socklen_t *len) {
    return accept4(fd, (struct sockaddr *)addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

static inline int mouchard_set_int_option(int fd, int level, int name, int value) {
    return setsockopt(fd, level, name, &value, sizeof(value));
}

static inline int mouchard_so_error(int fd) {
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
    return err;
}

/// The destination a NAT redirect rewrote (transparent mode), for an IPv4 connection (also one
/// accepted as v4-mapped on a dual-stack socket: conntrack tracks it as IPv4).
static inline int mouchard_original_dst(int fd, struct sockaddr_storage *addr, socklen_t *len) {
    return getsockopt(fd, SOL_IP, SO_ORIGINAL_DST, addr, len);
}

#ifndef IP6T_SO_ORIGINAL_DST
#define IP6T_SO_ORIGINAL_DST 80
#endif
/// The same for an IPv6 connection (IP6T_SO_ORIGINAL_DST, level SOL_IPV6).
static inline int mouchard_original_dst6(int fd, struct sockaddr_storage *addr, socklen_t *len) {
    return getsockopt(fd, IPPROTO_IPV6, IP6T_SO_ORIGINAL_DST, addr, len);
}

static inline int mouchard_sol_socket(void) { return SOL_SOCKET; }
static inline int mouchard_so_reuseaddr(void) { return SO_REUSEADDR; }
static inline int mouchard_so_reuseport(void) { return SO_REUSEPORT; }
static inline int mouchard_ipproto_tcp(void) { return IPPROTO_TCP; }
static inline int mouchard_tcp_nodelay(void) { return TCP_NODELAY; }
static inline int mouchard_ipproto_ipv6(void) { return IPPROTO_IPV6; }
static inline int mouchard_ipv6_v6only(void) { return IPV6_V6ONLY; }
static inline int mouchard_shut_wr(void) { return SHUT_WR; }
/// send() that never raises SIGPIPE.
static inline ssize_t mouchard_send(int fd, const void *buf, size_t len) { return send(fd, buf, len, MSG_NOSIGNAL); }

/// getaddrinfo for TCP; results go to `out` (up to `max` addresses), returns the count or a negative EAI code.
static inline int mouchard_resolve_tcp(const char *host, const char *port, struct sockaddr_storage *out,
                                       socklen_t *lens, int max) {
    struct addrinfo hints = {0};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    hints.ai_flags = AI_ADDRCONFIG;
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) return rc < 0 ? rc : -rc;
    int n = 0;
    for (struct addrinfo *ai = res; ai != NULL && n < max; ai = ai->ai_next) {
        if (ai->ai_addrlen > sizeof(struct sockaddr_storage)) continue;
        memcpy(&out[n], ai->ai_addr, ai->ai_addrlen);
        lens[n] = ai->ai_addrlen;
        n++;
    }
    freeaddrinfo(res);
    return n;
}

#include <sys/resource.h>
#include <sys/syscall.h>

/// Sets the nice value of the calling thread only (Linux gives each thread its own; gettid has no
/// glibc wrapper Swift sees). 0 on success, -1 with errno set.
static inline int mouchard_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

#endif

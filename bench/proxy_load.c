// Load client for bench/proxy.sh (built by the script with cc + OpenSSL).
//   tls  PROXY_PORT ORIGIN_HOST ORIGIN_PORT THREADS SECONDS
//        a new TCP connection, CONNECT and TLS handshake per request through the proxy; prints
//        requests/s, errors and p50/p99 latency in ms. The client is OpenSSL's (SSL_connect).
//   tls13 (same arguments)
//        the same with the lean TLS 1.3 client of tls13_client.c: the same full handshake seen
//        from the server, at a fraction of OpenSSL's client-side CPU (see tls13_client.h).
//   tls-direct / tls13-direct ORIGIN_IP ORIGIN_PORT SERVER_NAME THREADS SECONDS
//        the same without CONNECT: each connection goes straight to ORIGIN_IP:ORIGIN_PORT (which a
//        transparent proxy intercepts, bench/gateway.sh) with SERVER_NAME as SNI and Host.
//   idle PROXY_PORT ORIGIN_PORT CONNECTIONS SECONDS
//        opens CONNECTIONS keep-alive connections, one absolute-form request each, holds them idle
//        for SECONDS, then sends one more request on each; prints how many failed.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tls13_client.h"

static int proxy_port, origin_port, seconds;
static const char *origin_host;
static SSL_CTX *ctx;
static volatile int stop_flag;
static int lean;  // tls13 mode: tls13_exchange instead of SSL_connect
static const char *direct_ip;  // *-direct modes: connect here, no CONNECT

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static int connect_proxy(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons(direct_ip ? origin_port : proxy_port);
    if (direct_ip) inet_pton(AF_INET, direct_ip, &a.sin_addr); else a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { close(fd); return -1; }
    return fd;
}

/// Reads until the end of an HTTP head; returns bytes read (head + whatever followed) or -1.
static int read_head(int fd, SSL *ssl, char *buf, int cap) {
    int n = 0;
    while (n < cap - 1) {
        int r = ssl ? SSL_read(ssl, buf + n, cap - 1 - n) : (int)read(fd, buf + n, cap - 1 - n);
        if (r <= 0) return -1;
        n += r;
        buf[n] = 0;
        if (strstr(buf, "\r\n\r\n")) return n;
    }
    return -1;
}

/// Reads a whole response with Content-Length (no chunked) after the head; returns 0 when status is 200.
static int read_response(int fd, SSL *ssl) {
    char buf[16384];
    int n = read_head(fd, ssl, buf, sizeof buf);
    if (n < 0) return -1;
    if (strncmp(buf, "HTTP/1.1 200", 12) != 0 && strncmp(buf, "HTTP/1.0 200", 12) != 0) return -1;
    char *end = strstr(buf, "\r\n\r\n") + 4;
    int have = n - (int)(end - buf);
    char *cl = strcasestr(buf, "\ncontent-length:");
    if (!cl) return 0;
    long want = strtol(cl + 16, NULL, 10);
    while (have < want) {
        int r = ssl ? SSL_read(ssl, buf, sizeof buf) : (int)read(fd, buf, sizeof buf);
        if (r <= 0) return -1;
        have += r;
    }
    return 0;
}

typedef struct { double *lat; long count, cap, errors; } stats_t;

static void add(stats_t *s, double v) {
    if (s->count == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4096;
        s->lat = realloc(s->lat, s->cap * sizeof(double));
    }
    s->lat[s->count++] = v;
}

static void *tls_worker(void *arg) {
    stats_t *s = arg;
    char req[512], buf[4096];
    while (!stop_flag) {
        double t0 = now_ms();
        int fd = connect_proxy();
        if (fd < 0) { s->errors++; continue; }
        int len = snprintf(req, sizeof req, "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n", origin_host, origin_port, origin_host, origin_port);
        if (!direct_ip && (write(fd, req, len) != len || read_head(fd, NULL, buf, sizeof buf) < 0 || strncmp(buf + 9, "200", 3) != 0)) {
            s->errors++; close(fd); continue;
        }
        if (lean) {
            len = snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", origin_host);
            if (tls13_exchange(fd, origin_host, req, (size_t)len) == 0) add(s, now_ms() - t0); else s->errors++;
            close(fd);
            continue;
        }
        SSL *ssl = SSL_new(ctx);
        SSL_set_fd(ssl, fd);
        SSL_set_tlsext_host_name(ssl, origin_host);
        int ok = SSL_connect(ssl) == 1;
        if (ok) {
            len = snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", origin_host);
            ok = SSL_write(ssl, req, len) == len && read_response(fd, ssl) == 0;
        }
        if (ok) add(s, now_ms() - t0); else s->errors++;
        SSL_shutdown(ssl);
        SSL_free(ssl);
        close(fd);
    }
    return NULL;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int run_tls(int threads) {
    ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    pthread_t t[256];
    stats_t st[256];
    memset(st, 0, sizeof st);
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, tls_worker, &st[i]);
    sleep(seconds);
    stop_flag = 1;
    stats_t all = {0};
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        for (long j = 0; j < st[i].count; j++) add(&all, st[i].lat[j]);
        all.errors += st[i].errors;
    }
    qsort(all.lat, all.count, sizeof(double), cmp);
    double p50 = all.count ? all.lat[all.count / 2] : 0, p99 = all.count ? all.lat[(long)(all.count * 0.99)] : 0;
    printf("requests %ld errors %ld rps %.1f p50_ms %.2f p99_ms %.2f\n", all.count, all.errors, all.count / (double)seconds, p50, p99);
    return 0;
}

static int run_idle(int n) {
    int *fds = calloc(n, sizeof(int));
    char req[256];
    int len = snprintf(req, sizeof req, "GET http://127.0.0.1:%d/ HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", origin_port, origin_port);
    int opened = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        fds[i] = connect_proxy();
        if (fds[i] < 0 || write(fds[i], req, len) != len || read_response(fds[i], NULL) != 0) { failed++; continue; }
        opened++;
    }
    printf("idle opened %d failed %d\n", opened, failed);
    fflush(stdout);
    sleep(seconds);
    int reused = 0, refailed = 0;
    for (int i = 0; i < n; i++) {
        if (fds[i] < 0) continue;
        if (write(fds[i], req, len) == len && read_response(fds[i], NULL) == 0) reused++; else refailed++;
        close(fds[i]);
    }
    printf("idle after %ds: ok %d failed %d\n", seconds, reused, refailed);
    return refailed + failed ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc == 7 && (strcmp(argv[1], "tls") == 0 || strcmp(argv[1], "tls13") == 0)) {
        lean = strcmp(argv[1], "tls13") == 0;
        if (lean && tls13_init() != 0) { fprintf(stderr, "tls13_init failed\n"); return 1; }
        proxy_port = atoi(argv[2]); origin_host = argv[3]; origin_port = atoi(argv[4]); seconds = atoi(argv[6]);
        int threads = atoi(argv[5]);
        return run_tls(threads < 1 ? 1 : threads > 256 ? 256 : threads);
    }
    if (argc == 7 && (strcmp(argv[1], "tls-direct") == 0 || strcmp(argv[1], "tls13-direct") == 0)) {
        lean = strcmp(argv[1], "tls13-direct") == 0;
        if (lean && tls13_init() != 0) { fprintf(stderr, "tls13_init failed\n"); return 1; }
        direct_ip = argv[2]; origin_port = atoi(argv[3]); origin_host = argv[4]; seconds = atoi(argv[6]);
        int threads = atoi(argv[5]);
        return run_tls(threads < 1 ? 1 : threads > 256 ? 256 : threads);
    }
    if (argc == 6 && strcmp(argv[1], "idle") == 0) {
        proxy_port = atoi(argv[2]); origin_port = atoi(argv[3]); seconds = atoi(argv[5]);
        return run_idle(atoi(argv[4]));
    }
    fprintf(stderr, "usage: proxy_load tls|tls13 PROXY_PORT HOST PORT THREADS SECONDS | tls-direct|tls13-direct IP PORT SNI THREADS SECONDS | idle PROXY_PORT ORIGIN_PORT N SECONDS\n");
    return 64;
}

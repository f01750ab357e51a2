// MouchardTLS: the only Swift module (besides MouchardCodec's digests) that talks to OpenSSL.
//
// What it holds, one concept per file:
//   CertificateAuthority   the CA in $MOUCHARD_HOME or ~/.mouchard (key 0600, dir 0700), created once
//   LeafCertificateMinter  leaves per Apple's rules over ONE shared P-256 key, LRU-cached, thread-safe
//   LeafNames              validated SAN names for a leaf (SNI + origin certificate's SAN/CN)
//   TLSServerContext / TLSClientContext   one shared SSL_CTX each per process (all event loops)
//   TLSServerSession / TLSClientSession   sans-I/O engines over memory BIOs: feed(ciphertext) →
//                          [TLSSessionEvent]; write(plaintext); pendingOutput() → ciphertext to send
//   TLSKeyLog              --ssl-keylog (NSS format, both sides)
//   CAExportFormat, MobileConfigProfile, OnboardingPage   handing the CA to a phone
//
// Typical proxy use for one intercepted CONNECT (all on the connection's event loop):
//
//   let phone = try TLSServerSession(context: serverContext)
//   phone.feed(bytes) → [.clientHello(hello)]          // paused: we know the SNI, no cert sent yet
//   let origin = try TLSClientSession(context: clientContext, host: connectHost, serverName: hello.serverName)
//   send origin.pendingOutput(); origin.feed(reply) → [.handshakeCompleted]  (or .failed(.upstreamCertificateUntrusted))
//   let leaf = try minter.identity(serverName: hello.serverName ?? connectHost, upstream: origin.peerNames)
//   phone.provideIdentity(leaf) → []; send phone.pendingOutput(); phone.feed(...) → [.handshakeCompleted, .plaintext(request)]
//   phone reports .failed(.clientRejectedCertificate(serverName:alert:)) when the app refuses our leaf
//   (alert) or hangs up after it (endOfInput()): record that flow as "pinned?".
//
// Design notes:
// - The ClientHello callback (not the servername callback) is used because it can PAUSE the
//   handshake (SSL_CLIENT_HELLO_RETRY) until the proxy has the leaf; SNI and ALPN are parsed
//   from the raw extensions with bounds checks.
// - Callbacks are capture-free C functions that find their Swift objects through ex_data slots.
// - Sessions report failures as a final `.failed(TLSError)` event instead of throwing, so plaintext
//   decoded in the same call is never lost.
// - Upstream session tickets are cached per host+SNI (a copy: OpenSSL marks the original
//   unresumable when a connection is freed without close_notify).
// - OpenSSL 3.0's handshake cost is dominated by its provider machinery; P-256 leaves, one shared
//   leaf key, cached leaves, shared SSL_CTXs, SSL_MODE_RELEASE_BUFFERS and one session ticket keep
//   the server side near 270 µs of CPU per full handshake (see `mouchard-bench tls-handshake`).

// swift-tools-version:6.0
// Mouchard: shows what a mobile app really sends about its user.
// Layout (see docs/architecture.md): pure parsers, one thin Swift wrapper per C library,
// composition modules, and a thin CLI.
import PackageDescription

let package = Package(
    name: "Mouchard",
    products: [
        .executable(name: "mouchard", targets: ["mouchard"]),
        .executable(name: "mouchard-bench", targets: ["mouchard-bench"]),
        .library(name: "MouchardInspection", targets: ["MouchardInspection"]),
        .library(name: "MouchardAudit", targets: ["MouchardAudit"]),
        .library(name: "MouchardKit", targets: ["MouchardKit"]),
    ],
    targets: [
        // C libraries from Debian, one system-library target each.
        .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "CLibpq", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // C macros and syscalls Swift cannot import directly.
        .target(name: "CMouchardShims", dependencies: ["COpenSSL"]),

        // Pure modules: bytes in, values out. No C, no I/O.
        .target(name: "MouchardWire"),
        .target(name: "MouchardFlow", dependencies: ["MouchardWire"]),
        // What a finding is (the values a store, a report and the inspector share).
        .target(name: "MouchardFindings"),

        // Thin wrappers, one per C library.
        .target(name: "MouchardCodec", dependencies: ["CZlib", "CBrotli", "COpenSSL", "CMouchardShims"]),
        .target(name: "MouchardTLS", dependencies: ["COpenSSL", "CMouchardShims", "MouchardWire"]),
        .target(name: "MouchardCapture", dependencies: ["CPcap", "MouchardWire"]),
        .target(name: "MouchardStore", dependencies: ["CSQLite", "MouchardWire", "MouchardFlow", "MouchardFindings"]),
        .target(name: "MouchardPosix", dependencies: ["CMouchardShims"]),
        // HTTP/2 framing, HPACK and stream state (wraps libnghttp2, sans-I/O: mem_recv/mem_send).
        .target(name: "MouchardHTTP2", dependencies: ["CNghttp2"]),
        // The fleet store: sessions of many recorders in one PostgreSQL database (wraps libpq).
        .target(name: "MouchardPostgres", dependencies: [
            "CLibpq", "CMouchardShims", "MouchardStore", "MouchardFlow", "MouchardFindings", "MouchardWire",
        ]),

        // The heart: rules, decoders, detectors (pure, plus digests and inflate from MouchardCodec).
        .target(name: "MouchardInspection", dependencies: [
            "MouchardFindings", "MouchardFlow", "MouchardWire", "MouchardCodec",
        ]),

        // Composition.
        // Message-framed payloads read as they pass: WebSocket frames and permessage-deflate into messages.
        .target(name: "MouchardMessages", dependencies: ["MouchardWire", "MouchardFlow", "MouchardCodec"]),
        .target(name: "MouchardSniffer", dependencies: [
            "MouchardWire", "MouchardFlow", "MouchardCapture", "MouchardCodec", "MouchardMessages", "MouchardHTTP2",
        ]),
        .target(name: "MouchardProxy", dependencies: [
            "MouchardWire", "MouchardFlow", "MouchardFindings", "MouchardTLS", "MouchardPosix", "MouchardInspection",
            "MouchardStore", "MouchardMessages", "MouchardHTTP2",
        ]),
        .target(name: "MouchardReport", dependencies: ["MouchardWire", "MouchardFlow", "MouchardFindings", "MouchardInspection"]),
        // The gateway's host changes: nftables rules, sysctls, saved state (pure plans, thin runner).
        .target(name: "MouchardGateway", dependencies: ["MouchardWire", "MouchardFlow", "MouchardProxy", "MouchardTLS"]),
        // An audit of files and sessions: inputs read into flows, inspected, summarized.
        .target(name: "MouchardAudit", dependencies: [
            "MouchardWire", "MouchardFlow", "MouchardFindings", "MouchardCodec", "MouchardInspection", "MouchardReport",
            "MouchardSniffer", "MouchardStore",
        ]),
        // Replay in tests: matching recorded exchanges, client replay, the mock server.
        .target(name: "MouchardReplay", dependencies: [
            "MouchardFlow", "MouchardWire", "MouchardProxy", "MouchardTLS", "MouchardPosix", "MouchardStore", "MouchardSniffer",
            "MouchardFindings", "MouchardInspection",
        ]),

        // What a Swift test suite imports: load, filter and audit flows, a recording proxy, replay and mock.
        .target(name: "MouchardKit", dependencies: [
            "MouchardFlow", "MouchardFindings", "MouchardInspection", "MouchardAudit", "MouchardReplay", "MouchardProxy", "MouchardTLS", "MouchardPosix",
        ]),

        // Thin CLI: argument parsing and calls into the libraries.
        .target(name: "MouchardCLI", dependencies: [
            "MouchardWire", "MouchardFlow", "MouchardFindings", "MouchardCodec", "MouchardStore", "MouchardInspection",
            "MouchardSniffer", "MouchardCapture", "MouchardProxy", "MouchardTLS", "MouchardPosix", "MouchardReport",
            "MouchardAudit", "MouchardReplay", "MouchardKit", "MouchardGateway", "MouchardPostgres",
        ]),
        .executableTarget(name: "mouchard", dependencies: ["MouchardCLI"]),
        // Benchmarks driven by the scripts in bench/ (release build).
        .executableTarget(name: "mouchard-bench", dependencies: [
            "MouchardWire", "MouchardFlow", "MouchardFindings", "MouchardCodec", "MouchardInspection", "MouchardSniffer",
            "MouchardCapture", "MouchardTLS", "MouchardPosix", "MouchardReport", "MouchardStore", "MouchardPostgres", "ProxyConformance",
        ], path: "bench/Sources/mouchard-bench"),

        // Test-only helpers every test target shares: repository paths, optional corpora and tools (with the
        // reason a test is skipped without them), seeded byte mutation. Not a product.
        .target(name: "MouchardTestSupport", path: "Tests/MouchardTestSupport"),
        // Black-box forward-proxy cases (RFC 9110/9112): a raw-bytes client and scripted origins, run by
        // MouchardProxyTests against Mouchard and by `mouchard-bench conformance` against any proxy.
        .target(name: "ProxyConformance", path: "Tests/ProxyConformance"),

        .testTarget(name: "MouchardWireTests", dependencies: ["MouchardTestSupport", "MouchardWire"]),
        .testTarget(name: "MouchardHTTP2Tests", dependencies: ["MouchardTestSupport", "MouchardHTTP2"]),
        .testTarget(name: "MouchardFlowTests", dependencies: ["MouchardTestSupport", "MouchardFlow", "MouchardWire"]),
        .testTarget(name: "MouchardCodecTests", dependencies: ["MouchardTestSupport", "MouchardCodec", "MouchardWire", "CMouchardShims"]),
        .testTarget(name: "MouchardMessagesTests", dependencies: [
            "MouchardTestSupport", "MouchardMessages", "MouchardCodec", "MouchardFlow", "MouchardWire",
        ]),
        .testTarget(name: "MouchardStoreTests", dependencies: [
            "MouchardTestSupport", "MouchardStore", "MouchardPostgres", "MouchardFindings", "MouchardFlow", "MouchardWire",
        ]),
        .testTarget(name: "MouchardInspectionTests", dependencies: [
            "MouchardTestSupport", "MouchardInspection", "MouchardFindings", "MouchardFlow", "MouchardCodec", "MouchardWire",
        ]),
        .testTarget(name: "MouchardSnifferTests", dependencies: [
            "MouchardTestSupport", "MouchardSniffer", "MouchardCapture", "MouchardFlow", "MouchardWire", "MouchardCodec",
        ]),
        .testTarget(name: "MouchardProxyTests", dependencies: [
            "MouchardTestSupport", "ProxyConformance", "MouchardProxy", "MouchardTLS", "MouchardPosix", "MouchardWire", "MouchardFlow", "MouchardFindings",
            "MouchardInspection", "MouchardStore", "MouchardCodec", "MouchardHTTP2",
        ]),
        .testTarget(name: "MouchardReportTests", dependencies: [
            "MouchardTestSupport", "MouchardReport", "MouchardFindings", "MouchardInspection", "MouchardFlow", "MouchardWire", "MouchardCLI",
        ], resources: [.copy("Resources")]),
        .testTarget(name: "MouchardCLITests", dependencies: [
            "MouchardTestSupport", "MouchardCLI", "MouchardAudit", "MouchardFindings", "MouchardFlow", "MouchardInspection",
            "MouchardReport", "MouchardSniffer", "MouchardStore", "MouchardReplay", "MouchardPosix", "MouchardWire",
        ]),
        .testTarget(name: "MouchardReplayTests", dependencies: [
            "MouchardTestSupport", "MouchardReplay", "MouchardKit", "MouchardProxy", "MouchardFlow", "MouchardWire", "MouchardPosix",
            "MouchardStore",
        ]),
        .testTarget(name: "MouchardGatewayTests", dependencies: [
            "MouchardTestSupport", "MouchardGateway", "MouchardWire", "MouchardFlow", "MouchardFindings", "MouchardProxy",
            "MouchardStore", "MouchardInspection", "MouchardTLS",
        ]),
    ]
)

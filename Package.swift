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
    ],
    targets: [
        // C libraries from Debian, one system-library target each.
        .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
        // C macros and syscalls Swift cannot import directly.
        .target(name: "CMouchardShims", dependencies: ["COpenSSL"]),

        // Pure modules: bytes in, values out. No C, no I/O.
        .target(name: "MouchardWire"),
        .target(name: "MouchardFlow", dependencies: ["MouchardWire"]),

        // Thin wrappers, one per C library.
        .target(name: "MouchardCodec", dependencies: ["CZlib", "CBrotli", "COpenSSL", "CMouchardShims"]),
        .target(name: "MouchardTLS", dependencies: ["COpenSSL", "CMouchardShims", "MouchardWire"]),
        .target(name: "MouchardCapture", dependencies: ["CPcap", "MouchardWire"]),
        .target(name: "MouchardStore", dependencies: ["CSQLite", "MouchardFlow", "MouchardInspection"]),
        .target(name: "MouchardPosix", dependencies: ["CMouchardShims"]),

        // The heart: rules, decoders, detectors (pure, plus digests and inflate from MouchardCodec).
        .target(name: "MouchardInspection", dependencies: ["MouchardFlow", "MouchardWire", "MouchardCodec"]),

        // Composition.
        .target(name: "MouchardSniffer", dependencies: ["MouchardWire", "MouchardFlow", "MouchardCapture"]),
        .target(name: "MouchardProxy", dependencies: [
            "MouchardWire", "MouchardFlow", "MouchardTLS", "MouchardPosix", "MouchardInspection", "MouchardStore",
        ]),
        .target(name: "MouchardReport", dependencies: ["MouchardFlow", "MouchardInspection"]),

        // Thin CLI: argument parsing and calls into the libraries.
        .target(name: "MouchardCLI", dependencies: [
            "MouchardWire", "MouchardFlow", "MouchardCodec", "MouchardStore", "MouchardInspection",
            "MouchardSniffer", "MouchardCapture", "MouchardProxy", "MouchardTLS", "MouchardReport",
        ]),
        .executableTarget(name: "mouchard", dependencies: ["MouchardCLI"]),
        // Benchmarks driven by the scripts in bench/ (release build).
        .executableTarget(name: "mouchard-bench", dependencies: [
            "MouchardWire", "MouchardFlow", "MouchardCodec", "MouchardInspection", "MouchardSniffer",
            "MouchardCapture", "MouchardTLS", "MouchardPosix", "MouchardReport",
        ], path: "bench/Sources/mouchard-bench"),

        .testTarget(name: "MouchardWireTests", dependencies: ["MouchardWire"]),
        .testTarget(name: "MouchardFlowTests", dependencies: ["MouchardFlow", "MouchardWire"]),
        .testTarget(name: "MouchardCodecTests", dependencies: ["MouchardCodec", "MouchardWire"]),
        .testTarget(name: "MouchardStoreTests", dependencies: ["MouchardStore", "MouchardFlow", "MouchardWire"]),
        .testTarget(name: "MouchardInspectionTests", dependencies: ["MouchardInspection", "MouchardFlow", "MouchardCodec", "MouchardWire"]),
        .testTarget(name: "MouchardSnifferTests", dependencies: ["MouchardSniffer", "MouchardCapture", "MouchardFlow"]),
        .testTarget(name: "MouchardProxyTests", dependencies: [
            "MouchardProxy", "MouchardTLS", "MouchardPosix", "MouchardWire", "MouchardFlow", "MouchardInspection",
            "MouchardStore", "MouchardCodec",
        ]),
        .testTarget(name: "MouchardReportTests", dependencies: ["MouchardReport", "MouchardInspection", "MouchardCLI"],
                    resources: [.copy("Resources")]),
        .testTarget(name: "MouchardCLITests", dependencies: ["MouchardCLI"]),
    ]
)

/// `mouchard mock SOURCE --listen ADDR`: answers from recorded exchanges, as an origin and as a forward proxy.
struct MockCommand: MouchardCommand {
    static let spec = CommandSpec(
        name: "mock",
        abstract: "answer requests from recorded exchanges (an origin and a forward proxy on one port)",
        usage: "SOURCE [--listen 127.0.0.1:8081] [--flows IDS] [--replay-miss 404|forward|close] [--replay-keep] [--ignore-param NAME]... [--ignore-body] [--session S]",
        discussion: """
        SOURCE is a HAR file, a capture or a session. The port answers plain HTTP (origin-form, matched on
        the Host header; a request to the mock's own address matches any recorded host), TLS made
        straight to it (a leaf from Mouchard's CA for the name the client asks, see 'mouchard ca'), and
        proxy requests (absolute-form and CONNECT), so an app needs no URL change. Matching: method,
        host, path, query (in any order), body (JSON by structure). Repeated identical requests get the
        recorded responses in order. Every request, served or missed, is stored and inspected like in
        'mouchard proxy'. Stops on Ctrl-C.
        examples:
          mouchard mock captures/app-1.2 --listen 127.0.0.1:8081
          curl --cacert ~/.mouchard/mouchard-ca.pem --resolve api.example.com:8081:127.0.0.1 https://api.example.com:8081/v1/me
        """,
        options: [OptionSpec("--listen", value: "ADDR:PORT", help: "address to listen on (default 127.0.0.1:8081)")]
            + ReplayOptions.sourceOptions + ReplayOptions.matchingOptions + ProxyCommand.commonOptions,
        minPositionals: 1, maxPositionals: 1)

    static func run(_ args: ParsedArguments, _ io: CommandIO) throws -> Int32 {
        try ProxyCommand.serve(args, io, replaySource: args.positionals[0], mock: true)
    }
}

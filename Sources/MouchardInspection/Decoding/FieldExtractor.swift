import MouchardCodec
import MouchardFlow
import MouchardWire

/// Turns one HTTP request into the leaf values it carries, recursively undoing the layers apps
/// use to hide them: URL path, query (bracket and repeated keys), headers, cookies, form,
/// multipart, JSON (and strings holding JSON), NDJSON, XML/plist, protobuf, gzip/deflate/br (by
/// header and magic bytes), percent-encoding (also double), base64/base64url (whole and embedded),
/// JWT segments and hex. Depth, fan-out and decoded sizes are bounded.
public struct FieldExtractor: Sendable {
    public var maxDepth: Int = 8
    public var maxFields: Int = 20_000
    public var maxDecodedBytes: Int = 16 << 20
    /// Shortest run of base64 characters worth decoding.
    public var minBase64Length: Int = 12

    public init() {}

    /// Everything extracted from one request.
    public struct Result: Sendable {
        public var fields: [ExtractedField] = []
        public var groups: [NumberGroup] = []
        /// Problems met while decoding (kept for diagnostics; decoding goes on).
        public var notes: [String] = []
        /// The URL path (for path hints; tokenized only by the detectors that use it), made text
        /// only when read: profile mode never does.
        public var path: String {
            get { String(decoding: pathBytes, as: UTF8.self) }
            set { pathBytes = Array(newValue.utf8)[...] }
        }
        var pathBytes: ArraySlice<UInt8> = []
    }

    public func extract(_ request: HTTPRequest) -> Result { extract(request, facts: RequestFacts(request)) }

    func extract(_ request: HTTPRequest, facts: RequestFacts) -> Result {
        extract(request, target: Array(facts.pathAndQuery.utf8), pruning: nil, matcher: nil)
    }

    /// With `pruning`, the parts of the request whose raw bytes touch none of its spans are not
    /// walked (profile mode: they cannot hold a profile value), and `matcher` finds the spans of
    /// what the walk decodes; `target` is the request target's bytes.
    func extract(_ request: HTTPRequest, target: [UInt8], pruning: RequestInterest?, matcher: WalkMatcher?) -> Result {
        var w = FieldWalker(config: self)
        // The spans are read from `pruning` in place (a copy of it would retain each of its arrays).
        let prunes = pruning?.prunes == true
        if prunes { w.pruning = matcher }
        let targetSpans = prunes ? pruning?.target : nil
        // Split the target once (path, then query up to a fragment).
        let all = target[...]
        let question = ByteSearch.index(of: UInt8(ascii: "?"), in: all, from: 0)
        let q = question < target.count ? question : nil
        let pathEnd = q ?? ByteSearch.index(of: UInt8(ascii: "#"), in: all, from: 0)
        // A target, header or body without spans has nothing to find (profile mode).
        let walkTarget = targetSpans.map { !$0.isEmpty } ?? true
        if walkTarget { w.walkPath(target[0..<pathEnd], spans: targetSpans) }
        w.result.pathBytes = target[0..<pathEnd]
        if walkTarget, let q {
            let end = ByteSearch.index(of: UInt8(ascii: "#"), in: all, from: q + 1)
            w.walkForm(target[(q + 1)..<end], prefix: "query:", origin: .query, depth: 0, spans: targetSpans)
        }
        w.walkHeaders(request.headers, spans: prunes ? pruning?.headers : nil)
        w.walkBody(request, spans: prunes ? pruning?.body : nil)
        return w.takeResult()
    }

    /// Adds to `result` what the messages of `streams` hold, except the request's own gRPC messages
    /// (the body walk reads those). With `matcher` (profile mode with pruning), text messages
    /// without a span are skipped.
    func extract(_ streams: FlowStreams, into result: inout Result, matcher: WalkMatcher?) {
        var w = FieldWalker(config: self)
        w.pruning = matcher
        swap(&w.result, &result)
        let grpc = streams.kind == .grpc || streams.kind == .grpcWeb
        w.walkStreams(streams) { !grpc || $0.direction == .server }
        result = w.takeResult()
    }

        /// Extracts from a free-standing value (tests, other sources): as if found at `location`.
    public func extract(value: [UInt8], location: String, key: String = "") -> Result {
        var w = FieldWalker(config: self)
        w.leaf(value[...], FieldOrigin(location: location, key: key), depth: 0)
        return w.takeResult()
    }
}

/// Headers whose values are not walked (`Cookie` is, pair by pair); the span scan skips them too.
let skippedHeaders: Set<String> = ["host", "content-length", "connection", "accept-encoding", "content-encoding",
                                           "transfer-encoding", "accept", "accept-language", "cookie", "content-type",
                                           "keep-alive", "te", "upgrade", "cache-control", "pragma"]

/// One request's decode walk: the state `FieldExtractor.extract` threads through the decoders (fields and
/// groups found so far, and in profile mode the spans that let it skip parts).
/// The decoders are extensions, one file per format: `PathWalk`, `HeaderWalk` (and cookies),
/// `FormWalk` (and queries), `BodyWalk` (content codings, then the document by type),
/// `MultipartWalk`, `JSONWalk`, `XMLWalk` (and plists), `ProtobufWalk`, and `LeafWalk` (the
/// encodings a single value may hide: base64, hex, compression, numbers in text).
struct FieldWalker {
    let config: FieldExtractor
    var result = FieldExtractor.Result()
    /// Profile mode with pruning: the matcher that finds the spans of decoded bodies (the request's
    /// own spans are passed down from `extract`).
    var pruning: WalkMatcher?
    /// Names of the protobuf fields of the request's host (`ProtobufSchemas`), set by the body walk.
    var protobufNames: ProtobufSchemas.Names?

    init(config: FieldExtractor) { self.config = config }

    var full: Bool { result.fields.count >= config.maxFields }

    /// The walk's result, moved out (the walker is left with an empty one): returning `result`
    /// itself copies it (a retain of each of its arrays), then releases the walker's.
    mutating func takeResult() -> FieldExtractor.Result {
        var out = FieldExtractor.Result()
        swap(&out, &result)
        return out
    }

    mutating func emit(_ bytes: ArraySlice<UInt8>, _ origin: FieldOrigin, isNumber: Bool = false) {
        // Nothing shorter can be a value worth finding (profile variants have 5+ bytes, name parts
        // 2+); small numbers (counts, flags, status codes) are most of a body's numbers.
        guard !full, bytes.count >= (isNumber ? 5 : 2) else { return }
        // A walked request yields a few fields: room for 8 saves the regrowths at 1, 2 and 4
        // without a large first allocation, made with the first field (a walk may find none).
        if result.fields.capacity == 0 { result.fields.reserveCapacity(8) }
        result.fields.append(ExtractedField(bytes: bytes, origin: origin, isNumber: isNumber))
    }
}

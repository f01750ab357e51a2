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
struct FieldWalker {
    let config: FieldExtractor
    var result = FieldExtractor.Result()
    /// Profile mode with pruning: the matcher that finds the spans of decoded bodies (the request's
    /// own spans are passed down from `extract`).
    var pruning: WalkMatcher?

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
        // A walked request yields a few fields (3 on average on the dev corpus): room for 8 saves
        // the regrowths at 1, 2 and 4 without a large first allocation (4 and 16 measured worse),
        // made with the first field (a walk may find none).
        if result.fields.capacity == 0 { result.fields.reserveCapacity(8) }
        result.fields.append(ExtractedField(bytes: bytes, origin: origin, isNumber: isNumber))
    }

    // MARK: URL path

    /// `spans` (over the target's bytes) skips segments that cannot hold a profile value.
    mutating func walkPath(_ path: ArraySlice<UInt8>, spans: [Range<Int>]?) {
        var previous: ArraySlice<UInt8> = []
        forEachPart(of: path, separatedBy: UInt8(ascii: "/")) { segment in
            if spans.map({ touches($0, segment.startIndex..<segment.endIndex) }) ?? true {
                leaf(segment, FieldOrigin(location: "url", key: String(decoding: previous, as: UTF8.self)), depth: 0)
            }
            previous = segment
            return true
        }
    }

    // MARK: headers and cookies

    /// `spans` (per header, over its value) skips headers and cookies that cannot hold a profile value.
    mutating func walkHeaders(_ headers: HTTPHeaders, spans: RequestInterest.HeaderSpans?) {
        var members: [NumberGroup.Member] = []
        let fields = headers.fields
        for index in fields.indices {
            // No span: nothing to find in it, but its number (if any) still joins the headers' group.
            // Read in place: most headers are passed over without copying their field.
            let quiet = spans.map { $0[index].isEmpty } ?? false
            let count = fields[index].valueBytes.count
            let number = count >= 3 && count <= 24 ? parseDecimal(fields[index].valueBytes[...]) : nil
            if quiet, number == nil { continue }
            let field = fields[index]
            let headerSpans = spans?[index]
            let name = field.name.lowercased()
            if name == "cookie" {
                if !quiet { walkCookies(field.valueBytes, spans: headerSpans.map(Array.init)) }
                continue
            }
            if skippedHeaders.contains(name) { continue }
            if let number { members.appendMember(.init(key: field.name, value: number.value, decimals: number.decimals)) }
            if !quiet { leaf(field.valueBytes[...], FieldOrigin(location: "header:" + field.name, key: field.name), depth: 0) }
        }
        if members.count >= 2 {
            result.groups.append(NumberGroup(prefix: "header:", inner: nil, decodings: [], containerKey: "", members: members, fromOneString: false))
        }
    }

    mutating func walkCookies(_ bytes: [UInt8], spans: [Range<Int>]?) {
        var members: [NumberGroup.Member] = []
        defer {
            if members.count >= 2 {
                result.groups.append(NumberGroup(prefix: "cookie:", inner: nil, decodings: [], containerKey: "", members: members, fromOneString: false))
            }
        }
        for part in bytes.split(separator: UInt8(ascii: ";")) {
            var p = part
            while let f = p.first, f == 0x20 { p = p.dropFirst() }
            guard let eq = p.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: p[p.startIndex..<eq], as: UTF8.self)
            var value = p[(eq + 1)...]
            if value.count >= 2, value.first == 0x22, value.last == 0x22 { value = value.dropFirst().dropLast() }
            if let n = parseDecimal(value) { members.appendMember(.init(key: name, value: n.value, decimals: n.decimals)) }
            if let spans, !touches(spans, p.startIndex..<p.endIndex) { continue }
            leaf(value, FieldOrigin(location: "cookie:" + name, key: name), depth: 0)
        }
    }

    // MARK: form and query

    /// `a=1&b=2` (also `;` separators); names percent-decoded; `prefix` + name is the location,
    /// unless `origin` already sits inside a blob (then the name extends its inner path).
    /// `spans` (over the bytes `bytes` is a slice of) skips pairs that cannot hold a profile value.
    mutating func walkForm(_ bytes: ArraySlice<UInt8>, prefix: String, origin: FieldOrigin, depth: Int, spans: [Range<Int>]? = nil) {
        var members: [NumberGroup.Member] = []
        let nested = prefix.isEmpty
        var complete = true
        // The decodings of a percent-decoded value: built once, shared by the pairs.
        var urlDecodings: [String]?
        // A loop, not `forEachPart`: a closure here would copy the walker for every pair.
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = ByteSearch.index(of: UInt8(ascii: "&"), in: bytes, from: start)
            defer { start = end + 1 }
            guard end > start else { continue }
            let pair = bytes[start..<end]
            if full { complete = false; break }
            let eqAt = ByteSearch.index(of: UInt8(ascii: "="), in: pair, from: pair.startIndex)
            let eq = eqAt < pair.endIndex ? eqAt : nil
            // A pair without escapes decodes to itself: when no span touches it, only its number
            // (for coordinate pairs) is needed.
            if let spans, !touches(spans, pair.startIndex..<pair.endIndex),
               !ByteSearch.contains(UInt8(ascii: "%"), or: UInt8(ascii: "+"), in: pair) {
                if let eq, let n = parseDecimal(pair[(eq + 1)...]) {
                    let name = String(decoding: pair[pair.startIndex..<eq], as: UTF8.self)
                    members.appendMember(.init(key: name, value: n.value, decimals: n.decimals))
                }
                continue
            }
            let rawName = eq.map { pair[pair.startIndex..<$0] } ?? pair
            let rawValue = eq.map { pair[($0 + 1)...] } ?? pair[pair.endIndex...]
            let decodedName = ByteCodecs.percentDecode(rawName, plusAsSpace: true)
            let name = decodedName.map { String(decoding: $0, as: UTF8.self) } ?? String(decoding: rawName, as: UTF8.self)
            var o = FieldOrigin(location: nested ? origin.location : prefix + name,
                                inner: nested ? (origin.inner ?? "") + (origin.inner == nil ? "" : ".") + name : origin.inner,
                                decodings: origin.decodings, key: bracketLeaf(name), parentKey: origin.key)
            if eq == nil {
                if !nested { leaf(rawName, FieldOrigin(location: prefix.hasPrefix("query") ? "query:\(name)" : o.location, key: ""), depth: depth) }
                continue
            }
            if let decoded = ByteCodecs.percentDecode(rawValue, plusAsSpace: true) {
                if let n = parseDecimal(decoded[...]) { members.appendMember(.init(key: name, value: n.value, decimals: n.decimals)) }
                if urlDecodings == nil { urlDecodings = origin.decodings.isEmpty ? Self.urlOnly : origin.decodings + ["url"] }
                o.decodings = urlDecodings ?? []
                leaf(decoded[...], o, depth: depth + 1)
            } else {
                if let n = parseDecimal(rawValue) { members.appendMember(.init(key: name, value: n.value, decimals: n.decimals)) }
                leaf(rawValue, o, depth: depth)
            }
        }
        guard complete else { return }
        if members.count >= 2 {
            if nested {
                result.groups.append(NumberGroup(prefix: origin.location, inner: (origin.inner.map { $0 + "." } ?? ""), decodings: origin.decodings,
                                                 containerKey: origin.key, members: members, fromOneString: false))
            } else {
                result.groups.append(NumberGroup(prefix: prefix, inner: nil, decodings: origin.decodings, containerKey: "",
                                                 members: members, fromOneString: false))
            }
        }
    }

    /// The decodings of a value percent-decoded from a form read as sent (a query string, most
    /// often): one array shared by every request.
    static let urlOnly = ["url"]

    /// `ud[em]` → `em`, `a[]` → `a`.
    func bracketLeaf(_ name: String) -> String {
        // Most names do not end in `]`: told from the last byte before the character test.
        var text = name
        guard text.withUTF8({ $0.last }) == UInt8(ascii: "]"), name.hasSuffix("]"), let open = name.lastIndex(of: "[") else { return name }
        let inside = name[name.index(after: open)..<name.index(before: name.endIndex)]
        return inside.isEmpty ? String(name[..<open]) : String(inside)
    }

    // MARK: body

    /// `spans` are the raw body's; a body decoded here (compressed) gets its own from the matcher.
    mutating func walkBody(_ request: HTTPRequest, spans: [Range<Int>]?) {
        var body = request.body
        guard !body.isEmpty else { return }
        var spans = spans
        var decodings: [String] = []
        let content = contentHeaders(request.headers)
        if let ce = content.encoding?.trimmingASCIISpaces(), !ce.isEmpty, ce != "identity" {
            if let out = try? ContentDecoder(limit: config.maxDecodedBytes).decode(body, contentEncoding: ce) {
                body = out
                decodings = contentCodings(ce)
            } else {
                result.notes.append("body: cannot undo Content-Encoding \(ce)")
            }
        }
        if let (inflated, how) = inflateByMagic(body[...]) {
            body = inflated
            decodings.append(how)
        }
        // No spans from the scan: a binary body (no text scan finds its fields), or one to decode
        // first; a decoded body typed as binary is walked whole too.
        if let pruning, !decodings.isEmpty {
            spans = ByteCodecs.looksLikeText(body.prefix(512)) && !(content.type?.words.readsProtobufFirst ?? false)
                ? pruning.matcher.spans(body[...]) : nil
        }
        if pruning != nil, let spans, spans.isEmpty { return }
        let contentType = content.type ?? DocumentType(lowercased: "")
        let origin = decodings.isEmpty ? .body : FieldOrigin(location: "body", decodings: decodings)
        walkDocument(body[...], contentType: contentType, origin: origin, topLevel: true, depth: 0, spans: pruning == nil ? nil : spans,
                     document: body)
    }

    /// The codings a `Content-Encoding` value names, the last applied first (`gzip, br` → `br`, `gzip`).
    func contentCodings(_ value: String) -> [String] {
        // One coding without spaces around it (nearly every request) is the value itself: no split.
        let utf8 = value.utf8
        if utf8.first != 0x20, utf8.last != 0x20, !utf8.contains(UInt8(ascii: ",")) { return [value] }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: " ") }.reversed()
    }

    /// The first Content-Type (its `DocumentType`: `headers["Content-Type"]?.lowercased()` made only
    /// when needed) and `headers["Content-Encoding"]?.lowercased()`, in one pass over the fields
    /// comparing name bytes; ASCII values (all real ones) are folded without building the text view first.
    func contentHeaders(_ headers: HTTPHeaders) -> (type: DocumentType?, encoding: String?) {
        var type: DocumentType?
        var encoding: String?
        // Fields are read in place: `for field in fields` would copy each one (name and value
        // retained and released).
        let fields = headers.fields
        for i in fields.indices {
            let isType: Bool
            switch fields[i].name.utf8.count {
            case 12: isType = true
            case 16: isType = false
            default: continue
            }
            if isType ? type != nil : encoding != nil { continue }
            let wanted: StaticString = isType ? "content-type" : "content-encoding"
            let same = fields[i].name.utf8.withContiguousStorageIfAvailable { f in
                for k in 0..<f.count where foldASCII(f[k]) != wanted.utf8Start[k] { return false }
                return true
            } ?? asciiCaseInsensitiveEquals(fields[i].name, wanted.description)
            guard same else { continue }
            if isType {
                type = DocumentType(headerValue: fields[i].valueBytes,
                                    lowercased: asciiLowercased(fields[i].valueBytes) ?? fields[i].value.lowercased())
            } else {
                encoding = asciiLowercased(fields[i].valueBytes) ?? fields[i].value.lowercased()
            }
            if type != nil, encoding != nil { break }
        }
        return (type, encoding)
    }

    /// `bytes` as lower-case text when they are all ASCII (then folding bytes is `lowercased()`),
    /// in one pass into the string's own buffer; nil otherwise.
    func asciiLowercased(_ bytes: [UInt8]) -> String? {
        var ascii = true
        let text = bytes.withUnsafeBufferPointer { p in
            String(unsafeUninitializedCapacity: p.count) { buffer in
                for k in 0..<p.count {
                    let b = p[k]
                    guard b < 0x80 else { ascii = false; return 0 }
                    buffer[k] = foldASCII(b)
                }
                return p.count
            }
        }
        return ascii ? text : nil
    }

    /// A whole document (a body, a multipart part): by content type, else by shape.
    /// `spans` (over `document`, the array `bytes` is a slice of; top-level bodies only) prune form
    /// pairs and JSON members.
    mutating func walkDocument(_ bytes: ArraySlice<UInt8>, contentType: DocumentType, origin: FieldOrigin, topLevel: Bool, depth: Int,
                               spans: [Range<Int>]? = nil, document: [UInt8]? = nil) {
        let words = contentType.words
        if words.multipart, let boundary = boundaryParameter(contentType.lowercased) {
            walkMultipart(bytes, boundary: boundary, origin: origin, depth: depth)
            return
        }
        if words.form {
            walkForm(bytes, prefix: topLevel ? "form:" : "", origin: origin, depth: depth, spans: spans)
            return
        }
        let isGRPC = words.grpc
        // A document starting with `{` or `[` is no protobuf message (both bytes are a tag of wire
        // type 3, which `ProtobufScanner` turns away at once): its text is not looked at for that.
        let first = bytes.first
        let opensJSON = first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        if words.readsProtobufFirst || (!opensJSON && !ByteCodecs.looksLikeText(bytes.prefix(512))) {
            var payload = bytes
            if isGRPC, payload.count >= 5, payload[payload.startIndex] == 0 {
                payload = payload.dropFirst(5)
            }
            if walkProtobuf(payload, origin: origin, topLevel: topLevel, path: "pb", depth: depth) { return }
        }
        let trimmed = trimSpace(bytes)
        if let first = trimmed.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            // Read in place: the body's own array when given (its spans count in it), else a copy.
            let read = document.map { (JSONSkimmer($0), trimmed.startIndex..<trimmed.endIndex) }
                ?? (JSONSkimmer(Array(trimmed)), 0..<trimmed.count)
            var skimmer = read.0
            let range = read.1
            let walkedSpans = document == nil ? nil : spans
            if skimmer.validateIndexing(range, walkedSpans: walkedSpans) != nil {
                walkJSON(skimmer, 0, path: topLevel ? Self.jsonRoot(of: origin.location) : "$", key: "", parentKey: origin.key, origin: origin,
                             topLevel: topLevel, depth: depth, spans: walkedSpans, end: range.upperBound)
                return
            }
            if let sequence = skimmer.validateSequenceIndexing(range) {
                for (i, root) in sequence.enumerated() {
                    walkJSON(skimmer, root, path: (topLevel ? origin.location + ":$[" : "$[") + String(i) + "]", key: "",
                                 parentKey: origin.key, origin: origin, topLevel: topLevel, depth: depth, spans: nil,
                                 end: skimmer.tape[root].end)
                }
                return
            }
        }
        if let first = trimmed.first, first == UInt8(ascii: "<") {
            walkXML(trimmed, origin: origin, topLevel: topLevel, depth: depth)
            return
        }
        if topLevel, looksLikeForm(trimmed) {
            walkForm(trimmed, prefix: "form:", origin: origin, depth: depth, spans: spans)
            return
        }
        leaf(bytes, origin, depth: depth)
    }

    /// The path of the root of a JSON document at `location` (`body:$`): the body's, most often,
    /// without building it.
    static func jsonRoot(of location: String) -> String {
        location == "body" ? "body:$" : location + ":$"
    }

    func boundaryParameter(_ contentType: String) -> String? {
        var text = contentType
        // ASCII text (every real header) is read as bytes: the same answer, without Foundation's
        // search and the walk over characters.
        if let ascii = text.withUTF8({ Self.asciiBoundaryParameter($0) }) { return ascii }
        guard let r = contentType.range(of: "boundary=") else { return nil }
        var b = contentType[r.upperBound...]
        if let semi = b.firstIndex(of: ";") { b = b[..<semi] }
        return b.trimmingCharacters(in: "\" ")
    }

    /// `boundaryParameter` of ASCII text: `.some(nil)` when it has none, nil when the text is not ASCII.
    static func asciiBoundaryParameter(_ p: UnsafeBufferPointer<UInt8>) -> String?? {
        guard p.allSatisfy({ $0 < 0x80 }) else { return nil }
        let needle: StaticString = "boundary="
        let m = needle.utf8CodeUnitCount
        guard p.count >= m else { return .some(nil) }
        var at: Int?
        for i in 0...(p.count - m) where (0..<m).allSatisfy({ p[i + $0] == needle.utf8Start[$0] }) {
            at = i
            break
        }
        guard let at else { return .some(nil) }
        var start = at + m
        var end = start
        while end < p.count, p[end] != UInt8(ascii: ";") { end += 1 }
        while start < end, p[start] == UInt8(ascii: "\"") || p[start] == UInt8(ascii: " ") { start += 1 }
        while end > start, p[end - 1] == UInt8(ascii: "\"") || p[end - 1] == UInt8(ascii: " ") { end -= 1 }
        return .some(String(decoding: UnsafeBufferPointer(rebasing: p[start..<end]), as: UTF8.self))
    }

    mutating func walkMultipart(_ bytes: ArraySlice<UInt8>, boundary: String, origin: FieldOrigin, depth: Int) {
        // The content type was lower-cased; find the boundary case-insensitively.
        let delimiter = Array(("--" + boundary).utf8)
        var starts: [Int] = []
        var i = bytes.startIndex
        while i + delimiter.count <= bytes.endIndex, starts.count < 1000 {
            // The delimiter starts with `-`: most positions are ruled out by their first byte.
            if bytes[i] != 0x2D { i += 1; continue }
            var ok = true
            for k in 0..<delimiter.count where foldASCII(bytes[i + k]) != foldASCII(delimiter[k]) { ok = false; break }
            if ok { starts.append(i); i += delimiter.count } else { i += 1 }
        }
        guard starts.count >= 2 else { leaf(bytes, origin, depth: depth); return }
        for (a, b) in zip(starts, starts.dropFirst()) {
            var part = bytes[(a + delimiter.count)..<b]
            // Headers end at the first blank line.
            guard let sep = findSubsequence(part, [13, 10, 13, 10]) ?? findSubsequence(part, [10, 10]) else { continue }
            let headerBytes = part[part.startIndex..<sep]
            let sepLength = part[sep] == 13 ? 4 : 2
            part = part[(sep + sepLength)...]
            if part.last == 10 { part = part.dropLast() }
            if part.last == 13 { part = part.dropLast() }
            let (name, partType) = partHeaders(headerBytes)
            var o = origin
            o.location = "multipart:" + name
            o.key = name
            walkDocument(part, contentType: DocumentType(lowercased: partType), origin: o, topLevel: false, depth: depth + 1)
        }
    }

    /// The name (from `Content-Disposition: ...; name="..."`, else `part`) and the lower-cased
    /// content type of a multipart part's header block. ASCII headers (all real ones) are read
    /// as bytes; others as text, lines split at every kind of newline.
    func partHeaders(_ bytes: ArraySlice<UInt8>) -> (name: String, type: String) {
        var name = "part"
        var partType = ""
        guard bytes.allSatisfy({ $0 < 0x80 && $0 != 0x0B && $0 != 0x0C }) else {
            let headerText = String(decoding: bytes, as: UTF8.self)
            for line in headerText.split(whereSeparator: \.isNewline) {
                let l = line.lowercased()
                if l.hasPrefix("content-disposition"), let r = line.range(of: "name=\"") {
                    let rest = line[r.upperBound...]
                    if let q = rest.firstIndex(of: "\"") { name = String(rest[..<q]) }
                } else if l.hasPrefix("content-type:") {
                    partType = String(l.dropFirst("content-type:".count)).trimmingASCIISpaces()
                }
            }
            return (name, partType)
        }
        func hasFoldedPrefix(_ line: ArraySlice<UInt8>, _ prefix: StaticString) -> Bool {
            let n = prefix.utf8CodeUnitCount
            guard line.count >= n else { return false }
            for k in 0..<n where foldASCII(line[line.startIndex + k]) != prefix.utf8Start[k] { return false }
            return true
        }
        // Lines end at CR or LF (a CRLF ends one line: empty pieces are skipped).
        var start = bytes.startIndex
        while start < bytes.endIndex {
            var end = start
            while end < bytes.endIndex, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            let line = bytes[start..<end]
            start = end + 1
            if line.isEmpty { continue }
            if hasFoldedPrefix(line, "content-disposition"), let r = findSubsequence(line, Array("name=\"".utf8)) {
                let rest = line[(r + 6)...]
                if let q = rest.firstIndex(of: 0x22) { name = String(decoding: rest[..<q], as: UTF8.self) }
            } else if hasFoldedPrefix(line, "content-type:") {
                partType = String(decoding: line.dropFirst(13).map(foldASCII), as: UTF8.self).trimmingASCIISpaces()
            }
        }
        return (name, partType)
    }

    // MARK: JSON: see JSONWalk.swift

    // MARK: XML / plist

    /// A forgiving scan of XML text: text nodes and attribute values become leaves named by the
    /// element path; in a plist, `<key>` names the next value.
    mutating func walkXML(_ bytes: ArraySlice<UInt8>, origin: FieldOrigin, topLevel: Bool, depth: Int) {
        var stack: [String] = []
        var plistKey: String?
        var i = bytes.startIndex
        var textStart = i
        var numbers: [NumberGroup.Member] = []
        func place(_ name: String) -> FieldOrigin {
            var o = origin
            let p = "/" + stack.joined(separator: "/") + (name.isEmpty ? "" : "/" + name)
            if topLevel { o.location = "\(origin.location):\(p)" } else { o.inner = p }
            o.key = name.isEmpty ? (stack.last ?? "") : name
            return o
        }
        while i < bytes.endIndex, !full {
            guard bytes[i] == UInt8(ascii: "<") else { i += 1; continue }
            let text = trimSpace(bytes[textStart..<i])
            if !text.isEmpty {
                let decoded = xmlUnescape(text)
                let name = plistKey ?? ""
                if stack.last == "key" {
                    plistKey = String(decoding: decoded, as: UTF8.self)
                } else {
                    if let n = parseDecimal(decoded[...]) {
                        numbers.appendMember(.init(key: plistKey ?? stack.last ?? "", value: n.value, decimals: n.decimals))
                    }
                    leaf(decoded[...], place(name), depth: depth + 1)
                    plistKey = nil
                }
            }
            guard let close = bytes[i...].firstIndex(of: UInt8(ascii: ">")) else { break }
            let tag = bytes[(i + 1)..<close]
            i = close + 1
            textStart = i
            guard let f = tag.first else { continue }
            if f == UInt8(ascii: "?") || f == UInt8(ascii: "!") { continue }
            if f == UInt8(ascii: "/") { if !stack.isEmpty { stack.removeLast() }; continue }
            let selfClosing = tag.last == UInt8(ascii: "/")
            let nameEnd = tag.firstIndex(where: { $0 == 0x20 || $0 == 0x2F || $0 == 0x09 || $0 == 0x0A }) ?? tag.endIndex
            let name = String(decoding: tag[tag.startIndex..<nameEnd], as: UTF8.self)
            // Attributes: name="value".
            var j = nameEnd
            while j < tag.endIndex, let eq = tag[j...].firstIndex(of: UInt8(ascii: "=")) {
                let attrName = String(decoding: trimSpace(tag[j..<eq]), as: UTF8.self)
                var k = eq + 1
                guard k < tag.endIndex, tag[k] == 0x22 || tag[k] == 0x27 else { break }
                let quote = tag[k]
                k += 1
                guard let endQ = tag[k...].firstIndex(of: quote) else { break }
                stack.append(name)
                leaf(xmlUnescape(tag[k..<endQ])[...], place("@" + attrName), depth: depth + 1)
                stack.removeLast()
                j = endQ + 1
            }
            if !selfClosing, stack.count < 64 { stack.append(name) }
        }
        if numbers.count >= 2 {
            result.groups.append(NumberGroup(prefix: topLevel ? "\(origin.location):" : origin.location, inner: topLevel ? nil : "",
                                             decodings: origin.decodings, containerKey: "", members: numbers, fromOneString: false))
        }
    }

    func xmlUnescape(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "&")) else { return Array(bytes) }
        var s = String(decoding: bytes, as: UTF8.self)
        for (e, r) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            s = s.replacingOccurrences(of: e, with: r)
        }
        return Array(s.utf8)
    }

    // MARK: protobuf

    /// Walks a schema-less protobuf message. Returns false (and emits nothing) when the bytes are
    /// not a well-formed message.
    @discardableResult
    mutating func walkProtobuf(_ bytes: ArraySlice<UInt8>, origin: FieldOrigin, topLevel: Bool, path: String, depth: Int) -> Bool {
        guard depth < config.maxDepth, let fields = ProtobufScanner.scan(bytes) else { return false }
        var numbers: [NumberGroup.Member] = []
        for f in fields {
            if full { break }
            let p = "\(path).\(f.number)"
            var o = origin
            if topLevel { o.location = "\(origin.location):\(p)" } else { o.inner = p }
            o.key = "\(f.number)"
            switch f.value {
            case .varint(let v):
                emit(Array(String(v).utf8)[...], o, isNumber: true)
            case .fixed64(let d):
                if d.isFinite, abs(d) > 1e-6, abs(d) < 1e7 {
                    numbers.appendMember(.init(key: "\(f.number)", value: d, decimals: 6))
                }
            case .fixed32(let d):
                if d.isFinite, abs(d) > 1e-6, abs(d) < 1e7 {
                    numbers.appendMember(.init(key: "\(f.number)", value: Double(d), decimals: 4))
                }
            case .bytes(let b):
                if ByteCodecs.looksLikeText(b) {
                    leaf(b, o, depth: depth + 1)
                } else if !walkProtobuf(b, origin: origin, topLevel: topLevel, path: p, depth: depth + 1) {
                    leaf(b, o, depth: depth + 1)
                }
            }
        }
        if numbers.count >= 2 {
            result.groups.append(NumberGroup(prefix: topLevel ? "\(origin.location):\(path)." : origin.location,
                                             inner: topLevel ? nil : path + ".", decodings: origin.decodings,
                                             containerKey: path, members: numbers, fromOneString: false))
        }
        return true
    }

    // MARK: leaves

    /// Records one value and tries to decode it further. A value that parses as a structure
    /// (JSON, XML, a form, a compressed blob) is not recorded whole: its parts are, each with its
    /// own inner path, so findings point at the exact field.
    mutating func leaf(_ bytes: ArraySlice<UInt8>, _ origin: FieldOrigin, depth: Int) {
        guard !bytes.isEmpty, !full else { return }
        guard depth < config.maxDepth else { emit(bytes, origin); return }
        let trimmed = trimSpace(bytes)
        guard trimmed.count >= 4 else { emit(bytes, origin); return }
        // Compressed blobs.
        if let (inflated, how) = inflateByMagic(trimmed) {
            var o = origin
            o.decodings.append(how)
            walkDocument(inflated[...], contentType: DocumentType(lowercased: ""), origin: o, topLevel: false, depth: depth + 1)
            return
        }
        let first = trimmed[trimmed.startIndex]
        // JSON inside a string.
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            let document = Array(trimmed)
            var skimmer = JSONSkimmer(document)
            if skimmer.validateIndexing(0..<document.count) != nil {
                // Profile mode: a sizeable document (a decoded blob, most often) is pruned by its own
                // spans, as a decompressed body is (`walkBody`).
                let spans = pruning.flatMap { walk in
                    document.count >= 32 && walk.matcher.looksLikeText(document.prefix(512)) ? walk.matcher.spans(document[...]) : nil
                }
                walkJSON(skimmer, 0, path: origin.inner ?? "$", key: origin.key, parentKey: origin.parentKey, origin: origin,
                             topLevel: false, depth: depth + 1, spans: spans, end: document.count)
                return
            }
        }
        if first == UInt8(ascii: "<"), trimmed.last == UInt8(ascii: ">") {
            walkXML(trimmed, origin: origin, topLevel: false, depth: depth + 1)
            return
        }
        emit(bytes, origin)
        // One pass answers the questions below (escapes, form, decimals).
        let shape = LeafShape(trimmed)
        if shape.hasDot { numbersInString(bytes, origin) }
        // Percent-encoding left in a value (double encoding, or a header/JSON string holding it).
        if shape.hasPercentEscape, let decoded = ByteCodecs.percentDecode(trimmed, plusAsSpace: false) {
            var o = origin
            o.decodings.append("url")
            leaf(decoded[...], o, depth: depth + 1)
            return
        }
        // A query/form string inside a value.
        if shape.looksLikeForm {
            walkForm(trimmed, prefix: "", origin: origin, depth: depth + 1)
        }
        tryHex(trimmed, origin, depth: depth)
        // A run is a base64 candidate only when padded or holding an upper-case letter.
        if shape.hasUppercaseOrEquals { tryBase64(trimmed, origin, depth: depth) }
    }

    mutating func tryHex(_ bytes: ArraySlice<UInt8>, _ origin: FieldOrigin, depth: Int) {
        guard bytes.count >= 8, bytes.count % 2 == 0, bytes.count <= 1 << 16 else { return }
        // Text with some letters or digits (digits-only hex decodes to punctuation), told from the
        // pairs: hex of binary (most hex) is turned away before anything is allocated.
        guard ByteCodecs.hexDecodesToText(bytes), let decoded = ByteCodecs.hexDecode(bytes) else { return }
        var o = origin
        o.decodings.append("hex")
        leaf(decoded[...], o, depth: depth + 1)
    }

    /// Base64 / base64url: the whole value, or runs of the alphabet inside it (JWT segments,
    /// `Basic …`, `email:ts` tokens). A run is a candidate only when padded or holding an
    /// upper-case letter: `leaf` calls this only for values holding one or the other (its
    /// `LeafShape` tells, in the pass it makes anyway).
    mutating func tryBase64(_ bytes: ArraySlice<UInt8>, _ origin: FieldOrigin, depth: Int) {
        // No run can be long enough in a shorter value.
        guard bytes.count >= config.minBase64Length else { return }
        var i = bytes.startIndex
        var tried = 0
        // The origin of what the runs decode to: the same for every run, built for the first.
        var decodedOrigin: FieldOrigin?
        while i < bytes.endIndex, tried < 64 {
            guard let run = nextBase64Candidate(bytes, from: &i) else { return }
            tried += 1
            guard let decoded = ByteCodecs.base64Decode(run), decoded.count >= 4 else { continue }
            let o: FieldOrigin
            if let decodedOrigin {
                o = decodedOrigin
            } else {
                var made = origin
                made.decodings.append("base64")
                o = made
                decodedOrigin = made
            }
            if decoded.count >= 2, decoded[0] == 0x1F, decoded[1] == 0x8B {
                leaf(decoded[...], o, depth: depth + 1)
            } else if ByteCodecs.looksLikeText(decoded) {
                leaf(decoded[...], o, depth: depth + 1)
            } else if decoded.count >= 8 {
                _ = walkProtobuf(decoded[...], origin: o, topLevel: false, path: "pb", depth: depth + 1)
            }
        }
    }

    /// The next run of the base64/base64url alphabet from `i` (with up to two `=` of padding) worth
    /// decoding: long enough, not plain hex, mixing cases or letters and digits. `i` moves past it.
    func nextBase64Candidate(_ bytes: ArraySlice<UInt8>, from i: inout Int) -> ArraySlice<UInt8>? {
        let minimum = config.minBase64Length
        let base = bytes.startIndex
        let table = base64RunClasses
        let found: Range<Int>? = bytes.withUnsafeBufferPointer { p in
            var k = i - base
            let n = p.count
            while k < n {
                guard table[Int(p[k])] & Base64RunClass.alphabet != 0 else { k += 1; continue }
                let start = k
                var seen: UInt8 = 0
                while k < n {
                    let c = table[Int(p[k])]
                    if c & Base64RunClass.alphabet == 0 { break }
                    seen |= c
                    k += 1
                }
                let runEnd = k
                while k < n, p[k] == 0x3D, k - runEnd < 2 { k += 1 }
                // Same tests as `looksLikeBase64Run` and the plain-hex exclusion, in the one pass.
                let padded = k > runEnd
                let upper = seen & Base64RunClass.upper != 0, lower = seen & Base64RunClass.lower != 0
                let digit = seen & Base64RunClass.digit != 0, nonHex = seen & Base64RunClass.nonHex != 0
                if k - start >= minimum, nonHex || padded, padded || (upper && lower) || (upper && digit) {
                    i = base + k
                    return (base + start)..<(base + k)
                }
            }
            i = base + n
            return nil
        }
        return found.map { bytes[$0] }
    }

    /// Decimal numbers written inside one string (`47.08,2.39`, `geo:47.08;2.39`, `[2.39, 47.08]`).
    /// Only called for bytes holding a `.` (the leaf's `LeafShape` tells).
    mutating func numbersInString(_ bytes: ArraySlice<UInt8>, _ origin: FieldOrigin) {
        guard bytes.count >= 7, bytes.count <= 200 else { return }
        var members: [NumberGroup.Member] = []
        bytes.withUnsafeBufferPointer { p in
            @inline(__always) func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
            let end = p.count
            // Every number `parseDecimal` reads holds a digit, a `.` and a digit in a row: a group
            // of two needs two such dots (most dotted values, host names and versions, have
            // none or one, and are turned away before the number-by-number read).
            var digitDots = 0
            var d = 1
            while d + 1 < end, digitDots < 2 {
                if p[d] == 0x2E, isDigit(p[d - 1]), isDigit(p[d + 1]) { digitDots += 1 }
                d += 1
            }
            guard digitDots == 2 else { return }
            var i = 0
            while i < end, members.count < 8 {
                let b = p[i]
                let startsNumber = isDigit(b) || (b == 0x2D && i + 1 < end && isDigit(p[i + 1]))
                if !startsNumber { i += 1; continue }
                if i > 0, isASCIIAlnum(p[i - 1]) || p[i - 1] == 0x2E {
                    i += 1
                    while i < end, isASCIIAlnum(p[i]) || p[i] == 0x2E { i += 1 }
                    continue
                }
                var j = i + 1
                while j < end, isDigit(p[j]) || p[j] == 0x2E { j += 1 }
                if j < end, isASCIIAlnum(p[j]) { i = j; continue }
                if let n = parseDecimal(UnsafeBufferPointer(rebasing: p[i..<j])) {
                    members.appendMember(.init(key: String(members.count), value: n.value, decimals: n.decimals))
                }
                i = j
            }
        }
        if members.count >= 2 {
            result.groups.append(NumberGroup(prefix: origin.location, inner: origin.inner, decodings: origin.decodings,
                                             containerKey: origin.key, members: members, fromOneString: true))
        }
    }

    // MARK: helpers

    func inflateByMagic(_ bytes: ArraySlice<UInt8>) -> ([UInt8], String)? {
        guard bytes.count >= 10 else { return nil }
        let b0 = bytes[bytes.startIndex], b1 = bytes[bytes.startIndex + 1]
        // Nearly every value starts otherwise: told before the decoder is made.
        let gzip = b0 == 0x1F && b1 == 0x8B
        let zlib = b0 == 0x78 && (b1 == 0x01 || b1 == 0x5E || b1 == 0x9C || b1 == 0xDA) && (UInt16(b0) << 8 | UInt16(b1)) % 31 == 0
        guard gzip || zlib else { return nil }
        let decoder = ContentDecoder(limit: config.maxDecodedBytes)
        if gzip, let out = try? decoder.gunzip(Array(bytes)) { return (out, "gzip") }
        if zlib, let out = try? decoder.inflate(Array(bytes)) { return (out, "deflate") }
        return nil
    }

    /// `a=1&b=2` or one short `key=value`: key characters only before the first `=`, no spaces or
    /// newlines, not base64 padding (`abc==`), a value after the `=` (see `LeafShape`).
    func looksLikeForm(_ bytes: ArraySlice<UInt8>) -> Bool { LeafShape(bytes).looksLikeForm }
}

/// Calls `body` with each non-empty part of `bytes` between `separator`s, in order, until it
/// returns false (`split` without the array of slices).
@inline(__always)
func forEachPart(of bytes: ArraySlice<UInt8>, separatedBy separator: UInt8, _ body: (ArraySlice<UInt8>) -> Bool) {
    var start = bytes.startIndex
    while start < bytes.endIndex {
        var end = start
        while end < bytes.endIndex, bytes[end] != separator { end += 1 }
        if end > start, !body(bytes[start..<end]) { return }
        start = end + 1
    }
}

/// Removes ASCII whitespace around a byte slice.
func trimSpace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    @inline(__always) func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    var start = bytes.startIndex, end = bytes.endIndex
    while start < end, isSpace(bytes[start]) { start += 1 }
    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
    return bytes[start..<end]
}

/// A decimal number written as `-12.345` (no exponent): its value and how many decimals it has.
func parseDecimal<C: RandomAccessCollection>(_ bytes: C) -> (value: Double, decimals: Int)? where C.Element == UInt8, C.Index == Int {
    guard bytes.count >= 3, bytes.count <= 24 else { return nil }
    var i = bytes.startIndex
    var negative = false
    if bytes[i] == 0x2D { negative = true; i += 1 } else if bytes[i] == 0x2B { i += 1 }
    var intPart: Double = 0
    var intDigits = 0
    while i < bytes.endIndex, bytes[i] >= 0x30, bytes[i] <= 0x39 {
        intPart = intPart * 10 + Double(bytes[i] - 0x30)
        intDigits += 1
        i += 1
        // More than three integer digits is no decimal of interest (timestamps, ids): answered now.
        if intDigits > 3 { return nil }
    }
    guard intDigits > 0, i < bytes.endIndex, bytes[i] == 0x2E else { return nil }
    i += 1
    var frac: Double = 0
    var scale: Double = 1
    var decimals = 0
    while i < bytes.endIndex, bytes[i] >= 0x30, bytes[i] <= 0x39 {
        frac = frac * 10 + Double(bytes[i] - 0x30)
        scale *= 10
        decimals += 1
        i += 1
    }
    guard decimals > 0, i == bytes.endIndex else { return nil }
    let v = intPart + frac / scale
    return (negative ? -v : v, decimals)
}

/// Where `needle` first occurs in `hay` (an index of `hay`), nil when it does not.
func findSubsequence(_ hay: ArraySlice<UInt8>, _ needle: [UInt8]) -> Int? {
    let found = hay.withUnsafeBufferPointer { h in needle.withUnsafeBufferPointer { firstOccurrence(of: $0, in: h) } }
    return found.map { hay.startIndex + $0 }
}

/// Where `n` first occurs in `hay`, nil when it does not (0 for an empty `n`).
private func firstOccurrence(of n: UnsafeBufferPointer<UInt8>, in hay: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let first = n.first else { return 0 }
    guard hay.count >= n.count else { return nil }
    var i = 0
    while i + n.count <= hay.count {
        if hay[i] == first {
            var ok = true
            for k in 1..<n.count where hay[i + k] != n[k] { ok = false; break }
            if ok { return i }
        }
        i += 1
    }
    return nil
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}

/// ASCII substring test on UTF-8 (no Foundation: this runs for every document).
func asciiContains(_ haystack: String, _ needle: StaticString) -> Bool {
    asciiContains(haystack, UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount))
}

func asciiContains(_ haystack: String, _ needle: String) -> Bool {
    var needle = needle
    return needle.withUTF8 { asciiContains(haystack, $0) }
}

func asciiContains(_ haystack: String, _ n: UnsafeBufferPointer<UInt8>) -> Bool {
    guard n.count > 0 else { return true }
    // Native strings are read in place; others (bridged, never in practice) through a copy.
    if let found = haystack.utf8.withContiguousStorageIfAvailable({ asciiContains($0, n) }) { return found }
    var h = haystack
    return h.withUTF8 { asciiContains($0, n) }
}

private func asciiContains(_ hay: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>) -> Bool {
    firstOccurrence(of: n, in: hay) != nil
}

/// Degrees written as integers scaled by 10^5, 10^6 or 10^7, named so (`latE7`, `lng_e6`).
func scaledCoordinate(key: String, _ digits: ArraySlice<UInt8>) -> (value: Double, decimals: Int)? {
    guard digits.count >= 5, digits.count <= 12, !digits.contains(0x2E), !digits.contains(0x65), !digits.contains(0x45) else { return nil }
    let k = key.lowercased()
    let exponent: Int
    if k.hasSuffix("e7") { exponent = 7 } else if k.hasSuffix("e6") { exponent = 6 } else if k.hasSuffix("e5") { exponent = 5 } else { return nil }
    guard let v = Int(String(decoding: digits, as: UTF8.self)) else { return nil }
    var scale = 1.0
    for _ in 0..<exponent { scale *= 10 }
    return (Double(v) / scale, exponent)
}

import MouchardCodec
import MouchardFlow
import MouchardWire

/// The body: content codings undone, then the document walked by its content type or shape.
extension FieldWalker {
    /// `spans` are the raw body's; a body decoded here (compressed) gets its own from the matcher.
    mutating func walkBody(_ request: HTTPRequest, spans: [Range<Int>]?) {
        var body = request.body
        guard !body.isEmpty else { return }
        var spans = spans
        var decodings: [String] = []
        let content = contentHeaders(request.headers)
        // A gRPC body is a sequence of messages, each walked under its label (`MessageWalk`).
        if content.type?.words.grpc == true, let streams = FlowStreams(Flow(id: 0, source: .proxy, transport: .https, request: request)) {
            walkStreams(streams) { $0.direction == .client }
            return
        }
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
        // A body that may be a protobuf message: its host may name the fields.
        if let first = body.first, first != UInt8(ascii: "{"), first != UInt8(ascii: "[") {
            protobufNames = ProtobufSchemas.names(host: request.host)
        }
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
        let isGRPC = words.grpc
        // A document starting with `{` or `[` is no protobuf message (both bytes are a tag of wire
        // type 3, which `ProtobufScanner` turns away at once): its text is not looked at for that.
        let first = bytes.first
        let opensJSON = first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        let binary = !opensJSON && !ByteCodecs.looksLikeText(bytes.prefix(512))
        // A form is text: a binary body typed as one (Firebase app measurement's gzip protobuf) is
        // read by its shape below.
        if words.form, !binary {
            walkForm(bytes, prefix: topLevel ? "form:" : "", origin: origin, depth: depth, spans: spans)
            return
        }
        if binary, walkJPEG(bytes, origin: origin) { return }
        if words.readsProtobufFirst || binary {
            var payload = bytes
            if isGRPC, payload.count >= 5, payload[payload.startIndex] == 0 {
                payload = payload.dropFirst(5)
            }
            if walkProtobuf(payload, origin: origin, topLevel: topLevel, path: "pb", depth: depth) { return }
        }
        // A binary record (no protobuf message): its strings and number pairs, then the bytes as a leaf.
        if binary { walkBinaryRecord(bytes, origin: origin, depth: depth) }
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
}

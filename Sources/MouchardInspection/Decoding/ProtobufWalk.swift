/// Schema-less protobuf messages.
extension FieldWalker {
    /// Walks a schema-less protobuf message. Returns false (and emits nothing) when the bytes are
    /// not a well-formed message. `path` is the message's own (`pb`, `pb.3`); an empty one names
    /// the fields of a message read on its own (a gRPC or WebSocket message) `field 3`, `field 3.1`.
    @discardableResult
    mutating func walkProtobuf(_ bytes: ArraySlice<UInt8>, origin: FieldOrigin, topLevel: Bool, path: String, depth: Int) -> Bool {
        guard depth < config.maxDepth, let fields = ProtobufScanner.scan(bytes) else { return false }
        var numbers: [NumberGroup.Member] = []
        for f in fields {
            if full { break }
            let p = path.isEmpty ? "field \(f.number)" : "\(path).\(f.number)"
            var o = origin
            if topLevel { o.location = "\(origin.location):\(p)" } else { o.inner = p }
            o.key = protobufNames.flatMap { ProtobufSchemas.name($0, path: p) } ?? "\(f.number)"
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
                                             inner: topLevel ? nil : path.isEmpty ? "field " : path + ".", decodings: origin.decodings,
                                             containerKey: path, members: numbers, fromOneString: false))
        }
        return true
    }
}

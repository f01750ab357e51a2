/// What a `Content-Type` value tells the span scan about the body: read as protobuf first
/// (`ContentTypeWords.readsProtobufFirst`), multipart (a part may be), or neither. Read from the
/// bytes in any ASCII case (no lower-cased copy), answers remembered for all inspectors (apps send
/// the same few types with every request; the answer depends only on the value).
enum ContentTypeReading: Sendable {
    case binary, multipart, other

    private static let known = HeaderValueCache<ContentTypeReading>()

    /// The reading of the value `value`.
    static func of(_ value: [UInt8]) -> ContentTypeReading {
        known.answer(for: value) { v in
            binaryTypeWords.isFound(in: v[...]) ? .binary : multipartWord.isFound(in: v[...]) ? .multipart : .other
        }
    }
}

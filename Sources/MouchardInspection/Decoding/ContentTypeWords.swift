/// The words of a `Content-Type` value that choose how a document is read (`multipart/`,
/// `x-www-form-urlencoded`, `grpc`, `protobuf`, `octet-stream`, `x-thrift`), found in one pass
/// over the value: each flag is exactly `asciiContains(contentType, word)`, where asking the six
/// questions one by one would read the value six times for every document.
struct ContentTypeWords {
    var multipart = false
    var form = false
    var grpc = false
    var protobuf = false
    var octetStream = false
    var thrift = false

    init(_ contentType: String) {
        var text = contentType
        self = text.withUTF8 { ContentTypeWords(scanning: $0) }
    }

    /// The words of a value whose bytes are ASCII without upper case (read as they are, as the
    /// text they make would be).
    init(lowerCaseASCII bytes: [UInt8]) {
        self = bytes.withUnsafeBufferPointer { ContentTypeWords(scanning: $0) }
    }

    /// The one pass.
    private init(scanning hay: UnsafeBufferPointer<UInt8>) {
        let n = hay.count
        var i = 0
        while i < n {
            switch hay[i] {
            case UInt8(ascii: "m"): if !multipart { multipart = Self.has("multipart/", in: hay, at: i) }
            case UInt8(ascii: "x"):
                if !form { form = Self.has("x-www-form-urlencoded", in: hay, at: i) }
                if !thrift { thrift = Self.has("x-thrift", in: hay, at: i) }
            case UInt8(ascii: "g"): if !grpc { grpc = Self.has("grpc", in: hay, at: i) }
            case UInt8(ascii: "p"): if !protobuf { protobuf = Self.has("protobuf", in: hay, at: i) }
            case UInt8(ascii: "o"): if !octetStream { octetStream = Self.has("octet-stream", in: hay, at: i) }
            default: break
            }
            i += 1
        }
    }

    /// A document of this type is read as protobuf first, whatever its bytes look like (`walkDocument`).
    var readsProtobufFirst: Bool { grpc || protobuf || octetStream || thrift }

    /// The words behind `readsProtobufFirst`, for searches over raw bytes (the span scan).
    static let protobufFirstWords = ["grpc", "protobuf", "octet-stream", "x-thrift"]
    /// The word behind `multipart`.
    static let multipartWord = "multipart/"

    /// `word` sits in `hay` at `i`.
    private static func has(_ word: StaticString, in hay: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        let count = word.utf8CodeUnitCount
        guard i >= 0, count <= hay.count - i else { return false }
        let w = word.utf8Start
        for k in 0..<count where hay[i + k] != w[k] { return false }
        return true
    }
}

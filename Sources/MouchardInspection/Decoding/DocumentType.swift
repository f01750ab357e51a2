/// A document's `Content-Type` as the walk reads it: the words that choose the reader, and the
/// lower-cased text, made only when read (a multipart body's boundary). A header value already
/// in lower-case ASCII (nearly every real one) is not made text for the other documents.
struct DocumentType {
    let words: ContentTypeWords
    /// The lower-cased text, when it was made or given.
    private let text: String?
    /// The header value's bytes, lower-case ASCII, when `text` was not made.
    private let bytes: [UInt8]?

    /// A type already lower-cased (a multipart part's, or none: `""`).
    init(lowercased text: String) {
        self.init(words: ContentTypeWords(text), text: text, bytes: nil)
    }

    /// A header value's bytes: read in place when they are lower-case ASCII, else as `lowercased`
    /// (the value lower-cased, made only then).
    init(headerValue bytes: [UInt8], lowercased: @autoclosure () -> String) {
        if ByteSearch.isLowercaseASCII(bytes) {
            self.init(words: ContentTypeWords(lowerCaseASCII: bytes), text: nil, bytes: bytes)
        } else {
            self.init(lowercased: lowercased())
        }
    }

    private init(words: ContentTypeWords, text: String?, bytes: [UInt8]?) {
        self.words = words
        self.text = text
        self.bytes = bytes
    }

    /// The value lower-cased (`headers["Content-Type"]?.lowercased()`).
    var lowercased: String {
        text ?? String(decoding: bytes ?? [], as: UTF8.self)
    }
}

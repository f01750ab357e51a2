import MouchardWire

/// A document's `Content-Type` as the walk reads it: the words that choose the reader, and the
/// lower-cased text, made only when read (a multipart body's boundary). A header value of ASCII
/// bytes (every real one) is not made text at all for the other documents.
struct DocumentType {
    let words: ContentTypeWords
    /// The lower-cased text, when it was given as text.
    private let text: String?
    /// The raw ASCII bytes, when the type came from a header value (`text` then is nil).
    private let ascii: [UInt8]?

    /// A type already lower-cased (a multipart part's, or none: `""`).
    init(lowercased text: String) {
        self.init(words: ContentTypeWords(text), text: text, ascii: nil)
    }

    /// A header value: read from its bytes when they are all ASCII, else from its lower-cased text.
    init(headerValue field: HTTPField) {
        if field.valueBytes.allSatisfy({ $0 < 0x80 }) {
            self.init(words: ContentTypeWords(asciiFolding: field.valueBytes), text: nil, ascii: field.valueBytes)
        } else {
            self.init(lowercased: field.value.lowercased())
        }
    }

    private init(words: ContentTypeWords, text: String?, ascii: [UInt8]?) {
        self.words = words
        self.text = text
        self.ascii = ascii
    }

    /// The value lower-cased (`headers["Content-Type"]?.lowercased()`).
    var lowercased: String {
        if let text { return text }
        return String(decoding: (ascii ?? []).map(foldASCII), as: UTF8.self)
    }
}

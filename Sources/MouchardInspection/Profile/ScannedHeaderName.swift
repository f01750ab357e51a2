/// What a header's name tells the span scan (`KnownValueMatcher.interest`), read from its bytes
/// in any ASCII case without a lower-cased copy: whether the walk reads the value at all, and
/// the few headers that change how the request is read.
///
/// The unread names are `skippedHeaders` but `Cookie` (walked pair by pair), written out here so
/// that telling them costs a length, a byte and one comparison (`ScannedHeaderNameTests` ties the
/// two lists).
enum ScannedHeaderName: Equatable {
    /// The walk reads the value: it needs spans.
    case read
    /// `Authorization`: read, and a credential in a cleartext request.
    case authorization
    /// A header whose value the walk never reads (`FieldWalker.walkHeaders`).
    case unread
    /// `Content-Type`: unread, but a binary type makes the body walked whole.
    case contentType
    /// `Content-Encoding`: unread, and the body is walked whole after decoding.
    case contentEncoding

    /// The kind of the header named `name`; names are compared as `foldASCII` of each byte.
    init(_ name: UnsafeBufferPointer<UInt8>) {
        guard name.count >= 2 else { self = .read; return }
        let n = name.count
        let unread: Bool
        switch (n, foldASCII(name[0])) {
        case (2, 0x74): unread = Self.same(name, "te")
        case (4, 0x68): unread = Self.same(name, "host")
        case (6, 0x61): unread = Self.same(name, "accept")
        case (6, 0x70): unread = Self.same(name, "pragma")
        case (7, 0x75): unread = Self.same(name, "upgrade")
        case (10, 0x63): unread = Self.same(name, "connection")
        case (10, 0x6B): unread = Self.same(name, "keep-alive")
        case (12, 0x63):
            self = Self.same(name, "content-type") ? .contentType : .read
            return
        case (13, 0x61):
            self = Self.same(name, "authorization") ? .authorization : .read
            return
        case (13, 0x63): unread = Self.same(name, "cache-control")
        case (14, 0x63): unread = Self.same(name, "content-length")
        case (15, 0x61): unread = Self.same(name, "accept-encoding") || Self.same(name, "accept-language")
        case (16, 0x63):
            self = Self.same(name, "content-encoding") ? .contentEncoding : .read
            return
        case (17, 0x74): unread = Self.same(name, "transfer-encoding")
        default: unread = false
        }
        self = unread ? .unread : .read
    }

    /// The walk reads nothing of the value.
    var isUnread: Bool { self == .unread || self == .contentType || self == .contentEncoding }

    /// `name` (of `word`'s length) is `word` (lower case) in any ASCII case: 8 bytes at a time
    /// (`foldedASCII`), then one by one.
    @inline(__always)
    private static func same(_ name: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard name.count == word.utf8CodeUnitCount, let base = name.baseAddress else { return false }
        let w = word.utf8Start
        var k = 0
        while k + 8 <= name.count {
            let x = UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self)
            if foldedASCII(x) != UnsafeRawPointer(w + k).loadUnaligned(as: UInt64.self) { return false }
            k += 8
        }
        while k < name.count {
            if foldASCII(name[k]) != w[k] { return false }
            k += 1
        }
        return true
    }
}

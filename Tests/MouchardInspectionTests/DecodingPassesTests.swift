import MouchardWire
import Testing
@testable import MouchardInspection

/// The fast passes of the decode walk (one-pass leaf classification, table-driven base64,
/// buffer-writing percent decoding, word-at-a-time text test) give exactly the answers of the
/// plain byte-by-byte rules they replaced, here written out as references.
@Suite("Decode walk passes")
struct DecodingPassesTests {
    /// Deterministic pseudo-random inputs over `alphabet` (lengths 0...maxLength).
    func samples(_ alphabet: [UInt8], count: Int = 3000, maxLength: Int = 40) -> [[UInt8]] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        return (0..<count).map { _ in (0..<(next() % (maxLength + 1))).map { _ in alphabet[next() % alphabet.count] } }
    }

    static let crafted: [String] = [
        "", "a", "a=", "=a", "a=b", "a==", "abc==", "a=1&b=2", "a b=c", "a=b\nc", "key[x]=1", "k%41=v", "$k=v",
        "k.y-z_w=1&", "%", "%4", "%41", "%zz%41", "1.2", "47.1,2.3", "no dots", String(repeating: "x", count: 33) + "=v",
        String(repeating: "k", count: 32) + "=v", "a=b;c=d", "user@example.org", "dXNlcjpwYXNz", "a+b=c+d",
    ]

    /// `FieldWalker.looksLikeForm` as it was written before `LeafShape`.
    func referenceLooksLikeForm(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= 3, bytes.count < 1 << 20, let eq = bytes.firstIndex(of: UInt8(ascii: "=")), eq > bytes.startIndex else { return false }
        for b in bytes[bytes.startIndex..<eq] where !(isASCIIAlnum(b) || b == 0x5F || b == 0x2D || b == 0x2E || b == 0x5B || b == 0x5D || b == 0x25 || b == 0x24) {
            return false
        }
        if bytes.contains(where: { $0 == 0x20 || $0 == 0x0A }) { return false }
        if eq + 1 < bytes.endIndex, bytes[eq + 1] == 0x3D { return false }
        if eq + 1 == bytes.endIndex { return false }
        return bytes.contains(UInt8(ascii: "&")) || eq - bytes.startIndex <= 32
    }

    func referenceHasPercentEscape(_ bytes: ArraySlice<UInt8>) -> Bool {
        var i = bytes.startIndex
        while i + 2 < bytes.endIndex {
            if bytes[i] == 0x25, hexNibble(bytes[i + 1]) != nil, hexNibble(bytes[i + 2]) != nil { return true }
            i += 1
        }
        return false
    }

    @Test func leafShapeAnswersAsThePlainRules() {
        let inputs = Self.crafted.map { Array($0.utf8) } + samples(Array("ab1=&%.4F [ ]\n$_-=".utf8))
            + samples(Array("a:{\n.°".utf8), maxLength: 24)
            + samples(Array("aZ@[`.=".utf8), maxLength: 20) + samples(Array("a=&%.".utf8), maxLength: 70)
        for bytes in inputs {
            // Also as a slice that does not start at 0, as the walker passes them.
            let padded = [0x7C] + bytes
            for slice in [bytes[...], padded[1...]] {
                let shape = LeafShape(slice)
                #expect(shape.looksLikeForm == referenceLooksLikeForm(slice), "\(bytes)")
                #expect(shape.hasPercentEscape == referenceHasPercentEscape(slice), "\(bytes)")
                #expect(shape.hasDot == slice.contains(0x2E), "\(bytes)")
                #expect(shape.hasUppercaseOrEquals == ByteSearch.containsUppercase(or: 0x3D, in: slice), "\(bytes)")
                #expect(shape.hasColon == slice.contains(0x3A), "\(bytes)")
                #expect(shape.hasNewlineOrBrace == (slice.contains(0x0A) || slice.contains(0x7B)), "\(bytes)")
                #expect(shape.hasNonASCII == slice.contains { $0 >= 0x80 }, "\(bytes)")
            }
        }
    }

    /// `ByteCodecs.base64Decode` as it was written before the table-driven loop.
    func referenceBase64Decode(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        // Up to two `=` of padding; what is left must be whole quads, or end in 2 or 3 symbols.
        let pad = bytes.reversed().prefix(while: { $0 == 0x3D }).prefix(2).count
        let symbols = bytes.dropLast(pad)
        guard !symbols.isEmpty, symbols.count % 4 != 1, pad == 0 || (symbols.count + pad) % 4 == 0 else { return nil }
        let values = symbols.map { ByteCodecs.base64Value($0) }
        guard !values.contains(nil) else { return nil }
        // Six bits per symbol, read eight at a time; leftover bits dropped.
        let bits = values.flatMap { v in (0..<6).reversed().map { (v! >> $0) & 1 } }
        return stride(from: 0, to: bits.count - 7, by: 8).map { at in bits[at..<(at + 8)].reduce(0) { $0 << 1 | $1 } }
    }

    @Test func base64DecodesAsThePlainLoop() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_".utf8)
        let inputs = samples(alphabet + [0x3D], maxLength: 30) + samples(alphabet + [0x3D, 0x2E, 0x20], count: 500)
            + samples(alphabet, count: 500).map { $0 + [0x3D] } + samples(alphabet, count: 500).map { $0 + [0x3D, 0x3D] }
        for bytes in inputs {
            #expect(ByteCodecs.base64Decode(bytes[...]) == referenceBase64Decode(bytes[...]), "\(bytes)")
        }
    }

    func referencePercentDecode(_ bytes: ArraySlice<UInt8>, plusAsSpace: Bool) -> [UInt8]? {
        var changed = false
        var out: [UInt8] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == 0x25, i + 2 < bytes.endIndex, let h = hexNibble(bytes[i + 1]), let l = hexNibble(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
                changed = true
                continue
            }
            if b == 0x2B, plusAsSpace { out.append(0x20); changed = true; i += 1; continue }
            out.append(b)
            i += 1
        }
        return changed ? out : nil
    }

    @Test func percentDecodesAsThePlainLoop() {
        // Dense escapes, then plain runs of eight and more (copied a word at a time) around rare
        // ones, with the bytes just above `%` and `+` (`&`, `,`), read from slices too.
        let sparse = Array("abcdefgh&,$*4F".utf8) + Array(repeating: UInt8(ascii: "x"), count: 12) + Array("%+".utf8)
        for bytes in samples(Array("%+4aFg1z".utf8)) + samples(sparse, maxLength: 64) {
            for plus in [true, false] {
                #expect(ByteCodecs.percentDecode(bytes[...], plusAsSpace: plus) == referencePercentDecode(bytes[...], plusAsSpace: plus), "\(bytes)")
                let inner = bytes.dropFirst(3)
                #expect(ByteCodecs.percentDecode(inner, plusAsSpace: plus) == referencePercentDecode(inner, plusAsSpace: plus), "\(bytes)")
            }
        }
    }

    @Test func textTestAnswersAsTheByteLoop() {
        func reference(_ bytes: [UInt8]) -> Bool {
            guard !bytes.isEmpty else { return false }
            let bad = bytes.filter { !($0 >= 0x20 && $0 < 0x7F) && $0 < 0x80 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }.count
            if bad * 10 > bytes.count { return false }
            if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) == nil { return false }
            return true
        }
        let inputs = samples(Array("abc XYZ{}\"".utf8) + [0x00, 0x09, 0x0A, 0x7F, 0xC3, 0xA9, 0xFF], maxLength: 64)
        for bytes in inputs {
            #expect(ByteCodecs.looksLikeText(bytes) == reference(bytes), "\(bytes)")
        }
    }

    /// The word lists the span scan searches raw bytes with are the words `ContentTypeWords` reads.
    @Test func contentTypeWordListsAreTheWordsRead() {
        for word in ContentTypeWords.protobufFirstWords {
            #expect(ContentTypeWords("application/" + word + "; v=1").readsProtobufFirst, "\(word)")
        }
        #expect(!ContentTypeWords("application/json").readsProtobufFirst)
        #expect(ContentTypeWords(ContentTypeWords.multipartWord + "form-data; boundary=b").multipart)
        #expect(!ContentTypeWords("text/plain").multipart)
    }

    /// `FieldWalker.numbersInString`'s numbers as it read them before its digit-dot-digit pre-check.
    func referenceNumbersInString(_ p: [UInt8]) -> [Double] {
        guard p.count >= 7, p.count <= 200, let dot = p.firstIndex(of: 0x2E), p[(dot + 1)...].contains(0x2E) else { return [] }
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        var members: [Double] = []
        var i = 0
        while i < p.count, members.count < 8 {
            let b = p[i]
            if !(isDigit(b) || (b == 0x2D && i + 1 < p.count && isDigit(p[i + 1]))) { i += 1; continue }
            if i > 0, isASCIIAlnum(p[i - 1]) || p[i - 1] == 0x2E {
                i += 1
                while i < p.count, isASCIIAlnum(p[i]) || p[i] == 0x2E { i += 1 }
                continue
            }
            var j = i + 1
            while j < p.count, isDigit(p[j]) || p[j] == 0x2E { j += 1 }
            if j < p.count, isASCIIAlnum(p[j]) { i = j; continue }
            if let n = parseDecimal(p[i..<j]) { members.append(n.value) }
            i = j
        }
        return members.count >= 2 ? members : []
    }

    /// The numbers read inside one string are the ones the plain read finds.
    @Test func numbersInStringAsThePlainRead() {
        let inputs = samples(Array("0123456789..-, a:".utf8), count: 4000, maxLength: 30)
            + samples(Array("12.,-x".utf8), count: 2000, maxLength: 16)
        // Strings of decimals and what may sit around them.
        let pieces = ["47.08", "-2.39", "0.5", "12.3456", "1.2.3", "v1.2", "a", ",", " ", ";", ":", "-", ".", "7", "x9.9"]
        var state: UInt64 = 0x1234_5678_9ABC_DEF1
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let joined = (0..<4000).map { _ in Array((0..<(next() % 9)).map { _ in pieces[next() % pieces.count] }.joined().utf8) }
        var groups = 0
        for bytes in inputs + joined {
            var walker = FieldWalker(config: FieldExtractor())
            let padded = [0x7C] + bytes
            walker.numbersInString(padded[1...], FieldOrigin(location: "x"))
            let found = walker.result.groups.first?.members.map(\.value) ?? []
            #expect(found == referenceNumbersInString(bytes), "\(bytes)")
            #expect(walker.result.groups.count <= 1)
            groups += walker.result.groups.count
        }
        // The samples hold groups to find, not only values turned away.
        #expect(groups >= 100)
    }

    /// `ByteSearch`'s eight-bytes-at-a-time answers are the byte-by-byte ones.
    @Test func byteSearchAgreesWithPlainSearches() {
        let alphabet = Array("aZ%+=&.-AzM@[`{\u{7F}".utf8) + [0x80, 0xC1, 0xDA, 0x40, 0x5B, 0x00, 0xFF]
        for bytes in samples(alphabet, maxLength: 40) {
            let slice = bytes[...]
            #expect(ByteSearch.contains(0x25, or: 0x2B, in: slice) == slice.contains { $0 == 0x25 || $0 == 0x2B }, "\(bytes)")
            #expect(ByteSearch.containsUppercase(or: 0x3D, in: slice) == slice.contains { ($0 >= 0x41 && $0 <= 0x5A) || $0 == 0x3D },
                    "\(bytes)")
            #expect(ByteSearch.isLowercaseASCII(bytes) == bytes.allSatisfy { $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) }, "\(bytes)")
            for from in [0, 3, 9] {
                let expected = slice.dropFirst(from).firstIndex(of: 0x26) ?? slice.endIndex
                #expect(ByteSearch.index(of: 0x26, in: slice, from: from) == expected, "\(bytes) \(from)")
            }
            // Slices that do not start at 0.
            if bytes.count > 5 {
                let inner = bytes[2..<(bytes.count - 1)]
                #expect(ByteSearch.index(of: 0x26, in: inner, from: 2) == (inner.firstIndex(of: 0x26) ?? inner.endIndex), "\(bytes)")
                #expect(ByteSearch.contains(0x25, or: 0x2B, in: inner) == inner.contains { $0 == 0x25 || $0 == 0x2B }, "\(bytes)")
            }
        }
    }

    /// The multipart boundary read from ASCII bytes is the one the text search finds.
    @Test func asciiBoundaryIsTheTextSearchOne() {
        func reference(_ contentType: String) -> String? {
            guard let r = contentType.range(of: "boundary=") else { return nil }
            var b = contentType[r.upperBound...]
            if let semi = b.firstIndex(of: ";") { b = b[..<semi] }
            return b.trimmingCharacters(in: "\" ")
        }
        let types = ["multipart/form-data; boundary=abc", "multipart/form-data; boundary=\"a b\"; charset=x", "multipart/mixed",
                     "multipart/form-data; boundary=", "multipart/form-data;boundary= \" x\" ", "boundary=;", "boundary",
                     "multipart/x; boundary=a=b; boundary=c", "", "multipart/form-data; boundary=\"\"\""]
        for t in types {
            var text = t
            let fast = text.withUTF8 { FieldWalker.asciiBoundaryParameter($0) }
            #expect(fast != nil, "\(t)")
            #expect(fast.flatMap { $0 } == reference(t), "\(t)")
        }
        var accented = "multipart/form-data; boundary=é"
        #expect(accented.withUTF8 { FieldWalker.asciiBoundaryParameter($0) } == nil)
    }

    /// A header's content type read from its bytes gives the words and text of its lower-cased value.
    @Test func documentTypeIsTheLowerCasedValue() {
        let values = ["application/json; charset=utf-8", "Application/JSON", "multipart/form-data; boundary=AbC", "application/x-www-form-urlencoded",
                      "application/grpc+proto", "APPLICATION/X-PROTOBUF", "text/plain; charset=\u{E9}", "", "application/octet-stream",
                      "application/x-thrift", "Multipart/Mixed; boundary=x"]
        for value in values {
            let field = HTTPField(name: "Content-Type", value: value)
            let type = DocumentType(headerValue: field.valueBytes, lowercased: field.value.lowercased())
            let reference = ContentTypeWords(value.lowercased())
            #expect(type.lowercased == value.lowercased(), "\(value)")
            #expect([type.words.multipart, type.words.form, type.words.grpc, type.words.protobuf, type.words.octetStream, type.words.thrift]
                    == [reference.multipart, reference.form, reference.grpc, reference.protobuf, reference.octetStream, reference.thrift], "\(value)")
        }
    }

    /// `walkDocument` skips the text test for documents opening with `{` or `[` because no
    /// protobuf message starts with either byte (a tag of wire type 3).
    @Test func noProtobufMessageOpensLikeJSON() {
        for first in [UInt8(ascii: "{"), UInt8(ascii: "[")] {
            for rest in samples([0x00, 0x08, 0x12, 0x7B, 0x5B, 0x22, 0xFF, 0x01], count: 500, maxLength: 30) {
                #expect(ProtobufScanner.scan(([first] + rest)[...]) == nil, "\([first] + rest)")
            }
        }
    }

    /// The hex pre-check answers exactly as decoding, the text test and the letter-or-digit test.
    @Test func hexPreCheckAnswersAsDecoding() {
        func reference(_ bytes: ArraySlice<UInt8>) -> Bool {
            guard bytes.allSatisfy({ hexNibble($0) != nil }), let decoded = ByteCodecs.hexDecode(bytes) else { return false }
            return ByteCodecs.looksLikeText(decoded) && decoded.contains(where: { isASCIIAlnum($0) })
        }
        func hex(_ bytes: [UInt8]) -> [UInt8] { Array(bytes.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined().utf8) }
        // Pairs of bytes chosen around every UTF-8 boundary, control bytes and letters.
        let interesting: [UInt8] = [0x00, 0x09, 0x0A, 0x1F, 0x20, 0x41, 0x7A, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1,
                                    0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF, 0x31]
        var inputs = samples(interesting, count: 6000, maxLength: 12).map(hex)
        inputs += samples(Array("0123456789abcdefABCDEFgx".utf8), count: 2000, maxLength: 24)
        inputs += ["café", "😀 ok", "a\u{0}b", "plain text 1", "\u{10FFFF}z"].map { hex(Array($0.utf8)) }
        for bytes in inputs {
            #expect(ByteCodecs.hexDecodesToText(bytes[...]) == reference(bytes[...]), "\(String(decoding: bytes, as: UTF8.self))")
        }
    }
}


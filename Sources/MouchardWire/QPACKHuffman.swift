/// The Huffman code of HPACK and QPACK string literals (RFC 7541 Appendix B, used by RFC 9204
/// §4.1.2). The code is canonical (codes of one length are consecutive, in symbol order, and
/// shorter codes come first), so the table is kept as each symbol's code length and the codes
/// follow from it. Decoding walks bit by bit through the lengths; the end may hold at most 7
/// padding bits, all ones (a prefix of end-of-string), anything else is an error.
public enum QPACKHuffman {
    /// Code lengths of symbols 0...255 and 256 (end of string).
    static let lengths: [UInt8] = [
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
        30,    ]

    static let endOfString = 256

    /// Per length: the first code of that length, how many codes have it, and where its symbols
    /// start in `symbols` (symbols ordered by length, then value).
    private struct Decoding {
        var firstCode = [UInt32](repeating: 0, count: 31)
        var count = [Int](repeating: 0, count: 31)
        var start = [Int](repeating: 0, count: 31)
        var symbols: [Int] = []
    }

    private static let decoding: Decoding = {
        var d = Decoding()
        d.symbols = (0...endOfString).sorted { (lengths[$0], $0) < (lengths[$1], $1) }
        for l in lengths { d.count[Int(l)] += 1 }
        var code: UInt32 = 0
        var index = 0
        for length in 1...30 {
            d.firstCode[length] = code
            d.start[length] = index
            code = (code + UInt32(d.count[length])) << 1
            index += d.count[length]
        }
        return d
    }()

    /// The decoded bytes of `encoded`, nil when it is not a valid Huffman string.
    public static func decode(_ encoded: ArraySlice<UInt8>) -> [UInt8]? {
        let d = decoding
        var out: [UInt8] = []
        out.reserveCapacity(encoded.count * 8 / 5)
        var code: UInt32 = 0
        var length = 0
        var allOnes = true
        for byte in encoded {
            for shift in stride(from: 7, through: 0, by: -1) {
                let bit = UInt32(byte >> UInt8(shift) & 1)
                code = code << 1 | bit
                length += 1
                allOnes = allOnes && bit == 1
                guard length <= 30 else { return nil }
                let offset = Int(code) - Int(d.firstCode[length])
                if offset >= 0 && offset < d.count[length] {
                    let symbol = d.symbols[d.start[length] + offset]
                    guard symbol != endOfString else { return nil }
                    out.append(UInt8(symbol))
                    code = 0
                    length = 0
                    allOnes = true
                }
            }
        }
        return length <= 7 && allOnes ? out : nil
    }
}

import CBrotli
import CZlib

/// Why a body could not be decoded.
public enum ContentDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The decoded output would exceed `limit` bytes (a decompression bomb or simply too large).
    case tooLarge(limit: Int)
    /// The input is not valid data for `coding` (detail from the library), at input byte `offset`.
    case corrupt(coding: String, detail: String, offset: Int)
    /// The input ended before the stream did.
    case truncated(coding: String)
    case unsupported(String)

    public var description: String {
        switch self {
        case .tooLarge(let limit): return "decoded body exceeds the limit of \(limit) bytes"
        case .corrupt(let c, let d, let o): return "corrupt \(c) data at byte \(o): \(d)"
        case .truncated(let c): return "\(c) data ends before the end of its stream"
        case .unsupported(let c): return "unsupported content coding '\(c)'"
        }
    }
}

/// Decodes HTTP content codings (gzip, deflate zlib-wrapped or raw, br) with a hard output limit,
/// so a hostile body can never make us allocate more than `limit` bytes.
public struct ContentDecoder: Sendable {
    public static let defaultLimit = 64 << 20
    public var limit: Int

    public init(limit: Int = ContentDecoder.defaultLimit) { self.limit = limit }

    /// Decodes a `Content-Encoding` value (possibly a list like `gzip, br`, applied in order,
    /// so decoded in reverse). `identity` and empty are no-ops.
    public func decode(_ data: [UInt8], contentEncoding: String) throws(ContentDecodingError) -> [UInt8] {
        // The usual single coding, spelled as servers send it: no list to split and fold.
        switch contentEncoding {
        case "gzip": return try gunzip(data)
        case "deflate": return try inflate(data)
        case "br": return try brotliDecompress(data)
        case "", "identity": return data
        default: break
        }
        let codings = contentEncoding.split(separator: ",").map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        var out = data
        for c in codings.reversed() {
            switch c {
            case "gzip", "x-gzip": out = try gunzip(out)
            case "deflate": out = try inflate(out)
            case "br": out = try brotliDecompress(out)
            default: throw .unsupported(c)
            }
        }
        return out
    }

    /// gzip (RFC 1952); concatenated members are decoded one after the other.
    public func gunzip(_ data: [UInt8]) throws(ContentDecodingError) -> [UInt8] {
        try zlibInflate(data, windowBits: 16 + MAX_WBITS, coding: "gzip", multiMember: true)
    }

    /// `deflate` as HTTP means it: zlib-wrapped (RFC 1950), and raw deflate (RFC 1951) as sent by
    /// servers that got it wrong.
    public func inflate(_ data: [UInt8]) throws(ContentDecodingError) -> [UInt8] {
        if data.count >= 2, data[0] & 0x0F == 8, (UInt16(data[0]) << 8 | UInt16(data[1])) % 31 == 0 {
            do {
                return try zlibInflate(data, windowBits: MAX_WBITS, coding: "deflate", multiMember: false)
            } catch .tooLarge(let l) {
                // A zlib-wrapped bomb: stop here rather than inflate it again below.
                throw .tooLarge(limit: l)
            } catch {
                // Not zlib after all: try raw deflate.
            }
        }
        do {
            return try zlibInflate(data, windowBits: -MAX_WBITS, coding: "deflate", multiMember: false)
        } catch .tooLarge(let l) {
            throw .tooLarge(limit: l)
        } catch {
            return try zlibInflate(data, windowBits: MAX_WBITS, coding: "deflate", multiMember: false)
        }
    }

    private func zlibInflate(_ data: [UInt8], windowBits: Int32, coding: String, multiMember: Bool)
        throws(ContentDecodingError) -> [UInt8]
    {
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .corrupt(coding: coding, detail: "inflateInit failed", offset: 0)
        }
        defer { inflateEnd(&stream) }
        // Inflated straight into one growing buffer (not a zeroed chunk copied out after each
        // call), sized to the input first: most request bodies are small. Never more than
        // `limit + 1` bytes, enough to tell that the output is too large.
        let ceiling = max(1, limit < Int.max ? limit + 1 : limit)
        var capacity = min(ceiling, max(4096, data.count * 8))
        var storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
        defer { storage.deallocate() }
        var produced = 0
        var result: ContentDecodingError?
        data.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                if produced == capacity {
                    let bigger = min(ceiling, capacity * 2)
                    let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bigger)
                    _ = grown.initialize(fromContentsOf: storage[0..<produced])
                    storage.deallocate()
                    storage = grown
                    capacity = bigger
                }
                stream.next_out = storage.baseAddress.map { $0 + produced }
                stream.avail_out = uInt(min(capacity - produced, Int(UInt32.max)))
                let room = Int(stream.avail_out)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                produced += room - Int(stream.avail_out)
                if produced > limit { result = .tooLarge(limit: limit); return }
                switch status {
                case Z_STREAM_END:
                    // Another gzip member may follow (RFC 1952 allows concatenation).
                    if multiMember, stream.avail_in > 0, inflateReset(&stream) == Z_OK { continue }
                    return
                case Z_OK:
                    if stream.avail_in == 0 && stream.avail_out != 0 { result = .truncated(coding: coding); return }
                case Z_BUF_ERROR:
                    if stream.avail_in == 0 { result = .truncated(coding: coding); return }
                default:
                    let detail = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                    result = .corrupt(coding: coding, detail: detail, offset: input.count - Int(stream.avail_in))
                    return
                }
            }
        }
        if let r = result { throw r }
        return Array(UnsafeBufferPointer(rebasing: storage[0..<produced]))
    }

    /// Brotli (RFC 7932) via libbrotli.
    public func brotliDecompress(_ data: [UInt8]) throws(ContentDecodingError) -> [UInt8] {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else {
            throw .corrupt(coding: "br", detail: "cannot create decoder", offset: 0)
        }
        defer { BrotliDecoderDestroyInstance(state) }
        var out = [UInt8]()
        let chunk = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        var result: ContentDecodingError?
        data.withUnsafeBufferPointer { input in
            var availIn = input.count
            var nextIn: UnsafePointer<UInt8>? = input.baseAddress
            while true {
                var availOut = chunk
                let status = buffer.withUnsafeMutableBufferPointer { buf -> BrotliDecoderResult in
                    var nextOut: UnsafeMutablePointer<UInt8>? = buf.baseAddress
                    return BrotliDecoderDecompressStream(state, &availIn, &nextIn, &availOut, &nextOut, nil)
                }
                let produced = chunk - availOut
                if out.count + produced > limit { result = .tooLarge(limit: limit); return }
                out.append(contentsOf: buffer[0..<produced])
                switch status {
                case BROTLI_DECODER_RESULT_SUCCESS: return
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: result = .truncated(coding: "br"); return
                default:
                    let code = BrotliDecoderGetErrorCode(state)
                    let detail = BrotliDecoderErrorString(code).map { String(cString: $0) } ?? "error"
                    result = .corrupt(coding: "br", detail: detail, offset: input.count - availIn)
                    return
                }
            }
        }
        if let r = result { throw r }
        return out
    }
}

/// gzip compression, for tests, fixtures and exports.
public func gzipCompress(_ data: [UInt8], level: Int32 = 6) -> [UInt8] {
    var stream = z_stream()
    guard deflateInit2_(&stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                        Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
    defer { deflateEnd(&stream) }
    var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 32)
    let written: Int = data.withUnsafeBufferPointer { input in
        out.withUnsafeMutableBufferPointer { output in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            stream.next_out = output.baseAddress
            stream.avail_out = uInt(output.count)
            _ = deflate(&stream, Z_FINISH)
            return output.count - Int(stream.avail_out)
        }
    }
    return Array(out[0..<written])
}

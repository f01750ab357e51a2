/// Writes the chunked transfer coding (RFC 9112 §7.1), for a proxy that streams a body whose length
/// it does not know, or re-frames a decoded body.
public enum HTTPChunkedEncoder {
    /// Appends one chunk: lowercase hex size, CRLF, the data, CRLF. Empty data writes nothing (an
    /// empty chunk would end the body).
    public static func appendChunk(_ data: some Collection<UInt8>, to out: inout [UInt8]) {
        let count = data.count
        guard count > 0 else { return }
        appendHex(count, to: &out)
        out.append(contentsOf: [0x0D, 0x0A])
        out.append(contentsOf: data)
        out.append(contentsOf: [0x0D, 0x0A])
    }

    /// Appends the last chunk `0\r\n`, the trailer fields and the final CRLF.
    public static func appendLastChunk(trailers: HTTPHeaders = [], to out: inout [UInt8]) {
        out.append(contentsOf: [0x30, 0x0D, 0x0A])
        HTTPSerializer.appendFields(trailers, to: &out)
        out.append(contentsOf: [0x0D, 0x0A])
    }

    /// The whole body chunked in pieces of at most `chunkSize` bytes, then the last chunk and trailers.
    public static func encode(_ body: [UInt8], chunkSize: Int = 16 * 1024, trailers: HTTPHeaders = []) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(body.count + body.count / max(1, chunkSize) * 12 + 16)
        var i = 0
        let step = max(1, chunkSize)
        while i < body.count {
            let end = min(body.count, i + step)
            appendChunk(body[i..<end], to: &out)
            i = end
        }
        appendLastChunk(trailers: trailers, to: &out)
        return out
    }

    static func appendHex(_ value: Int, to out: inout [UInt8]) {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var shift = (Int.bitWidth - value.leadingZeroBitCount + 3) / 4 * 4 - 4
        if shift < 0 { shift = 0 }
        while shift >= 0 {
            out.append(digits[(value >> shift) & 0xF])
            shift -= 4
        }
    }
}

import COpenSSL
import CMouchardShims

/// Small helpers over OpenSSL memory BIOs, used to move PEM/DER and TLS records in and out.
enum MemoryBIO {
    /// A new empty memory BIO (reads from it ask to retry when empty, never report EOF).
    static func make() throws(TLSError) -> OpaquePointer {
        guard let bio = BIO_new(BIO_s_mem()) else { throw openSSLFailure("BIO_new") }
        _ = mouchard_BIO_set_mem_eof_return(bio, -1)
        return bio
    }

    /// A memory BIO holding a copy of `bytes`.
    static func make(holding bytes: [UInt8]) throws(TLSError) -> OpaquePointer {
        let bio = try make()
        append(bytes, to: bio)
        return bio
    }

    /// Appends `bytes` to a memory BIO (memory BIOs accept everything).
    static func append(_ bytes: UnsafeRawBufferPointer, to bio: OpaquePointer) {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let chunk = Int32(min(bytes.count - offset, Int(Int32.max)))
            let written = BIO_write(bio, base + offset, chunk)
            if written <= 0 { break }
            offset += Int(written)
        }
    }

    static func append(_ bytes: [UInt8], to bio: OpaquePointer) {
        bytes.withUnsafeBytes { append($0, to: bio) }
    }

    /// Takes everything buffered in `bio`.
    static func drain(_ bio: OpaquePointer) -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(bio))
        if pending == 0 { return [] }
        return [UInt8](unsafeUninitializedCapacity: pending) { buffer, count in
            let n = BIO_read(bio, buffer.baseAddress, Int32(pending))
            count = max(0, Int(n))
        }
    }

    /// Runs `body` with a fresh memory BIO and returns what it wrote there.
    static func capture(_ operation: String, _ body: (OpaquePointer) -> Int32) throws(TLSError) -> [UInt8] {
        let bio = try make()
        defer { BIO_free(bio) }
        guard body(bio) > 0 else { throw openSSLFailure(operation) }
        return drain(bio)
    }
}

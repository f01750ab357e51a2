/// The value of one hex digit (`0-9`, `A-F`, `a-f`), or nil: for chunk sizes, JSON `\u` escapes,
/// percent-encoding.
@inlinable @inline(__always)
public func hexNibble(_ b: UInt8) -> UInt8? {
    switch b {
    case 0x30...0x39: b - 0x30
    case 0x41...0x46: b - 0x41 + 10
    case 0x61...0x66: b - 0x61 + 10
    default: nil
    }
}

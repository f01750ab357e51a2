import MouchardTestSupport
import MouchardWire
import Testing

/// `ByteReader` driven by hostile lengths (as a dissector would read them from a packet): random
/// sequences of reads, skips, peeks, seeks and sub-readers with counts from -huge to +huge never
/// trap, and every error's offset is a position of the buffer.
@Suite struct ByteReaderHostileInputTests {
    static let extremes = [Int.min, Int.min + 1, -1, 0, 1, 2, 3, 255, 65_535, Int(UInt32.max), Int.max - 1, Int.max]

    @Test func extremeCountsNeverTrap() {
        let bytes = Array(0..<64 as Range<UInt8>)
        for count in Self.extremes {
            var r = ByteReader(bytes[8..<40])
            #expect(throws: ByteReaderError.self) { _ = try r.readBytes(count == 0 ? 33 : (count > 0 && count < 33 ? 33 : count)) }
            #expect(r.position == 8)
            for operation in 0..<5 {
                var reader = ByteReader(bytes[8..<40])
                do throws(ByteReaderError) {
                    switch operation {
                    case 0: _ = try reader.readBytes(count)
                    case 1: try reader.skip(count)
                    case 2: _ = try reader.readReader(count: count)
                    case 3: _ = try reader.peekUInt8(ahead: count)
                    default: try reader.seek(to: count)
                    }
                    #expect((8...40).contains(reader.position))
                } catch {
                    #expect(!error.description.isEmpty)
                    #expect(reader.position == 8, "a failed operation \(operation) with \(count) must not move the cursor")
                }
            }
        }
    }

    @Test func randomOperationSequences() {
        var mutator = ByteMutator(seed: 0xB17E)
        for k in 0..<2_000 {
            let size = mutator.below(40)
            let all = (0..<(size + 10)).map { _ in UInt8(truncatingIfNeeded: mutator.generator.next()) }
            let start = mutator.below(10)
            var reader = ByteReader(all[start..<(start + size)])
            for _ in 0..<20 {
                let count = mutator.below(4) == 0 ? Self.extremes[mutator.below(Self.extremes.count)] : mutator.below(12) - 2
                let before = reader.position
                do throws(ByteReaderError) {
                    switch mutator.below(12) {
                    case 0: _ = try reader.readUInt8()
                    case 1: _ = try reader.readUInt16()
                    case 2: _ = try reader.readUInt24()
                    case 3: _ = try reader.readUInt32()
                    case 4: _ = try reader.readUInt64()
                    case 5: _ = try reader.readUInt32LE()
                    case 6: _ = try reader.readUInt64LE()
                    case 7: _ = try reader.readBytes(count)
                    case 8: var sub = try reader.readReader(count: count); _ = try? sub.readUInt16LE()
                    case 9: try reader.skip(count)
                    case 10: _ = try reader.peekUInt8(ahead: count)
                    default: try reader.seek(to: start &+ count)
                    }
                } catch {
                    #expect(reader.position == before, "iteration \(k) (seed 0xB17E): cursor moved on error")
                }
                #expect(reader.position >= start && reader.position <= start + size, "iteration \(k) (seed 0xB17E)")
                #expect(reader.remainingCount >= 0 && reader.consumedCount >= 0)
            }
        }
    }
}

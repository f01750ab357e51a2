import MouchardWire
import Testing

@Suite struct ByteReaderTests {
    @Test func readsIntegersInBothByteOrders() throws {
        var r = ByteReader([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15])
        #expect(try r.readUInt8() == 0x01)
        #expect(try r.readUInt16() == 0x0203)
        #expect(try r.readUInt24() == 0x040506)
        #expect(try r.readUInt32() == 0x0708_090A)
        #expect(try r.readUInt16LE() == 0x0C0B)
        #expect(try r.readUInt32LE() == 0x100F_0E0D)
        #expect(r.consumedCount == 16)
        #expect(r.remainingCount == 5)
        #expect(try r.peekUInt8(ahead: 4) == 0x15)
        #expect(try r.readBytes(2) == [0x11, 0x12][...])
        #expect(r.remainingBytes == [0x13, 0x14, 0x15][...])
    }

    @Test func sixtyFourBitReads() throws {
        var r = ByteReader([1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(try r.readUInt64() == 0x0102_0304_0506_0708)
        #expect(try r.readUInt64LE() == 0x0807_0605_0403_0201)
        #expect(r.isAtEnd)
    }

    @Test func overrunIsATypedErrorAndDoesNotMove() throws {
        var r = ByteReader([0xAA, 0xBB, 0xCC])
        try r.skip(2)
        #expect(throws: ByteReaderError.truncated(offset: 2, needed: 2, available: 1)) { try r.readUInt16() }
        #expect(throws: ByteReaderError.truncated(offset: 2, needed: 4, available: 1)) { try r.readUInt32() }
        #expect(throws: ByteReaderError.truncated(offset: 2, needed: -1, available: 1)) { try r.readBytes(-1) }
        #expect(throws: ByteReaderError.truncated(offset: 2, needed: 2, available: 1)) { try r.peekUInt8(ahead: 1) }
        #expect(try r.readUInt8() == 0xCC)
        #expect(throws: ByteReaderError.truncated(offset: 3, needed: 1, available: 0)) { try r.readUInt8() }
        #expect(throws: ByteReaderError.outOfBounds(offset: 4, start: 0, end: 3)) { try r.seek(to: 4) }
        try r.seek(to: 0)
        #expect(try r.readUInt8() == 0xAA)
    }

    @Test func subReaderReportsOffsetsOfTheOriginalBuffer() throws {
        var r = ByteReader([0, 0, 0, 0, 9, 8, 7, 6, 5])
        try r.skip(4)
        var sub = try r.readReader(count: 3)
        #expect(r.remainingCount == 2)
        #expect(try sub.readUInt16() == 0x0908)
        #expect(throws: ByteReaderError.truncated(offset: 6, needed: 2, available: 1)) { try sub.readUInt16() }
        #expect(try sub.readUInt8() == 7)
        #expect(sub.isAtEnd)
    }

    @Test func descriptionIsOneLine() {
        #expect(ByteReaderError.truncated(offset: 6, needed: 2, available: 1).description == "truncated at byte 6: needed 2 byte(s), 1 left")
    }
}

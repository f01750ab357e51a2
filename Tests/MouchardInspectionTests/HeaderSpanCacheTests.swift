import Foundation
import Synchronization
import Testing
import MouchardFlow
import MouchardTestSupport
@testable import MouchardInspection

/// The span cache of header values answers what the scan answers: for the header values of real
/// app traffic (the fixtures', and the dev corpus's when it is there), for values that take each
/// other's slots, for values past its size limit, and from many threads.
@Suite struct HeaderSpanCacheTests {
    /// The header values of the HAR files.
    static func headerValues(_ hars: [URL]) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        for url in hars {
            for flow in try HARReader.read(Data(contentsOf: url)) {
                for f in flow.request?.headers.fields ?? [] { out.append(f.valueBytes) }
            }
        }
        return out
    }

    static let values: [[UInt8]] = {
        let hars = TestFiles.fixtureDevices.map { TestFiles.fixture($0, "traffic.har") }
        guard var out = try? headerValues(hars), out.count > 400 else { fatalError("fixture HAR files unreadable: \(hars)") }
        // More distinct values than slots, and one past the size limit.
        for k in 0..<600 { out.append(Array("x-\(k) +49 151 2345 \(k) Margot Quintin 52.5163".utf8)) }
        out.append(Array(repeating: 0x41, count: HeaderSpanCache.maxValueBytes + 1))
        return out
    }()

    @Test func cachedSpansAreTheScansSpans() throws {
        let kv = KnownValueMatcher(profile: try TestSupport.profile())
        #expect(Self.values.count > 1000)
        for _ in 0..<2 {
            for v in Self.values {
                #expect(kv.headerSpans.spans(of: v) { kv.spans($0[...]) } == kv.spans(v[...]))
            }
        }
    }

    @Test(.requires(.dev)) func devCorpusCachedSpansAreTheScansSpans() throws {
        let values = try Self.headerValues(["ios", "android"].map { OutsideCorpus.dev.file("\($0)/traffic.har") })
        #expect(values.count > 1000)
        for profile in try [TestSupport.profile()] + ["ios", "android"].map({
            try DeviceProfile.load([UInt8](try Data(contentsOf: OutsideCorpus.dev.file("\($0)/device.json"))), file: "device.json")
        }) {
            let kv = KnownValueMatcher(profile: profile)
            for _ in 0..<2 {
                for v in values { #expect(kv.headerSpans.spans(of: v) { kv.spans($0[...]) } == kv.spans(v[...])) }
            }
        }
    }

    @Test func threadsShareTheCache() throws {
        let kv = KnownValueMatcher(profile: try TestSupport.profile())
        let values = Self.values
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { t in
            for (i, v) in values.enumerated() where i % 8 == t || i % 3 == 0 {
                if kv.headerSpans.spans(of: v, { kv.spans($0[...]) }) != kv.spans(v[...]) { wrong.withLock { $0 += 1 } }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
    }

    /// Answers looked up by a buffer (header names) and by an array (values) share one cache:
    /// either way the answer is the computation's, for values that take each other's slots too.
    @Test func buffersAndArraysGetTheComputedAnswer() {
        let cache = HeaderValueCache<Int>()
        func compute(_ b: UnsafeBufferPointer<UInt8>) -> Int { b.reduce(7) { $0 &* 31 &+ Int($1) } }
        for round in 0..<2 {
            for (i, v) in Self.values.enumerated() {
                let expected = v.withUnsafeBufferPointer(compute)
                let got = (i + round) % 2 == 0
                    ? v.withUnsafeBufferPointer { cache.answer(for: $0, compute) }
                    : cache.answer(for: v) { $0.withUnsafeBufferPointer(compute) }
                #expect(got == expected)
            }
        }
    }

    /// Values that differ in one byte only, at every position of every length up to 40 (the
    /// 8-byte reads, the last one overlapping), each get their own computed answer, asked twice.
    @Test func valuesOneByteApartGetTheirOwnAnswers() {
        let cache = HeaderValueCache<Int>()
        func compute(_ b: UnsafeBufferPointer<UInt8>) -> Int { b.reduce(7) { $0 &* 31 &+ Int($1) } }
        for round in 0..<2 {
            for length in 1...40 {
                let base = (0..<length).map { UInt8(0x61 + $0 % 26) }
                for at in 0..<length {
                    var v = base
                    v[at] ^= UInt8(1 + round)
                    for value in [base, v] {
                        let got = value.withUnsafeBufferPointer { cache.answer(for: $0, compute) }
                        #expect(got == value.withUnsafeBufferPointer(compute), "\(length) \(at)")
                    }
                }
            }
        }
    }
}

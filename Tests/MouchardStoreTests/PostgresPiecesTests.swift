import Foundation
import Testing
@testable import MouchardPostgres
@testable import MouchardStore

/// The fleet store's pure parts, without a server: URLs shown without passwords, the binary COPY
/// encoding, timestamps, the retry schedule and the latency percentiles.
@Suite struct PostgresPiecesTests {
    @Test func passwordsAreMaskedInEveryForm() {
        #expect(PostgresURL.masked("postgresql://gw1:s3cret@db.lab:5432/mouchard") == "postgresql://gw1:***@db.lab:5432/mouchard")
        #expect(PostgresURL.masked("postgres://gw1@db.lab/m?sslmode=verify-full&password=s3cret&x=1")
                == "postgres://gw1@db.lab/m?sslmode=verify-full&password=***&x=1")
        #expect(PostgresURL.masked("host=db password=s3cret dbname=m") == "host=db password=*** dbname=m")
        #expect(PostgresURL.masked("postgresql://a:b:c@h/d") == "postgresql://a:***@h/d")
        #expect(PostgresURL.masked("postgresql://user@/db?host=/run/pg") == "postgresql://user@/db?host=/run/pg")
        #expect(PostgresURL.isPostgres("POSTGRESQL://x") && PostgresURL.isPostgres("postgres://x") && !PostgresURL.isPostgres("captures/x"))
    }

    @Test func binaryCopyRowsAreEncodedAsPostgreSQLReadsThem() {
        var b = PGCopyBuffer()
        b.startRow(fields: 7)
        b.append(.integer(-2), as: .int8)
        b.append(.integer(443), as: .int4)
        b.append(.integer(1), as: .bool)
        b.append(.real(1.5), as: .float8)
        b.append(.text("a\u{0}é"), as: .text)
        b.append(.blob([0, 255]), as: .bytea)
        b.append(.null, as: .text)
        let bytes = b.finished()
        var expected: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]
        expected += [0, 7]
        expected += [0, 0, 0, 8] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]
        expected += [0, 0, 0, 4] + [0, 0, 0x01, 0xBB]
        expected += [0, 0, 0, 1] + [1]
        expected += [0, 0, 0, 8] + [0x3F, 0xF8, 0, 0, 0, 0, 0, 0]
        expected += [0, 0, 0, 6] + [0x61, 0xEF, 0xBF, 0xBD, 0xC3, 0xA9]  // NUL as U+FFFD
        expected += [0, 0, 0, 2] + [0, 255]
        expected += [0xFF, 0xFF, 0xFF, 0xFF]
        expected += [0xFF, 0xFF]
        #expect(bytes == expected)
        // A local column holding another type than declared is converted, or NULL.
        var c = PGCopyBuffer()
        c.append(.text("12"), as: .int4)
        c.append(.text("x"), as: .int4)
        c.append(.real(3.9), as: .int8)
        c.append(.integer(7), as: .text)
        let tail = Array(c.finished().dropFirst(19))
        #expect(tail == [0, 0, 0, 4, 0, 0, 0, 12] + [0xFF, 0xFF, 0xFF, 0xFF] + [0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 3]
                + [0, 0, 0, 1, 0x37] + [0xFF, 0xFF])
        // The destination columns of a stored finding, read from its JSON alone.
        let json = StoreJSON.encode(sampleFinding(3, "idfa", confidence: 1))
        #expect(FindingColumns.values(json: json) == [.text("Ads Inc"), .null, .text("advertising"), .integer(1)])
        #expect(FindingColumns.values(json: #"{"evidence":"\"destination\":{\"tracker\":\"x\"}","destination":{"host":"h","third_party":false}}"#)
                == [.null, .null, .null, .integer(0)])
        #expect(FindingColumns.values(json: "{\"destination\":{\"tracker\":") == [.null, .null, .null, .null])
    }

    @Test func timestampsAndUUIDs() {
        let d = Date(timeIntervalSince1970: 1_790_000_000.123456)
        let us = PGTime.microseconds(d)
        #expect(abs(us - 843_315_200_123_456) <= 1)
        #expect(FleetBatchWriter.timestampText(us).hasPrefix("2026-09-21 "))
        #expect(FleetBatchWriter.timestampText(0) == "2000-01-01 00:00:00.000000+00")
        #expect(FleetBatchWriter.timestampText(1_500_001) == "2000-01-01 00:00:01.500001+00")
        #expect(PGTime.referenceSeconds(microseconds: PGTime.microseconds(d)) == (d.timeIntervalSinceReferenceDate * 1e6).rounded() / 1e6)
        let id = "1F3A9C2E-0B1D-4E5F-8A9B-0C1D2E3F4A5B"
        #expect(PGUUID.bytes(id).map(PGUUID.text) == id.lowercased())
        #expect(PGUUID.bytes("not-a-uuid") == nil && PGUUID.bytes(String(repeating: "g", count: 32)) == nil)
        // A damaged start (year 1600, or 9999) is clamped to the years partitions are made for.
        #expect(FleetMetadata.sessionStart(created: "1600-01-01T00:00:00Z", fallback: d) == FleetMetadata.earliestStart)
        #expect(FleetMetadata.sessionStart(created: "9999-01-01T00:00:00Z", fallback: d) == FleetMetadata.latestStart)
        #expect(FleetMetadata.timestampParameter("garbage") == nil)
    }

    @Test func retriesBackOffAndErrorsAreTriaged() {
        var b = UploadBackoff()
        var delays: [Double] = []
        for _ in 0..<8 {
            b.failed()
            delays.append(b.delay)
        }
        #expect(delays == [0, 0.25, 0.5, 1, 2, 4, 5, 5])
        b.succeeded()
        #expect(b.delay == 0)
        for s in ["08006", "08001", "57P01", "57P03", "40001", "40P01", "53100", "55P03", "57014"] {
            #expect(StoreErrorKind.classify(s) == .transient, "\(s)")
        }
        for s in ["23505", "22021", "42P01", "XX000", nil] { #expect(StoreErrorKind.classify(s) == .permanent) }
        #expect(StoreError(file: "x", message: "m", sqlState: "08006").isConnectionFailure)
    }

    @Test func latencyPercentilesAreWithinTheBucketWidth() {
        var h = LatencyHistogram()
        for k in 1...1000 { h.record(Double(k) / 1000) }  // 1 ms ... 1 s
        #expect(h.total == 1000)
        #expect(abs(h.percentile(0.5) - 0.5) <= 0.5 * 0.05 + 0.001)
        #expect(abs(h.percentile(0.99) - 0.99) <= 0.99 * 0.05 + 0.001)
        #expect(h.percentile(1) == 1)
        var weighted = LatencyHistogram()
        weighted.record(0.001, weight: 99)
        weighted.record(2, weight: 1)
        #expect(weighted.percentile(0.99) < 0.0011 && weighted.percentile(1) == 2)
        #expect(LatencyHistogram().percentile(0.99) == 0)
    }
}

import Foundation
import MouchardTestSupport
import MouchardTLS
import Testing

@Suite struct TLSLeafTests {
    @Test(.requires(.openssl)) func leafVerifiesAgainstTheCAAndFollowsApplesRules() throws {
        let fixture = try TLSFixture()
        let upstream = CertificateNames(dnsNames: ["www.example.test", "*.cdn.example.test"], ipAddresses: ["192.0.2.7"],
                                        commonName: "example.test")
        let leaf = try fixture.minter.identity(serverName: "api.example.test", upstream: upstream).certificate
        let names = leaf.names
        #expect(names.dnsNames == ["api.example.test", "www.example.test", "*.cdn.example.test", "example.test"])
        #expect(names.ipAddresses == ["192.0.2.7"])
        #expect(names.commonName == "api.example.test")
        #expect(leaf.issuer == fixture.authority.certificate.subject)
        let validity = leaf.notAfter.timeIntervalSince(leaf.notBefore)
        #expect(validity <= 397 * 86400 && validity > 300 * 86400)
        #expect(leaf.notBefore < Date().addingTimeInterval(-1800))  // backdated for clock skew

        let leafPath = try writeFile(fixture.directory, "leaf.pem", leaf.pem)
        for check in [["-verify_hostname", "api.example.test"], ["-verify_hostname", "img.cdn.example.test"],
                      ["-verify_ip", "192.0.2.7"]] {
            let verify = try runOpenSSL(["verify", "-CAfile", fixture.authority.certificatePath, "-purpose", "sslserver"]
                                        + check + [leafPath])
            #expect(verify.status == 0 && verify.output.contains("OK"), "\(check): \(verify.output)")
        }
        let wrongHost = try runOpenSSL(["verify", "-CAfile", fixture.authority.certificatePath,
                                        "-verify_hostname", "other.test", leafPath])
        #expect(wrongHost.status != 0)

        let text = try runOpenSSL(["x509", "-in", leafPath, "-noout", "-text"]).output
        #expect(text.contains("TLS Web Server Authentication"))
        #expect(text.contains("Signature Algorithm: ecdsa-with-SHA256"))
        #expect(text.contains("CA:FALSE"))
        #expect(text.contains("DNS:api.example.test"))
        #expect(text.contains("IP Address:192.0.2.7"))
        #expect(text.contains("ASN1 OID: prime256v1"))
    }

    @Test func leavesAreCachedLRUAndShareOneKeyWithRandomSerials() throws {
        let directory = try makeTemporaryDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: directory)
        let minter = try LeafCertificateMinter(authority: authority, cacheCapacity: 2)
        let a = try minter.identity(for: LeafNames(["a.test", "b.test"]))
        let again = try minter.identity(for: LeafNames(["B.test.", "a.test"]))  // same names, other order/case
        #expect(a === again)
        #expect(minter.cacheStatistics == (hits: 1, misses: 1))
        let c = try minter.identity(for: LeafNames(["c.test"]))
        #expect(c.key === a.key)
        #expect(c.certificate.serialHex != a.certificate.serialHex)
        #expect(c.certificate.serialHex.count >= 30)
        _ = try minter.identity(for: LeafNames(["a.test", "b.test"]))  // hit: a becomes most recent
        _ = try minter.identity(for: LeafNames(["d.test"]))              // evicts c
        #expect(minter.cachedCount == 2)
        #expect(try minter.identity(for: LeafNames(["a.test", "b.test"])) === a)
        #expect(try minter.identity(for: LeafNames(["c.test"])) !== c)
        #expect(minter.cacheStatistics == (hits: 3, misses: 4))
    }

    @Test func hostileNamesAreDroppedNotMinted() throws {
        let names = LeafNames(["ok.test", "bad name.test", "x,DNS:evil.test", "*.*.test", "a..test", String(repeating: "a", count: 64) + ".test",
                               "[2001:db8::1]", "10.0.0.1", "*.wild.test", "*.test"])
        #expect(names.dnsNames == ["ok.test", "*.wild.test"])
        #expect(names.ipAddresses == ["2001:db8::1", "10.0.0.1"])
        #expect(names.rejected.count == 6)
        let fixture = try TLSFixture()
        #expect(throws: TLSError.invalidName("bad name")) { try fixture.minter.identity(for: LeafNames(["bad name"])) }
        let many = LeafNames((0..<500).map { "h\($0).test" })
        #expect(many.dnsNames.count == LeafNames.maximumCount)
    }

    @Test func concurrentMintingStaysBounded() throws {
        let fixture = try TLSFixture()
        // Concurrent use from several threads: every result verifies and the cache stays bounded.
        let minter = try LeafCertificateMinter(authority: fixture.authority, cacheCapacity: 8)
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let identity = try? minter.identity(serverName: "host\(i % 12).test")
            #expect(identity?.certificate.names.dnsNames == ["host\(i % 12).test"])
        }
        #expect(minter.cachedCount == 8)
        let stats = minter.cacheStatistics
        #expect(stats.hits + stats.misses == 64)
    }
}

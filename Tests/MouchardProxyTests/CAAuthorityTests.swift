import Foundation
import MouchardTestSupport
import Synchronization
import Testing
@testable import MouchardTLS

@Suite struct CAAuthorityTests {
    @Test func createdOnceWithPrivateKeyModeThenReloaded() throws {
        let home = try makeTemporaryDirectory() + "/nested/home"
        let first = try CertificateAuthority.loadOrCreate(directory: home)
        #expect(first.wasCreated)
        #expect(FileManager.default.fileExists(atPath: first.keyPath))
        let keyMode = try FileManager.default.attributesOfItem(atPath: first.keyPath)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        let directoryMode = try FileManager.default.attributesOfItem(atPath: home)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: home).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)

        let second = try CertificateAuthority.loadOrCreate(directory: home)
        #expect(!second.wasCreated)
        #expect(second.certificate.sha256Fingerprint == first.certificate.sha256Fingerprint)
        #expect(second.certificate.matches(second.key))
        #expect(first.certificate.sha256Fingerprint.count == 32 * 3 - 1)
    }

    @Test func concurrentFirstRunsAgreeOnOneCA() throws {
        let home = try makeTemporaryDirectory()
        let fingerprints = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let fingerprint = (try? CertificateAuthority.loadOrCreate(directory: home))?.certificate.sha256Fingerprint ?? "failed"
            fingerprints.withLock { $0.append(fingerprint) }
        }
        let all = fingerprints.withLock { $0 }
        #expect(all.count == 4 && Set(all).count == 1 && all[0] != "failed", "\(all)")
        #expect(try CertificateAuthority.loadOrCreate(directory: home).certificate.sha256Fingerprint == all[0])
    }

    @Test(.requires(.openssl)) func rootCertificateIsACAWithSensibleNameAndValidity() throws {
        let authority = try CertificateAuthority.loadOrCreate(directory: try makeTemporaryDirectory())
        let certificate = authority.certificate
        #expect(certificate.commonName?.hasPrefix("Mouchard CA (") == true)
        #expect(certificate.subject == certificate.issuer)
        let years = certificate.notAfter.timeIntervalSince(certificate.notBefore) / (365 * 86400)
        #expect(years > 9.9 && years < 10.1)
        #expect(certificate.notBefore < Date())
        let text = try runOpenSSL(["x509", "-in", authority.certificatePath, "-noout", "-text"])
        #expect(text.status == 0)
        #expect(text.output.contains("CA:TRUE"))
        #expect(text.output.contains("X509v3 Basic Constraints: critical"))
        #expect(text.output.contains("Certificate Sign"))
        #expect(text.output.contains("ecdsa-with-SHA256"))
        let hash = try runOpenSSL(["x509", "-subject_hash_old", "-noout", "-in", authority.certificatePath])
        #expect(authority.androidSystemStoreFileName == hash.output.trimmingCharacters(in: .whitespacesAndNewlines) + ".0")
        // And OpenSSL accepts it as a self-signed root.
        let verify = try runOpenSSL(["verify", "-CAfile", authority.certificatePath, authority.certificatePath])
        #expect(verify.status == 0, "\(verify.output)")
    }

    @Test func loneKeyIsAnErrorNotOverwritten() throws {
        let home = try makeTemporaryDirectory()
        let authority = try CertificateAuthority.loadOrCreate(directory: home)
        try FileManager.default.removeItem(atPath: authority.certificatePath)
        // An old key (not one another process is writing right now): no waiting, an error.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: authority.keyPath)
        let keyBefore = try Data(contentsOf: URL(fileURLWithPath: authority.keyPath))
        #expect(throws: TLSError.self) { try CertificateAuthority.loadOrCreate(directory: home) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: authority.keyPath)) == keyBefore)
    }

    @Test func exportsPEMDERAndMobileconfig() throws {
        let authority = try CertificateAuthority.loadOrCreate(directory: try makeTemporaryDirectory())
        let der = authority.export(.der)
        #expect(try Certificate(der: der).sha256Fingerprint == authority.certificate.sha256Fingerprint)
        let pem = authority.export(.pem)
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        #expect(try Certificate(pem: pem).der == der)

        let profileBytes = authority.export(.mobileconfig)
        let plist = try PropertyListSerialization.propertyList(from: Data(profileBytes), format: nil)
        let profile = try #require(plist as? [String: Any])
        #expect(profile["PayloadType"] as? String == "Configuration")
        #expect(profile["PayloadVersion"] as? Int == 1)
        let payloads = try #require(profile["PayloadContent"] as? [[String: Any]])
        #expect(payloads.count == 1)
        #expect(payloads[0]["PayloadType"] as? String == "com.apple.security.root")
        #expect((payloads[0]["PayloadContent"] as? Data).map { [UInt8]($0) } == der)
        let uuids = [profile["PayloadUUID"] as? String, payloads[0]["PayloadUUID"] as? String].compactMap { $0 }
        #expect(uuids.count == 2 && Set(uuids).count == 2 && uuids.allSatisfy { UUID(uuidString: $0) != nil })
        #expect(authority.export(.mobileconfig) == profileBytes)  // stable across exports
    }

    @Test func onboardingPageServesInstructionsAndCertificates() throws {
        let authority = try CertificateAuthority.loadOrCreate(directory: try makeTemporaryDirectory())
        let page = OnboardingPage.response(for: "/", authority: authority)
        #expect(page.status == 200)
        #expect(page.contentType == "text/html; charset=utf-8")
        let html = String(decoding: page.body, as: UTF8.self)
        for needle in ["/mouchard-ca.mobileconfig", "/mouchard-ca.cer", "/mouchard-ca.pem", "Certificate Trust Settings",
                       "VPN &amp; Device Management", "network_security_config", authority.certificate.sha256Fingerprint,
                       authority.androidSystemStoreFileName] {
            #expect(html.contains(needle), "page lacks \(needle)")
        }
        let der = OnboardingPage.response(for: "/mouchard-ca.cer?x=1", authority: authority)
        #expect(der.status == 200 && der.body == authority.certificate.der)
        #expect(der.contentType == "application/x-x509-ca-cert")
        let profile = OnboardingPage.response(for: "/mouchard-ca.mobileconfig", authority: authority)
        #expect(profile.contentType == "application/x-apple-aspen-config")
        let missing = OnboardingPage.response(for: "/mouchard-ca.key", authority: authority)
        #expect(missing.status == 404)
        let wire = String(decoding: missing.serialized(keepAlive: false), as: UTF8.self)
        #expect(wire == "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(missing.body.count)\r\n"
                + "Connection: close\r\n\r\nNot found. See http://mouchard.ca/\n")
        let head = String(decoding: der.serialized(includeBody: false), as: UTF8.self)
        #expect(head.hasSuffix("Content-Disposition: attachment; filename=\"mouchard-ca.cer\"\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n\r\n"))
        #expect(OnboardingPage.isOnboardingHost("Mouchard.CA:80"))
        #expect(!OnboardingPage.isOnboardingHost("mouchard.ca.evil.test"))
        #expect(OnboardingPage.escape("<a&\"'>") == "&lt;a&amp;&quot;&#39;&gt;")
    }
}

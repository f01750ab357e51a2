import MouchardCodec
import MouchardTestSupport
import Testing

/// The EVP AEAD wrapper: sealing and opening agree, damage is refused, and `peek` (keystream
/// only, no authentication) gives the plaintext of any range, across keystream block boundaries.
struct AEADCipherTests {
    static let algorithms: [AEADCipher.Algorithm] = [.aes128GCM, .aes256GCM, .chacha20Poly1305]

    @Test(arguments: AEADCipherTests.algorithms)
    func sealOpenAndPeekAgree(algorithm: AEADCipher.Algorithm) throws {
        var random = SplitMix64(seed: 0xAEAD_0001)
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        let cipher = try #require(AEADCipher(algorithm, key: bytes(algorithm.keyLength)))
        for length in [0, 1, 15, 16, 17, 63, 64, 65, 200, 16_384] {
            let nonce = bytes(AEADCipher.nonceLength), aad = bytes(13), plaintext = bytes(length)
            let sealed = cipher.seal(nonce: nonce, additionalData: aad, plaintext: plaintext[...])
            #expect(sealed.count == length + AEADCipher.tagLength)
            #expect(cipher.open(nonce: nonce, additionalData: aad, sealed: sealed[...]) == plaintext)
            var damaged = sealed
            damaged[random.below(damaged.count)] ^= 0x01
            #expect(cipher.open(nonce: nonce, additionalData: aad, sealed: damaged[...]) == nil)
            #expect(cipher.open(nonce: nonce, additionalData: aad + [0], sealed: sealed[...]) == nil)
            guard length > 0 else {
                #expect(cipher.peek(nonce: nonce, sealed: sealed[...], range: 0..<1) == nil)
                continue
            }
            for _ in 0..<20 {
                let start = random.below(length)
                let end = start + 1 + random.below(min(40, length - start))
                #expect(cipher.peek(nonce: nonce, sealed: sealed[...], range: start..<end) == Array(plaintext[start..<end]),
                        "\(algorithm) length \(length) range \(start)..<\(end)")
            }
            #expect(cipher.peek(nonce: nonce, sealed: sealed[...], range: (length - 1)..<(length + 1)) == nil)
        }
    }

    @Test func wrongKeyLengthsAreRefused() {
        #expect(AEADCipher(.aes128GCM, key: [UInt8](repeating: 1, count: 32)) == nil)
        #expect(AEADCipher(.chacha20Poly1305, key: [UInt8](repeating: 1, count: 16)) == nil)
    }
}

import Bitcoin
import XCTest
@testable import Lightning

/// Helpers shared by the BOLT11 behaviour tests: a regtest invoice with every field, and
/// re-assembling an invoice's words under a fresh checksum (so a test can change what is
/// signed or the signature without tripping the checksum first).
enum BOLT11Fixtures {
    static let timestamp: UInt64 = 1_767_225_600

    static func hop(_ seed: UInt8, scid: ShortChannelID) throws -> RouteHintHop {
        RouteHintHop(nodeID: try PrivateKey([UInt8](repeating: seed, count: 32)).publicKey, shortChannelID: scid,
                     feeBaseMsat: 1000 + UInt32(seed), feeProportionalMillionths: 100 * UInt32(seed),
                     cltvExpiryDelta: 40 + UInt16(seed))
    }

    /// A regtest hold-invoice shape: 250,000 sat, 10 minutes, the DESIGN's final CLTV delta
    /// (144 + 18 + 24 + 30), and every optional field.
    static func fullRegtestEncoder(includesPayeeNodeID: Bool) throws -> InvoiceEncoder {
        let preimage = [UInt8](repeating: 0x42, count: 32)
        guard let scid1 = ShortChannelID(block: 101, transaction: 1, output: 0),
              let scid2 = ShortChannelID(block: 202, transaction: 7, output: 1) else { throw BOLT11Error.unencodable("scid") }
        return InvoiceEncoder(
            currency: .regtest, amountMsat: 250_000_000, timestamp: timestamp,
            paymentHash: SHA256.hash(preimage), paymentSecret: [UInt8](repeating: 0x5e, count: 32),
            description: .text("swap 7f3a: 250000 sat to bcrt1q…"), expirySeconds: 600,
            minFinalCLTVExpiryDelta: 216, includesPayeeNodeID: includesPayeeNodeID,
            fallbacks: [.p2wpkh(pubkeyHash: [UInt8](repeating: 0x11, count: 20)),
                        .p2tr(outputKey: try PrivateKey([UInt8](repeating: 3, count: 32)).xOnlyPublicKey.bytes),
                        .p2pkh(pubkeyHash: [UInt8](repeating: 0x22, count: 20))],
            routeHints: [[try hop(1, scid: scid1), try hop(2, scid: scid2)], [try hop(3, scid: scid1)]],
            features: FeatureBits(bits: [FeatureBits.varOnionOptin, FeatureBits.paymentSecret,
                                         FeatureBits.basicMPP + 1, FeatureBits.paymentMetadata + 1]),
            metadata: [0x01, 0xfa, 0xfa, 0xf0])
    }

    static func nodeKey() throws -> PrivateKey {
        try PrivateKey([UInt8](repeating: 0x07, count: 32))
    }

    /// The invoice's HRP and data words (checksum removed).
    static func parts(_ invoice: String) throws -> (hrp: String, words: [UInt8]) {
        let decoded = try Bech32.decode(invoice, maxLength: InvoiceDecoder.maxLength)
        return (decoded.hrp, decoded.data)
    }

    /// A valid bech32 string for `hrp` and `words`: any change made to them reaches the
    /// signature check instead of failing the checksum.
    static func assemble(hrp: String, words: [UInt8]) -> String {
        Bech32.encode(hrp: hrp, data: words, encoding: .bech32)
    }

    /// Replaces the signature words with `signature` (64 bytes) and `recoveryID`.
    static func withSignature(_ invoice: String, compact: [UInt8], recoveryID: UInt8) throws -> String {
        let (hrp, words) = try parts(invoice)
        let signature = Bech32.convertBits(compact + [recoveryID], from: 8, to: 5, pad: true)!
        return assemble(hrp: hrp, words: Array(words.dropLast(InvoiceDecoder.signatureWords)) + signature)
    }
}

/// Asserts that `body` throws exactly `expected`.
func XCTAssertBOLT11Error<T>(_ body: @autoclosure () throws -> T, _ expected: BOLT11Error,
                             file: StaticString = #filePath, line: UInt = #line) {
    do {
        _ = try body()
        XCTFail("expected \(expected), got a result", file: file, line: line)
    } catch let error as BOLT11Error {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}

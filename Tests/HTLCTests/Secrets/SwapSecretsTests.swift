import Bitcoin
@testable import HTLC
import XCTest

final class SwapSecretsTests: XCTestCase {
    private let seed = (0..<32).map { UInt8($0) }

    /// These values were computed once by this code and are pinned here so the derivation
    /// (m/1009'/{0,1,2}'/index', tagged preimage) can never change by accident: a node must
    /// re-derive the same secrets from its seed forever to recover its swaps.
    func testDerivationIsPinned() throws {
        let pinned: [(index: UInt32, claim: String, refund: String, paymentHash: String)] = [
            (0,
             "02d6807472a0acb71300b83f90f70ec29417e3a46c82cc0c882b8f1582e765625f",
             "03a14b20e41f54896d1fc9ebed55f8eb0a1845b25aabae6897c11f41bc32eec301",
             "61eeb615371b9426c3208e94111acf8fcd0cb5fbae043c57da07f6116360232b"),
            (1,
             "02428dd6c022d3616916747a6c282c6c94538d6faab6bbc725ba4c49bc876ccaaf",
             "036be57f3025bf62e842627800246945e5380974c27a9c32ee69f9d12b50291363",
             "91af816b145187158ba9806dde8b42c1a72600edc33e64b3fa200546429464db"),
            (0x7fff_ffff,
             "02b3fdc106abae683bd04415fcf539e0ee996619cd06a001adfeedcb4b759b5a04",
             "02f2dce1b8643f5c32c80a2d4b5efa19fa9c62bfc04386ad5cdf74360d9b32496c",
             "01dcb41240a3ca0c924028e49167e1b1b680a7abf12c345f17efe5a443b6a925"),
        ]
        for vector in pinned {
            let secrets = try SwapSecrets(seed: seed, index: vector.index)
            XCTAssertEqual(secrets.claimKey.publicKey.compressed.hex, vector.claim, "claim key, index \(vector.index)")
            XCTAssertEqual(secrets.refundKey.publicKey.compressed.hex, vector.refund, "refund key, index \(vector.index)")
            XCTAssertEqual(secrets.paymentHash.hex, vector.paymentHash, "payment hash, index \(vector.index)")
        }
    }

    /// The scheme as documented, step by step with the Bitcoin module's BIP32.
    func testDerivationFollowsTheDocumentedPaths() throws {
        let master = try ExtendedKey(seed: seed)
        let secrets = try SwapSecrets(seed: seed, index: 5)
        XCTAssertEqual(try master.derived(DerivationPath("m/1009'/0'/5'")).privateKey, secrets.claimKey)
        XCTAssertEqual(try master.derived(DerivationPath("m/1009'/1'/5'")).privateKey, secrets.refundKey)
        let preimageKey = try XCTUnwrap(try master.derived(DerivationPath("m/1009'/2'/5'")).privateKey)
        XCTAssertEqual(secrets.preimage, TaggedHash.hash(tag: "peernode/preimage", preimageKey.bytes))
        XCTAssertEqual(secrets.paymentHash, SHA256.hash(secrets.preimage))
        XCTAssertEqual(secrets.preimage.count, 32)
    }

    func testThousandSwapsShareNoKeyOrPreimage() throws {
        let chain = try SwapKeyChain(seed: seed)
        var keys = Set<[UInt8]>()
        var preimages = Set<[UInt8]>()
        for index in UInt32(0)..<1000 {
            let secrets = try chain.secrets(index: index)
            XCTAssertTrue(keys.insert(secrets.claimKey.bytes).inserted, "claim key \(index)")
            XCTAssertTrue(keys.insert(secrets.refundKey.bytes).inserted, "refund key \(index)")
            XCTAssertTrue(preimages.insert(secrets.preimage).inserted, "preimage \(index)")
            XCTAssertFalse(keys.contains(secrets.preimage), "a preimage is never a key")
        }
        XCTAssertEqual(keys.count, 2000)
        XCTAssertEqual(preimages.count, 1000)
    }

    func testAnotherSeedGivesOtherSecrets() throws {
        let a = try SwapSecrets(seed: seed, index: 0)
        let b = try SwapSecrets(seed: seed.map { $0 ^ 0xff }, index: 0)
        XCTAssertNotEqual(a.claimKey, b.claimKey)
        XCTAssertNotEqual(a.preimage, b.preimage)
    }

    func testBadInputsAreRefused() {
        XCTAssertThrows(.invalidSeedLength(16), try SwapSecrets(seed: Array(seed.prefix(16)), index: 0))
        XCTAssertThrows(.swapIndexOutOfRange(0x8000_0000), try SwapSecrets(seed: seed, index: 0x8000_0000))
    }

    /// Logs and dumps show the index and public parts, never the preimage or a private key.
    func testDescriptionHidesSecrets() throws {
        let secrets = try SwapSecrets(seed: seed, index: 3)
        var dumped = ""
        dump(secrets, to: &dumped)
        for text in [secrets.description, String(reflecting: secrets), "\(secrets)", dumped] {
            XCTAssertFalse(text.contains(secrets.preimage.hex))
            XCTAssertFalse(text.contains(secrets.claimKey.bytes.hex))
            XCTAssertFalse(text.contains(secrets.refundKey.bytes.hex))
        }
        XCTAssertTrue(secrets.description.contains("index 3"))
    }
}

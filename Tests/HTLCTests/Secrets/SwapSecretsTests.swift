import Bitcoin
@testable import HTLC
import XCTest

final class SwapSecretsTests: XCTestCase {
    private let seed = (0..<32).map { UInt8($0) }

    /// These values were computed once by this code and are pinned here so the legacy
    /// derivation (m/1009'/{0,1,2}'/index', tagged preimage) can never change by accident: a
    /// node must re-derive the same secrets from its seed forever to recover its swaps.
    func testLegacyDerivationIsPinned() throws {
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
            // The legacy scheme has no network in its path: every network gives these.
            for network in Network.allCases {
                let secrets = try SwapSecrets(seed: seed, network: network, index: vector.index, scheme: .legacy)
                XCTAssertEqual(secrets.claimKey.publicKey.compressed.hex, vector.claim, "claim key, index \(vector.index)")
                XCTAssertEqual(secrets.paymentHash.hex, vector.paymentHash, "payment hash, index \(vector.index)")
            }
            let secrets = try SwapSecrets(seed: seed, network: .mainnet, index: vector.index, scheme: .legacy)
            XCTAssertEqual(secrets.claimKey.publicKey.compressed.hex, vector.claim, "claim key, index \(vector.index)")
            XCTAssertEqual(secrets.refundKey.publicKey.compressed.hex, vector.refund, "refund key, index \(vector.index)")
            XCTAssertEqual(secrets.paymentHash.hex, vector.paymentHash, "payment hash, index \(vector.index)")
        }
    }

    /// The networked scheme (m/1009'/16'/net'/{0,1,2}'/index'), pinned like the legacy one:
    /// index 0 on each network, and index 2^31-1 on mainnet.
    func testNetworkedDerivationIsPinned() throws {
        let pinned: [(network: Network, index: UInt32, claim: String, refund: String, paymentHash: String)] = [
            (.mainnet, 0,
             "03e2964654dc8d578b20dfc4be0cabe6c0ca64b6f5d2bc43d84d9fed3e6a1f894d",
             "02251c5c09bea64c6972b01004c3169a86e6f2c5bb8acff24fbc60e2cb5afc6c2a",
             "5d62f23f72ab88190de750bffec2c478f13f6ebdf04ee0deb43158e57b2124db"),
            (.testnet, 0,
             "03237d919ba4fb1782fbf91371ede17f04e17668feee95545cb7ce4b2bc817a088",
             "03e28da72e2f0a6410120ce4c9f73fef3c94b03aad75b5cb524b301e20de7de2a7",
             "beee4e4c10442bea5bafe9ed7a25c69ac594236ee0295ea2ef45fadbe83ccab1"),
            (.signet, 0,
             "02e4deea339d86e1e728b4ef2d9702c5dbb10cf1a1dd55f3d6f759c24c6243408a",
             "032f8e0154a4d383d577360d5740909efaf7eb7cae80d53c37dc26227d9c71f070",
             "ca7aeeb6ada321a4403b0dd606806131333e1ae9e073fc83032bbe3809be7c57"),
            (.regtest, 0,
             "020a7345d52223cefebe7d7720a12d7cb6ae9035cb527a50ea29b101c37072f46d",
             "039407478827f8ed94ded2f2751b4c2bb65fe4f9e28c6b371bbb55868fff2c5caf",
             "23a45edd991f9aa645d13fa94c5db134841a19eba64bfda06e3f1f942fac6130"),
            (.mainnet, 0x7fff_ffff,
             "03a6bc9982fb4cdfb36ffc2e6d8dd7f5cb6bc995248b4239cedb48bef79344e546",
             "03bbab57f26edabab31c05363ce44153279173830a1ddd1cc09dd123d55fe41a05",
             "5404750f694c12a886da334ce6b38dd17a0bc47ea3c90a49fd010dd909830728"),
        ]
        for vector in pinned {
            let secrets = try SwapSecrets(seed: seed, network: vector.network, index: vector.index, scheme: .networked)
            let label = "\(vector.network.rawValue) index \(vector.index)"
            XCTAssertEqual(secrets.scheme, .networked)
            XCTAssertEqual(secrets.claimKey.publicKey.compressed.hex, vector.claim, "claim key, \(label)")
            XCTAssertEqual(secrets.refundKey.publicKey.compressed.hex, vector.refund, "refund key, \(label)")
            XCTAssertEqual(secrets.paymentHash.hex, vector.paymentHash, "payment hash, \(label)")
            let chain = try SwapKeyChain(seed: seed, network: vector.network)
            XCTAssertEqual(try chain.paymentHash(index: vector.index, scheme: .networked).hex, vector.paymentHash, label)
        }
    }

    /// Both schemes as documented, step by step with the Bitcoin module's BIP32, on every network.
    func testDerivationFollowsTheDocumentedPaths() throws {
        let master = try ExtendedKey(seed: seed)
        let expectedPrefix: [Network: String] = [.mainnet: "m/1009'/16'/0'", .testnet: "m/1009'/16'/1'",
                                                 .signet: "m/1009'/16'/2'", .regtest: "m/1009'/16'/3'"]
        for network in Network.allCases {
            for scheme in SwapKeyScheme.allCases {
                let prefix = scheme == .legacy ? "m/1009'" : try XCTUnwrap(expectedPrefix[network])
                XCTAssertEqual(scheme.path(branch: 1, index: 5, network: network), prefix + "/1'/5'")
                let secrets = try SwapSecrets(seed: seed, network: network, index: 5, scheme: scheme)
                XCTAssertEqual(try master.derived(DerivationPath(prefix + "/0'/5'")).privateKey, secrets.claimKey)
                XCTAssertEqual(try master.derived(DerivationPath(prefix + "/1'/5'")).privateKey, secrets.refundKey)
                let preimageKey = try XCTUnwrap(try master.derived(DerivationPath(prefix + "/2'/5'")).privateKey)
                XCTAssertEqual(secrets.preimage, TaggedHash.hash(tag: "peernode/preimage", preimageKey.bytes))
                XCTAssertEqual(secrets.paymentHash, SHA256.hash(secrets.preimage))
                XCTAssertEqual(secrets.preimage.count, 32)
            }
        }
    }

    /// The audit H-5 property: index N on one network (or under the legacy scheme) shares no
    /// key and no preimage with index N anywhere else, so a preimage public on one network
    /// or from a legacy swap settles nothing a networked swap elsewhere is owed.
    func testNetworksAndSchemesShareNoSecret() throws {
        for index: UInt32 in [0, 1, 77] {
            var keys = Set<[UInt8]>()
            var preimages = Set<[UInt8]>()
            let legacy = try SwapSecrets(seed: seed, network: .mainnet, index: index, scheme: .legacy)
            var all = [legacy]
            for network in Network.allCases {
                all.append(try SwapSecrets(seed: seed, network: network, index: index, scheme: .networked))
            }
            for secrets in all {
                XCTAssertTrue(keys.insert(secrets.claimKey.bytes).inserted, "claim key, index \(index)")
                XCTAssertTrue(keys.insert(secrets.refundKey.bytes).inserted, "refund key, index \(index)")
                XCTAssertTrue(preimages.insert(secrets.preimage).inserted, "preimage, index \(index)")
            }
        }
    }

    func testNewSwapsUseTheNetworkedScheme() {
        XCTAssertEqual(SwapKeyScheme.current, .networked)
        XCTAssertEqual(SwapKeyScheme.legacy.rawValue, 0)
        XCTAssertEqual(SwapKeyScheme.networked.rawValue, 1)
    }

    func testThousandSwapsShareNoKeyOrPreimage() throws {
        let chain = try SwapKeyChain(seed: seed, network: .mainnet)
        var keys = Set<[UInt8]>()
        var preimages = Set<[UInt8]>()
        for index in UInt32(0)..<1000 {
            let secrets = try chain.secrets(index: index, scheme: .current)
            XCTAssertTrue(keys.insert(secrets.claimKey.bytes).inserted, "claim key \(index)")
            XCTAssertTrue(keys.insert(secrets.refundKey.bytes).inserted, "refund key \(index)")
            XCTAssertTrue(preimages.insert(secrets.preimage).inserted, "preimage \(index)")
            XCTAssertFalse(keys.contains(secrets.preimage), "a preimage is never a key")
        }
        XCTAssertEqual(keys.count, 2000)
        XCTAssertEqual(preimages.count, 1000)
    }

    func testAnotherSeedGivesOtherSecrets() throws {
        let a = try SwapSecrets(seed: seed, network: .mainnet, index: 0, scheme: .current)
        let b = try SwapSecrets(seed: seed.map { $0 ^ 0xff }, network: .mainnet, index: 0, scheme: .current)
        XCTAssertNotEqual(a.claimKey, b.claimKey)
        XCTAssertNotEqual(a.preimage, b.preimage)
    }

    func testBadInputsAreRefused() {
        XCTAssertThrows(.invalidSeedLength(16),
                        try SwapSecrets(seed: Array(seed.prefix(16)), network: .mainnet, index: 0, scheme: .current))
        for scheme in SwapKeyScheme.allCases {
            XCTAssertThrows(.swapIndexOutOfRange(0x8000_0000),
                            try SwapSecrets(seed: seed, network: .mainnet, index: 0x8000_0000, scheme: scheme))
        }
    }

    /// Logs and dumps show the index and public parts, never the preimage or a private key.
    func testDescriptionHidesSecrets() throws {
        let secrets = try SwapSecrets(seed: seed, network: .regtest, index: 3, scheme: .current)
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

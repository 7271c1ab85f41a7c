import XCTest
@testable import Bitcoin

/// Behaviour beyond the vector files: network checks, script templates that have no
/// address, malformed values, and WIF secrecy.
final class AddressTests: XCTestCase {
    private let hash20 = [UInt8](repeating: 0xab, count: 20)
    private let key32 = [UInt8](repeating: 0xcd, count: 32)

    func testNetworkConstants() {
        XCTAssertEqual(Network.allCases.map(\.bech32HRP), ["bc", "tb", "tb", "bcrt"])
        XCTAssertEqual(Network.allCases.map(\.p2pkhVersion), [0x00, 0x6f, 0x6f, 0x6f])
        XCTAssertEqual(Network.allCases.map(\.p2shVersion), [0x05, 0xc4, 0xc4, 0xc4])
        XCTAssertEqual(Network.allCases.map(\.wifVersion), [0x80, 0xef, 0xef, 0xef])
        XCTAssertEqual(Network.testnet.encodingSiblings, [.testnet, .signet])
        XCTAssertEqual(Network.regtest.encodingSiblings, [.regtest])
        XCTAssertEqual(Network.mainnet.encodingSiblings, [.mainnet])
    }

    func testAddressForOtherNetworkNamesBoth() throws {
        let testnet = Address.p2tr(outputKey: key32).encoded(for: .testnet)
        XCTAssertThrowsError(try Address(testnet, network: .mainnet)) { error in
            XCTAssertEqual(error as? BitcoinError,
                           .invalidAddress("address is for testnet or signet, this node runs on mainnet"))
        }
        XCTAssertEqual(try Address(testnet, network: .signet), .p2tr(outputKey: key32))
        let (_, networks) = try Address.decodeAnyNetwork(testnet)
        XCTAssertEqual(networks, [.testnet, .signet])

        let legacy = Address.p2sh(scriptHash: hash20).encoded(for: .regtest)
        XCTAssertEqual(try Address.decodeAnyNetwork(legacy).networks, [.testnet, .signet, .regtest])
        XCTAssertThrowsError(try Address(legacy, network: .mainnet)) { error in
            XCTAssertEqual(error as? BitcoinError,
                           .invalidAddress("address is for testnet, signet or regtest, this node runs on mainnet"))
        }
    }

    func testWIFIsNotAnAddress() throws {
        let wif = try WIF(privateKey: key32, isCompressed: true).encoded(for: .mainnet)
        XCTAssertThrowsError(try Address(wif, network: .mainnet))
    }

    func testSegwitAddressOfUnknownChainSaysSo() throws {
        let other = try SegwitAddress(hrp: "ltc", version: 0, program: hash20).encoded
        XCTAssertThrowsError(try Address(other, network: .mainnet)) { error in
            XCTAssertTrue(String(describing: error).contains("for no Bitcoin network"), "\(error)")
        }
    }

    func testOverlongInputIsRefusedBeforeDecoding() {
        let long = String(repeating: "1", count: 10_000)
        XCTAssertThrowsError(try Address(long, network: .mainnet)) { error in
            XCTAssertEqual(error as? BitcoinError, .invalidAddress("10000 characters is too long for an address"))
        }
        XCTAssertThrowsError(try Address("", network: .mainnet))
    }

    func testWitnessInitializerPicksCanonicalCase() throws {
        XCTAssertEqual(try Address(witnessVersion: 0, program: hash20), .p2wpkh(pubkeyHash: hash20))
        XCTAssertEqual(try Address(witnessVersion: 0, program: key32), .p2wsh(scriptHash: key32))
        XCTAssertEqual(try Address(witnessVersion: 1, program: key32), .p2tr(outputKey: key32))
        XCTAssertEqual(try Address(witnessVersion: 1, program: hash20), .witness(version: 1, program: hash20))
        XCTAssertThrowsError(try Address(witnessVersion: 0, program: [UInt8](repeating: 1, count: 21)))
        XCTAssertThrowsError(try Address(witnessVersion: 17, program: key32))
        XCTAssertThrowsError(try Address(witnessVersion: 2, program: [1]))
        XCTAssertThrowsError(try Address(witnessVersion: 2, program: [UInt8](repeating: 1, count: 41)))
    }

    func testValidateRejectsMalformedCases() {
        XCTAssertThrowsError(try Address.p2pkh(pubkeyHash: [1, 2, 3]).validate())
        XCTAssertThrowsError(try Address.p2tr(outputKey: hash20).validate())
        XCTAssertThrowsError(try Address.witness(version: 1, program: key32).validate(), "should be .p2tr")
        XCTAssertThrowsError(try Address.witness(version: 0, program: hash20).validate(), "should be .p2wpkh")
        XCTAssertNoThrow(try Address.p2wsh(scriptHash: key32).validate())
    }

    func testScriptTemplates() throws {
        XCTAssertEqual(Address.p2pkh(pubkeyHash: hash20).scriptPubKey, [0x76, 0xa9, 20] + hash20 + [0x88, 0xac])
        XCTAssertEqual(Address.p2sh(scriptHash: hash20).scriptPubKey, [0xa9, 20] + hash20 + [0x87])
        XCTAssertEqual(Address.p2wpkh(pubkeyHash: hash20).scriptPubKey, [0x00, 20] + hash20)
        XCTAssertEqual(Address.p2tr(outputKey: key32).scriptPubKey, [0x51, 32] + key32)
        XCTAssertEqual(Address.witness(version: 16, program: [1, 2]).scriptPubKey, [0x60, 2, 1, 2])
        // Pay-to-anchor is a witness v1 output with a 2-byte program.
        XCTAssertEqual(try Address(scriptPubKey: [0x51, 0x02, 0x4e, 0x73]), .witness(version: 1, program: [0x4e, 0x73]))
    }

    func testNonStandardScriptsHaveNoAddress() {
        let scripts: [(String, [UInt8])] = [
            ("empty", []),
            ("OP_RETURN", [0x6a, 4, 1, 2, 3, 4]),
            ("P2PKH with a 19-byte push", [0x76, 0xa9, 19] + hash20.dropLast() + [0x88, 0xac]),
            ("P2PKH with a trailing byte", [0x76, 0xa9, 20] + hash20 + [0x88, 0xac, 0x00]),
            ("P2SH with OP_PUSHDATA1", [0xa9, 0x4c, 20] + hash20 + [0x87]),
            ("witness v0 with 21 bytes", [0x00, 21] + hash20 + [0]),
            ("witness with a 1-byte program", [0x51, 1, 7]),
            ("witness with a 41-byte program", [0x52, 41] + [UInt8](repeating: 0, count: 41)),
            ("OP_1NEGATE as version", [0x4f, 20] + hash20),
            ("push length disagrees with size", [0x00, 20] + hash20 + [0]),
            ("bare key", [33] + [UInt8](repeating: 2, count: 33) + [0xac]),
        ]
        for (name, script) in scripts {
            XCTAssertThrowsError(try Address(scriptPubKey: script), name)
        }
    }

    func testWIFRoundTripAndKeyRange() throws {
        let key = try WIF(privateKey: key32, isCompressed: false)
        for network in Network.allCases {
            XCTAssertEqual(try WIF(key.encoded(for: network), network: network), key)
        }
        XCTAssertThrowsError(try WIF(key.encoded(for: .testnet), network: .mainnet)) { error in
            XCTAssertEqual(error as? BitcoinError,
                           .invalidKey("WIF key is for testnet, signet or regtest, this node runs on mainnet"))
        }
        XCTAssertThrowsError(try WIF(privateKey: [UInt8](repeating: 0, count: 32), isCompressed: true))
        XCTAssertThrowsError(try WIF(privateKey: WIF.curveOrder, isCompressed: true))
        var belowOrder = WIF.curveOrder
        belowOrder[31] -= 1
        XCTAssertNoThrow(try WIF(privateKey: belowOrder, isCompressed: true))
        // A compression flag other than 0x01 is not a key.
        let badFlag = Base58Check.encode([0x80] + key32 + [0x02])
        XCTAssertThrowsError(try WIF(badFlag, network: .mainnet))
    }

    func testWIFDescriptionsHideTheKey() throws {
        let key = try WIF(privateKey: key32, isCompressed: true)
        for text in [String(describing: key), String(reflecting: key), "\(key)"] {
            XCTAssertFalse(text.contains("cd"), text)
            XCTAssertFalse(text.contains("205"), text)
        }
    }
}

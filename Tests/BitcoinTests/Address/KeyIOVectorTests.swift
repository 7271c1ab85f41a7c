import TestSupport
import XCTest
@testable import Bitcoin

/// Bitcoin Core's `key_io_valid.json` and `key_io_invalid.json` (src/test/data), read
/// from `Tests/Data/vectors/bitcoin-core`, checked the way Core's `key_io_tests.cpp`
/// does: addresses to scriptPubKey and back, WIF keys to key bytes and back, each
/// kind refused as the other, case flips, and invalid strings refused everywhere.
final class KeyIOVectorTests: XCTestCase {
    /// Core's chain names. Testnet4 encodes addresses and keys exactly like testnet3.
    private static let chains: [String: Network] = [
        "main": .mainnet, "test": .testnet, "testnet4": .testnet, "signet": .signet, "regtest": .regtest,
    ]

    private func rows(_ file: String, count: Int) throws -> [[Any]] {
        let rows = try XCTUnwrap(try Vectors.json("bitcoin-core/\(file)") as? [[Any]])
        XCTAssertEqual(rows.count, count, "\(file) row count")
        return rows
    }

    /// Swaps the case of every ASCII letter, as Core's test does.
    private func flipCase(_ string: String) -> String {
        String(decoding: string.utf8.map { c -> UInt8 in
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return c ^ 0x20
            default: return c
            }
        }, as: UTF8.self)
    }

    private func kind(_ address: Address) -> String {
        switch address {
        case .p2pkh: return "p2pkh"
        case .p2sh: return "p2sh"
        case .p2wpkh: return "p2wpkh"
        case .p2wsh: return "p2wsh"
        case .p2tr: return "p2tr"
        case .witness: return "witness"
        }
    }

    func testValid() throws {
        var checked: [String: Int] = [:]
        var caseFlipsAccepted = 0, caseFlipsRefused = 0
        for row in try rows("key_io_valid.json", count: 70) {
            let string = try XCTUnwrap(row.first as? String)
            let payload = try XCTUnwrap(row.count == 3 ? row[1] as? String : nil, "row shape: \(string)")
            let metadata = try XCTUnwrap(row[2] as? [String: Any])
            let chain = try XCTUnwrap(metadata["chain"] as? String)
            let network = try XCTUnwrap(Self.chains[chain], "unknown chain \(chain)")
            let isPrivateKey = try XCTUnwrap(metadata["isPrivkey"] as? Bool)

            if isPrivateKey {
                let key = try WIF(string, network: network)
                XCTAssertEqual(key.privateKey.hex, payload, string)
                XCTAssertEqual(key.isCompressed, try XCTUnwrap(metadata["isCompressed"] as? Bool), string)
                XCTAssertEqual(key.encoded(for: network), string)
                for other in Network.allCases {
                    XCTAssertThrowsError(try Address(string, network: other), "WIF accepted as address: \(string)")
                }
                checked[key.isCompressed ? "wif compressed" : "wif uncompressed", default: 0] += 1
                continue
            }

            let address = try Address(string, network: network)
            XCTAssertEqual(address.scriptPubKey.hex, payload, string)
            let fromScript = try Address(scriptPubKey: bytes(payload))
            XCTAssertEqual(fromScript, address, string)
            XCTAssertEqual(fromScript.encoded(for: network), string)
            for other in Network.allCases {
                XCTAssertThrowsError(try WIF(string, network: other), "address accepted as WIF: \(string)")
            }
            // Bech32 is case-insensitive as a whole; base58 is case-sensitive.
            let flipped = flipCase(string)
            if metadata["tryCaseFlip"] as? Bool ?? false {
                XCTAssertEqual(try Address(flipped, network: network).scriptPubKey.hex, payload, flipped)
                caseFlipsAccepted += 1
            } else {
                XCTAssertThrowsError(try Address(flipped, network: network), flipped)
                caseFlipsRefused += 1
            }
            checked[kind(address), default: 0] += 1
        }
        XCTAssertEqual(checked, [
            "p2pkh": 11, "p2sh": 11, "p2wpkh": 8, "p2wsh": 8, "p2tr": 8, "witness": 8,
            "wif compressed": 8, "wif uncompressed": 8,
        ])
        XCTAssertEqual(checked.values.reduce(0, +), 70, "every valid row checked")
        XCTAssertEqual(caseFlipsAccepted, 32, "every bech32 row")
        XCTAssertEqual(caseFlipsRefused, 22, "every base58 row")
    }

    /// Each valid address is accepted exactly on the networks sharing its chain's
    /// encoding, and refused elsewhere with a message naming the networks it is for.
    func testValidAddressesOnOtherNetworks() throws {
        var refusals = 0
        for row in try rows("key_io_valid.json", count: 70) {
            let string = try XCTUnwrap(row[0] as? String)
            let metadata = try XCTUnwrap(row[2] as? [String: Any])
            guard metadata["isPrivkey"] as? Bool == false else { continue }
            let network = try XCTUnwrap(Self.chains[try XCTUnwrap(metadata["chain"] as? String)])
            let isBase58 = !string.lowercased().hasPrefix(network.bech32HRP + "1")
            for other in Network.allCases {
                let shared = isBase58
                    ? other.p2pkhVersion == network.p2pkhVersion
                    : other.bech32HRP == network.bech32HRP
                if shared {
                    XCTAssertNoThrow(try Address(string, network: other), "\(string) on \(other)")
                } else {
                    XCTAssertThrowsError(try Address(string, network: other)) { error in
                        XCTAssertTrue(String(describing: error).contains("this node runs on \(other.rawValue)"), "\(error)")
                    }
                    refusals += 1
                }
            }
        }
        // Mainnet rows (14): refused on 3 networks. Base58 test-network rows (16): on mainnet.
        // Bech32 testnet and signet rows (16): on mainnet and regtest. Regtest bech32 (8): on 3.
        XCTAssertEqual(refusals, 14 * 3 + 16 + 16 * 2 + 8 * 3)
    }

    func testInvalid() throws {
        var checked = 0
        for row in try rows("key_io_invalid.json", count: 70) {
            let string = try XCTUnwrap(row.count == 1 ? row[0] as? String : nil, "row shape")
            for network in Network.allCases {
                XCTAssertThrowsError(try Address(string, network: network), "address \(string.prefix(50)) on \(network)")
                XCTAssertThrowsError(try WIF(string, network: network), "key \(string.prefix(50)) on \(network)")
            }
            checked += 1
        }
        XCTAssertEqual(checked, 70)
    }
}

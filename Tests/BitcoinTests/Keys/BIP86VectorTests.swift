import TestSupport
import XCTest
@testable import Bitcoin

/// BIP86 single-key taproot outputs: BIP32 derivation, the key-path-only TapTweak, the
/// P2TR scriptPubKey and its bech32m address, end to end from the BIP's seed.
final class BIP86VectorTests: XCTestCase {
    func testEveryEntryDerivesToItsAddress() throws {
        let root = try XCTUnwrap(try Vectors.json("bip32/bip86_vectors.json") as? [String: Any])
        let seed = bytes(try XCTUnwrap(root["bip39_seed_hex"] as? String))
        let master = try ExtendedKey(seed: seed)
        XCTAssertEqual(master.base58, root["rootpriv"] as? String)
        XCTAssertEqual(master.neutered.base58, root["rootpub"] as? String)

        let entries = try XCTUnwrap(root["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 4, "BIP86 entry count")
        var addressesChecked = 0
        for entry in entries {
            let path = try DerivationPath(try XCTUnwrap(entry["path"] as? String))
            let key = try master.derived(path)
            XCTAssertEqual(key.base58, entry["xprv"] as? String)
            XCTAssertEqual(key.neutered.base58, entry["xpub"] as? String)

            // The account-level entry lists only its extended keys.
            guard let expectedAddress = entry["address"] as? String else { continue }
            addressesChecked += 1
            let internalKey = key.publicKey.xOnlyPublicKey
            XCTAssertEqual(internalKey.bytes.hex, entry["internal_key"] as? String)
            let (outputKey, _) = try internalKey.tapTweaked(merkleRoot: nil)
            XCTAssertEqual(outputKey.bytes.hex, entry["output_key"] as? String)

            let address = Address.p2tr(outputKey: outputKey.bytes)
            XCTAssertEqual(address.script.bytes.hex, entry["scriptPubKey"] as? String)
            XCTAssertEqual(address.encoded(for: .mainnet), expectedAddress)
            XCTAssertEqual(try Address(expectedAddress, network: .mainnet), address)
        }
        XCTAssertEqual(addressesChecked, 3, "BIP86 entries with an address")
    }
}

import Bitcoin
@testable import PeerNode
import TestSupport
import XCTest

/// BIP86 keys from the node seed: the BIP's own vectors, the coin type per network, the
/// gap window and address hand-out.
final class WalletKeysTests: XCTestCase {
    func testBIP86VectorSeedGivesTheBIPsReceiveAndChangeAddresses() throws {
        let root = try XCTUnwrap(try Vectors.json("bip32/bip86_vectors.json") as? [String: Any])
        let seed = bytes(try XCTUnwrap(root["bip39_seed_hex"] as? String))
        let entries = try XCTUnwrap(root["entries"] as? [[String: Any]])
        let expected = Dictionary(uniqueKeysWithValues: entries.compactMap { entry -> (String, String)? in
            guard let path = entry["path"] as? String, let address = entry["address"] as? String else { return nil }
            return (path, address)
        })
        XCTAssertEqual(expected.count, 3, "BIP86 entries with an address")

        let keys = try WalletKeys(seed: seed, network: .mainnet)
        for (path, address) in expected {
            let parts = path.split(separator: "/")
            let chain = try XCTUnwrap(KeyChain(rawValue: try XCTUnwrap(UInt32(parts[4]))))
            let walletPath = WalletKeyPath(chain: chain, index: try XCTUnwrap(UInt32(parts[5])))
            XCTAssertEqual(keys.address(for: walletPath)?.encoded, address, path)
        }
    }

    func testRegtestUsesCoinTypeOne() throws {
        let seed = [UInt8](repeating: 0x01, count: 32)
        let keys = try WalletKeys(seed: seed, network: .regtest)
        let manual = try ExtendedKey(seed: seed, network: .testnet).derived(DerivationPath("m/86'/1'/0'/0/3"))
        let outputKey = try manual.publicKey.xOnlyPublicKey.tapTweaked(merkleRoot: nil).key
        let address = try XCTUnwrap(keys.address(for: WalletKeyPath(chain: .receive, index: 3)))
        XCTAssertEqual(address.address, .p2tr(outputKey: outputKey.bytes))
        XCTAssertTrue(address.encoded.hasPrefix("bcrt1p"))
        XCTAssertEqual(keys.accountPath.description, "m/86'/1'/0'")
    }

    func testSigningKeyMatchesTheOutputKeyOfItsScript() throws {
        let keys = try WalletKeys(seed: [UInt8](repeating: 0x05, count: 32), network: .regtest)
        let script = try XCTUnwrap(keys.script(for: WalletKeyPath(chain: .change, index: 7)))
        let key = try XCTUnwrap(try keys.signingKey(for: script))
        XCTAssertEqual(Address.p2tr(outputKey: key.xOnlyPublicKey.bytes).script, script)
        XCTAssertNil(try keys.signingKey(for: Address.p2tr(outputKey: key.xOnlyPublicKey.bytes.reversed()).script))
    }

    func testTheGapWindowFollowsTheHighestUsedIndex() throws {
        var keys = try WalletKeys(seed: [UInt8](repeating: 0x02, count: 32), network: .regtest, gapLimit: 20)
        XCTAssertEqual(keys.watchedCount(.receive), 20)
        XCTAssertEqual(keys.watchedCount(.change), 20)
        let last = try XCTUnwrap(keys.script(for: WalletKeyPath(chain: .receive, index: 19)))
        XCTAssertEqual(keys.markUsed(last), WalletKeyPath(chain: .receive, index: 19))
        XCTAssertEqual(keys.watchedCount(.receive), 40)
        XCTAssertNotNil(keys.script(for: WalletKeyPath(chain: .receive, index: 39)))
        XCTAssertNil(keys.script(for: WalletKeyPath(chain: .receive, index: 40)))
        XCTAssertEqual(keys.watchedCount(.change), 20, "the change chain has its own window")
    }

    func testAddressesAreHandedOutOnceAndAfterEveryUsedOne() throws {
        var keys = try WalletKeys(seed: [UInt8](repeating: 0x03, count: 32), network: .regtest)
        XCTAssertEqual(keys.nextAddress(.receive).path.index, 0)
        XCTAssertEqual(keys.nextAddress(.receive).path.index, 1)
        XCTAssertEqual(keys.peekNextAddress(.receive).path.index, 2)
        XCTAssertEqual(keys.peekNextAddress(.receive).path.index, 2, "peeking hands nothing out")
        // A restored wallet that sees index 5 paid continues after it.
        _ = keys.markUsed(try XCTUnwrap(keys.script(for: WalletKeyPath(chain: .receive, index: 5))))
        XCTAssertEqual(keys.nextAddress(.receive).path.index, 6)
        XCTAssertEqual(keys.nextAddress(.change).path.index, 0)
    }

    func testAZeroGapLimitIsRefused() {
        XCTAssertThrowsError(try WalletKeys(seed: [UInt8](repeating: 0x03, count: 32), network: .regtest, gapLimit: 0))
    }
}

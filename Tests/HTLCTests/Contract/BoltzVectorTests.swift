import Bitcoin
import Foundation
@testable import HTLC
import TestSupport
import XCTest

/// The `taproot_boltz` contract against Boltz's own vectors (`Tests/Data/vectors/boltz`,
/// see SOURCES.md there): leaves, internal key, output key, control blocks and addresses.
final class BoltzVectorTests: XCTestCase {
    private func swapVectors() throws -> [String: Any] {
        try XCTUnwrap(try Vectors.json("boltz/boltz_swap_vectors.json") as? [String: Any])
    }

    private func string(_ object: Any?, _ key: String) throws -> String {
        try XCTUnwrap((object as? [String: Any])?[key] as? String, "missing \(key)")
    }

    /// boltz-client `TestSwapTree`, the BTC reverse case: a whole contract from the swap's
    /// terms, down to the mainnet address Boltz asserts.
    func testBoltzClientReverseSwapTree() throws {
        let cases = try XCTUnwrap((try swapVectors()["boltz_client_swaptree"] as? [String: Any])?["cases"] as? [[String: Any]])
        let reverse = try XCTUnwrap(cases.first { $0["currency"] as? String == "BTC" && $0["swap_type"] as? String == "reverse" })
        let computed = reverse["computed"]
        let ours = try PrivateKey(bytes(try string(reverse, "our_private_key")))
        let boltz = try PublicKey(bytes(try string(reverse, "boltz_public_key")))
        let timeout = try XCTUnwrap(reverse["timeout_block_height"] as? Int)
        let terms = try SwapTerms(network: .mainnet, paymentHash: bytes(try string(reverse, "preimage_hash_sha256")),
                                  claimPublicKey: ours.publicKey, refundPublicKey: boltz, timeoutHeight: UInt32(timeout))
        let contract = try TaprootSwapContract(terms: terms)

        XCTAssertEqual(contract.claimLeaf.script.bytes.hex, try string(reverse, "claim_leaf"))
        XCTAssertEqual(contract.refundLeaf.script.bytes.hex, try string(reverse, "refund_leaf"))
        XCTAssertEqual(Int(contract.claimLeaf.version), reverse["leaf_version"] as? Int)
        XCTAssertEqual(contract.internalKey.bytes.hex, try string(computed, "internal_key_musig_keyagg"))
        XCTAssertEqual(contract.tree.merkleRoot.hex, try string(computed, "merkle_root"))
        XCTAssertEqual(contract.outputKey.bytes.hex, try string(computed, "output_key"))
        XCTAssertEqual(contract.outputKeyIsOdd, (computed as? [String: Any])?["output_key_parity"] as? Int == 1)
        XCTAssertEqual(contract.claimControlBlock.bytes.hex, try string(computed, "claim_control_block"))
        XCTAssertEqual(contract.refundControlBlock.bytes.hex, try string(computed, "refund_control_block"))
        XCTAssertEqual(contract.scriptPubKey.bytes.hex, try string(computed, "scriptPubKey"))
        XCTAssertEqual(contract.address.encoded(for: .mainnet), try string(reverse, "address_mainnet"))
        XCTAssertEqual(contract.address.encoded(for: .regtest), try string(computed, "address_regtest"))
        XCTAssertNoThrow(try contract.check(claimLeafScript: bytes(try string(reverse, "claim_leaf")),
                                            refundLeafScript: bytes(try string(reverse, "refund_leaf"))))
    }

    /// boltz-core (Rust) `reverse_tree`: the leaves from the HASH160, the x-only keys and
    /// timeout 123 (a one-byte CScriptNum), and the tree's merkle root.
    func testBoltzCoreRustReverseTreeLeaves() throws {
        let vector = try XCTUnwrap((try swapVectors()["boltz_core_rust"] as? [String: Any])?["reverse_tree"] as? [String: Any])
        let claim = TaprootSwapContract.claimScript(
            preimageHash160: bytes(try string(vector, "preimage_hash160")),
            claimKey: try XOnlyPublicKey(bytes(try string(vector, "claim_pubkey_xonly"))))
        let refund = TaprootSwapContract.refundScript(
            refundKey: try XOnlyPublicKey(bytes(try string(vector, "refund_pubkey_xonly"))),
            timeoutHeight: UInt32(try XCTUnwrap(vector["lock_time_height"] as? Int)))
        XCTAssertEqual(claim.bytes.hex, try string(vector, "claim_leaf"))
        XCTAssertEqual(refund.bytes.hex, try string(vector, "refund_leaf"))
        let tree = TapTree.branch(.leaf(TapLeaf(script: claim)), .leaf(TapLeaf(script: refund)))
        XCTAssertEqual(tree.merkleRoot.hex, try string(vector["computed"], "merkle_root"))
    }

    /// boltz-core (TypeScript) swap tree serializer: from a SHA-256 payment hash and two
    /// private keys, the reverse claim leaf and the refund leaf Boltz's snapshot holds.
    func testBoltzCoreTypeScriptReverseLeavesFromPaymentHash() throws {
        let vector = try XCTUnwrap((try swapVectors()["boltz_core_ts"] as? [String: Any])?["swap_tree_serializer"] as? [String: Any])
        let inputs = vector["inputs"]
        let terms = try SwapTerms(
            network: .regtest, paymentHash: bytes(try string(inputs, "preimage_hash_sha256")),
            claimPublicKey: try PrivateKey(bytes(try string(inputs, "claim_private_key"))).publicKey,
            refundPublicKey: try PrivateKey(bytes(try string(inputs, "refund_private_key"))).publicKey,
            timeoutHeight: UInt32(try XCTUnwrap((inputs as? [String: Any])?["timeout_block_height"] as? Int)))
        let contract = try TaprootSwapContract(terms: terms)
        let covenantTree = vector["expected_reverse_swap_tree_with_covenant_liquid"] as? [String: Any]
        XCTAssertEqual(contract.claimLeaf.script.bytes.hex, try string(covenantTree?["claimLeaf"], "output"))
        let bitcoinTree = vector["expected_swap_tree_bitcoin"] as? [String: Any]
        XCTAssertEqual(contract.refundLeaf.script.bytes.hex, try string(bitcoinTree?["refundLeaf"], "output"))
        XCTAssertEqual(contract.tree.merkleRoot.hex, try string(vector["computed"], "bitcoin_reverse_merkle_root"))
    }

    /// boltz-backend `Core.spec.ts`: KeyAgg(Boltz key, their key) unsorted, then the
    /// BIP341 tweak with the reverse tree, as `TaprootSwapContract` computes its output key.
    func testBoltzBackendAggregateAndTweakedKey() throws {
        let vector = try XCTUnwrap(try swapVectors()["boltz_backend_ts_musig"] as? [String: Any])
        let boltz = try PrivateKey(bytes(try string(vector, "boltz_private_key"))).publicKey
        let theirs = try PublicKey(bytes(try string(vector, "their_public_key")))
        let internalKey = try TaprootSwapContract.internalKey(provider: boltz, client: theirs)
        XCTAssertEqual(internalKey.bytes.hex, try string(vector, "expected_aggregate_key_xonly"))
        XCTAssertNotEqual(try TaprootSwapContract.internalKey(provider: theirs, client: boltz), internalKey,
                          "key order matters: the provider's key goes first")
        let tree = vector["tree"] as? [String: Any]
        let claim = TapLeaf(script: Script(bytes: bytes(try string(tree?["claimLeaf"], "output"))))
        let refund = TapLeaf(script: Script(bytes: bytes(try string(tree?["refundLeaf"], "output"))))
        let tweaked = try internalKey.tapTweaked(merkleRoot: TapTree.branch(.leaf(claim), .leaf(refund)).merkleRoot)
        XCTAssertEqual(tweaked.key.bytes.hex, try string(vector, "expected_tweaked_key_bitcoin"))
    }

    /// boltz-core (Rust) tree.rs, TREE_REVERSE: Boltz's expected claim leaf hash and merkle
    /// root for the same branch(claim, refund) shape.
    func testBoltzCoreRustReverseTreeHashes() throws {
        let trees = try XCTUnwrap(((try swapVectors()["boltz_core_rust"] as? [String: Any])?["tree_serialization_and_hashes"]
            as? [String: Any])?["trees"] as? [[String: Any]])
        let reverse = try XCTUnwrap(trees.first { $0["name"] as? String == "TREE_REVERSE" })
        let claim = TapLeaf(script: Script(bytes: bytes(try string(reverse, "claim_leaf"))))
        let refund = TapLeaf(script: Script(bytes: bytes(try string(reverse, "refund_leaf"))))
        XCTAssertEqual(claim.hash.hex, try string(reverse, "expected_claim_leaf_hash"))
        XCTAssertEqual(TapTree.branch(.leaf(claim), .leaf(refund)).merkleRoot.hex, try string(reverse, "expected_merkle_root"))
        // The refund leaf's layout and minimal timeout push (123321 -> 03b9e101) are ours too.
        let refundKey = try XOnlyPublicKey(bytes(try string(reverse, "expected_refund_pubkey_xonly")))
        XCTAssertEqual(TaprootSwapContract.refundScript(refundKey: refundKey, timeoutHeight: 123_321).bytes,
                       refund.script.bytes)
    }
}

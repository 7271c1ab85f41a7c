import Bitcoin
@testable import HTLC
import TestSupport
import XCTest

final class SwapContractTests: XCTestCase {
    /// The P2WSH script against `derived_p2wsh_sha256_htlc.json` (pubky-swap's layout on its
    /// test keys; computed by the project, not upstream data: see Tests/Data/vectors/boltz/SOURCES.md).
    func testP2WSHScriptMatchesDerivedVector() throws {
        let vector = try XCTUnwrap(try Vectors.json("boltz/derived_p2wsh_sha256_htlc.json") as? [String: Any])
        let inputs = try XCTUnwrap(vector["inputs"] as? [String: Any])
        let outputs = try XCTUnwrap(vector["outputs"] as? [String: String])
        let preimage = bytes(try XCTUnwrap(inputs["preimage"] as? String))
        let terms = try SwapTerms(
            network: .regtest, paymentHash: SHA256.hash(preimage),
            claimPublicKey: try PrivateKey(bytes(try XCTUnwrap(inputs["claim_private_key"] as? String))).publicKey,
            refundPublicKey: try PrivateKey(bytes(try XCTUnwrap(inputs["refund_private_key"] as? String))).publicKey,
            timeoutHeight: UInt32(try XCTUnwrap(inputs["timeout_block_height"] as? Int)))
        // The vector is the retired layout's: a stored swap of that type rebuilds this script.
        let contract = try SwapContract(type: .p2wshUnsized, terms: terms)
        guard case .p2wsh(let p2wsh) = contract else { return XCTFail("not p2wsh") }
        XCTAssertEqual(contract.type, .p2wshUnsized)
        XCTAssertEqual(terms.paymentHash.hex, outputs["payment_hash"])
        XCTAssertEqual(p2wsh.witnessScript.bytes.hex, outputs["witness_script"])
        XCTAssertEqual(contract.scriptPubKey.bytes.hex, outputs["scriptPubKey"])
        XCTAssertEqual(contract.encodedAddress, outputs["address_regtest"])
        XCTAssertEqual(contract.address.encoded(for: .mainnet), outputs["address_mainnet"])
        XCTAssertNoThrow(try contract.check(advertisedAddress: try XCTUnwrap(outputs["address_regtest"])))
    }

    func testP2WSHScriptReadsAsDrawn() {
        guard case .p2wsh(let contract) = Fixture.contract(.p2wsh) else { return XCTFail("not p2wsh") }
        let claim = Fixture.claimKey.publicKey.compressed.hex
        let refund = Fixture.refundKey.publicKey.compressed.hex
        XCTAssertEqual(contract.witnessScript.description,
                       "OP_IF OP_SIZE 20 OP_EQUALVERIFY OP_SHA256 \(Fixture.paymentHash.hex) OP_EQUALVERIFY \(claim) OP_CHECKSIG "
                       + "OP_ELSE 50f80c OP_CHECKLOCKTIMEVERIFY OP_DROP \(refund) OP_CHECKSIG OP_ENDIF")
        guard case .p2wsh(let retired) = Fixture.contract(.p2wshUnsized) else { return XCTFail("not p2wsh") }
        XCTAssertEqual(retired.witnessScript.description,
                       "OP_IF OP_SHA256 \(Fixture.paymentHash.hex) OP_EQUALVERIFY \(claim) OP_CHECKSIG "
                       + "OP_ELSE 50f80c OP_CHECKLOCKTIMEVERIFY OP_DROP \(refund) OP_CHECKSIG OP_ENDIF")
    }

    /// Pushes print as hex, as the Bitcoin module's assembly does: `20` is the number 32 and
    /// `50f80c` is 850000 as a CScriptNum.
    func testTaprootLeavesReadAsDrawn() {
        guard case .taprootBoltz(let contract) = Fixture.contract(.taprootBoltz) else { return XCTFail("not taproot") }
        XCTAssertEqual(contract.claimLeaf.script.description,
                       "OP_SIZE 20 OP_EQUALVERIFY OP_HASH160 \(RIPEMD160.hash(Fixture.paymentHash).hex) OP_EQUALVERIFY "
                       + "\(Fixture.claimKey.xOnlyPublicKey.bytes.hex) OP_CHECKSIG")
        XCTAssertEqual(contract.refundLeaf.script.description,
                       "\(Fixture.refundKey.xOnlyPublicKey.bytes.hex) OP_CHECKSIGVERIFY 50f80c OP_CHECKLOCKTIMEVERIFY")
        XCTAssertEqual(contract.claimLeaf.version, 0xc0)
        XCTAssertEqual(contract.refundLeaf.version, 0xc0)
    }

    /// The control blocks are what a verifier recomputes: each leaf's path gives the root the
    /// output key commits to.
    func testTaprootControlBlocksProveTheirLeaves() throws {
        guard case .taprootBoltz(let contract) = Fixture.contract(.taprootBoltz) else { return XCTFail("not taproot") }
        for (leaf, block) in [(contract.claimLeaf, contract.claimControlBlock), (contract.refundLeaf, contract.refundControlBlock)] {
            let root = try block.merkleRoot(for: leaf.script)
            let tweaked = try XOnlyPublicKey(block.internalKey).tapTweaked(merkleRoot: root)
            XCTAssertEqual(tweaked.key, contract.outputKey)
            XCTAssertEqual(tweaked.parityOdd, block.outputKeyIsOdd)
            XCTAssertEqual(block.path.count, 1)
        }
    }

    func testDescriptionNamesTheAddressAndTheScripts() {
        let taproot = Fixture.contract(.taprootBoltz)
        XCTAssertTrue(taproot.description.hasPrefix("taproot_boltz swap contract on regtest, address bcrt1p"))
        XCTAssertTrue(taproot.description.contains("from block 850000"))
        XCTAssertTrue(taproot.description.contains("OP_SIZE 20 OP_EQUALVERIFY OP_HASH160"))
        let p2wsh = Fixture.contract(.p2wsh)
        XCTAssertTrue(p2wsh.description.hasPrefix("p2wsh_v2 swap contract on regtest, address bcrt1q"))
        XCTAssertTrue(p2wsh.description.contains("OP_CHECKLOCKTIMEVERIFY OP_DROP"))
    }

    /// The retired layout is read from stored swaps but refused for new ones, with a reason
    /// that names what to ask for instead.
    func testTheRetiredP2WSHLayoutIsNeverOffered() throws {
        XCTAssertEqual(ContractType.allCases, [.taprootBoltz, .p2wsh])
        XCTAssertEqual(try ContractType(name: "p2wsh"), .p2wshUnsized)
        XCTAssertEqual(try ContractType(name: "p2wsh_v2"), .p2wsh)
        XCTAssertThrows(.retiredContractType("p2wsh"), try ContractType.p2wshUnsized.checkOfferable())
        XCTAssertTrue(HTLCError.retiredContractType("p2wsh").description.contains("use p2wsh_v2"))
        XCTAssertNoThrow(try ContractType.p2wsh.checkOfferable())
        XCTAssertNotEqual(Fixture.contract(.p2wsh).address, Fixture.contract(.p2wshUnsized).address)
    }

    func testTermsAreValidated() {
        let claim = Fixture.claimKey.publicKey, refund = Fixture.refundKey.publicKey
        XCTAssertThrows(.invalidPaymentHash(byteCount: 20),
                        try SwapTerms(network: .regtest, paymentHash: [UInt8](repeating: 1, count: 20),
                                      claimPublicKey: claim, refundPublicKey: refund, timeoutHeight: 100))
        for bad: UInt32 in [0, 500_000_000] {
            XCTAssertThrows(.invalidTimeoutHeight(bad),
                            try SwapTerms(network: .regtest, paymentHash: Fixture.paymentHash,
                                          claimPublicKey: claim, refundPublicKey: refund, timeoutHeight: bad))
        }
        XCTAssertThrows(.unknownContractType("p2sh"), try ContractType(name: "p2sh"))
        XCTAssertEqual(try ContractType(name: "taproot_boltz"), .taprootBoltz)
    }

    func testProviderLeavesAndAddressAreChecked() throws {
        guard case .taprootBoltz(let contract) = Fixture.contract(.taprootBoltz) else { return XCTFail("not taproot") }
        let claim = contract.claimLeaf.script.bytes, refund = contract.refundLeaf.script.bytes
        XCTAssertNoThrow(try contract.check(claimLeafScript: claim, refundLeafScript: refund))
        XCTAssertThrows(.contractMismatch("claim leaf"), try contract.check(claimLeafScript: refund, refundLeafScript: refund))
        XCTAssertThrows(.contractMismatch("refund leaf"), try contract.check(claimLeafScript: claim, refundLeafScript: claim))
        let other = Fixture.contract(.taprootBoltz, timeout: Fixture.timeout + 1)
        XCTAssertThrows(.contractMismatch("HTLC address"), try Fixture.contract(.taprootBoltz).check(advertisedAddress: other.encodedAddress))
        XCTAssertThrows(.contractMismatch("HTLC address"), try Fixture.contract(.taprootBoltz).check(advertisedAddress: "garbage"))
    }
}

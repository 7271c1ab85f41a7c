import Bitcoin
import HTLC
@testable import PeerNode
import XCTest

/// Submarine (`onchain_to_ln`) spends as the matcher reads them, with the keys in their
/// submarine places: the provider's claim key j in the claim path, the client's refund key
/// i in the refund path, KeyAgg(provider, client) inside, the payee's payment hash.
/// Signatures are placeholders (the matcher does not read them); `RecoverySubmarineScanTests`
/// runs real, kernel-accepted spends.
final class RecoverySubmarineMatcherTests: XCTestCase {
    private let clientSeed = [UInt8](repeating: 0x31, count: 32)
    private let providerSeed = [UInt8](repeating: 0x32, count: 32)
    private let signature = [UInt8](repeating: 0x01, count: 64)
    /// The payee's preimage: made by no seed here.
    private let preimage = [UInt8](repeating: 0x5a, count: 32)

    private func submarine(_ type: ContractType, client: UInt32, provider: UInt32) throws -> SwapContract {
        let clientKey = try SwapKeyChain(seed: clientSeed, network: .regtest).secrets(index: client, scheme: .current).refundKey
        let providerKey = try SwapKeyChain(seed: providerSeed, network: .regtest).secrets(index: provider, scheme: .current).claimKey
        let terms = try SwapTerms(network: .regtest, paymentHash: SHA256.hash(preimage), claimPublicKey: providerKey.publicKey,
                                  refundPublicKey: clientKey.publicKey, timeoutHeight: 2_000, roles: .submarine)
        return try SwapContract(type: type, terms: terms)
    }

    private func candidate(_ stack: [[UInt8]], vout: UInt32) throws -> SwapScriptMatcher.Candidate {
        let script = try XCTUnwrap(SwapScriptMatcher.parse(stack), "a contract spend parses")
        let txid = try TransactionID(hex: String(repeating: "ef", count: 32))
        return SwapScriptMatcher.Candidate(script: script, stack: stack, lock: OutPoint(txid: txid, index: vout),
                                           spendingTxid: txid, height: 9)
    }

    private func claim(_ contract: SwapContract) throws -> SwapScriptMatcher.Candidate {
        switch contract {
        case .taprootBoltz(let taproot):
            return try candidate([signature, preimage, taproot.claimLeaf.script.bytes, taproot.claimControlBlock.bytes], vout: 0)
        case .p2wsh(let p2wsh): return try candidate([signature, preimage, [0x01], p2wsh.witnessScript.bytes], vout: 0)
        }
    }

    private func refund(_ contract: SwapContract) throws -> SwapScriptMatcher.Candidate {
        switch contract {
        case .taprootBoltz(let taproot):
            return try candidate([signature, taproot.refundLeaf.script.bytes, taproot.refundControlBlock.bytes], vout: 1)
        case .p2wsh(let p2wsh): return try candidate([signature, [], p2wsh.witnessScript.bytes], vout: 1)
        }
    }

    private func matches(_ candidates: [SwapScriptMatcher.Candidate], seed: [UInt8]) throws -> [RecoveredSpend] {
        try RecoveryScanner.match(candidates, keyChain: try SwapKeyChain(seed: seed, network: .regtest), gapLimit: 100).0
    }

    /// A provider finds its claims by its claim key (the hash is not its own), and the
    /// client's refunds of the locks it was to claim (Taproot: the internal key, provider
    /// first; P2WSH: its claim key in the script). A client finds the provider's claim of
    /// its lock with the preimage, its proof of payment (Taproot: the internal key, client
    /// second; P2WSH: its refund key, `.locker`), and its own refunds (`.locker`).
    func testBothSidesFindEverySubmarineSpend() throws {
        for type in [ContractType.taprootBoltz, .p2wsh] {
            let contract = try submarine(type, client: 7, provider: 12)
            let spends = [try claim(contract), try refund(contract)]

            let provider = try matches(spends, seed: providerSeed)
            XCTAssertEqual(provider.map(RecoveryMatcherTests.label),
                           ["provider/submarine claim 12", "provider/submarine refund 12"], "\(type)")
            XCTAssertEqual(provider.first?.preimage, preimage, "\(type)")
            XCTAssertEqual(provider.first?.paymentHash, SHA256.hash(preimage), "\(type)")
            XCTAssertTrue(provider.allSatisfy { $0.contractType == type })

            let client = try matches(spends, seed: clientSeed)
            let clientClaim = type == .taprootBoltz ? "client/submarine claim 7" : "locker claim 7"
            XCTAssertEqual(client.map(RecoveryMatcherTests.label), [clientClaim, "locker refund 7"], "\(type)")
            XCTAssertEqual(client.first?.preimage, preimage, "the proof of payment (\(type))")

            XCTAssertEqual(try matches(spends, seed: [UInt8](repeating: 0x33, count: 32)), [], "\(type)")
        }
    }

    /// One seed with a reverse swap and a submarine swap at neighbouring indexes: each is
    /// read with its own direction (KeyAgg's order tells a reverse provider's Taproot lock
    /// from a submarine client's, and a reverse client's from a submarine provider's).
    func testReverseAndSubmarineSwapsOfOneSeedKeepTheirDirections() throws {
        let chain = try SwapKeyChain(seed: clientSeed, network: .regtest)
        let other = try SwapKeyChain(seed: providerSeed, network: .regtest)
        // Index 3: a reverse swap where our seed was the provider; index 4: a submarine swap
        // where it was the provider; index 5: a reverse client; 6: a submarine client.
        func taproot(hash: [UInt8], claim: PrivateKey, refund: PrivateKey, roles: ContractRoles) throws -> SwapContract {
            try SwapContract(type: .taprootBoltz, terms: try SwapTerms(
                network: .regtest, paymentHash: hash, claimPublicKey: claim.publicKey, refundPublicKey: refund.publicKey,
                timeoutHeight: 900, roles: roles))
        }
        let ours = { (index: UInt32) in try chain.secrets(index: index, scheme: .current) }
        let theirs = { (index: UInt32) in try other.secrets(index: index, scheme: .current) }
        let reverseProvider = try taproot(hash: try theirs(1).paymentHash, claim: try theirs(1).claimKey,
                                          refund: try ours(3).refundKey, roles: .reverse)
        let submarineProvider = try taproot(hash: SHA256.hash(preimage), claim: try ours(4).claimKey,
                                            refund: try theirs(2).refundKey, roles: .submarine)
        let reverseClient = try taproot(hash: try ours(5).paymentHash, claim: try ours(5).claimKey,
                                        refund: try theirs(3).refundKey, roles: .reverse)
        let submarineClient = try taproot(hash: SHA256.hash(preimage), claim: try theirs(4).claimKey,
                                          refund: try ours(6).refundKey, roles: .submarine)
        let reverseClaim: SwapScriptMatcher.Candidate
        if case .taprootBoltz(let taproot) = reverseProvider {
            let clientPreimage = try other.secrets(index: 1, scheme: .current).preimage
            reverseClaim = try candidate([signature, clientPreimage, taproot.claimLeaf.script.bytes,
                                          taproot.claimControlBlock.bytes], vout: 0)
        } else {
            return XCTFail("a Taproot contract")
        }
        let found = try matches([reverseClaim, try refund(submarineProvider), try refund(reverseClient),
                                 try claim(submarineClient)], seed: clientSeed)
        XCTAssertEqual(found.map(RecoveryMatcherTests.label), [
            "provider/reverse claim 3", "provider/submarine refund 4", "client/reverse refund 5", "client/submarine claim 6",
        ])
    }

    /// A claim leaf holding our claim key but a witness item that is not the preimage of its
    /// hash is nobody's proof of anything: not reported.
    func testASubmarineClaimWithoutItsPreimageIsNotReported() throws {
        let contract = try submarine(.taprootBoltz, client: 1, provider: 1)
        guard case .taprootBoltz(let taproot) = contract else { return XCTFail("a Taproot contract") }
        let forged = try candidate([signature, [UInt8](repeating: 0x44, count: 32), taproot.claimLeaf.script.bytes,
                                    taproot.claimControlBlock.bytes], vout: 0)
        XCTAssertEqual(try matches([forged], seed: providerSeed), [])
        XCTAssertEqual(try matches([forged], seed: clientSeed), [])
    }
}

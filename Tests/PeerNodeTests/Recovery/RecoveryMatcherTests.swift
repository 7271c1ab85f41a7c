import Bitcoin
import HTLC
@testable import PeerNode
import XCTest

/// The matcher and the gap limit on witnesses built from real contracts (signatures are not
/// read by the matcher, so a placeholder stands in; the end-to-end tests use real spends).
final class RecoveryMatcherTests: XCTestCase {
    private let clientSeed = [UInt8](repeating: 0x21, count: 32)
    private let providerSeed = [UInt8](repeating: 0x22, count: 32)
    private let strangerSeed = [UInt8](repeating: 0x23, count: 32)
    private let signature = [UInt8](repeating: 0x01, count: 64)

    private func contract(_ type: ContractType, client: UInt32, provider: UInt32, clientSeed: [UInt8]? = nil,
                          scheme: SwapKeyScheme = .current) throws -> (SwapContract, SwapSecrets) {
        let clientSecrets = try SwapKeyChain(seed: clientSeed ?? self.clientSeed, network: .regtest)
            .secrets(index: client, scheme: scheme)
        let providerSecrets = try SwapKeyChain(seed: providerSeed, network: .regtest).secrets(index: provider, scheme: scheme)
        let terms = try SwapTerms(network: .regtest, paymentHash: clientSecrets.paymentHash,
                                  claimPublicKey: clientSecrets.claimKey.publicKey,
                                  refundPublicKey: providerSecrets.refundKey.publicKey, timeoutHeight: 1_234)
        return (try SwapContract(type: type, terms: terms), clientSecrets)
    }

    private func claimStack(_ contract: SwapContract, preimage: [UInt8]) -> [[UInt8]] {
        switch contract {
        case .taprootBoltz(let taproot):
            return [signature, preimage, taproot.claimLeaf.script.bytes, taproot.claimControlBlock.bytes]
        case .p2wsh(let p2wsh):
            return [signature, preimage, [0x01], p2wsh.witnessScript.bytes]
        }
    }

    private func refundStack(_ contract: SwapContract) -> [[UInt8]] {
        switch contract {
        case .taprootBoltz(let taproot): return [signature, taproot.refundLeaf.script.bytes, taproot.refundControlBlock.bytes]
        case .p2wsh(let p2wsh): return [signature, [], p2wsh.witnessScript.bytes]
        }
    }

    private func candidate(_ stack: [[UInt8]], vout: UInt32 = 0) throws -> SwapScriptMatcher.Candidate {
        let script = try XCTUnwrap(SwapScriptMatcher.parse(stack), "a contract spend parses")
        let txid = try TransactionID(hex: String(repeating: "ab", count: 32))
        return SwapScriptMatcher.Candidate(script: script, stack: stack, lock: OutPoint(txid: txid, index: vout),
                                           spendingTxid: txid, height: 7)
    }

    private func matches(_ candidates: [SwapScriptMatcher.Candidate], seed: [UInt8],
                         gap: Int = 100) throws -> ([RecoveredSpend], Int) {
        try RecoveryScanner.match(candidates, keyChain: try SwapKeyChain(seed: seed, network: .regtest), gapLimit: gap)
    }

    /// "client/reverse claim 3": our side, the spend's kind and the index.
    static func label(_ spend: RecoveredSpend) -> String {
        let side: String
        switch spend.side {
        case .client(let roles): side = "client/\(roles.rawValue)"
        case .provider(let roles): side = "provider/\(roles.rawValue)"
        case .locker: side = "locker"
        }
        return "\(side) \(spend.kind.rawValue) \(spend.index)"
    }

    func testEverySpendShapeIsFoundFromBothSeeds() throws {
        // Retired types too: their locks are still refunded and recovered.
        for type in ContractType.known {
            let (contract, secrets) = try contract(type, client: 3, provider: 9)
            let claim = try candidate(claimStack(contract, preimage: secrets.preimage))
            let refund = try candidate(refundStack(contract), vout: 1)

            let (client, _) = try matches([claim, refund], seed: clientSeed)
            XCTAssertEqual(client.map(Self.label), ["client/reverse claim 3", "client/reverse refund 3"], "\(type)")
            XCTAssertEqual(client.first?.preimage, secrets.preimage)
            XCTAssertTrue(client.allSatisfy { $0.contractType == type })

            let (provider, _) = try matches([claim, refund], seed: providerSeed)
            // The refund leaf (or a P2WSH script) says only that our refund key locked it.
            let providerClaim = type == .taprootBoltz ? "provider/reverse claim 9" : "locker claim 9"
            XCTAssertEqual(provider.map(Self.label), [providerClaim, "locker refund 9"], "\(type)")
            XCTAssertEqual(provider.first?.preimage, secrets.preimage)
            XCTAssertEqual(provider.first?.paymentHash, secrets.paymentHash)

            let (stranger, searched) = try matches([claim, refund], seed: strangerSeed)
            XCTAssertEqual(stranger, [], "\(type)")
            XCTAssertEqual(searched, 100)
        }
    }

    /// Audit H-5: swaps made before the network entered the path (legacy) and after it
    /// (networked) are both found, each reported with the scheme its keys came from. The
    /// schemes share one index counter, so a legacy find near the end of the range moves the
    /// networked range too.
    func testSwapsOfBothKeySchemesAreFoundWithTheirScheme() throws {
        for type in ContractType.known {
            let (legacy, legacySecrets) = try contract(type, client: 90, provider: 91, scheme: .legacy)
            let (networked, networkedSecrets) = try contract(type, client: 150, provider: 151, scheme: .networked)
            let candidates = [try candidate(claimStack(legacy, preimage: legacySecrets.preimage)),
                              try candidate(refundStack(networked), vout: 1)]

            let (client, clientSearched) = try matches(candidates, seed: clientSeed)
            XCTAssertEqual(client.map { "\(Self.label($0)) \($0.scheme)" },
                           ["client/reverse claim 90 \(SwapKeyScheme.legacy)", "client/reverse refund 150 \(SwapKeyScheme.networked)"],
                           "\(type)")
            XCTAssertEqual(clientSearched, 251)
            XCTAssertEqual(client.last?.paymentHash, networkedSecrets.paymentHash)

            let (provider, _) = try matches(candidates, seed: providerSeed)
            let providerClaim = type == .taprootBoltz ? "provider/reverse claim 91" : "locker claim 91"
            XCTAssertEqual(provider.map { "\(Self.label($0)) \($0.scheme)" },
                           ["\(providerClaim) \(SwapKeyScheme.legacy)", "locker refund 151 \(SwapKeyScheme.networked)"],
                           "\(type)")
        }
    }

    /// The same seed's networked swap on another network is not ours here.
    func testANetworkedSwapOfAnotherNetworkIsNotFound() throws {
        let secrets = try SwapKeyChain(seed: clientSeed, network: .testnet).secrets(index: 2, scheme: .networked)
        let providerSecrets = try SwapKeyChain(seed: providerSeed, network: .testnet).secrets(index: 2, scheme: .networked)
        let terms = try SwapTerms(network: .regtest, paymentHash: secrets.paymentHash, claimPublicKey: secrets.claimKey.publicKey,
                                  refundPublicKey: providerSecrets.refundKey.publicKey, timeoutHeight: 1_234)
        let contract = try SwapContract(type: .taprootBoltz, terms: terms)
        let claim = try candidate(claimStack(contract, preimage: secrets.preimage))
        XCTAssertEqual(try matches([claim], seed: clientSeed).0, [])
        XCTAssertEqual(try matches([claim], seed: providerSeed).0, [])
    }

    func testAClaimWhoseWitnessItemIsNotThePreimageIsNotReported() throws {
        let (contract, _) = try contract(.taprootBoltz, client: 1, provider: 1)
        let forged = try candidate(claimStack(contract, preimage: [UInt8](repeating: 0x42, count: 32)))
        XCTAssertEqual(try matches([forged], seed: clientSeed).0, [])
        XCTAssertEqual(try matches([forged], seed: providerSeed).0, [])
    }

    func testTheGapLimitExtendsPastEachFindAndStopsAtAGap() throws {
        var candidates: [SwapScriptMatcher.Candidate] = []
        for index: UInt32 in [60, 150, 400] {
            let (contract, secrets) = try contract(.taprootBoltz, client: index, provider: 0)
            candidates.append(try candidate(claimStack(contract, preimage: secrets.preimage), vout: index))
        }
        let (found, searched) = try matches(candidates, seed: clientSeed, gap: 100)
        // 60 is within the first 100; 150 is within 100 of 60; 400 is more than 100 past 150.
        XCTAssertEqual(found.map(\.index), [60, 150])
        XCTAssertEqual(searched, 251)
        let (wider, _) = try matches(candidates, seed: clientSeed, gap: 300)
        XCTAssertEqual(wider.map(\.index), [60, 150, 400])
    }

    /// Audit C-2: consensus-valid claims of other shapes (an annex after a Taproot claim, a
    /// P2WSH selector that is true but not `0x01`) are still recovered with their preimage,
    /// and a non-minimal false selector is still a refund.
    func testClaimsWithAnAnnexOrANonMinimalSelectorAreRecovered() throws {
        let txid = try TransactionID(hex: String(repeating: "cd", count: 32))
        func input(_ stack: [[UInt8]]) -> TransactionInput {
            TransactionInput(previousOutput: OutPoint(txid: txid, index: 0), witness: Witness(stack))
        }
        for type in ContractType.known {
            let (contract, secrets) = try contract(type, client: 4, provider: 5)
            var claim = claimStack(contract, preimage: secrets.preimage)
            var refund = refundStack(contract)
            if case .taprootBoltz = contract {
                claim.append([0x50, 0x07])
                refund.append([0x50])
            } else {
                claim[2] = [0x02]
                refund[1] = [0x00]
            }
            let claimFound = try XCTUnwrap(SwapScriptMatcher.candidate(input(claim), in: txid, height: 3), "\(type) claim")
            let refundFound = try XCTUnwrap(SwapScriptMatcher.candidate(input(refund), in: txid, height: 3), "\(type) refund")
            let (client, _) = try matches([claimFound, refundFound], seed: clientSeed)
            XCTAssertEqual(client.map { "\($0.kind.rawValue) \($0.index)" }, ["claim 4", "refund 4"], "\(type)")
            XCTAssertEqual(client.first?.preimage, secrets.preimage, "\(type)")
            XCTAssertTrue(client.allSatisfy { $0.contractType == type }, "\(type)")
            let (provider, _) = try matches([claimFound], seed: providerSeed)
            XCTAssertEqual(provider.first?.preimage, secrets.preimage, "\(type)")
        }
    }

    func testOtherWitnessesAreNotContractSpends() {
        XCTAssertNil(SwapScriptMatcher.parse([]))
        XCTAssertNil(SwapScriptMatcher.parse([signature]), "a key-path spend")
        XCTAssertNil(SwapScriptMatcher.parse([[UInt8](repeating: 1, count: 71), [UInt8](repeating: 2, count: 33)]), "P2WPKH")
    }
}

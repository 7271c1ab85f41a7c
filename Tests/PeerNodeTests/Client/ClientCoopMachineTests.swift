import Bitcoin
import HTLC
@testable import PeerNode
import XCTest

/// The client machine's cooperative round (issue 17), as tables: what it asks for once the
/// lock is deep, that the round is recorded before the request leaves, that every way the
/// round ends without a key-path claim leads to the script-path claim at any height, and
/// that no sequence of inputs ever asks for a second request of one round.
final class ClientCoopMachineTests: XCTestCase {
    private static let timeout = 200
    private let settings = ClientSwapMachine.Settings(requiredConfirmations: 1, completionConfirmations: 2, giveUpSeconds: 600,
                                                      cooperativeClaim: true)

    private static func transaction(_ tag: UInt8, value: Int64 = 50_000) -> Transaction {
        let input = TransactionInput(previousOutput: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: tag, count: 32)),
                                                              index: 0), sequence: TransactionInput.replaceableSequence)
        let out = TransactionOutput(value: value, scriptPubKey: Address.p2wpkh(pubkeyHash: [UInt8](repeating: tag, count: 20)).script)
        return Transaction(version: 2, inputs: [input], outputs: [out], lockTime: 0)
    }

    private let lockTx = transaction(1)
    private var lock: LockOutput { LockOutput(outPoint: OutPoint(txid: lockTx.txid, index: 0), value: 50_000) }

    /// A round as the engine hands it over: any nonce, the claim it would sign.
    /// NonceGen draws fresh randomness each time: one nonce for the whole class.
    private static let nonce = try! MuSig2SecretNonce(publicKey: PrivateKey([UInt8](repeating: 9, count: 32)).publicKey).publicNonce

    private var round: CoopRound {
        var unsigned = Self.transaction(3)
        unsigned.inputs[0] = TransactionInput(previousOutput: lock.outPoint, sequence: TransactionInput.replaceableSequence)
        return CoopRound(record: CoopRequestedRecord(publicNonce: Self.nonce, sighash: [UInt8](repeating: 5, count: 32),
                                                             unsignedTransaction: unsigned),
                                 scriptPathOutputSat: 49_000, scriptPathVirtualSize: 152)
    }

    private var keyPathClaim: Transaction {
        var claim = round.unsignedTransaction
        claim.inputs[0].witness = Witness([[UInt8](repeating: 7, count: 64)])
        return claim
    }

    private func verified(_ settings: ClientSwapMachine.Settings? = nil) -> ClientSwapMachine {
        var machine = ClientSwapMachine(settings: settings ?? self.settings)
        for input: ClientSwapInput in [.acceptVerified(timeoutHeight: Self.timeout), .paymentStarting(atUnix: 1_000),
                                       .lockSeen(ClientLockSighting(transaction: lockTx, outputIndex: 0, confirmations: 1,
                                                                    source: .chain))] {
            _ = machine.handle(input)
        }
        return machine
    }

    private func requested() -> ClientSwapMachine {
        var machine = verified()
        XCTAssertEqual(machine.handle(.lockVerified(lock)).last, .prepareCooperativeClaim(lock))
        _ = machine.handle(.coopPrepared(round))
        XCTAssertEqual(machine.phase, .coopRequested)
        return machine
    }

    func testADeepLockAsksForTheCooperativeRoundOnlyWhenBothSidesOfferIt() {
        var machine = verified()
        XCTAssertEqual(machine.handle(.lockVerified(lock)).last, .prepareCooperativeClaim(lock))
        var plain = verified(ClientSwapMachine.Settings(requiredConfirmations: 1, cooperativeClaim: false))
        XCTAssertEqual(plain.handle(.lockVerified(lock)).last, .buildClaim(lock), "no musig2 on either side: the script path")
    }

    func testTheRoundIsRecordedBeforeTheRequestLeaves() {
        var machine = verified()
        _ = machine.handle(.lockVerified(lock))
        let actions = machine.handle(.coopPrepared(round))
        guard actions.count == 2, case .persist(let state) = actions[0] else { return XCTFail("\(actions)") }
        XCTAssertEqual(state.phase, .coopRequested)
        XCTAssertEqual(state.coopRequest, round, "public nonce, sighash and unsigned claim on disk first")
        XCTAssertEqual(actions[1], .requestCooperativeClaim(round))
        // Stored form: the round reads back, and it holds nothing secret.
        let json = state.json
        XCTAssertEqual(try ClientSwapState(kind: state.phase.rawValue, data: json), state)
        XCTAssertEqual(json["coop_request"]?["pubnonce"]?.stringValue, round.publicNonce.bytes.hex)
    }

    func testCooperationUnavailableClaimsThroughTheScriptPathAsBefore() {
        var machine = verified()
        _ = machine.handle(.lockVerified(lock))
        XCTAssertEqual(machine.handle(.coopUnavailable("8 blocks left")), [.buildClaim(lock)])
        XCTAssertEqual(machine.phase, .lockVerified, "nothing was revealed")
    }

    func testTheKeyPathClaimIsRecordedThenBroadcast() {
        var machine = requested()
        let actions = machine.handle(.claimSigned(keyPathClaim))
        XCTAssertEqual(machine.phase, .claimBroadcast)
        XCTAssertEqual(actions.last, .broadcastClaim(keyPathClaim))
        XCTAssertTrue(machine.state.claimIsKeyPath)
        XCTAssertNil(machine.state.coopFallback)
    }

    func testAFailedRoundFallsBackToTheScriptPathOnceAndAtAnyHeight() {
        var machine = requested()
        XCTAssertEqual(machine.handle(.block(height: 150)), [.checkChain], "round open: its answer is on the way")
        let actions = machine.handle(.coopFailed("refused"))
        XCTAssertEqual(actions.count, 2)
        XCTAssertEqual(actions.last, .buildFallbackClaim(lock))
        XCTAssertEqual(machine.state.coopFallback, "refused")
        XCTAssertEqual(machine.handle(.coopFailed("again")), [], "one round, one ending")
        // Past the claim cutoff the swap is not ended unclaimed (lock_verified would be):
        // the provider may have the preimage.
        XCTAssertEqual(machine.handle(.block(height: Self.timeout - 2)), [.checkChain, .buildFallbackClaim(lock)])
        XCTAssertEqual(machine.phase, .coopRequested)
        XCTAssertEqual(machine.handle(.giveUp), [])
        XCTAssertEqual(machine.phase, .coopRequested)
        let script = Self.transaction(4)
        XCTAssertEqual(machine.handle(.claimSigned(script)).last, .broadcastClaim(script))
        XCTAssertFalse(machine.state.claimIsKeyPath)
    }

    func testARestartEndsTheRoundWithoutItsNonce() {
        var machine = requested()
        let actions = machine.handle(.recover)
        XCTAssertEqual(Array(actions.dropFirst()), [.checkChain, .buildFallbackClaim(lock)])
        XCTAssertFalse(actions.contains(.requestCooperativeClaim(round)), "a round is never resumed")
        XCTAssertNotNil(machine.state.coopFallback)
    }

    /// After a round, a signed claim the node never accepted is broadcast even past the
    /// cutoff (without a round it would be held back and the swap end unrevealed), and
    /// each block maintains it as an accepted claim: sent again and, when the node's
    /// estimate is above its rate, bumped. Sending the same refused bytes for ever (a rate
    /// under the mempool's minimum in a spike) let a provider holding the preimage settle
    /// and refund at the timeout (review of 2026-12-07).
    func testAfterARoundAResumedClaimGoesOutPastTheCutoffAndIsMaintained() {
        var machine = requested()
        _ = machine.handle(.claimSigned(keyPathClaim))
        XCTAssertEqual(machine.handle(.recover).first, .broadcastClaim(keyPathClaim))
        XCTAssertFalse(machine.state.claimAccepted)
        XCTAssertEqual(machine.handle(.block(height: 150)), [.maintainClaim(tipHeight: 150)])
        XCTAssertEqual(machine.handle(.block(height: Self.timeout - 1)), [.maintainClaim(tipHeight: Self.timeout - 1)])
        let bump = Self.transaction(5, value: 40_000)
        XCTAssertEqual(machine.handle(.claimSigned(bump)).last, .broadcastClaim(bump), "a bump is recorded and sent")
        XCTAssertEqual(machine.state.claim, bump)
    }

    func testAFailedPaymentDuringTheRoundEndsItWithTheFundsBack() {
        var machine = requested()
        _ = machine.handle(.payment(.failed(.other("cancelled"))))
        XCTAssertEqual(machine.phase, .failed)
        XCTAssertEqual(machine.state.outcome?.funds, .returned)
    }

    /// No sequence of inputs makes the machine ask for a second request (a second use of
    /// the round's nonce): 2,000 random walks over every input.
    func testNoSequenceOfInputsRequestsTwice() {
        var generator = SystemRandomNumberGenerator()
        let inputs: [ClientSwapInput] = [
            .lockVerified(lock), .coopPrepared(round), .coopFailed("x"), .coopUnavailable("y"), .recover,
            .block(height: 150), .block(height: Self.timeout - 1), .claimSigned(keyPathClaim), .claimSigned(Self.transaction(4)),
            .claimAccepted(tipHeight: 150), .claimConfirmations(1), .giveUp, .payment(.inFlight),
            .lockSeen(ClientLockSighting(transaction: lockTx, outputIndex: 0, confirmations: 2, source: .chain)),
        ]
        for _ in 0..<2_000 {
            var machine = verified()
            var requests = 0
            for _ in 0..<12 {
                let input = inputs.randomElement(using: &generator)!
                requests += machine.handle(input).filter { if case .requestCooperativeClaim = $0 { return true }; return false }.count
            }
            XCTAssertLessThanOrEqual(requests, 1)
        }
    }
}

import Bitcoin
import HTLC
import Offers
import Transport

extension SubmarineClientEngine {
    /// Resumes every unfinished client submarine swap from its record: the terms, the last
    /// event's state, the accept and the lock's fee from their events, and the refund key
    /// re-derived from the seed. Each swap gets `recover` (every phase handles it) and the
    /// tip; a swap whose lock may exist has its contract watched and the chain rescanned
    /// from before the accept, so a claim or refund mined while the node was down is
    /// heard. Returns the ids resumed; a record that does not decode is reported and left.
    @discardableResult
    public func recover() async throws(ClientEngineError) -> [String] {
        let records = try await storeCall { () async throws(StoreError) in try await store.unfinishedSwaps(role: .client) }
        let tip = try? await chain.tip().height
        var resumed: [String] = []
        for record in records where SubmarineClientRecord.isSubmarine(record.contract) && runs[record.id] == nil {
            do {
                let run = try await rebuild(record)
                if run.state.phase.lockMayExist {
                    await watch(run)
                    await keepProviderReachable(run)
                    if let timeout = run.state.timeoutHeight {
                        // The provider's record and deadline read the accept's height the same way.
                        let acceptedAt = SubmarineRules.acceptHeight(timeoutHeight: UInt32(clamping: timeout),
                                                                     htlcTimeoutBlocks: run.record.quote.body.htlcTimeoutBlocks)
                        await follower.rescan(fromHeight: max(0, Int(acceptedAt) - 6))
                    }
                    if run.record.ownInvoice { watchOwnInvoice(run) }
                }
                feed(run.id, .recover(tipHeight: tip))
                if let tip { feed(run.id, .block(height: tip)) }
                resumed.append(run.id)
                report(run.id, SubmarineClientProgress.note, "resumed in \(run.state.phase.rawValue)")
            } catch {
                report(record.id, SubmarineClientProgress.note, "cannot resume: \(error)")
            }
        }
        return resumed
    }

    private func rebuild(_ record: SwapRecord) async throws(ClientEngineError) -> SubmarineClientRun {
        let events = try await storeCall { () async throws(StoreError) in try await store.events(of: record.id) }
        guard let last = events.last else { throw .corruptRecord("swap \(record.id) has no events") }
        let terms = try SubmarineClientRecord(json: record.contract)
        let state = try SubmarineClientState(kind: last.kind, data: last.data)
        let refundKey: PrivateKey
        do { refundKey = try keyChain.secrets(index: record.swapIndex, scheme: record.keyScheme).refundKey } catch {
            throw .corruptRecord("swap index \(record.swapIndex): \(error)")
        }
        // Our own key must be the one the request gave: anything else is not ours to refund.
        guard terms.request.refundPublicKey == refundKey.publicKey else {
            throw .corruptRecord("swap \(record.id)'s refund key is not swap index \(record.swapIndex)'s")
        }
        let run = makeRun(id: record.id, index: record.swapIndex, record: terms, refundKey: refundKey, state: state)
        if let json = events.last(where: { $0.kind == SubmarineClientPhase.accepted.rawValue })?.data["accept"] {
            run.accept = try? Signed<SubmarineSwapAccept>(json: json)
        }
        run.lockFeeSat = events.last(where: { $0.kind == SubmarineClientPhase.lockIntent.rawValue })?.data["lock_fee_sat"]?
            .int64Value
        return run
    }
}

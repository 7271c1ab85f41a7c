import Bitcoin
import HTLC
import Offers
import Transport

extension ClientEngine {
    /// Resumes every unfinished client swap from its record: the contract, the accept
    /// (from its `accepted` event), the last event's state, and the secrets re-derived
    /// from the seed. Each swap gets `recover`, which every phase handles. Returns the ids
    /// resumed; a swap whose record does not decode is reported and left as it is.
    @discardableResult
    public func recover() async throws(ClientEngineError) -> [String] {
        let records = try await storeCall { () async throws(StoreError) in try await store.unfinishedSwaps(role: .client) }
        var resumed: [String] = []
        // Submarine swaps share the role; `SubmarineClientEngine` resumes those.
        for record in records where runs[record.id] == nil && !SubmarineClientRecord.isSubmarine(record.contract) {
            do {
                let run = try await rebuild(record)
                if run.contract != nil { await watch(run) }
                feed(run.id, .recover)
                resumed.append(run.id)
                report(run.id, .note, "resumed in \(run.state.phase.rawValue)")
            } catch {
                report(record.id, .note, "cannot resume: \(error)")
            }
        }
        if paymentSearch == nil {
            paymentSearch = Task { [weak self] in await self?.followLatePayments() }
        }
        return resumed
    }

    private func rebuild(_ record: SwapRecord) async throws(ClientEngineError) -> ClientSwapRun {
        let events = try await storeCall { () async throws(StoreError) in try await store.events(of: record.id) }
        guard let last = events.last else { throw .corruptRecord("swap \(record.id) has no events") }
        let terms = try ClientSwapTerms(json: record.contract)
        var state = try ClientSwapState(kind: last.kind, data: last.data)
        let secrets: SwapSecrets
        do { secrets = try keyChain.secrets(index: record.swapIndex, scheme: record.keyScheme) } catch {
            throw .corruptRecord("swap index \(record.swapIndex): \(error)")
        }
        var accept: Signed<SwapAccept>?
        var acceptedTip: Int?
        if let event = events.first(where: { $0.kind == ClientSwapPhase.accepted.rawValue }), let json = event.data["accept"] {
            do { accept = try Signed<SwapAccept>(json: json) } catch { throw .corruptRecord("the stored accept: \(error)") }
            acceptedTip = event.data["accepted_tip"]?.int64Value.map { Int($0) }
        }
        var contract: SwapContract?
        if let accept {
            let body = accept.body
            do {
                let swapTerms = try SwapTerms(network: terms.network, paymentHash: body.paymentHash,
                                              claimPublicKey: body.claimPublicKey, refundPublicKey: body.refundPublicKey,
                                              timeoutHeight: body.timeoutHeight)
                contract = try SwapContract(type: body.scriptType, terms: swapTerms)
            } catch {
                throw .corruptRecord("the stored accept's contract: \(error)")
            }
            // Our own secrets must be what the provider locked to; anything else is not ours.
            guard body.paymentHash == secrets.paymentHash, body.claimPublicKey == secrets.claimKey.publicKey else {
                throw .corruptRecord("the stored accept is for other secrets than swap index \(record.swapIndex)")
            }
        } else if state.phase.mayHavePaid {
            throw .corruptRecord("swap \(record.id) is past paying but has no stored accept")
        }
        if state.timeoutHeight == nil, let accept {
            // A record from before the timeout was kept in the state: the accept has it.
            state.timeoutHeight = Int(accept.body.timeoutHeight)
        }
        let run = makeRun(id: record.id, index: record.swapIndex, terms: terms, secrets: secrets, state: state)
        run.accept = accept
        run.acceptedTip = acceptedTip
        run.contract = contract
        return run
    }
}

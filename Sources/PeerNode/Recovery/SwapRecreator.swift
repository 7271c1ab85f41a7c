import Bitcoin
import HTLC
import Offers
import Transport

/// Re-creates a lost swap record from `RecoveryContract` parameters and the chain, so the
/// engine's ordinary `recover()` finishes it: the client claims (or follows its claim), the
/// provider refunds after the timeout (or settles with a preimage a claim revealed).
///
/// The record gets a `recovered` first event with what the chain showed, then the event
/// of the state the engine resumes from, in the engine's own event format.
public struct SwapRecreator: Sendable {
    /// What was re-created.
    public struct Outcome: Sendable {
        public let swapID: String
        public let role: SwapRole
        public let index: UInt32
        /// The key scheme the contract's keys were found under (kept in the record).
        public let scheme: SwapKeyScheme
        public let lock: OutPoint
        public let lockValue: Int64
        /// The event kind the engine resumes from.
        public let resumesAt: String
    }

    private let keyChain: SwapKeyChain
    private let chain: any ChainBackend
    private let store: any SwapStore

    public init(seed: [UInt8], network: Network, chain: any ChainBackend, store: any SwapStore) throws(RecoveryError) {
        guard chain.servesWholeBlocks else { throw .needsWholeBlocks }
        do { keyChain = try SwapKeyChain(seed: seed, network: network) } catch { throw .keys("\(error)") }
        self.chain = chain
        self.store = store
    }

    public func recreate(_ parameters: RecoveryContract, fromHeight: Int, nowUnix: UInt64) async throws(RecoveryError) -> Outcome {
        let scheme = try parameters.checkOwnership(keyChain)
        let sighting = try await findLock(parameters.contract, fromHeight: fromHeight)
        let lock = sighting.output
        let tip = try await call { () async throws(ChainBackendError) in try await chain.tip() }
        let spend = try await findSpend(of: lock.outPoint, fromHeight: sighting.height ?? tip.height)
        let record = SwapRecord(id: parameters.swapID, role: parameters.role, swapIndex: parameters.index, keyScheme: scheme,
                                peer: parameters.peer, createdAt: Int64(nowUnix), contract: parameters.recordContract)
        var found: [String: JSONValue] = [
            "lock_txid": .string(lock.outPoint.txid.hex), "lock_vout": .integer(lock.outPoint.index),
            "lock_value_sat": .integer(lock.value), "tip_height": .integer(tip.height),
            "address": .string(parameters.contract.encodedAddress),
        ]
        if let height = sighting.height { found["lock_height"] = .integer(height) }
        if let spend { found["spent_by"] = .string(spend.txid.hex) }

        let confirmations = sighting.height.map { tip.height - $0 + 1 } ?? 0
        let events: [(String, JSONValue)]
        switch parameters.role {
        case .client:
            events = try clientEvents(parameters, sighting: sighting, confirmations: confirmations, spend: spend,
                                      tipHeight: tip.height, nowUnix: nowUnix)
        case .provider:
            events = try providerEvents(parameters, sighting: sighting, spend: spend, tipHeight: tip.height)
        }
        let at = Int64(nowUnix)
        do {
            if parameters.role == .client, let hash = try? keyChain.paymentHash(index: parameters.index, scheme: scheme) {
                // Never offered again (audit H-5), like the hashes of swaps this node made.
                try await ClientPaymentHashIndex.record(hash, swapID: record.id, store: store)
            }
            _ = try await store.create(record, firstEvent: "recovered", data: .object(found), at: at)
            for (kind, data) in events {
                _ = try await store.append(kind, data: data, isFinal: false, to: record.id, at: at)
            }
        } catch {
            throw .store(error)
        }
        try await SwapIndexAdvance.advance(store, past: parameters.index)
        return Outcome(swapID: record.id, role: parameters.role, index: parameters.index, scheme: scheme, lock: lock.outPoint,
                       lockValue: lock.value, resumesAt: events.last?.0 ?? "recovered")
    }

    // MARK: the engines' resume points

    /// The client resumes at `lock_seen` (the engine verifies the lock again and claims) or,
    /// when our claim is already on chain, at `claim_broadcast` with that claim (the engine
    /// follows it to completion). A lock the provider refunded leaves nothing to claim.
    private func clientEvents(_ parameters: RecoveryContract, sighting: LockSighting, confirmations: Int,
                              spend: Transaction?, tipHeight: Int, nowUnix: UInt64) throws(RecoveryError) -> [(String, JSONValue)] {
        let accepted: JSONValue = .object(["accept": parameters.accept.json, "accepted_tip": .integer(tipHeight)])
        var state = ClientSwapState(
            phase: .lockSeen, paidAtUnix: nowUnix,
            lock: ClientLockSighting(transaction: sighting.transaction, outputIndex: Int(sighting.output.outPoint.index),
                                     confirmations: confirmations, source: .chain))
        if let spend {
            // Ours: a script-path claim revealing our preimage, or a key-path one (it needs
            // our signature: a cooperative claim, issue 17).
            guard let input = spend.inputs.first(where: { $0.previousOutput == sighting.output.outPoint }),
                  KeyPathSpend.isKeyPath(input.witness, contract: parameters.contract)
                      || (try? PreimageExtractor.preimage(from: input.witness, contract: parameters.contract)) != nil else {
                throw .nothingToRecover("the lock was spent by \(spend.txid.hex), which is not our claim (a refund)")
            }
            state.phase = .claimBroadcast
            state.verifiedLock = sighting.output
            state.claim = spend
        }
        return [(ClientSwapPhase.accepted.rawValue, accepted), (state.phase.rawValue, state.json)]
    }

    /// The provider resumes at `lock_broadcast` (the engine watches the lock and refunds at
    /// the timeout) or, when the client's claim is on chain, at `claim_observed` with the
    /// preimage it revealed (the engine settles the invoice).
    private func providerEvents(_ parameters: RecoveryContract, sighting: LockSighting, spend: Transaction?,
                                tipHeight: Int) throws(RecoveryError) -> [(String, JSONValue)] {
        let lock = ProviderLock(transaction: sighting.transaction, outputIndex: sighting.output.outPoint.index,
                                fee: sighting.fee, height: UInt32(clamping: sighting.height ?? tipHeight))
        guard let spend else {
            return [(ProviderSwapState.Kind.lockBroadcast.rawValue, ProviderSwapState.lockBroadcast(lock).eventData)]
        }
        if let input = spend.inputs.first(where: { $0.previousOutput == sighting.output.outPoint }),
           KeyPathSpend.isKeyPath(input.witness, contract: parameters.contract) {
            // A cooperative claim: this node sends its partial signature only once its
            // invoice is settled, so there is nothing left to collect.
            throw .nothingToRecover("the lock was claimed through the key path by \(spend.txid.hex), a cooperative claim "
                                    + "this node co-signed only after its invoice settled")
        }
        guard let preimage = try? PreimageExtractor.preimage(from: spend, spending: sighting.output.outPoint,
                                                             contract: parameters.contract) else {
            throw .nothingToRecover("the lock was already spent by \(spend.txid.hex) (our refund)")
        }
        return [(ProviderSwapState.Kind.claimObserved.rawValue, ProviderSwapState.claimObserved(lock, preimage: preimage).eventData)]
    }

    // MARK: the chain

    struct LockSighting {
        let transaction: Transaction
        let output: LockOutput
        /// nil while in the mempool.
        let height: Int?
        /// The lock transaction's miner fee, when its parents can be read (0 otherwise: it
        /// is only reported, never used to move money).
        let fee: Int64
    }

    /// The output paying the contract, in blocks from `fromHeight` or the mempool.
    private func findLock(_ contract: SwapContract, fromHeight: Int) async throws(RecoveryError) -> LockSighting {
        let script = contract.scriptPubKey
        func paying(_ transaction: Transaction) -> Int? { transaction.outputs.firstIndex { $0.scriptPubKey == script } }
        var found: (Transaction, Int, Int?)?
        try await eachTransaction(fromHeight: fromHeight) { transaction, height in
            if found == nil, let index = paying(transaction) { found = (transaction, index, height) }
        }
        guard let (transaction, index, height) = found else {
            throw .lockNotFound(address: contract.encodedAddress, fromHeight: fromHeight)
        }
        let output = LockOutput(outPoint: OutPoint(txid: transaction.txid, index: UInt32(index)),
                                value: transaction.outputs[index].value)
        return LockSighting(transaction: transaction, output: output, height: height, fee: await fee(of: transaction))
    }

    /// The transaction spending `outpoint`, if any (gettxout first: an unspent lock needs no scan).
    private func findSpend(of outpoint: OutPoint, fromHeight: Int) async throws(RecoveryError) -> Transaction? {
        let unspent = try await call { () async throws(ChainBackendError) in
            try await chain.unspentOutput(outpoint, includeMempool: true)
        }
        if unspent != nil { return nil }
        var spend: Transaction?
        try await eachTransaction(fromHeight: fromHeight) { transaction, _ in
            if spend == nil, transaction.inputs.contains(where: { $0.previousOutput == outpoint }) { spend = transaction }
        }
        return spend
    }

    private func eachTransaction(fromHeight: Int, _ body: (Transaction, Int?) -> Void) async throws(RecoveryError) {
        let tip = try await call { () async throws(ChainBackendError) in try await chain.tip() }
        let start = max(0, fromHeight)
        if start <= tip.height {
            for height in start...tip.height {
                let block = try await call { () async throws(ChainBackendError) in
                    try await chain.block(try await chain.blockHash(atHeight: height))
                }
                for transaction in block.transactions { body(transaction, height) }
            }
        }
        let mempool = try await call { () async throws(ChainBackendError) in try await chain.mempoolTransactionIDs() }
        for txid in mempool {
            let entry = try await call { () async throws(ChainBackendError) in try await chain.transaction(txid) }
            if let entry { body(entry.transaction, nil) }
        }
    }

    private func fee(of transaction: Transaction) async -> Int64 {
        var inputs: Int64 = 0
        for input in transaction.inputs {
            guard let parent = try? await chain.transaction(input.previousOutput.txid)?.transaction,
                  Int(input.previousOutput.index) < parent.outputs.count else { return 0 }
            inputs += parent.outputs[Int(input.previousOutput.index)].value
        }
        return max(0, inputs - transaction.outputs.reduce(0) { $0 + $1.value })
    }

    private func call<T>(_ body: () async throws(ChainBackendError) -> T) async throws(RecoveryError) -> T {
        do { return try await body() } catch { throw .chain(error) }
    }
}

import Bitcoin
import HTLC
import Lightning
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
        /// The swap's direction: which engine resumes it.
        public let roles: ContractRoles
    }

    let keyChain: SwapKeyChain
    let chain: any ChainBackend
    let store: any SwapStore
    /// The node's Lightning node: a recovered submarine provider swap asks it whether the
    /// invoice was paid (and for the preimage). Reverse swaps do not need it.
    let lightning: (any LightningBackend)?

    public init(seed: [UInt8], network: Network, chain: any ChainBackend, store: any SwapStore,
                lightning: (any LightningBackend)? = nil) throws(RecoveryError) {
        guard chain.servesWholeBlocks else { throw .needsWholeBlocks }
        do { keyChain = try SwapKeyChain(seed: seed, network: network) } catch { throw .keys("\(error)") }
        self.chain = chain
        self.store = store
        self.lightning = lightning
    }

    public func recreate(_ parameters: RecoveryContract, fromHeight: Int, nowUnix: UInt64) async throws(RecoveryError) -> Outcome {
        let scheme = try parameters.checkOwnership(keyChain)
        let (sighting, tip, spend) = try await locate(parameters.contract, fromHeight: fromHeight,
                                                      amount: parameters.accept.body.amountSat)
        let record = SwapRecord(id: parameters.swapID, role: parameters.role, swapIndex: parameters.index, keyScheme: scheme,
                                peer: parameters.peer, createdAt: Int64(nowUnix), contract: parameters.recordContract)
        let confirmations = sighting.height.map { tip.height - $0 + 1 } ?? 0
        let events: [(String, JSONValue)]
        switch parameters.role {
        case .client:
            events = try clientEvents(parameters, sighting: sighting, confirmations: confirmations, spend: spend,
                                      tipHeight: tip.height, nowUnix: nowUnix)
        case .provider:
            events = try providerEvents(parameters, sighting: sighting, spend: spend, tipHeight: tip.height)
        }
        let reservedHash = parameters.role == .client ? try? keyChain.paymentHash(index: parameters.index, scheme: scheme) : nil
        try await write(record, found: found(parameters.contract, sighting: sighting, tip: tip, spend: spend), events: events,
                        reservingHash: reservedHash, at: Int64(nowUnix))
        return Outcome(swapID: record.id, role: parameters.role, index: parameters.index, scheme: scheme,
                       lock: sighting.output.outPoint, lockValue: sighting.output.value, resumesAt: events.last?.0 ?? "recovered",
                       roles: .reverse)
    }

    /// The lock paying `contract` (`amount` sat, as agreed), the tip, and the lock's spend if any.
    func locate(_ contract: SwapContract, fromHeight: Int,
                amount: Int64) async throws(RecoveryError) -> (LockSighting, ChainTip, Transaction?) {
        let sighting = try await findLock(contract, fromHeight: fromHeight, amount: amount)
        let tip = try await call { () async throws(ChainBackendError) in try await chain.tip() }
        let spend = try await findSpend(of: sighting.output.outPoint, fromHeight: sighting.height ?? tip.height)
        return (sighting, tip, spend)
    }

    /// What the chain showed, for the record's first event (`recovered`).
    func found(_ contract: SwapContract, sighting: LockSighting, tip: ChainTip, spend: Transaction?) -> [String: JSONValue] {
        let lock = sighting.output
        var found: [String: JSONValue] = [
            "lock_txid": .string(lock.outPoint.txid.hex), "lock_vout": .integer(lock.outPoint.index),
            "lock_value_sat": .integer(lock.value), "tip_height": .integer(tip.height),
            "address": .string(contract.encodedAddress),
        ]
        if let height = sighting.height { found["lock_height"] = .integer(height) }
        if let spend { found["spent_by"] = .string(spend.txid.hex) }
        return found
    }

    /// Writes the re-created record: `recovered` with what was found, then the engine's
    /// events; moves the index counter past the swap's index.
    func write(_ record: SwapRecord, found: [String: JSONValue], events: [(String, JSONValue)], reservingHash: [UInt8]?,
               at: Int64) async throws(RecoveryError) {
        do {
            if let reservingHash {
                // Never offered again (audit H-5), like the hashes of swaps this node made.
                try await ClientPaymentHashIndex.index.record(reservingHash, swapID: record.id, store: store)
            }
            _ = try await store.create(record, firstEvent: "recovered", data: .object(found), at: at)
            for (kind, data) in events {
                _ = try await store.append(kind, data: data, isFinal: false, to: record.id, at: at)
            }
        } catch .duplicateSwap {
            // Already re-created (a contact's list came first) or never lost: its engine has it.
            throw .nothingToRecover("swap \(record.id) is already in the database")
        } catch {
            throw .store(error)
        }
        try await SwapIndexAdvance.advance(store, past: record.swapIndex)
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

    /// The output paying the contract, in blocks from `fromHeight` or the mempool: the first
    /// of exactly `amount` sat (the agreed lock), else the largest. Anyone may pay the
    /// address once it is known, and a counterparty knows it before the lock: a first
    /// dust payment must not stand in for the lock.
    func findLock(_ contract: SwapContract, fromHeight: Int, amount: Int64) async throws(RecoveryError) -> LockSighting {
        let script = contract.scriptPubKey
        var found: [(transaction: Transaction, index: Int, height: Int?)] = []
        try await eachTransaction(fromHeight: fromHeight) { transaction, height in
            for (index, output) in transaction.outputs.enumerated() where output.scriptPubKey == script {
                found.append((transaction, index, height))
            }
        }
        guard let pick = Self.preferred(found.map { $0.transaction.outputs[$0.index].value }, amount: amount) else {
            throw .lockNotFound(address: contract.encodedAddress, fromHeight: fromHeight)
        }
        let chosen = found[pick]
        let output = LockOutput(outPoint: OutPoint(txid: chosen.transaction.txid, index: UInt32(chosen.index)),
                                value: chosen.transaction.outputs[chosen.index].value)
        return LockSighting(transaction: chosen.transaction, output: output, height: chosen.height,
                            fee: await fee(of: chosen.transaction))
    }

    /// Which of the payments to a contract (their values, in chain order) is the lock: the
    /// first of exactly `amount`, else the largest; nil when there is none.
    static func preferred(_ values: [Int64], amount: Int64) -> Int? {
        values.firstIndex(of: amount) ?? values.indices.max { values[$0] < values[$1] }
    }

    /// The transaction spending `outpoint`, if any (gettxout first: an unspent lock needs no scan).
    func findSpend(of outpoint: OutPoint, fromHeight: Int) async throws(RecoveryError) -> Transaction? {
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

    func eachTransaction(fromHeight: Int, _ body: (Transaction, Int?) -> Void) async throws(RecoveryError) {
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

    func fee(of transaction: Transaction) async -> Int64 {
        var inputs: Int64 = 0
        for input in transaction.inputs {
            guard let parent = try? await chain.transaction(input.previousOutput.txid)?.transaction,
                  Int(input.previousOutput.index) < parent.outputs.count else { return 0 }
            inputs += parent.outputs[Int(input.previousOutput.index)].value
        }
        return max(0, inputs - transaction.outputs.reduce(0) { $0 + $1.value })
    }

    func call<T>(_ body: () async throws(ChainBackendError) -> T) async throws(RecoveryError) -> T {
        do { return try await body() } catch { throw .chain(error) }
    }
}

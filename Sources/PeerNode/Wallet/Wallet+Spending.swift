import Bitcoin
import HTLC

extension Wallet {
    /// Pays `amount` to `address` at `feeRate` (raised to the minimum relay rate), with
    /// change back to the wallet; returns the broadcast transaction.
    public func send(to address: Address, amount: Int64, feeRate: FeeRate) async throws(WalletError) -> WalletTransaction {
        let built = try build(paying: [TransactionOutput(value: amount, scriptPubKey: address.script)], feeRate: feeRate)
        return try await broadcast(built)
    }

    /// `send(to:amount:feeRate:)` for an address string on the wallet's network. With
    /// `expectedFeeSat` (the fee `previewSend` showed the user) a transaction paying any
    /// other fee is not broadcast: the user confirmed that fee, not another.
    public func send(to address: String, amount: Int64, feeRate: FeeRate,
                     expectedFeeSat: Int64? = nil) async throws(WalletError) -> WalletTransaction {
        let parsed = try parse(address)
        let built = try build(paying: [TransactionOutput(value: amount, scriptPubKey: parsed.script)], feeRate: feeRate)
        if let expectedFeeSat, let fee = built.fee, fee != expectedFeeSat {
            state.releaseReservations(of: built.txid)
            throw WalletError.feeChanged(shownSat: expectedFeeSat, nowSat: fee)
        }
        return try await broadcast(built)
    }

    /// What `send` would build now, without signing or reserving anything: its exact fee
    /// and vsize, for the confirmation prompt. Nothing suspends between the two calls'
    /// selections but other wallet work may; `send(expectedFeeSat:)` catches that.
    public func previewSend(to address: String, amount: Int64, feeRate: FeeRate) throws(WalletError) -> CoinSelection {
        let parsed = try parse(address)
        return try select(paying: [TransactionOutput(value: amount, scriptPubKey: parsed.script)], feeRate: feeRate)
    }

    private func parse(_ address: String) throws(WalletError) -> Address {
        do {
            return try Address(address, network: configuration.network)
        } catch {
            throw WalletError.invalidDestination("\(error)")
        }
    }

    /// Locks `amount` in `contract` (the provider's side of a swap): one output paying the
    /// contract, change back to the wallet. Returns the broadcast lock and its output.
    public func fund(contract: SwapContract, amount: Int64, feeRate: FeeRate) async throws(WalletError) -> ContractFunding {
        let prepared = try prepareFunding(contract: contract, amount: amount, feeRate: feeRate)
        _ = try await publish(prepared.transaction)
        return prepared
    }

    /// Builds and signs the lock for `contract` and reserves its coins without
    /// broadcasting, so the caller can record it durably first (the `funding_intent`),
    /// then `publish` it, or `discard` it to release the coins.
    public func prepareFunding(contract: SwapContract, amount: Int64, feeRate: FeeRate) throws(WalletError) -> ContractFunding {
        guard contract.terms.network == configuration.network else {
            throw WalletError.invalidDestination("the contract is for \(contract.terms.network.rawValue), "
                + "the wallet runs on \(configuration.network.rawValue)")
        }
        let built = try build(paying: [contract.lockOutput(value: amount)], feeRate: feeRate)
        // Payment outputs come first in the order given; change, when any, is last.
        return ContractFunding(transaction: built.transaction, outputIndex: 0, fee: built.fee ?? 0)
    }

    /// `prepareFunding`, or `.waitForBroadcast` when the coins fall short only because a
    /// prepared transaction not broadcast yet holds them (its change becomes spendable once
    /// it is out). Decided in one turn of the wallet: asked apart, a broadcast between the
    /// failed selection and the question would turn a wait into a refusal.
    public func prepareFundingOrWait(contract: SwapContract, amount: Int64, feeRate: FeeRate) throws(WalletError) -> FundingAttempt {
        do {
            return .prepared(try prepareFunding(contract: contract, amount: amount, feeRate: feeRate))
        } catch .insufficientFunds(let needed, let available) {
            guard hasUnpublishedPreparations else { throw .insufficientFunds(needed: needed, available: available) }
            return .waitForBroadcast(needed: needed, available: available)
        }
    }

    /// Broadcasts a transaction this wallet prepared (or any transaction spending its
    /// coins) and records it; a refusal releases its reserved coins.
    public func publish(_ transaction: Transaction) async throws(WalletError) -> WalletTransaction {
        try await broadcast(WalletTransaction(transaction: transaction, spentOutputs: nil))
    }

    /// Whether a prepared transaction holds coins it has not broadcast yet: its change is not
    /// spendable until it is out, so a caller short of funds may wait for it.
    var hasUnpublishedPreparations: Bool {
        state.reservations.values.contains { state.pending[$0] == nil }
    }

    /// Releases the coins of a prepared transaction that will not be broadcast.
    public func discard(_ txid: TransactionID) {
        guard state.pending[txid] == nil else { return }
        state.releaseReservations(of: txid)
    }

    // MARK: building

    /// Coins a new transaction may spend now: confirmed ones, and with `minimumConfirmations`
    /// 0 the wallet's own unconfirmed change within its cluster share.
    func spendableCoins() -> [WalletCoin] {
        state.spendableCoins(minimumConfirmations: configuration.minimumConfirmations,
                             clusterShare: configuration.unconfirmedClusterShare,
                             clusterWeightShare: configuration.unconfirmedClusterWeightShare)
    }

    /// What the wallet can lock now and what waits for a block (see `WalletCapacity`).
    public func capacity() -> WalletCapacity {
        let lockable = spendableCoins().reduce(Int64(0)) { $0 + $1.value }
        let balance = state.balance
        return WalletCapacity(lockableSat: lockable, waitingSat: max(0, balance.confirmed + balance.unconfirmed - lockable))
    }

    /// The fee rate actually used: never below the relay floor.
    func effectiveRate(_ requested: FeeRate) -> FeeRate { max(requested, configuration.minimumRelayFeeRate) }

    /// nLockTime = the synced tip (anti fee sniping, as Core's wallet does): the transaction
    /// is final in the next block but not in a rewrite of the current one.
    var antiFeeSnipingLockTime: UInt32 { UInt32(max(state.tip?.height ?? 0, 0)) }

    /// Selects coins, adds change, signs and reserves the coins, without suspending: no
    /// other call on the actor can run between selection and reservation.
    func build(paying outputs: [TransactionOutput], feeRate: FeeRate) throws(WalletError) -> WalletTransaction {
        let selection = try select(paying: outputs, feeRate: feeRate)
        var allOutputs = outputs
        if let value = selection.change {
            allOutputs.append(TransactionOutput(value: value, scriptPubKey: keys.nextAddress(.change).scriptPubKey))
        }
        return try signAndReserve(spending: selection.coins.map { ($0.outPoint, $0.output) }, outputs: allOutputs,
                                  lockTime: antiFeeSnipingLockTime, expectedSize: selection.virtualSize)
    }

    /// The coins, fee and change `build` would use now; changes nothing (the change
    /// address is only peeked), so a preview and the build after it agree.
    func select(paying outputs: [TransactionOutput], feeRate: FeeRate) throws(WalletError) -> CoinSelection {
        guard !outputs.isEmpty else { throw WalletError.invalidAmount(0, reason: "nothing to pay") }
        for output in outputs {
            guard output.value > 0 else { throw WalletError.invalidAmount(output.value, reason: "amounts are positive") }
            let dust = configuration.dustThreshold(for: output.scriptPubKey)
            guard output.value >= dust else {
                throw WalletError.invalidAmount(output.value, reason: "below the dust threshold of \(dust) sat for that output")
            }
        }
        let rate = effectiveRate(feeRate)
        let lockTime = antiFeeSnipingLockTime
        let change = keys.peekNextAddress(.change)
        func select(_ coins: [WalletCoin]) throws(WalletError) -> CoinSelection {
            try CoinSelection.select(from: coins, paying: outputs, changeScript: change.scriptPubKey,
                                     changeDust: configuration.dustThreshold(for: change.scriptPubKey),
                                     feeRate: rate, lockTime: lockTime)
        }
        let spendable = spendableCoins()
        // Confirmed coins first, as Core's wallet tries them before its own unconfirmed
        // change: a lock with an unconfirmed parent makes a zero-conf client wait for a
        // block (`ClientLockHolding`). The change pays only what they cannot.
        let confirmed = spendable.filter { $0.height != nil }
        if confirmed.count < spendable.count, let selection = try? select(confirmed) { return selection }
        let selection = try select(spendable)
        // Each unconfirmed coin is within the share alone; coins from two clusters join them.
        let parents = Set(selection.coins.filter { $0.height == nil }.map(\.outPoint.txid))
        let joined = state.unconfirmedCluster(of: parents)
        if joined.count + 1 > configuration.unconfirmedClusterShare
            || state.weight(of: joined) >= configuration.unconfirmedClusterWeightShare {
            return try select(spendableCoins().filter { $0.height != nil })
        }
        return selection
    }

    /// Signs a transaction spending wallet outputs (every input signalling replaceability)
    /// and reserves them for it.
    func signAndReserve(spending inputs: [(outPoint: OutPoint, output: TransactionOutput)], outputs: [TransactionOutput],
                        lockTime: UInt32, expectedSize: Int) throws(WalletError) -> WalletTransaction {
        let unsigned = Transaction(version: 2,
                                   inputs: inputs.map { TransactionInput(previousOutput: $0.outPoint,
                                                                         sequence: TransactionInput.replaceableSequence) },
                                   outputs: outputs, lockTime: lockTime)
        let spent = inputs.map(\.output)
        let signed = try WalletSigner.sign(unsigned, spentOutputs: spent, keys: keys)
        // The fee was computed for this size; a different one would be a sizing bug.
        guard signed.virtualSize == expectedSize else {
            throw WalletError.signing("signed vsize \(signed.virtualSize) differs from the \(expectedSize) the fee was computed for")
        }
        state.reserve(inputs.map(\.outPoint), for: signed.txid)
        return WalletTransaction(transaction: signed, spentOutputs: spent)
    }

    /// Broadcasts a built transaction and records it as pending; a refusal releases its
    /// coins. An error that leaves open whether the node took it (no answer, an unreadable
    /// one) keeps them reserved for it, or reserves them when the caller publishes recorded
    /// bytes: had it gone out, a later transaction spending them at a higher rate would
    /// replace it, and with it whatever a counterparty built on it (a client's claim of a
    /// lock; review of 2026-12-07). The next sync that starts after it settles the doubt:
    /// found in the mempool or a block it is the wallet's, found nowhere its coins come back.
    func broadcast(_ built: WalletTransaction) async throws(WalletError) -> WalletTransaction {
        let backend = self.backend
        let transaction = built.transaction
        do {
            _ = try await backend.broadcast(transaction)
        } catch {
            switch error {
            case .unreachable, .malformedResponse:
                state.reserve(transaction.inputs.map(\.previousOutput), for: built.txid)
                unansweredBroadcasts[built.txid] = syncsStarted
            case .unauthorized, .rpc, .rejected, .wrongNetwork:
                state.releaseReservations(of: built.txid)
            }
            throw WalletError.backend(error)
        }
        unansweredBroadcasts[built.txid] = nil
        state.applyMempoolTransaction(transaction, keys: &keys)
        // Applying it dropped any transaction it replaced, with that one's reservations.
        state.reserve(transaction.inputs.map(\.previousOutput), for: built.txid)
        seenMempool.insert(built.txid)
        return state.pending[built.txid] ?? state.confirmed[built.txid] ?? built
    }

    /// After a sync's look at the mempool: each unanswered broadcast made before the sync
    /// began is the wallet's if the sync found it (pending or confirmed), else it never
    /// reached the node and its coins are free again.
    func settleUnansweredBroadcasts(seenBy sync: Int) {
        for (txid, madeBefore) in unansweredBroadcasts where madeBefore < sync {
            unansweredBroadcasts[txid] = nil
            guard state.pending[txid] == nil, state.confirmed[txid] == nil else { continue }
            state.releaseReservations(of: txid)
        }
    }
}

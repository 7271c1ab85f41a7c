import Bitcoin
import HTLC
import Lightning
import Transport

extension ControlDispatcher {
    /// `recover`: finds this seed's swaps on chain after a database loss (docs/RECOVERY.md).
    ///
    /// Args: `from_height` (required off regtest: the wallet birthday lived in the lost
    /// database), `gap_limit`, `contract` (an object, see `RecoveryContract`). Always scans;
    /// settles a hold invoice whose preimage a claim of our lock revealed; with `contract`,
    /// re-creates that swap's record and lets its engine finish it.
    func recover(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let network = services.config.network
        let fromHeight: Int
        if let height = try args.optionalInt("from_height", in: 0...Int64(Int32.max)) {
            fromHeight = Int(height)
        } else if network == .regtest {
            fromHeight = 0
        } else {
            throw .invalidRequest("recover needs \"from_height\" off regtest: the wallet birthday was kept in the database")
        }
        let gap = Int(try args.optionalInt("gap_limit", in: 1...10_000) ?? Int64(RecoveryScanner.defaultGapLimit))
        var seedBytes = services.seed.withUnsafeSecretBytes { Array($0) }
        defer { for index in seedBytes.indices { seedBytes[index] = 0 } }
        let scanner = try await Self.mapped { () throws(RecoveryError) in
            try RecoveryScanner(seed: seedBytes, network: network, chain: services.chain, gapLimit: gap)
        }
        let report = try await Self.mapped { () async throws(RecoveryError) in try await scanner.scan(fromHeight: fromHeight) }
        var result: [String: JSONValue] = [
            "from_height": .integer(report.fromHeight), "to_height": .integer(report.toHeight),
            "indexes_searched": .integer(report.indexesSearched),
        ]
        var found: [JSONValue] = []
        for spend in report.spends {
            var entry = Self.json(spend, network: network)
            // A reverse provider's lock claimed: the preimage settles its held invoice. A
            // P2WSH claim of a lock we made may be that or a submarine client's paid swap:
            // the Lightning node's answer tells (only a held invoice is settled).
            if spend.kind == .claim, spend.side == .provider(.reverse) || spend.side == .locker, let preimage = spend.preimage {
                entry["invoice"] = .string(await settleRevealed(preimage: preimage, paymentHash: spend.paymentHash))
            }
            found.append(.object(entry))
        }
        result["found"] = .array(found)
        if let highest = report.spends.map(\.index).max() {
            let store = services.store
            try await Self.mapped { () async throws(RecoveryError) in try await SwapIndexAdvance.advance(store, past: highest) }
        }
        // The scan is what a new or stale database waited for (RecoveryFlag): client swaps
        // may start again, with indexes past every swap the chain shows.
        do {
            result["recovery_required_cleared"] = .bool(try await RecoveryFlag.clear(in: services.store))
        } catch {
            throw .failed("the store failed: \(error)")
        }
        if let contractJSON = args.value["contract"], contractJSON != .null {
            let (chain, store, now) = (services.chain, services.store, services.clock.nowUnix)
            let recreator = try await Self.mapped { () throws(RecoveryError) in
                try SwapRecreator(seed: seedBytes, network: network, chain: chain, store: store)
            }
            let outcome = try await Self.mapped { () async throws(RecoveryError) in
                try await recreator.recreate(try RecoveryContract(json: contractJSON, network: network),
                                             fromHeight: fromHeight, nowUnix: now)
            }
            result["recreated"] = .object([
                "id": .string(outcome.swapID), "role": .string(outcome.role.rawValue),
                "swap_index": .integer(outcome.index), "key_scheme": .integer(outcome.scheme.rawValue),
                "lock_txid": .string(outcome.lock.txid.hex),
                "lock_vout": .integer(outcome.lock.index), "lock_value_sat": .integer(outcome.lockValue),
                "resumes_at": .string(outcome.resumesAt),
            ])
            result["resumed"] = .bool(try await resume(outcome.role))
        }
        return .object(result)
    }

    /// Recovery's failures as the control API's codes.
    @discardableResult
    private static func mapped<T>(_ body: () async throws(RecoveryError) -> T) async throws(ControlError) -> T {
        do {
            return try await body()
        } catch {
            switch error {
            case .chain: throw .backend(error.description)
            case .invalidContract, .needsWholeBlocks: throw .invalidRequest(error.description)
            case .lockNotFound, .nothingToRecover: throw .notFound(error.description)
            case .store, .keys: throw .failed(error.description)
            case .lightning: throw .backend(error.description)
            }
        }
    }

    /// Settles our hold invoice with a preimage already public on chain, when the invoice is
    /// still held: without its record the provider engine cannot, and the client's payment
    /// would otherwise time out while the client keeps the coins. Says what happened.
    private func settleRevealed(preimage: [UInt8], paymentHash: [UInt8]) async -> String {
        do {
            let invoice = try await services.lightning.lookupInvoice(paymentHash: paymentHash)
            guard invoice.state == .accepted else { return invoice.state.rawValue.lowercased() }
            try await services.lightning.settleInvoice(preimage: preimage)
            return "settled now"
        } catch {
            return "not settled: \(error)"
        }
    }

    /// Runs the engine's ordinary recovery so it picks up the re-created record.
    private func resume(_ role: SwapRole) async throws(ControlError) -> Bool {
        switch role {
        case .client:
            guard let commands = engines.current.client as? ClientCommands else { return false }
            do { try await commands.engine.recover() } catch { throw .failed("the client engine cannot resume: \(error)") }
        case .provider:
            guard let engine = engines.current.provider as? ProviderEngine else { return false }
            do { try await engine.recover() } catch { throw .failed("the provider engine cannot resume: \(error)") }
        }
        return true
    }

    /// A found spend for the API. The preimage is left out even though the chain shows it:
    /// the payment hash identifies the swap, and secrets stay out of outputs and logs.
    static func json(_ spend: RecoveredSpend, network: Network) -> [String: JSONValue] {
        var entry: [String: JSONValue] = [
            "swap_index": .integer(spend.index), "key_scheme": .integer(spend.scheme.rawValue), "role": spend.role.map { .string($0.rawValue) } ?? .null,
            "direction": spend.roles.map { .string($0 == .reverse ? "ln_to_onchain" : "onchain_to_ln") } ?? .null,
            "kind": .string(spend.kind.rawValue),
            "script_type": .string(spend.contractType.rawValue), "lock_txid": .string(spend.lock.txid.hex),
            "lock_vout": .integer(spend.lock.index), "spending_txid": .string(spend.spendingTxid.hex),
            "height": .integer(spend.height), "summary": .string(spend.summary),
            "preimage_revealed": .bool(spend.preimage != nil),
        ]
        if !spend.paymentHash.isEmpty { entry["payment_hash"] = .string(spend.paymentHash.hex) }
        return entry
    }
}

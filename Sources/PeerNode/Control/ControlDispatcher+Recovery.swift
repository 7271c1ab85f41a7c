import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

extension ControlDispatcher {
    /// `recover`: finds this seed's swaps on chain after a database loss (docs/RECOVERY.md).
    ///
    /// Args: `from_height` (required off regtest: the wallet birthday lived in the lost
    /// database), `gap_limit`, `ask_contacts` (default true), `contract` (an object, see
    /// `RecoveryContract` and `SubmarineRecoveryContract`). Always scans; settles a hold
    /// invoice whose preimage a claim of our lock revealed; asks the saved contacts for the
    /// onchain_to_ln swaps they hold with this node and re-creates those still holding a
    /// lock; with `contract`, re-creates that swap's record. The engines then finish them.
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
        let asking = try args.optionalBool("ask_contacts") ?? true
        let contractJSON = args.value["contract"].flatMap { $0 == .null ? nil : $0 }
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
        if try await lowerWalletBirthday(to: fromHeight) { result["wallet_rescanned_from"] = .integer(fromHeight) }
        // The scan is what a new or stale database waited for (RecoveryFlag): client swaps
        // may start again, with indexes past every swap the chain shows.
        do {
            result["recovery_required_cleared"] = .bool(try await RecoveryFlag.clear(in: services.store))
        } catch {
            throw .failed("the store failed: \(error)")
        }
        let (chain, store, now) = (services.chain, services.store, services.clock.nowUnix)
        let recreator = try await Self.mapped { () throws(RecoveryError) in
            try SwapRecreator(seed: seedBytes, network: network, chain: chain, store: store, lightning: services.lightning)
        }
        var recreated: [SwapRecreator.Outcome] = []
        if asking {
            let reports = try await askContacts(recreator: recreator, indexesSearched: report.indexesSearched,
                                                fromHeight: fromHeight)
            result["contacts"] = .array(reports.map(Self.json))
            recreated += reports.flatMap(\.recreated)
        }
        if let contractJSON {
            let ownPubky = services.identity.pubky
            let outcome = try await Self.mapped { () async throws(RecoveryError) in
                if SubmarineRecoveryContract.isSubmarine(contractJSON) {
                    return try await recreator.recreate(try SubmarineRecoveryContract(json: contractJSON, network: network,
                                                                                      ownPubky: ownPubky),
                                                        fromHeight: fromHeight, nowUnix: now)
                }
                return try await recreator.recreate(try RecoveryContract(json: contractJSON, network: network),
                                                    fromHeight: fromHeight, nowUnix: now)
            }
            result["recreated"] = .object(Self.json(outcome))
            recreated.append(outcome)
        }
        if !recreated.isEmpty || contractJSON != nil {
            var resumed = true
            for engine in Set(recreated.map { RecoveredEngine(role: $0.role, roles: $0.roles) }) {
                resumed = try await resume(engine) && resumed
            }
            result["resumed"] = .bool(resumed)
        }
        return .object(result)
    }

    /// A lost database took the wallet's birthday with it: the new one's is the tip of its
    /// first run, and the wallet would never see the coins from before (a lock's change, a
    /// refund's destination). The scan's start is the user's word for where this seed's
    /// history begins, so the wallet reads the chain again from there. True when it did.
    private func lowerWalletBirthday(to height: Int) async throws(ControlError) -> Bool {
        let store = services.store
        do {
            let stored = try await store.value(forKey: NodeDaemon.birthdayKey).flatMap { Int(String(decoding: $0, as: UTF8.self)) }
            guard let stored, height < stored else { return false }
            try await store.setValue(Array(String(height).utf8), forKey: NodeDaemon.birthdayKey)
        } catch {
            throw .failed("the store failed: \(error)")
        }
        guard await services.wallet.lowerBirthday(to: height) else { return false }
        _ = try? await services.wallet.sync()
        return true
    }

    /// Asks every saved contact for the onchain_to_ln swaps it holds with this node.
    private func askContacts(recreator: SwapRecreator, indexesSearched: Int,
                             fromHeight: Int) async throws(ControlError) -> [SwapListRecovery.ContactReport] {
        let contacts: [Offers.Contact]
        do {
            contacts = try await services.store.contacts().map {
                Offers.Contact(pubky: $0.pubky, host: $0.host, port: $0.port, name: $0.name)
            }
        } catch {
            throw .failed("the store failed: \(error)")
        }
        let dialer = services.dialer
        let gate = services.contactRequests
        let fetcher = SwapListFetcher(connect: { contact in
            try await gate.run(to: contact.pubky) { () async throws(PeerDialError) -> PeerConnection in
                try await dialer.dial(contact.pubky, host: contact.host, port: Int(contact.port))
            }
        }, timeoutMilliseconds: 15_000)
        let recovery = SwapListRecovery(fetcher: fetcher, recreator: recreator, store: services.store,
                                        lightning: services.lightning, network: services.config.network,
                                        ownPubky: services.identity.pubky)
        let now = services.clock.nowUnix
        return try await Self.mapped { () async throws(RecoveryError) in
            try await recovery.run(contacts: contacts, indexesSearched: indexesSearched, fromHeight: fromHeight, nowUnix: now)
        }
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

    /// Which engine finishes a re-created swap.
    private struct RecoveredEngine: Hashable {
        let role: SwapRole
        let roles: ContractRoles
    }

    /// Runs the engine's ordinary recovery so it picks up the re-created records; false when
    /// the node runs no such engine (the record waits for one).
    private func resume(_ engine: RecoveredEngine) async throws(ControlError) -> Bool {
        switch (engine.role, engine.roles) {
        case (.client, .reverse):
            guard let commands = engines.current.client as? ClientCommands else { return false }
            do { try await commands.engine.recover() } catch { throw .failed("the client engine cannot resume: \(error)") }
        case (.client, .submarine):
            guard let submarine = (engines.current.client as? ClientCommands)?.submarine else { return false }
            do { try await submarine.recover() } catch { throw .failed("the submarine client engine cannot resume: \(error)") }
        case (.provider, .reverse):
            guard let provider = engines.current.provider as? ProviderEngine else { return false }
            do { try await provider.recover() } catch { throw .failed("the provider engine cannot resume: \(error)") }
        case (.provider, .submarine):
            guard let provider = engines.current.submarineProvider as? SubmarineProviderEngine else { return false }
            do { try await provider.recover() } catch {
                throw .failed("the submarine provider engine cannot resume: \(error)")
            }
        }
        return true
    }

    /// A found spend for the API. The preimage is left out even though the chain shows it:
    /// the payment hash identifies the swap, and secrets stay out of outputs and logs.
    static func json(_ spend: RecoveredSpend, network: Network) -> [String: JSONValue] {
        var entry: [String: JSONValue] = [
            "swap_index": .integer(spend.index), "key_scheme": .integer(spend.scheme.rawValue),
            "role": spend.role.map { .string($0.rawValue) } ?? .null,
            "direction": spend.roles.map { .string(SwapDirection(spend: $0).rawValue) } ?? .null,
            "kind": .string(spend.kind.rawValue),
            "script_type": .string(spend.contractType.rawValue), "lock_txid": .string(spend.lock.txid.hex),
            "lock_vout": .integer(spend.lock.index), "spending_txid": .string(spend.spendingTxid.hex),
            "height": .integer(spend.height), "summary": .string(spend.summary),
            "preimage_revealed": .bool(spend.preimage != nil),
        ]
        if !spend.paymentHash.isEmpty { entry["payment_hash"] = .string(spend.paymentHash.hex) }
        return entry
    }

    static func json(_ outcome: SwapRecreator.Outcome) -> [String: JSONValue] {
        [
            "id": .string(outcome.swapID), "role": .string(outcome.role.rawValue),
            "direction": .string(SwapDirection(spend: outcome.roles).rawValue),
            "swap_index": .integer(outcome.index), "key_scheme": .integer(outcome.scheme.rawValue),
            "lock_txid": .string(outcome.lock.txid.hex),
            "lock_vout": .integer(outcome.lock.index), "lock_value_sat": .integer(outcome.lockValue),
            "resumes_at": .string(outcome.resumesAt),
        ]
    }

    static func json(_ report: SwapListRecovery.ContactReport) -> JSONValue {
        var entry: [String: JSONValue] = [
            "contact": .string(report.contact.name), "pubky": .string(report.contact.pubky.z32),
            "listed": .integer(report.listed), "recreated": .array(report.recreated.map { .object(json($0)) }),
            "skipped": .array(report.skipped.map { .object(["id": .string($0.swapID), "reason": .string($0.reason)]) }),
        ]
        if let failure = report.failure { entry["failure"] = .string(failure) }
        return .object(entry)
    }
}

private extension SwapDirection {
    init(spend roles: ContractRoles) {
        self = roles == .reverse ? .lightningToOnchain : .onchainToLightning
    }
}

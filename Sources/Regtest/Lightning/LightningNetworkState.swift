import Bitcoin

/// The whole simulated network as one value: nodes, their invoices and payments, the
/// HTLCs in flight and the fees earned. A pure state machine: every input (time, chain
/// height) arrives as an argument, and `LightningNetwork` owns the only instance behind
/// its lock.
struct LightningNetworkState: Sendable {
    /// 21 million BTC: no funding may take the network past it, which keeps every sum
    /// of balances far below UInt64's limit.
    static let maxMoneyMsat: UInt64 = 21_000_000 * 100_000_000 * 1_000

    let policy: RoutingPolicy
    var nodes: [String: SimulatedNode] = [:]
    var nodeNames: [PublicKey: String] = [:]
    var inFlightMsat: UInt64 = 0
    var feesCollectedMsat: UInt64 = 0
    var fundedMsat: UInt64 = 0

    init(policy: RoutingPolicy) {
        self.policy = policy
    }

    // MARK: nodes

    mutating func addNode(name: String, balanceMsat: UInt64, alias: String?) throws(LightningSimError) -> LightningNodeInfo {
        guard nodes[name] == nil else { throw .duplicateNode(name) }
        try fund(by: balanceMsat)
        let key = SimulatedNode.identityKey(for: name)
        let node = SimulatedNode(name: name, alias: alias ?? name, key: key, balanceMsat: balanceMsat,
                                 fundedCapacityMsat: balanceMsat, isOnline: true)
        nodes[name] = node
        nodeNames[key.publicKey] = name
        return node.info
    }

    func node(_ name: String) throws(LightningSimError) -> SimulatedNode {
        guard let node = nodes[name] else { throw .unknownNode(name) }
        return node
    }

    mutating func setBalance(node name: String, balanceMsat: UInt64) throws(LightningSimError) {
        let old = try node(name).balanceMsat
        if balanceMsat > old {
            try fund(by: balanceMsat - old)
        } else {
            fundedMsat -= old - balanceMsat
        }
        nodes[name]!.balanceMsat = balanceMsat
        // The node's channel is replaced by one of this size, with its reserve.
        nodes[name]!.fundedCapacityMsat = balanceMsat
    }

    mutating func setOnline(node name: String, _ online: Bool) throws(LightningSimError) {
        _ = try node(name)
        nodes[name]!.isOnline = online
    }

    var balances: LightningBalances {
        LightningBalances(nodes: nodes.mapValues(\.balanceMsat), inFlightMsat: inFlightMsat,
                          feesCollectedMsat: feesCollectedMsat, fundedMsat: fundedMsat)
    }

    private mutating func fund(by amountMsat: UInt64) throws(LightningSimError) {
        guard amountMsat <= Self.maxMoneyMsat - fundedMsat else { throw .amountTooLarge }
        fundedMsat += amountMsat
    }

    // MARK: notifications

    /// Sends the invoice's current state to its subscribers; a final state ends their
    /// streams. Consumers that went away are dropped when a yield reports it.
    mutating func publishInvoice(node name: String, hash: [UInt8]) {
        guard let entry = nodes[name]?.invoices[hash] else { return }
        var alive = [AsyncStream<SimulatedInvoice>.Continuation]()
        for subscriber in entry.subscribers {
            if case .terminated = subscriber.yield(entry.invoice) { continue }
            if entry.invoice.state.isFinal { subscriber.finish() } else { alive.append(subscriber) }
        }
        nodes[name]!.invoices[hash]!.subscribers = alive
    }

    mutating func publishPayment(node name: String, hash: [UInt8]) {
        guard let entry = nodes[name]?.payments[hash] else { return }
        var alive = [AsyncStream<SimulatedPayment>.Continuation]()
        for subscriber in entry.subscribers {
            if case .terminated = subscriber.yield(entry.payment) { continue }
            if entry.payment.status.isFinal { subscriber.finish() } else { alive.append(subscriber) }
        }
        nodes[name]!.payments[hash]!.subscribers = alive
    }
}

import Bitcoin

/// What one watcher cares about: scripts that may receive and outpoints that may be spent.
/// An output paying a watched script becomes a watched outpoint, so the spend of a received
/// coin is reported without the watcher adding it (a wallet sees its own spends).
public struct WatchFilter: Sendable, Hashable {
    public var scripts: Set<Script>
    public var outpoints: Set<OutPoint>

    public init(scripts: Set<Script> = [], outpoints: Set<OutPoint> = []) {
        self.scripts = scripts
        self.outpoints = outpoints
    }

    public var isEmpty: Bool { scripts.isEmpty && outpoints.isEmpty }

    /// What `transaction` does to the watch, or nil when it does not touch it. Does not
    /// change the filter; `absorb` does.
    public func match(_ transaction: Transaction, txid: TransactionID) -> (received: [ReceivedOutput], spent: [SpentOutpoint])? {
        var spent: [SpentOutpoint] = []
        if !outpoints.isEmpty {
            for (index, input) in transaction.inputs.enumerated() where outpoints.contains(input.previousOutput) {
                spent.append(SpentOutpoint(outpoint: input.previousOutput, inputIndex: index))
            }
        }
        var received: [ReceivedOutput] = []
        if !scripts.isEmpty {
            for (index, output) in transaction.outputs.enumerated() where scripts.contains(output.scriptPubKey) {
                received.append(ReceivedOutput(outpoint: OutPoint(txid: txid, index: UInt32(index)), output: output))
            }
        }
        return spent.isEmpty && received.isEmpty ? nil : (received, spent)
    }

    /// Starts watching the received outputs for their spends.
    public mutating func absorb(_ received: [ReceivedOutput]) {
        for output in received { outpoints.insert(output.outpoint) }
    }

    public mutating func formUnion(_ other: WatchFilter) {
        scripts.formUnion(other.scripts)
        outpoints.formUnion(other.outpoints)
    }
}

/// Bitcoin Core's context-free transaction checks (`CheckTransaction` in
/// src/consensus/tx_check.cpp). The script interpreter never sees these rules, so a
/// transaction peernode builds must pass them as well as the kernel's script checks.
extension Transaction {
    /// The largest amount that can exist, in satoshis (Core's MAX_MONEY).
    public static let maxMoney: Int64 = 21_000_000 * 100_000_000
    /// Core's MAX_BLOCK_WEIGHT: no transaction's stripped size × 4 may exceed it.
    static let maxBlockWeight = 4_000_000

    /// Throws `invalidTransaction` naming Core's reject reason for the first rule broken.
    public func checkSanity() throws {
        guard !inputs.isEmpty else { throw reject("bad-txns-vin-empty", "no inputs") }
        guard !outputs.isEmpty else { throw reject("bad-txns-vout-empty", "no outputs") }
        // Witnesses are not counted: they have not been checked for malleability at this point.
        guard serialized(includingWitness: false).count * 4 <= Self.maxBlockWeight else {
            throw reject("bad-txns-oversize", "larger than a block")
        }
        // Negative or overflowing amounts (CVE-2010-5139): each output and the running total.
        var total: Int64 = 0
        for output in outputs {
            guard output.value >= 0 else { throw reject("bad-txns-vout-negative", "an output is negative") }
            guard output.value <= Self.maxMoney else { throw reject("bad-txns-vout-toolarge", "an output exceeds 21M BTC") }
            total += output.value // both terms are at most maxMoney here, so this cannot overflow
            guard total <= Self.maxMoney else {
                throw reject("bad-txns-txouttotal-toolarge", "outputs total more than 21M BTC")
            }
        }
        // Spending one outpoint twice in a transaction (CVE-2018-17144).
        var seen = Set<OutPoint>()
        for input in inputs where !seen.insert(input.previousOutput).inserted {
            throw reject("bad-txns-inputs-duplicate", "an outpoint is spent twice")
        }
        if isCoinbase {
            guard (2...100).contains(inputs[0].scriptSig.count) else {
                throw reject("bad-cb-length", "coinbase scriptSig must be 2...100 bytes")
            }
        } else if inputs.contains(where: { $0.previousOutput.isNull }) {
            throw reject("bad-txns-prevout-null", "a non-coinbase input spends the null outpoint")
        }
    }

    private func reject(_ reason: String, _ explanation: String) -> BitcoinError {
        .invalidTransaction("\(reason): \(explanation)")
    }
}

import Bitcoin

/// What `submitpackage` did with each transaction of a package, as Core v31 reports it.
public struct PackageSubmission: Sendable {
    public struct Result: Sendable {
        public let transaction: Transaction
        /// The mempool entry it became (or already was); nil when refused.
        public let entry: MempoolEntry?
        /// Core's reject message when refused.
        public let error: String?
        /// sat/kvB of what it was judged with: itself, or the package members whose fees
        /// carried it (`effective-includes`).
        public let effectiveFeeRate: Int64
        public let effectiveIncludes: [TransactionID]
    }

    public let results: [Result]
    /// Mempool transactions the package replaced.
    public let replaced: [TransactionID]

    /// Core's `package_msg`.
    public var message: String { results.allSatisfy { $0.error == nil } ? "success" : "transaction failed" }
}

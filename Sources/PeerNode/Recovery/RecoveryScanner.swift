import Bitcoin
import HTLC

/// Scans the chain for spends of our swap contracts, with only the seed: see
/// `SwapScriptMatcher` for how a spend is recognised, and docs/RECOVERY.md for what this
/// can and cannot find.
public struct RecoveryScanner: Sendable {
    /// Indexes derived past the highest one found, as a wallet's gap limit: swap indexes
    /// are handed out in order, so a run of this many unused ones ends the search.
    public static let defaultGapLimit = 100

    public struct Report: Sendable {
        public let fromHeight: Int
        public let toHeight: Int
        /// Indexes 0..<indexesSearched were tried.
        public let indexesSearched: Int
        /// Every spend of our contracts, in chain order.
        public let spends: [RecoveredSpend]
    }

    private let keyChain: SwapKeyChain
    private let chain: any ChainBackend
    public let gapLimit: Int

    public init(seed: [UInt8], network: Network, chain: any ChainBackend, gapLimit: Int = defaultGapLimit) throws(RecoveryError) {
        guard chain.servesWholeBlocks else { throw .needsWholeBlocks }
        do { keyChain = try SwapKeyChain(seed: seed, network: network) } catch { throw .keys("\(error)") }
        self.chain = chain
        self.gapLimit = max(1, gapLimit)
    }

    /// Scans blocks `fromHeight` through the tip.
    public func scan(fromHeight: Int) async throws(RecoveryError) -> Report {
        let tip: ChainTip
        do { tip = try await chain.tip() } catch { throw .chain(error) }
        let start = max(0, fromHeight)
        var candidates: [SwapScriptMatcher.Candidate] = []
        if start <= tip.height {
            for height in start...tip.height {
                let block = try await block(at: height)
                for transaction in block.transactions {
                    let txid = transaction.txid
                    for input in transaction.inputs {
                        if let candidate = SwapScriptMatcher.candidate(input, in: txid, height: height) {
                            candidates.append(candidate)
                        }
                    }
                }
            }
        }
        let (found, searched) = try Self.match(candidates, keyChain: keyChain, gapLimit: gapLimit)
        return Report(fromHeight: start, toHeight: tip.height, indexesSearched: searched, spends: found)
    }

    /// Matches parsed spends against indexes 0, 1, ... of every key scheme until `gapLimit`
    /// indexes past the highest match are searched. Parse once, match as often as the gap
    /// grows: a match near the end of the derived range pushes the range out and everything
    /// is matched again. The schemes share one index counter (the first networked swap
    /// takes the index after the last legacy one), so the highest match of either scheme
    /// moves the range of both. Returns the matches and how many indexes were derived per scheme.
    static func match(_ candidates: [SwapScriptMatcher.Candidate], keyChain: SwapKeyChain,
                      gapLimit: Int) throws(RecoveryError) -> ([RecoveredSpend], Int) {
        var tables = SwapKeyScheme.allCases.map { RecoveryKeyTable(keyChain: keyChain, scheme: $0) }
        var found: [RecoveredSpend] = []
        var wanted = max(1, gapLimit)
        repeat {
            for table in tables.indices {
                do { try tables[table].extend(to: wanted) } catch { throw .keys("\(error)") }
            }
            found = candidates.compactMap { candidate in
                tables.lazy.compactMap { SwapScriptMatcher.match(candidate, keys: $0) }.first
            }
            let highest = found.map { Int($0.index) }.max() ?? -1
            wanted = highest + 1 + max(1, gapLimit)
        } while wanted > tables[0].count
        return (found, tables[0].count)
    }

    private func block(at height: Int) async throws(RecoveryError) -> Block {
        do {
            return try await chain.block(try await chain.blockHash(atHeight: height))
        } catch {
            throw .chain(error)
        }
    }
}

import Synchronization

/// Taproot contracts already built in this process, by their terms. Terms hold every input
/// of a contract (network, payment hash, both parties' keys, timeout, roles), so a
/// remembered contract is exactly what building it again would give.
///
/// Bounded: when `capacity` contracts are held the set is emptied, so a peer that sends
/// many distinct quotes costs their building and no more memory than this.
final class TaprootContractMemo: Sendable {
    static let capacity = 1_024

    private let known = Mutex<[SwapTerms: TaprootSwapContract]>([:])

    func contract(for terms: SwapTerms) -> TaprootSwapContract? {
        known.withLock { $0[terms] }
    }

    func remember(_ contract: TaprootSwapContract) {
        known.withLock { known in
            if known.count >= Self.capacity { known.removeAll(keepingCapacity: true) }
            known[contract.terms] = contract
        }
    }

    var count: Int { known.withLock { $0.count } }

    /// The process's one memo.
    static let shared = TaprootContractMemo()
}

import Bitcoin
import HTLC
import Lightning

/// What the provider engine fails at. Messages name swaps, amounts, heights and txids,
/// never a preimage, a key or bytes a peer sent.
public enum ProviderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A stored contract or event that does not decode (a bug or a damaged database).
    case corruptRecord(String)
    case store(StoreError)
    case lightning(LightningBackendError)
    case chain(ChainBackendError)
    case wallet(WalletError)
    /// Building the contract, the refund, or a timelock check failed.
    case htlc(HTLCError)
    /// The engine was asked about a swap it does not run.
    case unknownSwap(String)

    public var description: String {
        switch self {
        case .corruptRecord(let what): return "stored provider swap data cannot be read: \(what)"
        case .store(let error): return "swap store: \(error)"
        case .lightning(let error): return "Lightning backend: \(error)"
        case .chain(let error): return "chain backend: \(error)"
        case .wallet(let error): return "wallet: \(error)"
        case .htlc(let error): return "contract: \(error)"
        case .unknownSwap(let id): return "no provider swap \(id)"
        }
    }

    /// Wraps whatever the HTLC module threw (its functions throw untyped).
    static func htlc(_ error: any Error) -> ProviderError {
        if let error = error as? HTLCError { return .htlc(error) }
        return .corruptRecord("unexpected contract error")
    }

}

import Bitcoin
import Lightning

/// LND's wallet as a second way to the network beside an Electrum server the operator
/// does not run (E-4 of the review of 2026-12-07): a server can answer a broadcast with the
/// txid and never relay it, and a claim it swallows after the preimage left would lose the
/// lock to the provider's refund. Every broadcast then also goes through LND's
/// `PublishTransaction`, which relays it through LND's own chain backend and sends it
/// again at each of LND's starts until it confirms (docs/ELECTRUM.md, "A second way out").
enum ElectrumSecondBroadcast {
    /// The route for `ElectrumBackend.broadcastAlsoThrough`: LND's `PublishTransaction`,
    /// nil when LND published (or had it already), else its refusal as `refusal` gives it.
    static func route(through lightning: LNDRESTClient, url: String) -> @Sendable (Transaction) async -> ChainBackendError? {
        { transaction in
            do throws(LightningBackendError) {
                try await lightning.publishTransaction(transaction, label: "peernode")
                return nil
            } catch {
                return refusal(error, url: url)
            }
        }
    }

    /// LND's refusal in the chain backend's terms. LND's "output already spent" is Core's
    /// `bad-txns-inputs-missingorspent` (-25): callers read "already" as "known already",
    /// which a spent input is not. A refusal LND did not make (no answer, no permission)
    /// is `unreachable`: it proves nothing about the transaction.
    static func refusal(_ error: LightningBackendError, url: String) -> ChainBackendError {
        switch error {
        case .lnd(_, let message, _) where message.contains("output already spent"):
            return .rejected(code: -25, reason: "bad-txns-inputs-missingorspent (LND's wallet: an input is spent or missing)")
        case .lnd(let code, let message, _):
            return .rejected(code: -26, reason: "LND's wallet refused it (code \(code)): \(message)")
        default:
            return .unreachable(url: url, reason: "LND's wallet did not publish it: \(error.description)")
        }
    }
}

import Offers
import Transport

extension ClientCommands {
    /// The attempts of one payment over providers ranked best first (`ranked`): quotes the
    /// first one not passed over and commits its quote, getting past a provider's failure
    /// as `RouteRetry` says. `askAgain` asks every contact again (once at most) and returns
    /// the fresh ranking; `noneLeft` is the error when no provider was there to fail. Each
    /// provider passed over is remembered (`QuoteFailures`). Returns the provider that
    /// carried it, the ranking it was chosen from, and those passed over with why.
    func throughProviders<Candidate, Firm, Outcome>(
        _ ranked: [Candidate], contact: (Candidate) -> Offers.Contact, progress: CommandProgress,
        askAgain: () async throws(ControlError) -> [Candidate], noneLeft: () -> ControlError,
        quote: (Candidate) async throws(ClientEngineError) -> Firm,
        commit: (Candidate, Firm) async throws(ClientEngineError) -> Outcome
    ) async throws(ControlError) -> (choice: Candidate, ranked: [Candidate], passedOver: [Pubky: String], outcome: Outcome) {
        var ranked = ranked
        var retry = RouteRetry()
        while true {
            guard let choice = retry.choice(of: ranked, provider: { contact($0).pubky }) else {
                if let last = retry.lastFailure { throw Self.controlError(last) }
                throw noneLeft()
            }
            var quoting = true
            do {
                let firm = try await quote(choice)
                quoting = false
                return (choice, ranked, retry.passedOver, try await commit(choice, firm))
            } catch let error where RouteRetry.getsPast(error, duringQuote: quoting) {
                let provider = contact(choice)
                switch retry.failed(provider.pubky, error) {
                case .askAgain:
                    if case .rejected(let code, let reason) = error {
                        progress.stage("routing", Self.staleOfferLine(provider.name, code, reason))
                    }
                    ranked = try await askAgain()
                case .passOver:
                    quoteFailures.note(provider.pubky, nowUnix: services.clock.nowUnix)
                    progress.stage("routing", "\(provider.name) \(retry.passedOver[provider.pubky] ?? ""); trying the next provider")
                }
            } catch {
                throw Self.controlError(error)
            }
        }
    }

    /// The progress line of a route asked for again because the chosen provider refused its
    /// cached offer.
    static func staleOfferLine(_ provider: String, _ code: RejectCode, _ reason: String) -> String {
        let why = code == .notFound ? "no longer knows its offer" : "refused what its cached offer promised"
        return "\(provider) \(why) (\(code.rawValue): \(reason)); asking the contacts again"
    }

    /// `ranked` with the providers that failed a quote lately moved to the end
    /// (`QuoteFailures`), said in a progress line naming each with the seconds since.
    func triedLast<Candidate>(_ ranked: [Candidate], contact: (Candidate) -> Offers.Contact,
                              progress: CommandProgress) -> [Candidate] {
        let (ranked, moved) = quoteFailures.failedLast(ranked, nowUnix: services.clock.nowUnix) { contact($0).pubky }
        if !moved.isEmpty {
            progress.stage("routing", moved.map { "\(contact($0.0).name) (\($0.1) s ago)" }.joined(separator: ", ")
                           + " failed a quote lately: tried last")
        }
        return ranked
    }
}

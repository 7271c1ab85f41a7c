/// Scenarios the soak found (issue 9), each reduced to the few steps that show it.
enum SoakScenarios {
    static let all: [Scenario] = [
        Scenario(name: "restart-provider", summary: "pay, restart the provider, pay again: the client's cached offer is stale; "
                     + "it must ask again, not fail", quick: false, body: restartProvider),
    ]

    /// A provider's offers live in its memory, a client caches them for up to ten minutes:
    /// after the provider restarts, the cached offer names an id the provider no longer
    /// knows and the QuoteRequest is refused `not_found` ("no such offer"). Found by the
    /// soak (seed 1: every payment through a provider restarted to arm a crash point
    /// failed until the client itself restarted). The second pay must still go through.
    static func restartProvider(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"])
        let provider = providers[0]
        var checks = try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: 25_000, expectProvider: provider)
        try clock.stage("restart \(provider.name) on the same address and data directory") { () throws(Failure) in
            try provider.pinListenAddress()
            clock.note(provider.stop())
            try provider.start()
        }
        checks += try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: 30_000, expectProvider: provider)
        return checks
    }
}

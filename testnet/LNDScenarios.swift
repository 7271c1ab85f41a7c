import Foundation

/// Issue 15: what a real LND does to its REST clients mid-swap, injected into the hub's
/// simulated LND with `hub_ln_fault`: the client's payment stream broken by LND's
/// shutdown line, a provider's LND restarting (every stream cut) while a swap runs, and
/// the client's daemon restarted while its payment is in flight.
enum LNDScenarios {
    static let amountSat: Int64 = 25_000

    static let all: [Scenario] = [
        Scenario(name: "lnd-stream-error", summary: "the client's LND breaks the payment stream after it started "
                     + "(routerrpc server shutting down): the client tracks it, claims, exactly X arrives, one send",
                 quick: false, body: streamError),
        Scenario(name: "provider-lnd-restart", summary: "the provider's LND restarts again and again while a swap runs "
                     + "(every stream cut): the swap completes, exactly X arrives, nothing lost",
                 quick: false, body: providerRestart),
        Scenario(name: "client-restart-in-flight", summary: "kill -9 of the client daemon while its payment is in flight "
                     + "(held by the provider, no lock yet); restarted, it tracks the payment instead of sending it "
                     + "again: one send for the hash, the swap completes, exactly X arrives",
                 group: .crash, body: clientRestartInFlight),
    ]

    /// `hub_ln_fault` on `node`; its reply (send_requests, open_streams).
    @discardableResult
    static func fault(_ net: Testnet, _ node: String, _ fault: String) throws(Failure) -> [String: Any] {
        JSON.object(try net.hub.rpc.call("hub_ln_fault", [node, fault])) ?? [:]
    }

    static func streamError(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"])
        let armed = try clock.stage("arm send_stream_error on the client's LND") { () throws(Failure) -> [String: Any] in
            try fault(net, "client", "send_stream_error")
        }
        clock.note(JSON.line(armed))
        var checks = try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: amountSat,
                                              expectProvider: providers[0])
        let cleared = try fault(net, "client", "clear")
        let sends = JSON.int(cleared["send_requests"]) ?? -1
        let unused = JSON.int(cleared["send_stream_errors_armed_before"]) ?? -1
        checks.append(Check("the payment stream was broken by the fault", unused == 0, "armed faults left unused: \(unused)"))
        checks.append(Check("the payment was sent once (tracked after the broken stream, never resent)", sends == 1,
                            "/v2/router/send requests: \(sends)"))
        return checks
    }

    /// The crash scenarios' machinery (`CrashScenarios.run`: a crash point right after the
    /// client stored `payment_in_flight`, a restart on the same data directory, mining
    /// until every swap is final, conservation), held to the one outcome a payment that
    /// was sent must have: paid out, and sent once. The provider settles only once the
    /// client claimed, so the HTLC is held across the whole restart.
    static func clientRestartInFlight(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let flow = CrashFlow(endStates: ["client": ["completed"], "provider": ["settled"]])
        var checks = try CrashScenarios.run(net, clock, crashing: "client", state: "payment_in_flight", flow: flow)
        let counts = try fault(net, "client", "clear")
        let byHash = JSON.object(counts["send_requests_by_hash"]) ?? [:]
        let sends = byHash.mapValues { JSON.int($0) ?? -1 }
        checks.append(Check("the client's LND saw exactly one send for the payment's hash (tracked after the restart, "
                                + "never resent)", sends.count == 1 && sends.values.first == 1,
                            "/v2/router/send by hash: \(sends.map { "\($0.key.prefix(16))…: \($0.value)" }.joined(separator: ", "))"))
        return checks
    }

    static func providerRestart(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"])
        // Restarts every 50 ms from before the accept until the claim: whichever of the
        // provider's streams is open (its invoice subscription above all) is cut.
        let restarts = RestartLoop(rpc: net.hub.rpc, node: providers[0].name)
        restarts.start()
        var checks: [Check]
        do {
            checks = try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: amountSat,
                                              expectProvider: providers[0])
        } catch {
            restarts.stop()
            throw error
        }
        let count = restarts.stop()
        clock.note("\(count) LND restarts of \(providers[0].name) during the swap")
        checks.append(Check("the provider's LND restarted during the swap", count > 0, "\(count) restarts"))
        return checks
    }
}

/// Injects `restart` into one node's LND on a background thread until stopped.
final class RestartLoop: @unchecked Sendable {
    // `running` and `count` are read and written under `lock` only.
    private let lock = NSLock()
    private var running = true
    private var count = 0
    private let rpc: HubRPC
    private let node: String
    private let done = DispatchSemaphore(value: 0)

    init(rpc: HubRPC, node: String) {
        self.rpc = rpc
        self.node = node
    }

    func start() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                if (try? rpc.call("hub_ln_fault", [node, "restart"])) != nil { lock.withLock { count += 1 } }
                usleep(50_000)
            }
            done.signal()
        }
    }

    /// Stops the loop and answers how many restarts it injected.
    @discardableResult
    func stop() -> Int {
        let wasRunning = lock.withLock { () -> Bool in
            defer { running = false }
            return running
        }
        if wasRunning { done.wait() }
        return lock.withLock { count }
    }
}

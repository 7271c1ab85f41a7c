#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Issue 22's floods at process level: `peernode-adversary` floods a provider daemon from
/// other loopback addresses (127.1.0.1 and up: Linux routes all of 127/8 to loopback, and
/// each /24 is a network group of its own) while the honest client, dialling from
/// 127.0.0.1, pays carol through it. The provider keeps the daemon's real per-host budgets
/// (16 per IP, 32 per /24), not the runner's 256, so the caps see the attackers apart.
/// The honest `pay` must succeed, retries allowed, within 30 s of its first attempt.
enum FloodScenarios {
    static let amountSat: Int64 = 25_000
    /// How long each flood runs; the honest pay starts a few seconds in.
    static let floodSeconds = 30
    static let payWithinSeconds: TimeInterval = 30
    /// The attackers' source addresses: one host, or one host in each of `count` /24s.
    static let oneHost = "127.1.0.1"
    static func hosts(_ count: Int) -> String { (1...count).map { "127.\($0).0.1" }.joined(separator: ",") }

    static var all: [Scenario] {
        [
            Scenario(name: "flood-slot-churn", summary: "300 idle TCP connections from one host, re-opened as the provider "
                         + "closes them: the honest pay succeeds within 30 s", group: .other) { net, clock throws(Failure) in
                try flood(net, clock, attack: "slot-churn", extra: ["--sources", oneHost, "--connections", "300"]) { report in
                    [Check("the churn ran: connections opened and closed by the provider",
                           (report.int("opened") ?? 0) > 300 && (report.int("closed_by_provider") ?? 0) > 0,
                           "\(report.int("opened") ?? 0) opened, \(report.int("closed_by_provider") ?? 0) closed by the provider, "
                           + "\(report.int("open_peak") ?? 0) open at most")]
                }
            },
            Scenario(name: "flood-slot-holders-one-host", summary: "256 authenticated slot holders (256 identities) from "
                         + "one host, an OfferRequest every 20 s: at most 16 get in; the honest pay succeeds", group: .other) {
                net, clock throws(Failure) in
                try flood(net, clock, attack: "slot-holders", extra: ["--sources", oneHost, "--connections", "256"]) { report in
                    [heldCheck(report, atMost: 16, why: "the per-IP share")]
                }
            },
            Scenario(name: "flood-slot-holders-20-identities", summary: "256 authenticated slot holders sharing 20 identities "
                         + "from 20 hosts in 20 /24s: at most 4 per identity; the honest pay succeeds", group: .other) {
                net, clock throws(Failure) in
                try flood(net, clock, attack: "slot-holders",
                          extra: ["--sources", hosts(20), "--connections", "256", "--identities", "20"]) { report in
                    [heldCheck(report, atMost: 20 * 4, why: "4 per pubky")]
                }
            },
            Scenario(name: "flood-quotes", summary: "QuoteRequests from one identity for the whole flood, 32 in flight: it gets its share "
                         + "and rate_limited; the honest pay succeeds", group: .other) { net, clock throws(Failure) in
                try flood(net, clock, attack: "quote-flood",
                          // The count is a ceiling no machine reaches in the flood's 30 s (a fast one sent
                          // 10,000 in 3.8 s and the flood was over before the honest pay began).
                          extra: ["--sources", oneHost, "--count", "1000000", "--in-flight", "32"]) { report in
                    let granted = report.int("quotes_granted") ?? 0
                    let limited = report.int("rejected_rate_limited") ?? 0
                    let sent = report.int("quote_requests") ?? 0, unanswered = report.int("no_answer") ?? 0
                    return [Check("the flooder got at most its share of live quotes (100) and was told rate_limited",
                                  granted <= 100 && limited > 0,
                                  "\(sent) sent: \(granted) quotes, \(limited) rate_limited, \(unanswered) unanswered"),
                            // 32 in flight is within the allowance: the flooder is refused request by
                            // request, never cut off for it (only those in flight when it stops go
                            // unanswered). A provider that counted a slot after its reply had left
                            // closed it thousands of times a run.
                            Check("the flooder, within its in-flight allowance, was answered, not disconnected",
                                  sent > 0 && unanswered * 100 <= sent,
                                  "\(unanswered) of \(sent) unanswered, \(report.int("dials") ?? 0) dial(s)")]
                }
            },
            Scenario(name: "flood-pushes", summary: "PreimagePushes for unknown swaps with newline-bearing ids: no forged log "
                         + "line, the log grows < 1 MB; the honest pay succeeds", group: .other, body: pushes),
            Scenario(name: "flood-addresses", summary: "EndpointsRequests from ever-new identities: RSS grows < 20 MB; the "
                         + "last address handed out is paid and found again after a restart (M-6)", group: .other,
                     body: addresses),
        ]
    }

    // MARK: - scenarios with checks of their own

    static func pushes(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let logPath = net.supervisor.runDirectory + "/provA.log"
        var sizeBefore: Int64 = 0
        return try flood(net, clock, attack: "push-flood", extra: ["--sources", hosts(4), "--connections", "4"],
                         beforeFlood: { _ in sizeBefore = fileSize(logPath) }) { report in
            let grown = fileSize(logPath) - sizeBefore
            let lines = ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n")
            // A forged line is one the injected text begins; escaped, it stays inside the
            // quoted swap id (its newline written as \u{a}) on the line the daemon wrote.
            let forged = lines.filter { line in
                line.hasPrefix("provider: FAKE") || line.hasPrefix("peernode: provider: FAKE")
                    || (line.contains("FAKE LOG LINE") && !line.contains("\\u{a}provider: FAKE LOG LINE"))
            }
            let mentions = lines.filter { $0.contains("FAKE LOG LINE") }.count
            return [
                Check("the flood pushed", (report.int("pushes") ?? 0) > 100,
                      "\(report.int("pushes") ?? 0) pushes, \(report.int("redials") ?? 0) redials after provA closed a flooder"),
                Check("provA's log has no forged line", forged.isEmpty,
                      forged.isEmpty ? "\(mentions) line(s) quote the fake text, escaped" : "forged: \(forged.prefix(2))"),
                Check("provA's log grew less than 1 MB during the flood", grown < 1_000_000, "+\(grown) bytes"),
            ]
        }
    }

    static func addresses(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        var rssBefore: Int64 = 0
        var rssAfter: Int64 = 0
        var lastAddress: String?
        var checks = try flood(net, clock, attack: "address-flood", extra: ["--sources", hosts(4), "--connections", "4"],
                               beforeFlood: { provider throws(Failure) in
            rssBefore = try ProcessMemory.kibibytes("VmRSS", of: provider)
        }) { report in
            lastAddress = report.string("last_address")
            return [Check("the flood was handed addresses", (report.int("addresses") ?? 0) > 100 && lastAddress != nil,
                          "\(report.int("addresses") ?? 0) addresses to \(report.int("askers") ?? 0) identities; the last: "
                          + (lastAddress ?? "none"))]
        } afterFlood: { provider throws(Failure) in
            rssAfter = try ProcessMemory.kibibytes("VmRSS", of: provider)
        }
        checks.append(Check("provA's RSS grew less than 20 MB during the flood", rssAfter - rssBefore < 20 * 1_024,
                            "VmRSS \(rssBefore / 1_024) MiB -> \(rssAfter / 1_024) MiB"))
        guard let address = lastAddress, let provider = net.nodes.first(where: { $0.name == "provA" }) else { return checks }
        // Audit M-6: a coin sent to the deepest address the flood was handed is the
        // wallet's, now and after a restart (the wallet must scan that far).
        let paid: Int64 = 50_000
        let (before, funded, restarted) = try clock.stage("pay \(formatSats(paid)) to the last flood address, restart provA") {
            () throws(Failure) -> (Int64, Int64, Int64) in
            let before = try provider.walletBalance().confirmed
            let btc = NSDecimalNumber(mantissa: UInt64(paid), exponent: -8, isNegative: false)
            _ = try net.hub.rpc.call("hub_fund", [address, btc, true])
            var funded = before
            let deadline = Date().addingTimeInterval(30)
            while funded != before + paid && Date() < deadline {
                usleep(300_000)
                funded = try provider.walletBalance().confirmed
            }
            try provider.pinListenAddress()
            clock.note(provider.stop())
            try provider.start()
            var restarted = try provider.walletBalance().confirmed
            let again = Date().addingTimeInterval(30)
            while restarted != funded && Date() < again {
                usleep(300_000)
                restarted = try provider.walletBalance().confirmed
            }
            return (before, funded, restarted)
        }
        checks.append(Check("the coin paid to the last flood address is in provA's wallet, and still after a restart",
                            funded == before + paid && restarted == funded,
                            "confirmed \(formatSats(before)) -> \(formatSats(funded)) -> after restart \(formatSats(restarted))"))
        return checks
    }

    // MARK: - building blocks

    /// At most `limit` slots were held at once, and the flood did hold some.
    static func heldCheck(_ report: KitOutcome, atMost limit: Int64, why: String) -> Check {
        let peak = report.int("held_peak") ?? 0
        return Check("the holders held at most \(limit) slots at once (\(why))", peak > 0 && peak <= limit,
                     "\(peak) held at most; \(report.int("dials") ?? 0) dials, \(report.int("dial_failures") ?? 0) refused "
                     + "in the handshake, \(report.int("closed_before_holding") ?? 0) closed before answering, "
                     + "\(report.int("evicted_after_holding") ?? 0) evicted after holding, "
                     + "\(report.int("offers_answered") ?? 0) offers answered")
    }

    /// The set-up (client, provA with the real budgets, carol), the flood in the
    /// background, the honest pay with retries a few seconds in, the flood's end and its
    /// report's checks, then carol's exact amount and the common checks.
    static func flood(_ net: Testnet, _ clock: StageClock, attack: String, extra: [String],
                      beforeFlood: (Node) throws(Failure) -> Void = { _ in },
                      checks floodChecks: (KitOutcome) throws(Failure) -> [Check],
                      afterFlood: (Node) throws(Failure) -> Void = { _ in }) throws(Failure) -> [Check] {
        let (client, provider, carol) = try setUp(net, clock)
        let kit = try clock.stage("the kit (no Lightning funds: floods pay nothing)") { () throws(Failure) -> HostileKit in
            try HostileKit(net, lightningSat: 0)
        }
        try beforeFlood(provider)
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().confirmed
        let process = try clock.stage("start peernode-adversary --attack \(attack) \(extra.joined(separator: " "))") {
            () throws(Failure) -> KitProcess in
            let process = try kit.start(attack, against: provider, amountSat: amountSat,
                                        extra: extra + ["--seconds", String(floodSeconds)])
            usleep(4_000_000)
            guard process.isRunning else { throw Failure("the flood ended at once: \(process.progress.suffix(3))") }
            return process
        }
        let (paid, attempts, seconds) = try clock.stage("pay carol \(formatSats(amountSat)) during the flood (retries allowed)") {
            () throws(Failure) -> (Bool, [String], TimeInterval) in
            try Scenario.withAutomine(net) { () throws(Failure) -> (Bool, [String], TimeInterval) in
                try payWithRetries(client, carol, clock: clock)
            }
        }
        let outcome = try clock.stage("wait for the flood to end") { () throws(Failure) -> KitOutcome in
            let outcome = try process.wait(timeout: TimeInterval(floodSeconds + 60))
            clock.note(outcome.line)
            return outcome
        }
        try afterFlood(provider)
        if paid {
            _ = try clock.stage("mine until carol's wallet has it") { () throws(Failure) -> Int in
                try net.mine(until: "carol receiving \(formatSats(amountSat))", blocks: 20) { () throws(Failure) -> Bool in
                    try carol.walletBalance().confirmed >= carolBefore + amountSat
                }
            }
        }
        let after = try net.hub.rpc.balances()
        let received = try carol.walletBalance().confirmed - carolBefore
        var checks = [
            Check("the kit flooded for its time and reported", outcome.status == 0 && !outcome.report.isEmpty, outcome.line.prefix(300) + ""),
            Check("the honest pay succeeded within \(Int(payWithinSeconds)) s of its first attempt", paid && seconds <= payWithinSeconds,
                  String(format: "%.1f s, %d failed attempt(s) first", seconds, attempts.count)
                      + (attempts.isEmpty ? "" : ": " + attempts.joined(separator: "; "))),
            Check("carol received exactly \(formatSats(amountSat))", received == amountSat, "+\(formatSats(received))"),
        ]
        checks += try floodChecks(outcome)
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    /// `pay carol` until it succeeds or `payWithinSeconds` have passed since the first
    /// try; whether it did, each failed attempt's reason, and the seconds it took.
    static func payWithRetries(_ client: Node, _ carol: Node, clock: StageClock) throws(Failure) -> (Bool, [String], TimeInterval) {
        let started = Date()
        var failures: [String] = []
        while Date().timeIntervalSince(started) < payWithinSeconds {
            let lines = ProgressLines()
            let result = try client.cli(["pay", carol.name, String(amountSat)], timeout: payWithinSeconds + 30) {
                if let stage = lines.fresh($0) { clock.note("… " + stage) }
            }
            if result.ok {
                return (true, failures, Date().timeIntervalSince(started))
            }
            failures.append(String(result.failureText.prefix(160)))
            clock.note("attempt failed: \(result.failureText.prefix(200))")
            usleep(500_000)
        }
        return (false, failures, Date().timeIntervalSince(started))
    }

    /// client (500,000 sat on Lightning), provA (provider, funded, real per-host budgets),
    /// carol; the client saves both.
    static func setUp(_ net: Testnet, _ clock: StageClock) throws(Failure) -> (Node, Node, Node) {
        let nodes = try clock.stage("create and start client, provA (real peer budgets), carol") { () throws(Failure) -> [Node] in
            var provider = NodeSpec(name: "provA", provider: true, baseFeeSat: 500, feePPM: 2_000)
            provider.realPeerBudgets = true
            let nodes = try net.add([NodeSpec(name: "client", lightningSat: 500_000), provider, NodeSpec(name: "carol")])
            try net.start(nodes)
            return nodes
        }
        try clock.stage("fund provA's wallet") { () throws(Failure) in try net.fund([nodes[1]], sats: 2_000_000) }
        try clock.stage("save provA and carol on the client") { () throws(Failure) in
            try nodes[0].saveContact(nodes[1])
            try nodes[0].saveContact(nodes[2])
        }
        return (nodes[0], nodes[1], nodes[2])
    }

    static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}

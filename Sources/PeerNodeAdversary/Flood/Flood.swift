import Foundation
import Offers
import Transport

/// The process-level floods of issue 22: each runs for `seconds` (or until its message
/// count is spent), bound to the loopback source addresses it is given, and reports what
/// it did and how the provider answered. None of them needs a chain or a Lightning node.
struct Flood {
    let options: KitOptions
    let target: FloodTarget
    let log: @Sendable (String) -> Void
    let counters = FloodCounters()

    /// The text a push flood tries to smuggle into the provider's log as a line of its own.
    static let forgedLine = "provider: FAKE LOG LINE settled"

    func run() async -> AttackReport {
        var report = AttackReport(attack: options.attack)
        // The probe is the honest contact: it always dials from 127.0.0.1.
        report.set("sources", options.attack == .probe ? "127.0.0.1" : options.sources.joined(separator: ","))
        report.set("seconds", options.seconds)
        let started = ContinuousClock.now
        switch options.attack {
        case .slotChurn: await slotChurn()
        case .slotHolders: await slotHolders()
        case .quoteFlood: await quoteFlood()
        case .pushFlood: await pushFlood()
        case .addressFlood: await addressFlood(&report)
        case .handshakeFlood: await handshakeFlood(&report)
        case .probe: await probe(&report)
        default: break
        }
        report.set("elapsed_ms", Int((ContinuousClock.now - started) / .milliseconds(1)))
        for (name, value) in counters.snapshot { report.set(name, value) }
        return report
    }

    /// Runs `workers` copies of `body` (each given its index) until the attack's time is
    /// up, then cancels them and waits for them to stop.
    func forDuration(workers: Int, _ body: @escaping @Sendable (Int) async -> Void) async {
        let seconds = options.seconds
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                try? await Task.sleep(for: .seconds(Int(seconds)))
                return true
            }
            for index in 0..<workers {
                group.addTask {
                    await body(index)
                    return false
                }
            }
            // The timer, or every worker done early (a count spent): either ends the flood.
            var running = workers
            while let timerFired = await group.next() {
                if timerFired { break }
                running -= 1
                if running == 0 { break }
            }
            group.cancelAll()
        }
    }

    func source(_ index: Int) -> String { options.sources[index % options.sources.count] }

    static func pause(milliseconds: Int) async {
        try? await Task.sleep(for: .milliseconds(milliseconds))
    }
}

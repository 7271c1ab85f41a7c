#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// The supervisors of the runs in progress, for the Ctrl-C handler (which runs on another
/// thread) to tear down.
final class LiveSupervisors: Sendable {
    private let list = Mutex<[Supervisor]>([])
    private let interruptedFlag = Mutex<Bool>(false)

    /// Ctrl-C or SIGTERM arrived: the run ends with exit code 130 and starts nothing more.
    var interrupted: Bool { interruptedFlag.withLock { $0 } }

    func add(_ supervisor: Supervisor) { list.withLock { $0.append(supervisor) } }

    func remove(_ supervisor: Supervisor) { list.withLock { $0.removeAll { $0 === supervisor } } }

    func stopAll() -> [String] {
        let all = list.withLock { $0 }
        return all.flatMap { $0.stopAll() }
    }

    /// Ctrl-C and SIGTERM: stop what the run started. The run's own steps then fail fast
    /// (their processes are gone, nothing new may start), its teardown waits for this one,
    /// and it exits 130. The signals are taken on a dispatch queue rather than in a signal
    /// handler, so stopping processes there is safe. (Declared here, outside main.swift, so
    /// the handler is not bound to the main actor: it runs while the main thread is busy.)
    /// Keep the returned sources alive.
    func stopOnInterrupt() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { @Sendable [self] in
                interruptedFlag.withLock { $0 = true }
                Console.err("\npeernode-testnet: \(number == SIGINT ? "interrupted" : "terminated"); stopping what this run started")
                for outcome in stopAll() { Console.err("  \(outcome)") }
            }
            source.resume()
            return source
        }
    }
}

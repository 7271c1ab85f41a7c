import Synchronization

/// The supervisors of the runs in progress, for the Ctrl-C handler (which runs on another
/// thread) to tear down.
final class LiveSupervisors: Sendable {
    private let list = Mutex<[Supervisor]>([])

    func add(_ supervisor: Supervisor) { list.withLock { $0.append(supervisor) } }

    func remove(_ supervisor: Supervisor) { list.withLock { $0.removeAll { $0 === supervisor } } }

    func stopAll() -> [String] {
        let all = list.withLock { $0 }
        return all.flatMap { $0.stopAll() }
    }
}

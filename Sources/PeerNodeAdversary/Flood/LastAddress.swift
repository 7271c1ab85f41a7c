import Synchronization

/// The newest address an address flood was handed, shared by its workers.
final class LastAddress: Sendable {
    private let address = Mutex<String?>(nil)

    func set(_ value: String) { address.withLock { $0 = value } }
    var value: String? { address.withLock { $0 } }
}

import Synchronization
import Transport

/// The swap id an attached command's progress lines named first: what the command prints
/// when it lets go of the swap (the daemon stopping, or Ctrl-C), so the user can follow it.
final class SwapIDWitness: Sendable {
    private let seen = Mutex<String?>(nil)

    var id: String? { seen.withLock { $0 } }

    /// True the first time an id is seen.
    @discardableResult
    func see(_ progress: JSONValue) -> Bool {
        guard let id = progress["swap_id"]?.stringValue, !id.isEmpty else { return false }
        return seen.withLock { seen in
            guard seen == nil else { return false }
            seen = id
            return true
        }
    }
}

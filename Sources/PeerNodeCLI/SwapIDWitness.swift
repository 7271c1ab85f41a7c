import Synchronization
import Transport

/// The swap id an attached command's progress lines named first: what the command prints
/// when it lets go of the swap (the daemon stopping, or Ctrl-C), so the user can follow it.
final class SwapIDWitness: Sendable {
    private let seen = Mutex<String?>(nil)

    var id: String? { seen.withLock { $0 } }

    func see(_ progress: JSONValue) {
        guard let id = progress["swap_id"]?.stringValue, !id.isEmpty else { return }
        seen.withLock { $0 = $0 ?? id }
    }
}

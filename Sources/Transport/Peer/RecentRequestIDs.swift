/// The last few request ids this side gave up on (timed out or cancelled), so that a reply
/// arriving late is recognised and dropped instead of being taken for a new request,
/// which could start two nodes answering each other's replies.
struct RecentRequestIDs: Sendable {
    let capacity: Int
    private var order: [String] = []
    private var members: Set<String> = []

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func contains(_ id: String) -> Bool { members.contains(id) }

    mutating func insert(_ id: String) {
        guard members.insert(id).inserted else { return }
        order.append(id)
        if order.count > capacity {
            members.remove(order.removeFirst())
        }
    }

    mutating func remove(_ id: String) {
        guard members.remove(id) != nil else { return }
        order.removeAll { $0 == id }
    }
}

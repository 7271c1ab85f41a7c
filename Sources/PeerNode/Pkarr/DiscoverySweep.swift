import Offers
import Transport

/// Private discovery's schedule (docs/PUBKY.md, section 8): every contact's pkarr packets
/// read again, all contacts at once, every `discovery_interval_seconds`, never because of a
/// payment. Each contact's lookups go to one relay, chosen by its place in the list and the
/// round, so one round spreads the contacts over the relays; a relay that gives nothing is
/// followed by the others. A contact whose address follows its packet is moved to the
/// endpoint found.
public actor DiscoverySweep {
    public struct Round: Sendable, Equatable {
        public var contacts = 0
        public var resolved = 0
        public var withDescriptor = 0
        public var milliseconds: UInt64 = 0
    }

    private let directory: ContactDirectory
    private let store: SQLiteSwapStore
    private let network: String
    private let log: DaemonLog
    private let width: Int
    private var task: Task<Void, Never>?
    public private(set) var rounds = 0
    public private(set) var last = Round()

    public init(directory: ContactDirectory, store: SQLiteSwapStore, network: String, log: DaemonLog, width: Int = 32) {
        self.directory = directory
        self.store = store
        self.network = network
        self.log = log
        self.width = max(1, width)
    }

    /// Sweeps now, then every `intervalMilliseconds` until `stop`.
    public func start(intervalMilliseconds: UInt64, sleeper: any Sleeper) {
        task?.cancel()
        task = Task { [weak self] in
            while !Task.isCancelled {
                await self?.sweep()
                do {
                    try await sleeper.sleep(milliseconds: intervalMilliseconds)
                } catch {
                    return
                }
            }
        }
    }

    public func stop() {
        task?.cancel()
        task = nil
    }

    /// One round over every saved contact.
    @discardableResult
    public func sweep() async -> Round {
        let started = ContinuousClock.now
        let contacts = (try? await store.contacts()) ?? []
        let relays = directory.relays.urls
        let round = rounds
        let directory = self.directory
        let store = self.store
        let network = self.network
        var result = Round(contacts: contacts.count)
        await withTaskGroup(of: (Bool, Bool).self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                let contact = contacts[index]
                let primary = relays.isEmpty ? [] : [relays[(index + round) % relays.count]]
                let others = relays.filter { !primary.contains($0) }
                group.addTask {
                    var found = await directory.resolve(contact.pubky, refresh: true, from: primary, needsAnswer: !others.isEmpty)
                    if case .failure = found, !others.isEmpty {
                        found = await directory.resolve(contact.pubky, refresh: true, from: others)
                    }
                    guard case .success(let resolution) = found else { return (false, false) }
                    if resolution.nodeKey != contact.nodeKey
                        || (contact.resolved && (resolution.endpoint.host != contact.host || resolution.endpoint.port != contact.port)) {
                        try? await store.updateResolution(pubky: contact.pubky, nodeKey: resolution.nodeKey,
                                                          host: resolution.endpoint.host, port: resolution.endpoint.port)
                    }
                    let descriptor = await directory.descriptor(of: contact.pubky, network: network)
                    return (true, (try? descriptor.get()) != nil)
                }
            }
            for _ in 0..<min(width, contacts.count) { add() }
            while let (resolved, described) = await group.next() {
                if resolved { result.resolved += 1 }
                if described { result.withDescriptor += 1 }
                if next < contacts.count { add() }
            }
        }
        let elapsed = ContinuousClock.now - started
        result.milliseconds = UInt64(elapsed.components.seconds) * 1_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000_000_000)
        rounds += 1
        last = result
        if !contacts.isEmpty {
            log("discovery: \(result.contacts) contact(s) read from \(relays.count) relay(s) in \(result.milliseconds) ms: "
                + "\(result.resolved) resolved, \(result.withDescriptor) with a capability descriptor")
        }
        return result
    }
}

/// The steps that undo a start-up, run in reverse order of the steps that made them:
/// on a failed start, what already started is stopped again; on shutdown, the last
/// thing started (the control socket) stops first and the store closes last.
struct Teardown {
    private var steps: [(name: String, run: @Sendable () async -> Void)] = []

    mutating func add(_ name: String, _ step: @escaping @Sendable () async -> Void) {
        steps.append((name, step))
    }

    func run(log: DaemonLog) async {
        for step in steps.reversed() {
            await step.run()
            log("stopped: \(step.name)")
        }
    }
}

import Synchronization

/// The kernel's log lines, kept in memory. libbitcoinkernel reports a rejected block's
/// verdict through `block_checked` as a mode and a coarse category only; the reason string
/// (`bad-txnmrklroot, hashMerkleRoot mismatch`) exists only in the log line Core writes
/// next to it. The kernel's logger is one per process, so this is too: connected once, on
/// first use, for the life of the process, holding the most recent lines.
final class KernelLog: Sendable {
    /// Enough lines to cover one block's processing; older ones are dropped.
    static let capacity = 256

    private struct Lines {
        var lines: [String] = []
        /// How many lines have ever arrived: a caller notes it before a kernel call and
        /// reads only what came after.
        var total = 0
    }
    private let state = Mutex(Lines())

    private static let connections = Mutex<[String: KernelLog]>([:])

    /// The process's capture for `library`, connecting it on first use. Returns nil when the
    /// kernel refuses the connection; verdicts then carry no reason text.
    static func shared(_ library: KernelChainstateLibrary) -> KernelLog? {
        connections.withLock { cache in
            if let log = cache[library.path] { return log }
            let log = KernelLog()
            // The connection is never destroyed, so the log is retained once for it and never released.
            let userData = Unmanaged.passRetained(log).toOpaque()
            guard library.loggingConnectionCreate(kernelLogReceived, userData, nil) != nil else {
                Unmanaged<KernelLog>.fromOpaque(userData).release()
                return nil
            }
            cache[library.path] = log
            return log
        }
    }

    fileprivate func append(_ line: String) {
        state.withLock { lines in
            lines.lines.append(line)
            if lines.lines.count > Self.capacity { lines.lines.removeFirst(lines.lines.count - Self.capacity) }
            lines.total += 1
        }
    }

    /// A mark to pass to `lines(since:)`.
    var mark: Int { state.withLock { $0.total } }

    /// The lines that arrived after `mark` (as many as are still kept).
    func lines(since mark: Int) -> [String] {
        state.withLock { lines in
            let newer = min(lines.total - mark, lines.lines.count)
            return newer > 0 ? Array(lines.lines.suffix(newer)) : []
        }
    }
}

/// `btck_LogCallback`: runs on the thread that logged, inside the kernel's locks, so it only
/// copies the message.
private let kernelLogReceived: KernelChainstateLibrary.LogCallback = { userData, message, length in
    guard let userData, let message else { return }
    let bytes = UnsafeRawBufferPointer(start: message, count: length)
    var line = String(decoding: bytes, as: UTF8.self)
    while line.last == "\n" { line.removeLast() }
    Unmanaged<KernelLog>.fromOpaque(userData).takeUnretainedValue().append(line)
}

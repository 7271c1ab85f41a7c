import Transport

/// Serves the control API on a unix socket (mode 0600): reads request lines from each
/// connection, runs them through the handler, writes progress lines and the reply.
///
/// Closing is graceful: the socket stops accepting at once (and its file is removed),
/// idle connections are closed, and a short command already running is let finish and
/// answered before its connection closes. An attached command (`pay`, `swap-out`,
/// `swap.watch`: `ControlMessage.attachedCommands`) may wait for blocks; it is not waited
/// for but detached: answered `detached` at once, while its swap stays in the store for
/// the next start to resume. So a shutdown never waits for a swap to finish.
public actor ControlServer {
    public nonisolated let path: String
    private let listener: PipeListener
    private let handler: any ControlHandler

    private struct Slot {
        let connection: PipeConnection
        var task: Task<Void, Never>?
        var busy = false
        /// The running attached command's answer, resumed by whichever comes first: the
        /// command's own reply or the shutdown's `detached`.
        var answer: CheckedContinuation<ControlMessage.Reply, Never>?
    }

    private var slots: [UInt64: Slot] = [:]
    private var nextSlot: UInt64 = 0
    private var acceptTask: Task<Void, Never>?
    private var closing = false

    private init(path: String, listener: PipeListener, handler: any ControlHandler) {
        self.path = path
        self.listener = listener
        self.handler = handler
    }

    /// Prepares the path (`ControlSocket.claim`: refuses when a daemon answers there,
    /// removes a stale socket file), binds it with mode 0600 and starts serving.
    public static func start(path: String, handler: any ControlHandler, loop: EventLoop) async throws(DaemonError) -> ControlServer {
        try await ControlSocket.claim(path: path, loop: loop)
        let listener: PipeListener
        do {
            listener = try await PipeListener.bind(path: path, mode: 0o600, loop: loop)
        } catch let error as LibUVError where error.name == "EADDRINUSE" {
            // Another daemon bound it between the check and now.
            throw .alreadyRunning(socket: path)
        } catch {
            throw .socketPathTaken(path: path, reason: "\(error)")
        }
        let server = ControlServer(path: path, listener: listener, handler: handler)
        await server.startAccepting()
        return server
    }

    private func startAccepting() {
        let listener = self.listener
        acceptTask = Task {
            while let connection = try? await listener.accept() {
                self.adopt(connection)
            }
        }
    }

    private func adopt(_ connection: PipeConnection) {
        guard !closing else {
            Task { await connection.close() }
            return
        }
        let id = nextSlot
        nextSlot += 1
        slots[id] = Slot(connection: connection)
        slots[id]?.task = Task { await self.serve(connection, slot: id) }
    }

    /// Connections open now.
    public var connectionCount: Int { slots.count }

    private func serve(_ connection: PipeConnection, slot: UInt64) async {
        defer { slots[slot] = nil }
        var reader = ControlLineReader(stream: connection, maxLineBytes: ControlMessage.maxLineBytes)
        while !closing {
            let line: [UInt8]
            do {
                guard let next = try await reader.next() else { break }
                line = next
            } catch {
                try? await connection.write(ControlMessage.Reply.error(
                    .invalidRequest("a request line is over \(ControlMessage.maxLineBytes) bytes")).line)
                break
            }
            if line.isEmpty { continue }
            // Marked busy before the first suspension, so a shutdown starting now lets
            // this command finish instead of closing the connection under it.
            slots[slot]?.busy = true
            let reply: ControlMessage.Reply
            do {
                let request = try ControlMessage.Request.parse(line)
                let progress: ControlProgress = { value in
                    try? await connection.write(ControlMessage.Reply.progress(value).line)
                }
                if ControlMessage.attachedCommands.contains(request.command) {
                    reply = await attached(request, progress: progress, slot: slot)
                } else {
                    reply = Self.reply(await handler.handle(request, progress: progress))
                }
            } catch {
                reply = .error(error)
            }
            let written = (try? await connection.write(reply.line)) != nil
            slots[slot]?.busy = false
            if !written { break }
        }
        await connection.close()
    }

    private static func reply(_ outcome: Result<JSONValue, ControlError>) -> ControlMessage.Reply {
        switch outcome {
        case .success(let result): return .result(result)
        case .failure(let error): return .error(error)
        }
    }

    /// Runs an attached command in its own task, so a shutdown can answer for it
    /// (`detach`) without waiting; the command itself goes on until the engines stop.
    private func attached(_ request: ControlMessage.Request, progress: @escaping ControlProgress,
                          slot: UInt64) async -> ControlMessage.Reply {
        let handler = self.handler
        return await withCheckedContinuation { continuation in
            slots[slot]?.answer = continuation
            if closing {
                detach(slot)
                return
            }
            Task {
                let outcome = await handler.handle(request, progress: progress)
                self.answer(slot, Self.reply(outcome))
            }
        }
    }

    private func answer(_ slot: UInt64, _ reply: ControlMessage.Reply) {
        guard let continuation = slots[slot]?.answer else { return }
        slots[slot]?.answer = nil
        continuation.resume(returning: reply)
    }

    private func detach(_ slot: UInt64) {
        answer(slot, .error(.detached))
    }

    /// Stops accepting (removing the socket file), closes idle connections, detaches
    /// attached commands, waits for the other running commands to be answered, and
    /// returns once every connection is closed.
    public func close() async {
        guard !closing else { return }
        closing = true
        await listener.close()
        await acceptTask?.value
        for slot in slots.values where !slot.busy {
            await slot.connection.close()
        }
        for id in Array(slots.keys) { detach(id) }
        for slot in slots.values {
            await slot.task?.value
        }
    }
}

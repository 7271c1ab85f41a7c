import Bitcoin

/// Anchoring a server the operator does not run to LND's chain (docs/ELECTRUM.md, "Whose
/// chain?"): the tip the node counts from and every header a confirmation is proved
/// against must link, by parent hash, to a block LND named as its best. LND follows the
/// chain through its own backend, so a server cannot make up a block the node believes.
extension ElectrumBackend {
    /// Blocks per `blockchain.block.headers` call: ElectrumX's and Fulcrum's most.
    static let headersPerCall = 2_016

    /// The tip to count from, given the server's: the server's own when it is at or behind
    /// LND's best block and linked to it; LND's best block (as the server has it) when the
    /// server is ahead, so a server cannot add confirmations by reporting blocks no one
    /// mined. A server behind LND whose tip is not checked yet gives the highest checked
    /// block below its tip (a block or two for the moment it takes to reach LND's).
    func anchoredTip(_ server: (height: Int, header: BlockHeader)) async throws(ChainBackendError)
        -> (height: Int, header: BlockHeader) {
        var lnd = await referenceTip()
        if lnd.map({ $0.height < server.height || $0.hash == nil }) ?? true { lnd = await referenceTip(fresh: true) }
        guard let lnd, let lndHash = lnd.hash else {
            throw map(.notInLNDsChain(height: server.height, reason: "LND gave no best block (height and hash) to check it "
                + "against; the node counts no tip it cannot check"))
        }
        if server.height <= lnd.height {
            if anchored.header(atHeight: server.height)?.hash == server.header.hash { return server }
            if server.height == lnd.height {
                try adopt([server.header], from: server.height, reaching: (lnd.height, lndHash))
                return server
            }
            if let top = anchored.top, top < server.height, let header = anchored.header(atHeight: top) { return (top, header) }
            throw map(.notInLNDsChain(height: server.height, reason: "the server's tip is behind LND's best block \(lnd.height) "
                + "and not yet linked to it; the node waits for the server to reach it"))
        }
        if let known = anchored.header(atHeight: lnd.height), known.hash == lndHash { return (lnd.height, known) }
        // Only the headers above the checked run, when they are few; else LND's block alone.
        let start = anchored.top.flatMap { $0 < lnd.height && lnd.height - $0 <= Self.headersPerCall ? $0 + 1 : nil } ?? lnd.height
        let fetched = try await fetchHeaders(from: start, through: lnd.height)
        try adopt(fetched, from: start, reaching: (lnd.height, lndHash))
        return (lnd.height, fetched[fetched.count - 1])
    }

    /// The header at `height`, at or below `tip` (an anchored tip): from the checked run,
    /// or fetched with every header up to the run (or to the tip) and linked to it.
    func anchoredHeader(atHeight height: Int, below tip: (height: Int, header: BlockHeader)) async throws(ChainBackendError)
        -> BlockHeader {
        guard height <= tip.height else {
            throw map(.notInLNDsChain(height: height, reason: "it is above the highest block linked to LND's best (\(tip.height))"))
        }
        if let known = anchored.header(atHeight: height) { return known }
        // Linking to the run's lowest header when the run reaches the tip fetches only
        // what is missing below it; otherwise everything up to the tip.
        var reference = (height: tip.height, hash: tip.header.hash)
        if let first = anchored.header(atHeight: anchored.base), anchored.base > height,
           anchored.header(atHeight: tip.height)?.hash == tip.header.hash {
            reference = (anchored.base - 1, first.previousBlockHash)
        }
        let fetched = try await fetchHeaders(from: height, through: reference.height)
        try adopt(fetched, from: height, reaching: reference)
        return fetched[0]
    }

    /// The server's headers from `start` through `end`, in calls of at most
    /// `headersPerCall`; fewer than asked (the server has not reached `end`) is returned as
    /// is, for `adopt` to refuse.
    private func fetchHeaders(from start: Int, through end: Int) async throws(ChainBackendError) -> [BlockHeader] {
        var headers: [BlockHeader] = []
        var next = start
        while next <= end {
            let count = min(Self.headersPerCall, end - next + 1)
            let from = next
            let raw = try await withClient { client throws(ElectrumError) in try await client.blockHeaders(start: from, count: count) }
            for bytes in raw {
                do { headers.append(try Self.header(bytes)) } catch { throw map(error) }
            }
            guard raw.count == count else { break }
            next += count
        }
        return headers
    }

    private func adopt(_ headers: [BlockHeader], from start: Int, reaching reference: (height: Int, hash: BlockHash))
        throws(ChainBackendError) {
        do {
            try anchored.adopt(headers, from: start, reaching: reference)
        } catch {
            let reason: String
            switch error {
            case .short(let expected, let got):
                reason = "the server gave \(got) of the \(expected) headers up to block \(reference.height), which LND has"
            case .notLinked(let height):
                reason = "its header at height \(height) does not name the one below it as its parent"
            case .notLNDsBlock(let height, let server, let lnd):
                reason = "at height \(height) the server has block \(server) where LND has \(lnd)"
            }
            throw map(.notInLNDsChain(height: start, reason: reason))
        }
    }
}

import Bitcoin
import Transport

/// The Electrum protocol's calls the chain backend needs, typed, over one negotiated
/// connection. `connect` dials, negotiates the protocol version (refusing a server older
/// than `ElectrumProtocolVersion.minimum`) and, given a network, checks the server's
/// genesis block, so a client that exists talks to a usable server.
public struct ElectrumClient: Sendable {
    public let connection: ElectrumConnection
    /// What the server calls itself (`ElectrumX 2.0.0`), for logs and `doctor`.
    public let serverSoftware: String
    /// The version both sides speak on this connection.
    public let protocolVersion: ElectrumProtocolVersion

    /// Dials `host:port` on `loop` over TCP, or over TLS trusting only `tlsAnchors` when
    /// given; then `negotiate`, and with `network` `checkNetwork`. Each call then has
    /// `timeoutMilliseconds` to be answered. On failure the connection is closed.
    public static func connect(host: String, port: Int, tlsAnchors: TLSCertificates? = nil, network: Network?,
                               loop: EventLoop, clientName: String = "peernode",
                               maxLineBytes: Int = ElectrumConnection.defaultMaxLineBytes,
                               timeoutMilliseconds: UInt64 = 30_000) async throws(ElectrumError) -> ElectrumClient {
        let stream: any ByteStream
        do {
            let tcp = try await TCPConnection.connect(host: host, port: port, loop: loop)
            if let tlsAnchors {
                stream = try await TLSStream.connect(over: tcp, host: host, port: port, anchors: tlsAnchors)
            } else {
                stream = tcp
            }
        } catch {
            throw .unreachable(server: "\(host):\(port)", reason: ErrorText.describe(error))
        }
        let connection = ElectrumConnection(stream: stream, maxLineBytes: maxLineBytes, sleeper: loop.sleeper,
                                            timeoutMilliseconds: timeoutMilliseconds)
        let client = try await negotiate(connection, clientName: clientName)
        if let network {
            do throws(ElectrumError) {
                try await client.checkNetwork(network)
            } catch {
                await client.connection.close()
                throw error
            }
        }
        return client
    }

    /// `server.version`, the protocol's mandatory first call: offers the range
    /// [minimum, maximum] and accepts the server's choice only within it. A server that
    /// refuses the range (ElectrumX answers with an error) or names an older version is
    /// refused with `.unsupportedProtocolVersion` and the connection closed.
    public static func negotiate(_ connection: ElectrumConnection, clientName: String = "peernode") async throws(ElectrumError)
        -> ElectrumClient {
        let range = JSONValue.array([.string(ElectrumProtocolVersion.minimum.description),
                                     .string(ElectrumProtocolVersion.maximum.description)])
        do throws(ElectrumError) {
            let reply: JSONValue
            do throws(ElectrumError) {
                reply = try await connection.call(ElectrumMethod.version, [.string(clientName), range])
            } catch .server(_, _, let message) {
                throw ElectrumError.unsupportedProtocolVersion(server: "it answered: \(message)",
                                                               minimum: ElectrumProtocolVersion.minimum.description)
            }
            guard let parts = reply.arrayValue, parts.count == 2, let software = parts[0].stringValue,
                  let text = parts[1].stringValue, let version = ElectrumProtocolVersion(text) else {
                throw ElectrumError.unexpectedResult(method: ElectrumMethod.version, reason: "not [software, version]")
            }
            guard version >= ElectrumProtocolVersion.minimum, version <= ElectrumProtocolVersion.maximum else {
                throw ElectrumError.unsupportedProtocolVersion(server: "\(software) chose \(text)",
                                                               minimum: ElectrumProtocolVersion.minimum.description)
            }
            if ElectrumPadding.holdsShortReplies(software) {
                await connection.padReplies(with: ElectrumPadding.filler)
            }
            return ElectrumClient(connection: connection, serverSoftware: software, protocolVersion: version)
        } catch {
            await connection.close()
            throw error
        }
    }

    /// The genesis hash the server reports in `server.features`, checked against
    /// `network`'s: a mainnet server must never answer a regtest node's questions.
    public func checkNetwork(_ network: Network) async throws(ElectrumError) {
        let genesis = try await genesisHash()
        let expected = ElectrumGenesis.hashes(for: network)
        guard expected.contains(genesis) else {
            throw .wrongNetwork(expected: expected.sorted().joined(separator: " or "), serverGenesis: genesis)
        }
    }

    /// `server.features`' `genesis_hash`, lower-case hex.
    public func genesisHash() async throws(ElectrumError) -> String {
        let features = try await connection.call(ElectrumMethod.features)
        guard let hex = features["genesis_hash"]?.stringValue, let bytes = [UInt8](hex: hex), bytes.count == 32 else {
            throw .unexpectedResult(method: ElectrumMethod.features, reason: "no genesis_hash")
        }
        return bytes.hex
    }

    /// Subscribes to new tips and returns the current one; later tips arrive as
    /// notifications (`ElectrumNotification.headerTip`).
    public func subscribeHeaders() async throws(ElectrumError) -> ElectrumHeaderTip {
        try ElectrumHeaderTip(decoding: try await connection.call(ElectrumMethod.headersSubscribe),
                              method: ElectrumMethod.headersSubscribe)
    }

    /// The raw header of the block at `height` in the server's best chain.
    public func blockHeader(height: Int) async throws(ElectrumError) -> [UInt8] {
        try ElectrumDecoding.header(try await connection.call(ElectrumMethod.blockHeader, [.integer(height)]),
                                    method: ElectrumMethod.blockHeader)
    }

    /// Up to `count` consecutive raw headers from `start` in the server's best chain (a
    /// server sends at most its `max`, 2016 for ElectrumX, and none past its tip).
    public func blockHeaders(start: Int, count: Int) async throws(ElectrumError) -> [[UInt8]] {
        let method = ElectrumMethod.blockHeaders
        return try ElectrumDecoding.headers(try await connection.call(method, [.integer(start), .integer(count)]),
                                            asked: count, method: method)
    }

    /// Subscribes to a script hash; returns its status (nil: no history yet). Changes
    /// arrive as notifications (`ElectrumNotification.scriptHashStatus`).
    public func subscribe(_ scriptHash: ElectrumScriptHash) async throws(ElectrumError) -> String? {
        let status = try await connection.call(ElectrumMethod.scriptHashSubscribe, [.string(scriptHash.hex)])
        if status == .null { return nil }
        guard let text = status.stringValue else {
            throw .unexpectedResult(method: ElectrumMethod.scriptHashSubscribe, reason: "a status is hex or null")
        }
        return text
    }

    /// Every transaction paying or spending the script, confirmed first, then mempool.
    public func history(_ scriptHash: ElectrumScriptHash) async throws(ElectrumError) -> [ElectrumHistoryItem] {
        try ElectrumDecoding.history(try await connection.call(ElectrumMethod.history, [.string(scriptHash.hex)]),
                                     method: ElectrumMethod.history)
    }

    /// The script's mempool transactions only.
    public func mempool(_ scriptHash: ElectrumScriptHash) async throws(ElectrumError) -> [ElectrumHistoryItem] {
        try ElectrumDecoding.history(try await connection.call(ElectrumMethod.mempool, [.string(scriptHash.hex)]),
                                     method: ElectrumMethod.mempool)
    }

    /// The script's unspent outputs.
    public func unspent(_ scriptHash: ElectrumScriptHash) async throws(ElectrumError) -> [ElectrumUnspent] {
        let method = ElectrumMethod.unspent
        var outputs: [ElectrumUnspent] = []
        for entry in try ElectrumDecoding.array(try await connection.call(method, [.string(scriptHash.hex)]), method: method) {
            let index = try ElectrumDecoding.int(entry["tx_pos"], "tx_pos", method: method)
            guard let outputIndex = UInt32(exactly: index), let value = entry["value"]?.int64Value, value >= 0 else {
                throw .unexpectedResult(method: method, reason: "an output without a valid tx_pos or value")
            }
            outputs.append(ElectrumUnspent(outPoint: OutPoint(txid: try ElectrumDecoding.txid(entry["tx_hash"], method: method),
                                                              index: outputIndex),
                                           valueSat: value,
                                           height: try ElectrumDecoding.int(entry["height"], "height", method: method)))
        }
        return outputs
    }

    /// The transaction `txid`, checked to be it: its bytes hash to the txid asked for, so a
    /// server cannot hand over another transaction.
    public func transaction(_ txid: TransactionID) async throws(ElectrumError) -> Transaction {
        try Self.transaction(try await connection.call(ElectrumMethod.transaction, [.string(txid.hex)]), txid: txid)
    }

    /// `blockchain.transaction.get`'s result, checked to be `txid` (also for batches).
    static func transaction(_ value: JSONValue, txid: TransactionID) throws(ElectrumError) -> Transaction {
        let method = ElectrumMethod.transaction
        guard let hex = value.stringValue, let transaction = try? Transaction(hex: hex) else {
            throw .unexpectedResult(method: method, reason: "not a transaction in hex")
        }
        guard transaction.txid == txid else {
            throw .unexpectedResult(method: method, reason: "asked for \(txid.hex), got \(transaction.txid.hex)")
        }
        return transaction
    }

    /// Broadcasts through the server (its daemon's `sendrawtransaction`); the server's
    /// refusal (a policy or consensus reason) is `.server` with its message.
    public func broadcast(_ transaction: Transaction) async throws(ElectrumError) {
        let method = ElectrumMethod.broadcast
        let reply = try await connection.call(method, [.string(transaction.serialized(includingWitness: true).hex)])
        guard reply.stringValue?.lowercased() == transaction.txid.hex else {
            throw .unexpectedResult(method: method, reason: "the server did not answer with the transaction's txid")
        }
    }

    /// The fee rate to confirm within `blocks`, in sat/kvB; nil when the server (its
    /// daemon) has no estimate.
    public func estimateFee(blocks: Int) async throws(ElectrumError) -> Int64? {
        try ElectrumDecoding.feeRate(try await connection.call(ElectrumMethod.estimateFee, [.integer(blocks)]),
                                     method: ElectrumMethod.estimateFee)
    }

    /// The merkle branch of `txid` in the block at `height`, to be checked against that
    /// block's header (`ElectrumMerkleProof.proves`) before a confirmation is believed.
    public func merkleProof(_ txid: TransactionID, height: Int) async throws(ElectrumError) -> ElectrumMerkleProof {
        let method = ElectrumMethod.merkle
        let proof = try ElectrumMerkleProof(decoding: try await connection.call(method, [.string(txid.hex), .integer(height)]),
                                            method: method)
        guard proof.blockHeight == height else {
            throw .unexpectedResult(method: method, reason: "asked for height \(height), got \(proof.blockHeight)")
        }
        return proof
    }
}

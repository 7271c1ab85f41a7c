import PeerNode
import Transport

/// `peernode init --pubky-recovery-file <file> --pkarr-relay <url>[,<url>...]`: the node's
/// identity becomes the user's Pubky, certifying the node's own key (docs/PUBKY.md,
/// section 4). Everything that can fail (the file, the passphrase, reading the relays) is
/// done before the data directory exists; once it does, the signed record is written and
/// published.
struct PubkyInit {
    let identity: NodeIdentity
    let relays: PkarrRelays
    let existing: SignedPacket?
    private let loop: EventLoop
    private let http: HTTPClient

    /// Nil when `init` was not given a recovery file.
    static func prepare(_ arguments: Arguments) async throws(PubkyInitFailure) -> PubkyInit? {
        guard let file = arguments.options["pubky-recovery-file"] else {
            if arguments.options["pkarr-relay"] != nil {
                throw .usage(UsageError("--pkarr-relay goes with --pubky-recovery-file (the daemon's relays are the "
                                        + "pkarr_relay config key)", command: "init"))
            }
            return nil
        }
        let urls: [PkarrRelayURL]
        do {
            urls = try (arguments.options["pkarr-relay"] ?? "").split(separator: ",").map { text throws(PkarrError) in
                try PkarrRelayURL(String(text))
            }
        } catch {
            throw .usage(UsageError("--pkarr-relay: \(error)", command: "init"))
        }
        guard !urls.isEmpty else {
            throw .usage(UsageError("--pubky-recovery-file needs --pkarr-relay <url>[,<url>...]: the identity's packet is read "
                                    + "from the relays and published to them", command: "init"))
        }
        guard let contents = Context.readSmallBytes(file) else {
            throw .usage(UsageError("the recovery file \(file) cannot be read", command: "init"))
        }
        var passphrase: [UInt8]
        do {
            passphrase = try Passphrase.read(for: file)
        } catch {
            throw .usage(error)
        }
        defer { for index in passphrase.indices { passphrase[index] = 0 } }
        let identity: NodeIdentity
        do {
            identity = try PubkyRecoveryFile.open(contents, passphrase: passphrase)
        } catch {
            throw .daemon(.recoveryFile(error))
        }
        let loop: EventLoop
        do {
            loop = try EventLoop()
        } catch {
            throw .daemon(.pkarr("cannot start the event loop: \(error)"))
        }
        let http = HTTPClient(configuration: HTTPClient.Configuration(timeoutMilliseconds: 10_000), loop: loop)
        let relays = PkarrRelays(urls: urls, client: PkarrRelayClient(http: http))
        do {
            let existing = try await PubkyCertification.currentPacket(of: identity.pubky, relays: relays)
            return PubkyInit(identity: identity, relays: relays, existing: existing, loop: loop, http: http)
        } catch {
            await http.shutDown()
            await loop.shutdown()
            throw .daemon(error)
        }
    }

    /// Signs the record naming `node`, writes it to the data directory and publishes it;
    /// each relay's outcome.
    func certify(node: Pubky, datadir: String) async throws(DaemonError) -> [(relay: String, outcome: String)] {
        let packet = try PubkyCertification.sign(node: node, identity: identity, existing: existing)
        try PubkyIdentityFile.write(packet, datadir: datadir)
        return await relays.publish(packet).map { ($0.relay.description, PkarrPublisher.describe($0.outcome)) }
    }

    func close() async {
        await http.shutDown()
        await loop.shutdown()
    }
}

enum PubkyInitFailure: Error {
    case usage(UsageError)
    case daemon(DaemonError)
}

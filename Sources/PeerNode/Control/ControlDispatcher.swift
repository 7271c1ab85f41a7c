#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Transport

/// Runs the control API's commands against the daemon's services. Commands:
///
/// | command | args | result |
/// |---|---|---|
/// | `status` | | network, pubky, listen, tip, wallet and Lightning balances, peers, provider |
/// | `stop` | | `stopping`, `pid`: the daemon shuts down as on SIGTERM once this is answered |
/// | `contacts.add` | `name`, `pubky`, `host`? and `port`? (none: resolved through pkarr), `replace`? | the contact (`node_pubky`, `address_from`), `note`?; `contact_conflict` when the pubky or name is saved otherwise |
/// | `contacts.rename` | `contact` (name or pubky), `name` | the contact, `old_name` |
/// | `contacts.list` | | `contacts` |
/// | `contacts.remove` | `contact` (name or pubky) | the removed contact |
/// | `wallet.balance` | | confirmed, unconfirmed, immature, total (after a sync) |
/// | `wallet.address` | | a fresh address |
/// | `wallet.send` | `address`, `amount_sat`, `fee_rate_sat_vb`?, `preview`?, `expected_fee_sat`? | txid (none when previewed), `fee_sat`, `vsize`, `fee_rate_sat_vb` |
/// | `offers` | `refresh`? | offers, and skipped contacts with reasons |
/// | `swaps` | `limit`? | swaps, newest first, with kind, amount, destination, state, fees; `payments` from savings |
/// | `swap.show` | `id` (or a unique prefix) | the swap's record and events |
/// | `swap.watch` | `id` (or a unique prefix) | progress lines per event and `waiting` heartbeats; the final state |
/// | `pay`, `swap-out`, `swap-in`, `quote`, `max`, `swap.claim`, `swap.refund` | see `SwapCommand`; `contract_type`?, `quote_id`? and `from`? (pay: `savings`, `spending`), `max_fee_sat`? (pay, swap-out) | the engine's |
/// | `recover` | `from_height`?, `gap_limit`?, `contract`? | swaps found on chain, the re-created one (docs/RECOVERY.md) |
///
/// The swap commands go to the engines; while none is wired they fail with
/// `not_available` and say so, never with a pretend result.
struct ControlDispatcher: ControlHandler {
    let services: NodeServices
    let engines: SwapEnginesBox
    /// Where peers reach this node (the bound address, with the real port).
    let listenAddress: String
    /// Asks the daemon to shut down (`peernode stop`), as SIGTERM does.
    let stop: @Sendable () -> Void

    static let commands = ["status", "stop", "contacts.add", "contacts.rename", "contacts.list", "contacts.remove", "wallet.balance",
                           "wallet.address", "wallet.send", "offers", "swaps", "swap.show", "swap.watch", "pay", "swap-out", "swap-in",
                           "quote", "max", "swap.claim", "swap.refund", "recover", "report"]

    func handle(_ request: ControlMessage.Request, progress: @escaping ControlProgress) async -> Result<JSONValue, ControlError> {
        let args = ControlArgs(command: request.command, value: request.args)
        do {
            return .success(try await run(request.command, args, progress: progress))
        } catch {
            return .failure(error)
        }
    }

    private func run(_ command: String, _ args: ControlArgs, progress: @escaping ControlProgress) async throws(ControlError) -> JSONValue {
        switch command {
        case "status": return await status()
        case "stop":
            // The shutdown closes the control socket first and waits for short commands
            // such as this one, so the reply goes out before the connection closes.
            stop()
            return .object(["stopping": .bool(true), "pid": .integer(Int64(getpid()))])
        case "contacts.add": return try await addContact(args)
        case "contacts.rename": return try await renameContact(args)
        case "contacts.list": return try await listContacts()
        case "contacts.remove": return try await removeContact(args)
        case "wallet.balance": return try await walletBalance()
        case "wallet.address": return await walletAddress()
        case "wallet.send": return try await walletSend(args)
        case "offers": return try await offers(args)
        case "swaps": return try await swaps(args)
        case "swap.show": return try await showSwap(args)
        case "report": return try await report(args)
        case "swap.watch": return try await watchSwap(args, progress: progress)
        case "pay":
            return try await swapCommand(.pay(contact: try args.string("contact"), amountSat: try args.amount("amount_sat"),
                                              options: try args.swapOptions(quote: true, from: true)), progress)
        case "swap-out":
            return try await swapCommand(.swapOut(amountSat: try args.amount("amount_sat"), address: try args.optionalString("address"),
                                                  options: try args.swapOptions(quote: false)), progress)
        case "swap-in":
            return try await swapCommand(.swapIn(amountSat: try args.amount("amount_sat"), options: try args.swapOptions(quote: false)),
                                         progress)
        case "quote":
            return try await swapCommand(.quote(amountSat: try args.amount("amount_sat"), contact: try args.optionalString("contact"),
                                                options: try args.swapOptions(quote: false, from: true)), progress)
        case "max":
            return try await swapCommand(.max(contact: try args.optionalString("contact"), options: try args.swapOptions(quote: false, from: true)),
                                         progress)
        case "swap.claim": return try await swapCommand(.claim(swapID: try await resolveSwapID(try args.string("id"))), progress)
        case "swap.refund": return try await swapCommand(.refund(swapID: try await resolveSwapID(try args.string("id"))), progress)
        case "recover": return try await recover(args)
        default: throw .unknownCommand(command)
        }
    }

    /// Arguments are checked first, so a typo is reported as such even without engines.
    private func swapCommand(_ command: SwapCommand, _ progress: @escaping ControlProgress) async throws(ControlError) -> JSONValue {
        guard let client = engines.current.client else {
            let which: String
            if case .refund = command { which = "the provider engine" } else { which = "the client engine" }
            throw .notAvailable("\(command.name) is not available: \(which) is not wired into this daemon yet")
        }
        // pay and swap-out may wait for blocks: a heartbeat says where the swap stands.
        switch command {
        case .pay, .swapOut, .swapIn:
            let heartbeat = SwapHeartbeat()
            let watched: ControlProgress = { line in
                heartbeat.see(line)
                await progress(line)
            }
            heartbeat.start(services: services, progress: progress)
            defer { heartbeat.stop() }
            return try await client.run(command, progress: watched)
        default:
            return try await client.run(command, progress: progress)
        }
    }
}

import Offers
import Transport

/// Asks one contact for the `onchain_to_ln` swaps it holds with this node: `SwapListRequest`
/// pages over one connection until the contact's `total` is read (at most `maximumPages`).
/// The answer is only read here; `SwapListRecovery` checks every entry before anything is
/// re-created.
struct SwapListFetcher: Sendable {
    static let maximumPages = 64

    /// Opens a connection to a contact (the daemon's `PeerDialer`; a memory stream in tests).
    typealias Connect = @Sendable (Offers.Contact) async throws -> PeerConnection

    let connect: Connect
    let timeoutMilliseconds: UInt64

    /// Why a contact gave no list.
    enum Failure: Error, Sendable, CustomStringConvertible {
        case unreachable(String)
        case noAnswer(String)
        /// A Reject: an older peer that does not know the request says `invalid_request`.
        case refused(RejectCode, String)
        case malformed(String)

        var description: String {
            switch self {
            case .unreachable(let why): return "unreachable: \(why)"
            case .noAnswer(let why): return "no answer: \(why)"
            case .refused(let code, let reason):
                return code == .invalidRequest ? "it does not list swaps (an older peer?): \(reason)"
                    : "refused (\(code.rawValue)): \(reason)"
            case .malformed(let why): return "an answer that does not read: \(why)"
            }
        }
    }

    func fetch(_ contact: Offers.Contact) async -> Result<[SwapListEntry], Failure> {
        let connection: PeerConnection
        do { connection = try await connect(contact) } catch { return .failure(.unreachable("\(error)")) }
        let result = await pages(over: connection)
        await connection.close()
        return result
    }

    private func pages(over connection: PeerConnection) async -> Result<[SwapListEntry], Failure> {
        var entries: [SwapListEntry] = []
        for _ in 0..<Self.maximumPages {
            let request = SwapListRequest(requestID: RandomID.make(), offset: entries.count)
            let reply: SwapMessage
            do {
                let bytes = try await connection.request(request.encoded, id: request.requestID,
                                                         timeoutMilliseconds: timeoutMilliseconds)
                reply = try SwapMessage(bytes: bytes)
            } catch let error as OffersError {
                return .failure(.malformed(error.description))
            } catch {
                return .failure(.noAnswer("\(error)"))
            }
            switch reply {
            case .swapList(let list) where list.requestID == request.requestID && list.offset == request.offset:
                entries += list.swaps
                if list.swaps.isEmpty || entries.count >= list.total { return .success(entries) }
            case .reject(let reject):
                return .failure(.refused(reject.code, reject.reason))
            default:
                return .failure(.malformed("not a SwapList answering the request"))
            }
        }
        return .success(entries)
    }
}

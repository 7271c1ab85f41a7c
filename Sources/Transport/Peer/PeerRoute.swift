/// Where an incoming message goes. Pure, so the rule is tested on its own:
///
/// 1. a `request_id` we are waiting on: the reply to that request;
/// 2. a `request_id` we recently gave up on: a late reply, dropped;
/// 3. any other `request_id`, when this side serves requests: a request for the handler;
/// 4. everything else (no `request_id`, or one we do not know and no request handler):
///    a push.
enum PeerRoute: Sendable, Equatable {
    case reply(requestID: String)
    case lateReply
    case request
    case push

    static func of(_ envelope: MessageEnvelope, isPending: (String) -> Bool, wasAbandoned: (String) -> Bool,
                   servesRequests: Bool) -> PeerRoute {
        guard let id = envelope.requestID else { return .push }
        if isPending(id) { return .reply(requestID: id) }
        if wasAbandoned(id) { return .lateReply }
        return servesRequests ? .request : .push
    }
}

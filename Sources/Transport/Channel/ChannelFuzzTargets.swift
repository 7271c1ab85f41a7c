/// The inputs a stranger controls, as libFuzzer entry points. A harness built with
/// `swiftc -sanitize=fuzzer` calls these from `LLVMFuzzerTestOneInput`; each must return
/// for any bytes, never crash, and never use memory beyond the configured limits.
public enum ChannelFuzzTargets {
    /// The frame decoder, with the chunking and the frame bound drawn from the data.
    public static func frameDecoder(_ data: [UInt8]) { FrameDecoder.fuzz(data) }
    /// A fresh responder's handshake input, as raw wire bytes and as a message-1 body.
    public static func responderHandshake(_ data: [UInt8]) { ChannelHandshake.fuzzResponder(data) }
    /// The JSON parser the peer layer runs on every message.
    public static func json(_ data: [UInt8]) { JSONParser.fuzz(data) }
}

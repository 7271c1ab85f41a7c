// libFuzzer harness for what a stranger can send a responder before the handshake ends:
// raw wire bytes (framing included) and a Noise message-1 body. Only forwards bytes.
import Transport

/// Called by libFuzzer once per input. A nil pointer can arrive with a zero count, so the
/// pointer is optional; the bytes are copied because the entry point takes an array.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResponderHandshake(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    ChannelFuzzTargets.responderHandshake(Array(UnsafeRawBufferPointer(start: start, count: count)))
    // libFuzzer reserves non-zero return values; a rejected input is just a normal run.
    return 0
}

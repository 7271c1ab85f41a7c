// libFuzzer harness for the channel's frame decoder (2-byte length + body).
// Only forwards bytes: the chunking, the bound and the checks live in the entry point,
// so the harness cannot drift from what the library promises.
import Transport

/// Called by libFuzzer once per input. A nil pointer can arrive with a zero count, so the
/// pointer is optional; the bytes are copied because the entry point takes an array.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameDecoder(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    ChannelFuzzTargets.frameDecoder(Array(UnsafeRawBufferPointer(start: start, count: count)))
    // libFuzzer reserves non-zero return values; a rejected input is just a normal run.
    return 0
}

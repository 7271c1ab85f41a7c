// libFuzzer harness for the JSON parser every peer message goes through after
// decryption. Only forwards bytes: the size and depth bounds live in the entry point.
import Transport

/// Called by libFuzzer once per input. A nil pointer can arrive with a zero count, so the
/// pointer is optional; the bytes are copied because the entry point takes an array.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    ChannelFuzzTargets.json(Array(UnsafeRawBufferPointer(start: start, count: count)))
    // libFuzzer reserves non-zero return values; a rejected input is just a normal run.
    return 0
}

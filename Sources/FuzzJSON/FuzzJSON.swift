import AreaWatchFuzzing

// The json fuzz target (docs/RELIABILITY.md): a libFuzzer binary when built by `make fuzz`, a
// replay tool in the normal build (`swift run FuzzJSON Fuzz/corpus/json`).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(.json, data, size)
}

@main
struct FuzzJSONMain {
    static func main() { FuzzDriver.main(.json, testOneInput: fuzzJSONTestOneInput) }
}

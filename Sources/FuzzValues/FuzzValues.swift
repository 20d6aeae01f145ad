import AreaWatchFuzzing

// The values fuzz target (docs/RELIABILITY.md): a libFuzzer binary when built by `make fuzz`, a
// replay tool in the normal build (`swift run FuzzValues Fuzz/corpus/values`).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValuesTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(.values, data, size)
}

@main
struct FuzzValuesMain {
    static func main() { FuzzDriver.main(.values, testOneInput: fuzzValuesTestOneInput) }
}

import AreaWatchFuzzing

// The csv fuzz target (docs/RELIABILITY.md): a libFuzzer binary when built by `make fuzz`, a
// replay tool in the normal build (`swift run FuzzCSV Fuzz/corpus/csv`).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSVTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(.csv, data, size)
}

@main
struct FuzzCSVMain {
    static func main() { FuzzDriver.main(.csv, testOneInput: fuzzCSVTestOneInput) }
}

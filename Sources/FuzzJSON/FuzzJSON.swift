import AreaWatchFuzzing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The json fuzz target. Built with `-sanitize=fuzzer -DFUZZING` (`make fuzz`) it is a libFuzzer
// binary; in the normal build it replays the files and folders given as arguments through the
// same invariants (`swift run FuzzJSON Fuzz/corpus/json`).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(.json, data, size)
}

#if FUZZING
// SwiftPM links an executable's entry point as `main`, so libFuzzer's own `main` is not used:
// the Swift entry point hands control to libFuzzer's driver instead.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@main
struct FuzzJSONMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzJSONTestOneInput))
    }
}
#else
@main
struct FuzzJSONMain {
    static func main() {
        exit(FuzzDriver.replay(.json, arguments: Array(CommandLine.arguments.dropFirst())))
    }
}
#endif

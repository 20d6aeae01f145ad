import AreaWatchFuzzing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The values fuzz target. Built with `-sanitize=fuzzer -DFUZZING` (`make fuzz`) it is a libFuzzer
// binary; in the normal build it replays the files and folders given as arguments through the
// same invariants (`swift run FuzzValues Fuzz/corpus/values`).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValuesTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.testOneInput(.values, data, size)
}

#if FUZZING
// SwiftPM links an executable's entry point as `main`, so libFuzzer's own `main` is not used:
// the Swift entry point hands control to libFuzzer's driver instead.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@main
struct FuzzValuesMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzValuesTestOneInput))
    }
}
#else
@main
struct FuzzValuesMain {
    static func main() {
        exit(FuzzDriver.replay(.values, arguments: Array(CommandLine.arguments.dropFirst())))
    }
}
#endif

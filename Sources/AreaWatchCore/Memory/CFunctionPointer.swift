/// The two bit-level conversions C interop needs that Swift offers only as `unsafeBitCast`, kept
/// here so that no other file reinterprets bits: a symbol from `dlsym` as the C function type it
/// is declared with, and an integer constant that a C API defines as a function pointer
/// (SQLite's `SQLITE_TRANSIENT` is the destructor "pointer" -1).
public enum CFunctionPointer {
    /// `symbol` as the C function type `type`; the caller vouches that the library declares the
    /// symbol with this signature (nothing at run time can check it).
    public static func function<F>(at symbol: UnsafeMutableRawPointer, as type: F.Type) -> F {
        precondition(
            MemoryLayout<F>.size == MemoryLayout<UnsafeMutableRawPointer>.size,
            "not a C function pointer type")
        return unsafeBitCast(symbol, to: F.self)
    }

    /// The function pointer type `type` holding the integer `value`: a marker the C library
    /// compares against, never called.
    public static func marker<F>(_ value: Int, as type: F.Type) -> F {
        precondition(MemoryLayout<F>.size == MemoryLayout<Int>.size, "not a C function pointer type")
        return unsafeBitCast(value, to: F.self)
    }
}

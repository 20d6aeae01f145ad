#if canImport(Glibc)
import Glibc
#endif

/// The cores this process may use: the default number of worker threads.
public enum ProcessorCount {
    public static var online: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

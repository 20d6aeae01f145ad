import Glibc

/// Seconds on a clock that only moves forward (CLOCK_MONOTONIC), for timing stages: the one
/// clock of every timing in areawatch (wall-clock time is `UTCTime`).
public enum MonotonicClock {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// CPU seconds of the calling thread: one-core work measured on a busy machine.
    public static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The process's peak resident memory so far (Linux `ru_maxrss`), in bytes.
public enum PeakMemory {
    public static var bytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}

/// Whether a process id names a running process: leftovers named after a process (`.tmp-PID`)
/// are only removed once it has ended. A process of another user answers EPERM and is alive.
public enum ProcessLiveness {
    public static func isAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno != ESRCH
    }
}

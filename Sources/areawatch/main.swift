import ArgumentParser
import AreaWatchJobs
import CAreaWatchSystem
#if canImport(Glibc)
import Glibc
#endif

/// Entry point: runs the command and maps every failure to a SPEC §11 exit status with a
/// one-line message on stderr (ArgumentParser's own usage errors become status 1).
func runMain() -> Int32 {
    do {
        var command = try AreaWatch.parseAsRoot()
        try command.run()
        return 0
    } catch let error as JobError {
        if !error.message.isEmpty { writeError("areawatch: \(error.message)\n") }
        return error.status.rawValue
    } catch {
        let code = AreaWatch.exitCode(for: error)
        if code == .success {
            print(AreaWatch.fullMessage(for: error))
            return 0
        }
        if let status = error as? ExitCode { return status.rawValue }
        if code == .validationFailure {
            writeError(AreaWatch.fullMessage(for: error) + "\n")
            return ExitStatus.usage.rawValue
        }
        let mapped = JobError.from(error)
        writeError("areawatch: \(mapped.message)\n")
        return mapped.status.rawValue
    }
}

func writeError(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

// Before any large allocation: the whole process reuses freed memory (see the function).
aw_malloc_reuse_freed_memory()
exit(runMain())

import AreaWatchCore
import AreaWatchJobs
import ArgumentParser
import CAreaWatchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Entry point: runs the command and maps every failure to a SPEC §11 exit status with a
/// one-line message on stderr (ArgumentParser's own usage errors become status 1).
///
/// Messages quote values from the arguments, the config and the inputs (paths, zone names,
/// column names, ArgumentParser's "the value '…' is invalid"): every one is written through
/// `TerminalText`, so an escape sequence in a value is shown, never obeyed by the terminal.
func runMain() -> Int32 {
    do {
        var command = try AreaWatch.parseAsRoot()
        try command.run()
        return 0
    } catch let error as JobError {
        if !error.message.isEmpty { writeError("areawatch: \(escapedLines(error.message))\n") }
        return error.status.rawValue
    } catch {
        let code = AreaWatch.exitCode(for: error)
        if code == .success {
            print(HelpExamples.appended(to: AreaWatch.fullMessage(for: error), arguments: CommandLine.arguments))
            return 0
        }
        if let status = error as? ExitCode { return status.rawValue }
        if code == .validationFailure {
            writeError(TerminalText.escaped(AreaWatch.fullMessage(for: error), keepingNewlines: true) + "\n")
            return ExitStatus.usage.rawValue
        }
        let mapped = JobError.from(error)
        writeError("areawatch: \(escapedLines(mapped.message))\n")
        return mapped.status.rawValue
    }
}

/// A job's message, escaped; several failures come as lines joined by `\nareawatch: ` (the
/// only line breaks kept: one inside a value is shown as `\u{A}`).
func escapedLines(_ message: String) -> String {
    let separator = "\nareawatch: "
    return message.split(separator: separator, omittingEmptySubsequences: false)
        .map { TerminalText.escaped(String($0)) }.joined(separator: separator)
}

func writeError(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

// Before any large allocation: the whole process reuses freed memory (see the function).
aw_malloc_reuse_freed_memory()
exit(runMain())

import AreaWatchTestSupport
import Foundation
import Testing

/// A new user's first commands: every command's `--help` ends with examples, and the examples
/// are real — their options are the command's own, and those that read the bundled datasets run
/// as written (globs expanded as a shell would) from a folder laid out like the repository.
@Suite("getting started: help examples", .timeLimit(.minutes(60)))
struct GettingStartedTests {
    static let commands = ["ingest", "stats", "query", "report", "lookup", "serve", "run", "check", "benchmark"]

    /// The EXAMPLES section at the end of a help text: one example per line.
    static func examples(_ help: String) -> [String] {
        guard let range = help.range(of: "\nEXAMPLES:\n") else { return [] }
        return help[range.upperBound...].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The words of an example as a shell splits them (single quotes only, as the examples use).
    static func words(_ line: String) -> [String] {
        var words: [String] = [], word = "", quoted = false, started = false
        for c in line {
            if c == "'" {
                quoted.toggle()
                started = true
            } else if c == " " && !quoted {
                if started { words.append(word) }
                word = ""
                started = false
            } else {
                word.append(c)
                started = true
            }
        }
        if started { words.append(word) }
        return words
    }

    @Test(
        "each command's --help ends with two or three examples of that command, using its own options",
        arguments: [""] + commands)
    func helpEndsWithExamples(_ command: String) throws {
        let r = try areawatch(command.isEmpty ? ["--help"] : [command, "--help"])
        #expect(r.status == 0, "\(r)")
        let examples = Self.examples(r.stdout)
        #expect(!examples.isEmpty && examples.count <= 3, "\(command) --help: \(r.stdout)")
        let lastLine = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(examples.last == lastLine.trimmingCharacters(in: .whitespaces), "examples are not last")
        for example in examples where example.hasPrefix("areawatch ") {
            let w = Self.words(example)
            let sub = command.isEmpty ? w[1] : command
            #expect(command.isEmpty || w[1] == command, "\(command) --help shows another command: \(example)")
            let help = command.isEmpty ? try areawatch([sub, "--help"]).stdout : r.stdout
            for option in w.dropFirst(2) where option.hasPrefix("--") {
                #expect(help.contains(option), "\(example): \(option) is not an option of \(sub)")
            }
        }
        // `help report` and `report --help` are the same text.
        if !command.isEmpty {
            let viaHelp = try areawatch(["help", command])
            #expect(Self.examples(viaHelp.stdout) == examples, "\(viaHelp)")
        }
    }

    @Test("the examples of ingest, stats, query, report, lookup and check run as written on the bundled data")
    func examplesRun() throws {
        let tmp = try TempDir()
        try FileManager.default.createSymbolicLink(
            atPath: tmp.sub("datasets"), withDestinationPath: packageRoot + "/datasets")
        // The report the lookup examples read: the bundled job's, where `make run` puts it.
        let bundled = try BundledRun.get()
        try tmp.folder("reports")
        try copyItem(bundled.out, tmp.sub("reports/calderdale"))
        try copyItem(bundled.store, tmp.sub("reports/areawatch.db"))
        var ran = 0
        for command in ["ingest", "stats", "query", "report", "lookup", "check"] {
            for example in Self.examples(try areawatch([command, "--help"]).stdout) {
                let arguments = try Self.words(example).dropFirst().flatMap { word -> [String] in
                    guard word.contains("*") else { return [word] }
                    let folder = (word as NSString).deletingLastPathComponent
                    let pattern = (word as NSString).lastPathComponent
                    return try FileManager.default.contentsOfDirectory(atPath: tmp.sub(folder))
                        .filter { fnmatch(pattern, $0, 0) == 0 }.sorted().map { folder + "/" + $0 }
                }
                let r = try areawatch(Array(arguments), cwd: tmp.path, timeout: 170)
                #expect(r.status == 0, "\(example): \(r)")
                ran += 1
            }
        }
        #expect(ran >= 12, "only \(ran) examples ran")
    }

    @Test("shell completions are generated for bash, zsh and fish and name every command")
    func completions() throws {
        for shell in ["bash", "zsh", "fish"] {
            let r = try areawatch(["--generate-completion-script", shell])
            #expect(r.status == 0, "\(r)")
            // `benchmark` is a hidden command (its help still has examples).
            for command in Self.commands where command != "benchmark" {
                #expect(r.stdout.contains(command), "\(shell) completions lack \(command)")
            }
        }
    }
}

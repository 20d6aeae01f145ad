import AreaWatchIngest
import AreaWatchReport
import AreaWatchStore

/// Exit statuses of SPEC §11.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    case usage = 1
    /// Input or store error: nothing of the failing file changed.
    case inputOrStore = 2
    /// Completed, but the share of rejects exceeded `--max-reject-rate`.
    case rejectRateExceeded = 3
    /// Another run holds the store's lock.
    case locked = 4
}

/// A failure the CLI turns into a one-line message and an exit status.
public struct JobError: Error, Sendable, CustomStringConvertible {
    public let status: ExitStatus
    public let message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }

    /// Maps the errors of the lower layers to exit statuses.
    public static func from(_ error: any Error) -> JobError {
        switch error {
        case let e as JobError: return e
        case let e as InputError: return JobError(e.isUsage ? .usage : .inputOrStore, e.description)
        case let e as StoreError: return JobError(.inputOrStore, e.description)
        case let e as ReportError: return JobError(.inputOrStore, e.description)
        case let e as ReportFolderRefused: return JobError(.usage, e.description)
        default: return JobError(.inputOrStore, String(describing: error))
        }
    }
}

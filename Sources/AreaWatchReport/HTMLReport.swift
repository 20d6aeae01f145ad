import AreaWatchCore
import AreaWatchQuery

/// report.html (SPEC §8): one self-contained page for analysts.
enum HTMLReport {
    static func render(_ content: ReportContent) -> String {
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>areawatch report</title></head><body><h1>areawatch report</h1></body></html>\n"
    }
}

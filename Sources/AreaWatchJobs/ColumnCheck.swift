import AreaWatchIngest

/// `--column` mappings checked against the files before an ingest stores anything (SPEC §2.3):
/// a mapping to a CSV column the header lacks is a usage error naming the column and the
/// closest one, not a file of new incidents keyed without their ids. JSON has no header: its
/// mappings are checked when its records have been read (nothing of that file is kept).
public enum ColumnCheck {
    public static func headers(of files: [String], reading: ReadingSettings) throws {
        let options = reading.ingestOptions.reader
        guard !options.columns.names.isEmpty else { return }
        for path in files {
            do {
                try FileIngester.checkColumnMappings(path: path, options: options)
            } catch {
                throw JobError(.usage, error.description)
            }
        }
    }
}

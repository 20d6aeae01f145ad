/// How many records a file holds, guessed from its size on disk before it is read.
public enum RecordEstimate {
    /// Bytes a record takes in typical CSV exports, a guess on the small side: for reserving
    /// table space, where over-guessing only costs capacity.
    public static let typicalRecordBytes: Int64 = 80
    /// A guess on the large side (JSON exports run longer): for choosing a bulk load, which
    /// should only be chosen for a file that is surely big.
    public static let largeRecordBytes: Int64 = 150
    /// Gzip shrinks exports about 6×.
    static let gzipExpansion: Int64 = 6

    /// Records in a file of `fileBytes` on disk (compressed when its name ends in `.gz`).
    public static func records(fileBytes: Int64, path: String, bytesPerRecord: Int64) -> Int {
        Int(fileBytes * (path.hasSuffix(".gz") ? gzipExpansion : 1) / bytesPerRecord)
    }
}

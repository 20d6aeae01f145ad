/// RFC 4180 field quoting shared by every CSV writer.
public enum CSVText {
    /// Appends one field, quoted only when it holds a comma, quote, CR or LF, or starts or ends
    /// with a space (so spreadsheets keep it as written).
    public static func appendField(_ s: String, to out: inout [UInt8]) {
        var copy = s
        copy.withUTF8 { appendField($0, to: &out) }
    }

    public static func appendField(_ s: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var needsQuotes = false
        if let first = s.first, let last = s.last, first == 32 || last == 32 { needsQuotes = true }
        if !needsQuotes {
            for b in s where b == 44 || b == 34 || b == 10 || b == 13 {
                needsQuotes = true
                break
            }
        }
        guard needsQuotes else {
            out.append(contentsOf: s)
            return
        }
        out.append(34)
        for b in s {
            if b == 34 { out.append(34) }
            out.append(b)
        }
        out.append(34)
    }

    /// A text cell made safe for spreadsheets (SPEC §8, the OWASP CSV-injection rule): text that
    /// begins with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`, so a spreadsheet shows it
    /// as text instead of evaluating it as a formula. Only for text columns (names, categories,
    /// attribute values, reject locators): numeric columns are written as they are.
    public static func spreadsheetSafe(_ s: String) -> String {
        guard let first = s.utf8.first, startsFormula(first) else { return s }
        return "'" + s
    }

    @inline(__always)
    static func startsFormula(_ byte: UInt8) -> Bool {
        byte == 61 || byte == 43 || byte == 45 || byte == 64 || byte == 9 || byte == 13
    }

    /// Appends a text field made spreadsheet-safe (see `spreadsheetSafe`), then quoted as needed.
    public static func appendTextField(_ s: String, to out: inout [UInt8]) {
        appendField(spreadsheetSafe(s), to: &out)
    }

    /// One CSV line (CRLF-free: LF line ends, as GDAL, QGIS and spreadsheets all accept).
    public static func line(_ fields: [String]) -> String {
        var out: [UInt8] = []
        for (i, f) in fields.enumerated() {
            if i > 0 { out.append(44) }
            appendField(f, to: &out)
        }
        out.append(10)
        return String(decoding: out, as: UTF8.self)
    }
}

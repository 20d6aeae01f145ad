/// RFC 4180 field quoting shared by every CSV writer.
public enum CSVText {
    /// Appends one field, quoted only when it holds a comma, quote, CR or LF, or starts or ends
    /// with a space (so spreadsheets keep it as written).
    public static func appendField(_ s: String, to out: inout [UInt8]) {
        appendField(s.utf8.span, to: &out)
    }

    public static func appendField(_ s: Span<UInt8>, to out: inout [UInt8]) {
        let n = s.count
        var needsQuotes = n > 0 && (s[unchecked: 0] == 32 || s[unchecked: n - 1] == 32)
        if !needsQuotes {
            for i in 0..<n {
                let b = s[unchecked: i]
                if b == 44 || b == 34 || b == 10 || b == 13 {
                    needsQuotes = true
                    break
                }
            }
        }
        guard needsQuotes else {
            out.append(span: s)
            return
        }
        out.append(34)
        for i in 0..<n {
            let b = s[unchecked: i]
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

/// The ASCII bytes that structure CSV and JSON, by name, so that no parser or writer spells a
/// character as a number (letters and digits stay `UInt8(ascii:)`). Inlinable: a constant in
/// every module's hot loops.
public enum ASCII {
    @inlinable public static var tab: UInt8 { 9 }
    @inlinable public static var lf: UInt8 { 10 }
    @inlinable public static var cr: UInt8 { 13 }
    @inlinable public static var space: UInt8 { 32 }
    @inlinable public static var quote: UInt8 { 34 }
    @inlinable public static var comma: UInt8 { 44 }
    @inlinable public static var colon: UInt8 { 58 }
    @inlinable public static var semicolon: UInt8 { 59 }
    @inlinable public static var openBracket: UInt8 { 91 }
    @inlinable public static var backslash: UInt8 { 92 }
    @inlinable public static var closeBracket: UInt8 { 93 }
    @inlinable public static var openBrace: UInt8 { 123 }
    @inlinable public static var closeBrace: UInt8 { 125 }
}

/// An 8-bit RGB colour, for drawing on `RGBImage`.
public struct RGB: Equatable, Hashable, Sendable {
    /// Red.
    public var r: UInt8
    /// Green.
    public var g: UInt8
    /// Blue.
    public var b: UInt8

    /// A colour from its three channels.
    public init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// A neutral gray with all channels equal to `gray`.
    public init(gray: UInt8) { self.init(r: gray, g: gray, b: gray) }

    /// (0, 0, 0).
    public static let black = RGB(r: 0, g: 0, b: 0)
    /// (255, 255, 255).
    public static let white = RGB(r: 255, g: 255, b: 255)
    /// (128, 128, 128).
    public static let gray = RGB(r: 128, g: 128, b: 128)
    /// (255, 0, 0).
    public static let red = RGB(r: 255, g: 0, b: 0)
    /// (0, 255, 0).
    public static let green = RGB(r: 0, g: 255, b: 0)
    /// (0, 0, 255).
    public static let blue = RGB(r: 0, g: 0, b: 255)
    /// (255, 255, 0).
    public static let yellow = RGB(r: 255, g: 255, b: 0)
    /// (0, 255, 255).
    public static let cyan = RGB(r: 0, g: 255, b: 255)
    /// (255, 0, 255).
    public static let magenta = RGB(r: 255, g: 0, b: 255)
    /// (255, 165, 0).
    public static let orange = RGB(r: 255, g: 165, b: 0)
}

/// The fixed tables of baseline JPEG (ITU-T T.81): zigzag order and the example quantization tables
/// of Annex K.1, scaled by quality the way the IJG library popularized (quality 50 = the Annex tables).
enum JPEGTables {
    /// `zigzag[i]` is the natural (row-major) index of the i-th coefficient in zigzag order (T.81 Figure A.6).
    static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    /// Annex K.1, Table K.1 (luminance), natural order.
    static let luminance: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61,
        12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77,
        24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101,
        72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// Annex K.1, Table K.2 (chrominance), natural order.
    static let chrominance: [Int] = [
        17, 18, 24, 47, 99, 99, 99, 99,
        18, 21, 26, 66, 99, 99, 99, 99,
        24, 26, 56, 99, 99, 99, 99, 99,
        47, 66, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
    ]

    /// A table scaled for `quality` (clamped to 1–100): the scale is 5000/q below 50 and 200 − 2q from
    /// 50 on, in percent; entries are rounded and clamped to 1–255 (8-bit baseline tables).
    static func scaled(_ base: [Int], quality: Int) -> [Int] {
        let q = min(max(quality, 1), 100)
        let scale = q < 50 ? 5000 / q : 200 - 2 * q
        return base.map { min(max(($0 * scale + 50) / 100, 1), 255) }
    }
}

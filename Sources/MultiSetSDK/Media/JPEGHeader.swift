/// The marker segments before the entropy-coded data: SOI, APP0 (JFIF 1.01), DQT, SOF0, DHT, SOS.
struct JPEGHeader {
    private(set) var bytes: [UInt8] = [0xFF, 0xD8]
    private let width: Int, height: Int, halvedChroma: Bool

    init(width: Int, height: Int, halvedChroma: Bool) {
        self.width = width
        self.height = height
        self.halvedChroma = halvedChroma
        // APP0: "JFIF\0", version 1.01, no units, 1:1 density, no thumbnail.
        segment(0xE0, [0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00])
    }

    private mutating func segment(_ marker: UInt8, _ payload: [UInt8]) {
        let length = payload.count + 2
        bytes += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)]
        bytes += payload
    }

    /// DQT with table 0 (luma) and 1 (chroma), entries in zigzag order; then SOF0.
    mutating func quantization(luma: [Int], chroma: [Int]) {
        var payload: [UInt8] = [0x00]
        payload += JPEGTables.zigzag.map { UInt8(luma[$0]) }
        payload.append(0x01)
        payload += JPEGTables.zigzag.map { UInt8(chroma[$0]) }
        segment(0xDB, payload)
        let sampling: UInt8 = halvedChroma ? 0x22 : 0x11
        segment(
            0xC0,
            [
                8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3,
                1, sampling, 0, 2, 0x11, 1, 3, 0x11, 1,
            ])
    }

    /// DHT with the four tables (luma DC/AC as 0, chroma DC/AC as 1).
    mutating func huffman(_ tables: [JPEGHuffmanTable]) {
        var payload: [UInt8] = []
        for (index, classAndID) in [UInt8(0x00), 0x10, 0x01, 0x11].enumerated() {
            payload.append(classAndID)
            payload += tables[index].counts
            payload += tables[index].symbols
        }
        segment(0xC4, payload)
    }

    /// DRI: MCUs between restart markers.
    mutating func restartInterval(_ mcus: Int) {
        segment(0xDD, [UInt8(mcus >> 8), UInt8(mcus & 0xFF)])
    }

    /// SOS: the three components interleaved, full spectral range, no successive approximation.
    mutating func startOfScan() {
        segment(0xDA, [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0])
    }
}

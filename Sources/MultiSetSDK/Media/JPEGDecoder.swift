import Foundation

/// A baseline JPEG decoder in pure Swift (ITU-T T.81 sequential DCT, 8-bit, Huffman coding, any
/// sampling factors, restart intervals): what the SDK uses to turn a camera's JPEG upright when no
/// platform codec is injected. Progressive, arithmetic-coded, 12-bit and CMYK files are refused.
///
/// Chroma is upsampled by replication; colour uses the JFIF (full-range BT.601) equations.
public struct JPEGDecoder: Sendable {
    /// Why a file was refused.
    public enum Failure: Error, Sendable, Equatable {
        /// Not a JPEG, truncated, or inconsistent.
        case corrupt(String)
        /// A valid JPEG this decoder does not handle (progressive, arithmetic, 12-bit, CMYK).
        case unsupported(String)
    }

    /// The largest side decoded (larger images are refused before allocating).
    public var maxSide: Int

    /// A decoder.
    public init(maxSide: Int = 8192) { self.maxSide = maxSide }

    /// Decodes a file into packed RGB (3 bytes a pixel, row-major).
    ///
    /// - Returns: the pixels and the size.
    /// - Throws: ``Failure``.
    public func decode(_ data: Data) throws(Failure) -> (rgb: [UInt8], width: Int, height: Int) {
        var state = JPEGDecodeState(bytes: [UInt8](data), maxSide: maxSide)
        return try state.run()
    }
}

/// One component of a frame (SOF) and its decoded samples.
private struct JPEGComponent {
    var id: UInt8
    var h: Int, v: Int
    var quantTable: Int
    var dcTable = 0, acTable = 0
    var previousDC = 0
    /// Samples, `stride × rows` (whole blocks of whole MCUs).
    var samples: [UInt8] = []
    var stride = 0
}

private struct JPEGDecodeState {
    let bytes: [UInt8]
    let maxSide: Int
    var position = 0
    var quant = [[Float]](repeating: [Float](repeating: 1, count: 64), count: 4)
    var dcTables = [JPEGHuffmanDecoder?](repeating: nil, count: 4)
    var acTables = [JPEGHuffmanDecoder?](repeating: nil, count: 4)
    var components: [JPEGComponent] = []
    var width = 0, height = 0
    var restartInterval = 0
    var sawFrame = false, sawScan = false

    init(bytes: [UInt8], maxSide: Int) {
        self.bytes = bytes
        self.maxSide = maxSide
    }

    mutating func u8() throws(JPEGDecoder.Failure) -> Int {
        guard position < bytes.count else { throw .corrupt("truncated") }
        defer { position += 1 }
        return Int(bytes[position])
    }

    mutating func u16() throws(JPEGDecoder.Failure) -> Int { try u8() << 8 | u8() }

    mutating func run() throws(JPEGDecoder.Failure) -> (rgb: [UInt8], width: Int, height: Int) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw .corrupt("no SOI marker") }
        position = 2
        while true {
            guard try u8() == 0xFF else { throw .corrupt("marker expected at \(position - 1)") }
            var marker = try u8()
            while marker == 0xFF { marker = try u8() }
            switch marker {
            case 0xD9:
                guard sawScan else { throw .corrupt("no scan") }
                return colour()
            case 0xD0...0xD7, 0x01: continue
            case 0xC0, 0xC1: try frame()
            case 0xC2, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                throw .unsupported("SOF\(marker - 0xC0) (only baseline and extended sequential Huffman)")
            case 0xC4: try huffman()
            case 0xDB: try quantization()
            case 0xDD:
                _ = try u16()
                restartInterval = try u16()
            case 0xDA: try scan()
            default:
                let length = try u16()
                guard length >= 2, position + length - 2 <= bytes.count else { throw .corrupt("segment length") }
                position += length - 2
            }
        }
    }

    mutating func frame() throws(JPEGDecoder.Failure) {
        _ = try u16()
        guard try u8() == 8 else { throw .unsupported("sample precision other than 8 bits") }
        height = try u16()
        width = try u16()
        let n = try u8()
        guard width > 0, height > 0 else { throw .corrupt("image size") }
        guard width <= maxSide, height <= maxSide else { throw .unsupported("image larger than \(maxSide) px") }
        guard n == 1 || n == 3 else { throw .unsupported("\(n) components") }
        components = []
        for _ in 0..<n {
            let id = UInt8(try u8())
            let hv = try u8()
            let tq = try u8()
            guard (1...4).contains(hv >> 4), (1...4).contains(hv & 15), tq < 4 else { throw .corrupt("component") }
            components.append(JPEGComponent(id: id, h: hv >> 4, v: hv & 15, quantTable: tq))
        }
        let hMax = components.map(\.h).max()!, vMax = components.map(\.v).max()!
        let mcusX = (width + 8 * hMax - 1) / (8 * hMax), mcusY = (height + 8 * vMax - 1) / (8 * vMax)
        for i in components.indices {
            components[i].stride = mcusX * components[i].h * 8
            components[i].samples = [UInt8](repeating: 0, count: components[i].stride * mcusY * components[i].v * 8)
        }
        sawFrame = true
    }

    mutating func quantization() throws(JPEGDecoder.Failure) {
        let length = try u16()
        let end = position + length - 2
        while position < end {
            let pq = try u8()
            let id = pq & 15
            guard id < 4 else { throw .corrupt("DQT table id") }
            var table = [Float](repeating: 1, count: 64)
            for k in 0..<64 { table[JPEGTables.zigzag[k]] = Float(pq >> 4 == 0 ? try u8() : try u16()) }
            quant[id] = table
        }
        guard position == end else { throw .corrupt("DQT length") }
    }

    mutating func huffman() throws(JPEGDecoder.Failure) {
        let length = try u16()
        let end = position + length - 2
        while position < end {
            let tc = try u8()
            guard tc & 15 < 4, tc >> 4 < 2 else { throw .corrupt("DHT table id") }
            var counts: [UInt8] = []
            for _ in 0..<16 { counts.append(UInt8(try u8())) }
            let total = counts.reduce(0) { $0 + Int($1) }
            guard position + total <= bytes.count else { throw .corrupt("truncated") }
            let values = Array(bytes[position..<(position + total)])
            position += total
            guard let table = JPEGHuffmanDecoder(counts: counts, values: values) else { throw .corrupt("DHT codes") }
            if tc >> 4 == 0 { dcTables[tc & 15] = table } else { acTables[tc & 15] = table }
        }
        guard position == end else { throw .corrupt("DHT length") }
    }

    mutating func scan() throws(JPEGDecoder.Failure) {
        guard sawFrame else { throw .corrupt("scan before frame") }
        _ = try u16()
        let n = try u8()
        var members: [Int] = []
        for _ in 0..<n {
            let id = UInt8(try u8())
            let tables = try u8()
            guard let index = components.firstIndex(where: { $0.id == id }) else { throw .corrupt("scan component") }
            components[index].dcTable = tables >> 4 & 3
            components[index].acTable = tables & 3
            components[index].previousDC = 0
            members.append(index)
        }
        let ss = try u8(), se = try u8(), a = try u8()
        guard ss == 0, se == 63, a == 0 else { throw .unsupported("spectral selection or successive approximation") }
        guard !members.isEmpty else { throw .corrupt("empty scan") }
        try decodeScan(members)
        sawScan = true
    }

    mutating func decodeScan(_ members: [Int]) throws(JPEGDecoder.Failure) {
        let hMax = components.map(\.h).max()!, vMax = components.map(\.v).max()!
        let idct = InverseDCT()
        var reader = JPEGBitReader(bytes: bytes, position: position)
        var coefficients = [Float](repeating: 0, count: 64)
        let single = members.count == 1
        // A non-interleaved scan covers the component's own blocks; an interleaved one whole MCUs.
        let c0 = components[members[0]]
        let unitsX = single ? (width * c0.h + 8 * hMax - 1) / (8 * hMax) : (width + 8 * hMax - 1) / (8 * hMax)
        let unitsY = single ? (height * c0.v + 8 * vMax - 1) / (8 * vMax) : (height + 8 * vMax - 1) / (8 * vMax)
        var untilRestart = restartInterval
        for uy in 0..<unitsY {
            for ux in 0..<unitsX {
                if restartInterval > 0 {
                    if untilRestart == 0 {
                        guard reader.restart() else { throw .corrupt("restart marker missing") }
                        for m in members { components[m].previousDC = 0 }
                        untilRestart = restartInterval
                    }
                    untilRestart -= 1
                }
                for m in members {
                    let (bh, bv) = single ? (1, 1) : (components[m].h, components[m].v)
                    for by in 0..<bv {
                        for bx in 0..<bh {
                            try decodeBlock(m, &reader, &coefficients)
                            let x = (single ? ux : ux * components[m].h + bx) * 8
                            let y = (single ? uy : uy * components[m].v + by) * 8
                            let stride = components[m].stride
                            guard (y + 8) * stride <= components[m].samples.count, x + 8 <= stride else { continue }
                            coefficients.withUnsafeBufferPointer { c in
                                components[m].samples.withUnsafeMutableBufferPointer { s in
                                    idct.transform(
                                        c.baseAddress!, into: s.baseAddress! + y * stride + x, stride: stride)
                                }
                            }
                        }
                    }
                }
            }
        }
        position = reader.endOfScan()
    }

    mutating func decodeBlock(
        _ m: Int, _ reader: inout JPEGBitReader, _ out: inout [Float]
    ) throws(JPEGDecoder.Failure) {
        let component = components[m]
        guard let dc = dcTables[component.dcTable], let ac = acTables[component.acTable] else {
            throw .corrupt("missing Huffman table")
        }
        let q = quant[component.quantTable]
        for k in 0..<64 { out[k] = 0 }
        guard let t = dc.decode(&reader), t <= 11 else { throw .corrupt("bad DC code") }
        let value = components[m].previousDC + reader.signed(Int(t))
        components[m].previousDC = value
        out[0] = Float(value) * q[0]
        var k = 1
        while k < 64 {
            guard let rs = ac.decode(&reader) else { throw .corrupt("bad AC code") }
            let r = Int(rs >> 4), s = Int(rs & 15)
            if s == 0 {
                if r != 15 { break }
                k += 16
                continue
            }
            k += r
            guard k < 64 else { throw .corrupt("AC run past the block") }
            let natural = JPEGTables.zigzag[k]
            out[natural] = Float(reader.signed(s)) * q[natural]
            k += 1
        }
    }

    /// Upsamples chroma by replication and converts to RGB.
    func colour() -> (rgb: [UInt8], width: Int, height: Int) {
        let hMax = components.map(\.h).max()!, vMax = components.map(\.v).max()!
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let y = components[0]
        if components.count == 1 {
            for row in 0..<height {
                for col in 0..<width {
                    let v = y.samples[row * y.stride + col]
                    let o = (row * width + col) * 3
                    (rgb[o], rgb[o + 1], rgb[o + 2]) = (v, v, v)
                }
            }
            return (rgb, width, height)
        }
        let cb = components[1], cr = components[2]
        func clamp(_ v: Float) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
        for row in 0..<height {
            let yRow = row * y.v / vMax, bRow = row * cb.v / vMax, rRow = row * cr.v / vMax
            for col in 0..<width {
                let l = Float(y.samples[yRow * y.stride + col * y.h / hMax])
                let b = Float(cb.samples[bRow * cb.stride + col * cb.h / hMax]) - 128
                let r = Float(cr.samples[rRow * cr.stride + col * cr.h / hMax]) - 128
                let o = (row * width + col) * 3
                rgb[o] = clamp(l + 1.402 * r)
                rgb[o + 1] = clamp(l - 0.344_136 * b - 0.714_136 * r)
                rgb[o + 2] = clamp(l + 1.772 * b)
            }
        }
        return (rgb, width, height)
    }
}
